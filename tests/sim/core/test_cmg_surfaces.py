"""The singular surfaces of the four-CMG pyramid (sim/core/cmg_surfaces.py) against the literature and a derivation here.

The test writes the singular surface its own way, ``h = sum_i eps_i h0 (g_i x u) x g_i / |g_i x u|`` with numpy's
cross products (Margulies and Aubrun 1978; Wie, *Space Vehicle Dynamics and Control*, ch. 7), the momentum from
Wie's closed form of the pyramid (tests/cmg_oracle.py) and the Jacobian by finite differences of it.  Against
them: the envelope is the largest momentum along each direction (scipy's maximisation); the published figures of
the 54.73 deg pyramid, 3.15 h0 along x and y and 3.27 h0 along z, and the impassable (elliptic) internal
singularity at 1.15 h0 along x and y (Wie, ch. 7; Wie, JGCD 27(2), 2004); the sections the window draws pass
through every crossing of the axes that scipy's root finder derives from the formula; each point's kind, elliptic
or hyperbolic, is the sign pattern of ``u . h`` over the null motions, sampled on the momentum itself.
"""

import itertools
import math

import numpy as np
import pytest
from scipy.linalg import null_space
from scipy.optimize import fsolve, minimize

from cmg_oracle import wie_pyramid_momentum
from sim.core import cmg
from sim.core import cmg_surfaces as cs

H0 = 2.5
G, S0 = cmg.pyramid()
BETA = math.radians(cmg.PYRAMID_SKEW_DEG)
#: the sign sets up to ``eps -> -eps``: all +1 (the envelope), one -1 (Wie's "2h" surfaces), two (his "0h")
SIGN_SETS = [s for s in itertools.product((1.0, -1.0), repeat=4) if s[0] == 1.0]


def surface_here(u, signs):
    """``h0 sum_i eps_i (g_i x u) x g_i / |g_i x u|``: the singular surface, written with numpy's cross products."""
    return sum(e * H0 * np.cross(np.cross(g, u), g) / np.linalg.norm(np.cross(g, u)) for g, e in zip(G, signs))


def jacobian_here(d, eps=1e-6):
    """``dh/ddelta`` of Wie's closed form, central differences."""
    return np.array([(wie_pyramid_momentum(H0, BETA, d + e) - wie_pyramid_momentum(H0, BETA, d - e)) / (2 * eps)
                     for e in np.eye(4) * eps]).T


def unit_from(lat, lon):
    return np.array([math.cos(lat) * math.cos(lon), math.cos(lat) * math.sin(lon), math.sin(lat)])


def test_sign_sets_are_every_surface_once():
    sets = cs.sign_sets(4)
    assert sorted(tuple(s) for s in sets) == sorted(SIGN_SETS) and len(sets) == 8
    assert tuple(sets[0]) == (1.0, 1.0, 1.0, 1.0)
    minus = [int(np.sum(s < 0)) for s in sets]
    assert minus == sorted(minus)


@pytest.mark.parametrize("signs", SIGN_SETS)
@pytest.mark.parametrize("seed", range(3))
def test_singular_surface_is_singular_and_is_the_formula(signs, seed):
    u = np.random.default_rng(seed).normal(size=3)
    u /= np.linalg.norm(u)
    signs = np.array(signs)
    h = cs.singular_momentum(H0, G, u, signs)
    np.testing.assert_allclose(h, surface_here(u, signs), rtol=0, atol=1e-14)
    d = cs.singular_angles(G, S0, u, signs)
    np.testing.assert_allclose(wie_pyramid_momentum(H0, BETA, d), h, rtol=0, atol=1e-13)   # the angles make it
    a = jacobian_here(d)
    np.testing.assert_allclose(u @ a, 0.0, atol=1e-9)                 # no torque about u
    sv = np.linalg.svd(a, compute_uv=False)
    assert sv[1] > 1e-3 * H0 and sv[2] < 1e-9 * H0                     # rank 2: singular about u alone
    assert abs(cmg.singularity_measure(cmg.jacobian(H0, G, S0, d))) < 1e-12 * H0 ** 6


def test_columns_of_directions_are_each_direction():
    u = np.random.default_rng(4).normal(size=(3, 7))
    u /= np.linalg.norm(u, axis=0)
    signs = np.array([1.0, -1.0, 1.0, 1.0])
    cols = cs.singular_momentum(H0, G, u, signs)
    for k in range(7):
        np.testing.assert_array_equal(cols[:, k], cs.singular_momentum(H0, G, np.ascontiguousarray(u[:, k]), signs))
    grid = cs.singular_surface(H0, G, signs, 5, 8)
    assert grid.shape == (5, 8, 3)
    lat, lon = np.linspace(-np.pi / 2, np.pi / 2, 7)[3], 3 * 2 * np.pi / 8   # row 2 of 5 (poles out), column 3 of 8
    np.testing.assert_allclose(grid[2, 3], surface_here(unit_from(lat, lon), signs), atol=1e-14)


def _max_momentum_along(u, starts=12):
    """max over delta of u . h(delta), by scipy's BFGS from random starts: the envelope without its closed form."""
    rng = np.random.default_rng(7)
    best = -np.inf
    for _ in range(starts):
        r = minimize(lambda d: -u @ wie_pyramid_momentum(H0, BETA, d), rng.uniform(-np.pi, np.pi, 4), method="BFGS")
        best = max(best, -r.fun)
    return best


@pytest.mark.parametrize("u", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, -1), (1, 1, 1), (0.3, -0.8, 0.2)])
def test_envelope_is_the_largest_momentum_along_each_direction(u):
    u = np.array(u, float) / np.linalg.norm(u)
    h = cs.envelope_point(H0, G, u)
    assert u @ h == pytest.approx(_max_momentum_along(u), rel=1e-9)


def test_envelope_along_the_axes_is_the_published_figure():
    # Wie, ch. 7: the 54.73 deg pyramid's envelope reaches (2 + 2 cos beta) h0 = 3.15 h0 along x and y
    # and 4 sin(beta) h0 = 3.27 h0 along z: nearly spherical.  (No text of the book was found to quote; the
    # figures follow by hand from Wie's closed form of h, in which each gimbal angle appears in one term, so the
    # largest h_x is c + 1 + c + 1 and the largest h_z is 4 s; and scipy's BFGS finds them without either.)
    for k, reach in ((0, 3.1547), (1, 3.1547), (2, 3.2660)):
        e = np.eye(3)[k]
        assert _max_momentum_along(e) / H0 == pytest.approx(reach, abs=1e-4)
        assert surface_here(e, np.ones(4)) @ e / H0 == pytest.approx(reach, abs=1e-4)
        np.testing.assert_allclose(cs.envelope_point(H0, G, e), surface_here(e, np.ones(4)), atol=1e-14)
    assert 2 + 2 * math.cos(BETA) == pytest.approx(3.1547, abs=1e-4)
    assert 4 * math.sin(BETA) == pytest.approx(3.2660, abs=1e-4)
    r = np.linalg.norm(cs.momentum_envelope(H0, G, 9, 12), axis=-1) / H0
    assert r.min() > 2.9 and r.max() < 3.3


def _quadratic_form_of_null_motion(d, u, step=1e-3):
    """The matrix ``M`` of ``u . (h(d + step N z) - h(d)) = step^2 z^T M z``, from the momentum itself at 12 ``z``."""
    n = null_space(jacobian_here(d), rcond=1e-7)
    assert n.shape[1] == 2
    zs = [np.array([math.cos(a), math.sin(a)]) for a in np.linspace(0, np.pi, 12, endpoint=False)]
    f = [u @ (wie_pyramid_momentum(H0, BETA, d + step * n @ z) - wie_pyramid_momentum(H0, BETA, d)) / step ** 2
         for z in zs]
    # z^T M z = m11 c^2 + 2 m12 c s + m22 s^2: least squares over the samples (the cubic term is O(step))
    rows = np.array([[z[0] ** 2, 2 * z[0] * z[1], z[1] ** 2] for z in zs])
    m11, m12, m22 = np.linalg.lstsq(rows, np.array(f), rcond=None)[0]
    return np.array([[m11, m12], [m12, m22]])


def _kind_here(d, u):
    eig = np.linalg.eigvalsh(_quadratic_form_of_null_motion(d, u))
    if np.min(np.abs(eig)) < 1e-2 * H0:
        return None                                        # too near degenerate to tell by sampling
    return cs.ELLIPTIC if eig[0] * eig[1] > 0 else cs.HYPERBOLIC


def test_the_impassable_singularity_at_1_15_h0_is_elliptic():
    # Wie, ch. 7 (and Kurokawa's survey, NASA/JAXA): delta = (90, 0, -90, 0) deg, h = -2 h0 cos(beta) x = -1.15 h0 x,
    # an elliptic singularity that null motion cannot leave; the same along y by the pyramid's symmetry
    for u, signs in (((1.0, 0.0, 0.0), (-1.0, -1.0, -1.0, 1.0)), ((0.0, 1.0, 0.0), (1.0, -1.0, -1.0, -1.0))):
        u, signs = np.array(u), np.array(signs)
        h = cs.singular_momentum(H0, G, u, signs)
        assert np.linalg.norm(h) / H0 == pytest.approx(2 * math.cos(BETA)) == pytest.approx(1.1547, abs=1e-4)
        assert abs(u @ h) == pytest.approx(np.linalg.norm(h))           # on the axis
        assert cs.singularity_kind(H0, G, u, signs) == cs.ELLIPTIC
        assert _kind_here(cs.singular_angles(G, S0, u, signs), u) == cs.ELLIPTIC
    np.testing.assert_allclose(np.degrees(cs.singular_angles(G, S0, np.array([1.0, 0, 0]),
                                                             np.array([-1.0, -1, -1, 1]))), [90, 0, -90, 0],
                               atol=1e-12)


@pytest.mark.parametrize("signs", SIGN_SETS)
def test_each_points_kind_is_its_null_motions(signs):
    # P = N^T Q N (the code's, from Q = diag(u . s_i)) against the sign pattern of u . h along the null motions
    signs = np.array(signs)
    rng = np.random.default_rng(int(abs(signs @ [8, 4, 2, 1])))
    u = rng.normal(size=(3, 40))
    u /= np.linalg.norm(u, axis=0)
    kinds = cs.singularity_kind(H0, G, u, signs)
    told = 0
    for k in range(40):
        here = _kind_here(cs.singular_angles(G, S0, np.ascontiguousarray(u[:, k]), signs), u[:, k])
        if here is not None:
            assert kinds[k] == here, (k, u[:, k])
            told += 1
    assert told >= 30
    if signs.min() > 0:
        assert np.all(kinds == cs.ELLIPTIC)                 # the envelope: every point impassable


def _axis_crossings(signs, axis, starts=60):
    """The momenta where the surface of ``signs`` meets the body axis ``axis``: scipy's fsolve on ``surface_here``."""
    others = [k for k in range(3) if k != axis]
    rng = np.random.default_rng(axis)
    found = []
    for _ in range(starts):
        v = rng.normal(size=3)
        p0 = [math.asin(v[2] / np.linalg.norm(v)), math.atan2(v[1], v[0])]
        sol, _, ier, _ = fsolve(lambda p: surface_here(unit_from(*p), signs)[others], p0, full_output=True)
        h = surface_here(unit_from(*sol), signs)
        if ier == 1 and np.abs(h[others]).max() < 1e-10 * H0:
            found.append(h)
    return found


@pytest.mark.parametrize("signs", SIGN_SETS)
def test_the_sections_pass_through_the_derived_axis_crossings(signs):
    signs = np.array(signs)
    for axis, plane in ((0, 2), (1, 2), (2, 0)):          # x and y in the x-y section, z in the y-z section
        points, u = cs.singular_section(H0, G, signs, plane)
        assert len(points) > 50
        assert np.abs(points[:, plane]).max() < 1e-6 * H0
        np.testing.assert_allclose(points, np.array([surface_here(u[:, k], signs) for k in range(len(points))]),
                                   atol=1e-12)
        for h in _axis_crossings(signs, axis):   # within the spacing of the section's points (its 2 deg grid)
            assert np.linalg.norm(points - h, axis=1).min() < 0.1 * H0, (axis, h / H0)


def test_the_internal_surfaces_meet_the_axes_where_derived():
    # derived here (fsolve on the formula): Wie's 1.15 h0 on x and y; the one-sign ("2h") surfaces also meet z
    # at 4/3 h0, the two-sign ("0h") ones meet x and y at 0 and (2 - 2 cos beta) h0 = 0.85 h0
    along_x = {round(abs(h[0]) / H0, 4) for s in SIGN_SETS[1:] for h in _axis_crossings(np.array(s), 0)}
    assert 1.1547 in along_x and 0.8453 in along_x and 0.0 in along_x
    along_z = {round(abs(h[2]) / H0, 4) for s in SIGN_SETS[1:] if s.count(-1.0) == 1
               for h in _axis_crossings(np.array(s), 2)}
    assert along_z == {1.3333}
