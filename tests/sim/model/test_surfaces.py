"""Surface torques (sim.world.surfaces): the flat plate, the sphere and the offset cube in closed form."""

import math

import numpy as np
import pytest
import trimesh  # a dependency of the project: a broken install fails, it does not skip

from sim.model.shape import load
from sim.world.surfaces import (ASTRONOMICAL_UNIT, EARTH_ROTATION_RATE, SOLAR_PRESSURE, drag, facets,
                                relative_velocity, srp)

P = SOLAR_PRESSURE
RNG = np.random.default_rng(5)


def plate(side=2.0, centre=(0.0, 0.0, 0.0), **coeffs):
    """A square plate of side ``side`` in the x-y plane, normal +z, two triangles, centred at ``centre``."""
    h = side / 2
    v = np.array([[-h, -h, 0], [h, -h, 0], [h, h, 0], [-h, h, 0]], float) + centre
    return facets(v, [[0, 1, 2], [0, 2, 3]], **coeffs)


def sun_at(theta):
    """The unit vector to the Sun at incidence ``theta`` from the plate's normal +z, in the x-z plane."""
    return (math.sin(theta), 0.0, math.cos(theta))


@pytest.mark.parametrize("theta_deg", [0.0, 30.0, 60.0, 89.0])
@pytest.mark.parametrize("ra, rs, rd", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0.3, 0.5, 0.2)])
def test_flat_plate_force_at_incidence_theta(theta_deg, ra, rs, rd):
    """Normal and tangential components (Wertz 1978, section 17.2):
    F_n = -P A cos t [(1 + rho_s) cos t + 2 rho_d / 3],  F_t = -P A (1 - rho_s) cos t sin t (away from the Sun)."""
    t = math.radians(theta_deg)
    a = 4.0
    _, f = srp(plate(absorbed=ra, specular=rs, diffuse=rd), sun_at(t))
    fn = -P * a * math.cos(t) * ((1 + rs) * math.cos(t) + 2 * rd / 3)
    ft = -P * a * (1 - rs) * math.cos(t) * math.sin(t)
    assert f == pytest.approx((ft, 0.0, fn), rel=1e-12, abs=1e-12 * P)


def test_the_absorbing_plate_is_pushed_away_from_the_sun_and_the_mirror_along_its_normal():
    t = math.radians(40.0)
    _, f = srp(plate(), sun_at(t))
    assert np.allclose(f, -P * 4 * math.cos(t) * np.array(sun_at(t)), rtol=1e-13, atol=0)
    _, f = srp(plate(absorbed=0, specular=1), sun_at(t))
    assert np.allclose(f, [0, 0, -2 * P * 4 * math.cos(t) ** 2], rtol=1e-13, atol=1e-13 * P)


def test_a_plate_lit_from_behind_or_in_the_umbra_feels_nothing():
    assert srp(plate(), sun_at(math.radians(120)))[1] == (0.0, 0.0, 0.0)
    assert srp(plate(), sun_at(0.0), sunlit=0.0)[1] == (0.0, 0.0, 0.0)


def test_the_penumbra_and_the_distance_scale_the_pressure():
    full = np.array(srp(plate(), sun_at(0.3))[0 + 1])
    assert np.array(srp(plate(), sun_at(0.3), sunlit=0.25)[1]) == pytest.approx(0.25 * full, rel=1e-15, abs=0)
    assert np.array(srp(plate(), sun_at(0.3), distance=2 * ASTRONOMICAL_UNIT)[1]) == pytest.approx(
        full / 4, rel=1e-15, abs=0)


def test_flat_plate_torque_is_its_lever_arm_times_its_force():
    """A plate whose centre is r from the centre of mass: T = r x F (force and drag)."""
    r = np.array([0.5, -0.2, 0.3])
    t = math.radians(35.0)
    tq, f = srp(plate(centre=r, absorbed=0.4, specular=0.4, diffuse=0.2), sun_at(t))
    assert np.allclose(tq, np.cross(r, f), rtol=1e-12, atol=0)
    v = 7500.0 * np.array(sun_at(t))
    tq, f = drag(plate(centre=r, drag=2.2), tuple(v), 1e-12)
    # F = -1/2 rho C_d A v^2 cos a v_hat
    assert np.allclose(f, -0.5 * 1e-12 * 2.2 * 4 * 7500.0**2 * math.cos(t) * np.array(sun_at(t)), rtol=1e-13, atol=0)
    assert np.allclose(tq, np.cross(r, f), rtol=1e-12, atol=0)


def test_a_plate_moving_edge_on_or_backwards_has_no_drag():
    assert drag(plate(), (7500.0, 0.0, 0.0), 1e-12)[1] == (0.0, 0.0, 0.0)
    assert drag(plate(), (0.0, 0.0, -7500.0), 1e-12)[1] == (0.0, 0.0, 0.0)


def _sphere(radius=0.5, subdivisions=5, **coeffs):
    m = trimesh.creation.icosphere(subdivisions=subdivisions, radius=radius)
    return facets(m.vertices, m.faces, **coeffs)


def test_a_sphere_feels_no_torque_about_its_centre_and_the_closed_form_force():
    """SRP on a sphere: |F| = P pi R^2 (1 + 4 rho_d / 9) along -s; drag: 1/2 rho C_d pi R^2 v^2 (Wertz 17.2)."""
    r, rd = 0.5, 0.6
    s = _sphere(r, absorbed=0.4, diffuse=rd)
    for _ in range(3):
        u = RNG.normal(size=3)
        u /= np.linalg.norm(u)
        tq, f = srp(s, tuple(u))
        f_ref = P * math.pi * r**2 * (1 + 4 * rd / 9)
        # the polyhedron's shadow is a little smaller than the sphere's disc (subdivision 5: 0.05 %)
        assert np.allclose(f, -f_ref * u, rtol=0, atol=2e-3 * f_ref)
        assert np.linalg.norm(tq) < 1e-4 * f_ref * r
        tq, f = drag(s, tuple(7500.0 * u), 1e-12)
        d_ref = 0.5 * 1e-12 * 2.2 * math.pi * r**2 * 7500.0**2
        assert np.allclose(f, -d_ref * u, rtol=0, atol=2e-3 * d_ref)
        assert np.linalg.norm(tq) < 1e-4 * d_ref * r


def test_cube_with_an_offset_centre_of_mass():
    """A cube lit on one face: F = -P L^2 x (absorbing) at the face's centre; about a centre of mass at c,
    T = (L/2 x - c) x F.  For any Sun direction the torque about c is -c x F (zero about the centre)."""
    box = trimesh.creation.box(extents=(1.0, 1.0, 1.0))
    c = np.array([0.0, 0.0, 0.1])
    cube = facets(box.vertices, box.faces, centre_of_mass=c)
    tq, f = srp(cube, (1.0, 0.0, 0.0))
    assert np.allclose(f, [-P, 0, 0], rtol=1e-14, atol=1e-14 * P)
    assert np.allclose(tq, [0.0, 0.1 * P, 0.0], rtol=1e-13, atol=1e-14 * P)
    centred = facets(box.vertices, box.faces, absorbed=0.2, specular=0.5, diffuse=0.3)
    offset = facets(box.vertices, box.faces, centre_of_mass=c, absorbed=0.2, specular=0.5, diffuse=0.3)
    for _ in range(5):
        u = RNG.normal(size=3)
        u /= np.linalg.norm(u)
        t0, f0 = srp(centred, tuple(u))
        t1, f1 = srp(offset, tuple(u))
        assert np.linalg.norm(t0) < 1e-15
        assert np.allclose(t1, -np.cross(c, f1), rtol=1e-12, atol=1e-18)
        t0, f0 = drag(centred, tuple(7000.0 * u), 1e-12)
        t1, f1 = drag(offset, tuple(7000.0 * u), 1e-12)
        assert np.linalg.norm(t0) < 1e-12 * np.linalg.norm(f0)
        assert np.allclose(t1, -np.cross(c, f1), rtol=1e-12, atol=1e-14 * np.linalg.norm(f1))


def test_the_facets_of_a_closed_mesh_sum_to_no_vector_area():
    """The built-in satellite's mesh: sum A n = 0 over a closed surface (the divergence theorem), area positive."""
    shape = load("satellite")
    s = facets(shape.vertices, shape.faces, shape.centre)
    assert np.all(s.areas > 0)
    assert np.linalg.norm(s.areas @ s.normals) < 1e-12 * s.areas.sum()
    # outward: the centres lie on the side their normals point to, on average
    assert np.sum(s.areas * np.einsum("ij,ij->i", s.centres, s.normals)) > 0


def test_columns_are_bit_identical_to_floats():
    s = _sphere(0.5, 2, absorbed=0.3, specular=0.3, diffuse=0.4)
    sun = RNG.normal(size=(3, 5))
    sun /= np.linalg.norm(sun, axis=0)
    sunlit = np.array([1.0, 0.5, 0.0, 1.0, 0.9])
    vel = RNG.normal(size=(3, 5)) * 7000
    rho = np.array([1e-12, 2e-12, 3e-13, 1e-11, 5e-12])
    col_srp = srp(s, tuple(sun), 1.01 * ASTRONOMICAL_UNIT, sunlit)
    col_drag = drag(s, tuple(vel), rho)
    for i in range(5):
        one = srp(s, tuple(float(x) for x in sun[:, i]), 1.01 * ASTRONOMICAL_UNIT, float(sunlit[i]))
        assert tuple(tuple(float(x[i]) for x in part) for part in col_srp) == one
        one = drag(s, tuple(float(x) for x in vel[:, i]), float(rho[i]))
        assert tuple(tuple(float(x[i]) for x in part) for part in col_drag) == one


def test_the_air_turns_with_the_earth():
    """On the equator at radius r, eastward orbital speed v: the air moves at w_E r east, so v_rel = v - w_E r."""
    r = 6878.137e3
    v = relative_velocity((r, 0.0, 0.0), (0.0, 7612.0, 0.0))
    assert v == pytest.approx((0.0, 7612.0 - EARTH_ROTATION_RATE * r, 0.0), rel=1e-15)
    v = relative_velocity((0.0, 0.0, r), (7612.0, 0.0, 0.0))  # over the pole the air stands still
    assert v == (7612.0, 0.0, 0.0)


@pytest.mark.parametrize("coeffs", [dict(absorbed=0.5), dict(absorbed=-0.1, specular=1.1),
                                    dict(drag=-1.0), dict(absorbed=float("nan"))])
def test_coefficients_that_do_not_make_sense_are_refused(coeffs):
    with pytest.raises(ValueError, match="surfaces"):
        plate(**coeffs)


def test_the_compiled_sums_agree_with_each_facet_summed_exactly():
    """The satellite's 208 facets with per-facet coefficients: each facet's force and its torque c x F written
    from the module docstring's law with numpy, summed with math.fsum (an exactly rounded sum), against the
    compiled facet sums (:func:`sim.world.surfaces.srp_facets`, :func:`~sim.world.surfaces.drag_facets`)."""
    shape = load("satellite")
    m = len(shape.faces)
    rs, rd = RNG.uniform(0, 0.5, m), RNG.uniform(0, 0.5, m)
    s = facets(shape.vertices, shape.faces, shape.centre + np.array([0.01, -0.02, 0.03]), absorbed=1 - rs - rd,
               specular=rs, diffuse=rd, drag=RNG.uniform(1.8, 2.6, m))
    for _ in range(4):
        u = RNG.normal(size=3)
        u /= np.linalg.norm(u)
        cos = s.normals @ u
        lit = cos > 0
        f_each = (-P * s.areas * cos)[:, None] * (2 * (s.diffuse / 3 + s.specular * cos)[:, None] * s.normals
                                                   + (1 - s.specular)[:, None] * u)
        f_each[~lit] = 0.0
        t_each = np.cross(s.centres, f_each)
        tq, f = srp(s, tuple(u))
        scale = np.abs(f_each).sum()
        assert np.allclose(f, [math.fsum(f_each[:, i]) for i in range(3)], rtol=0, atol=1e-13 * scale)
        assert np.allclose(tq, [math.fsum(t_each[:, i]) for i in range(3)], rtol=0, atol=1e-13 * scale)
        v, rho = 7600.0 * u, 3e-12
        cos = s.normals @ u
        d_each = (-0.5 * rho * s.drag * s.areas * np.maximum(cos, 0) * 7600.0**2)[:, None] * u
        t_each = np.cross(s.centres, d_each)
        tq, f = drag(s, tuple(v), rho)
        scale = np.abs(d_each).sum()
        assert np.allclose(f, [math.fsum(d_each[:, i]) for i in range(3)], rtol=0, atol=1e-13 * scale)
        assert np.allclose(tq, [math.fsum(t_each[:, i]) for i in range(3)], rtol=0, atol=1e-13 * scale)
