"""Magnetorquers, B-dot and momentum dumping (sim.gnc.magnetic): the torque's geometry and closed-loop checks."""

import math

import numpy as np
import pytest

from sim.core.ops import COLUMN
from sim.core.quaternion import cayley, qdot_from_rates
from sim.gnc.magnetic import (Bdot, Magnetorquers, avanzini_giulietti_gain, bdot_dipole, dumping_dipole,
                              magnetic_torque)
from sim.world.environment import MU_EARTH

RNG = np.random.default_rng(11)
SKEWED = Magnetorquers(((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)), (0.2, 0.2, 0.3, 0.1), residual=(1e-3, 0, -2e-3))


def test_the_torque_is_perpendicular_to_the_field_and_to_the_dipole():
    for _ in range(50):
        m, b = RNG.normal(size=3), RNG.normal(size=3) * 3e-5
        t = np.array(magnetic_torque(tuple(m), tuple(b)))
        assert abs(t @ b) <= 1e-15 * np.linalg.norm(t) * np.linalg.norm(b)
        assert abs(t @ m) <= 1e-15 * np.linalg.norm(t) * np.linalg.norm(m)
        assert np.allclose(t, np.cross(m, b), rtol=1e-15, atol=0)


def test_allocation_realises_an_unsaturated_command_exactly_on_any_rods():
    for rods in (Magnetorquers.three(0.2), SKEWED):
        m = tuple(RNG.normal(size=3) * 0.01)
        made = np.array(rods.body_dipole(rods.allocate(m))) - rods.residual
        assert np.allclose(made, m, rtol=0, atol=1e-15)


def test_a_saturated_command_keeps_its_direction_and_no_rod_passes_its_limit():
    for rods in (Magnetorquers.three(0.2), SKEWED):
        m = RNG.normal(size=3) * 10.0
        u = np.array(rods.allocate(tuple(m)))
        assert np.all(np.abs(u) <= np.array(rods.limits) * (1 + 1e-15))
        assert np.max(np.abs(u) / rods.limits) == pytest.approx(1.0, rel=1e-15)  # one rod at its limit
        made = np.array(rods.body_dipole(tuple(u))) - rods.residual
        assert np.allclose(np.cross(made, m), 0.0, atol=1e-12 * np.linalg.norm(m)) and made @ m > 0


def test_bang_bang_puts_every_rod_at_its_limit_against_the_field_s_change():
    bdot = tuple(RNG.normal(size=3) * 1e-6)
    u = np.array(SKEWED.bang_bang(bdot))
    assert np.allclose(np.abs(u), SKEWED.limits, rtol=0, atol=0)
    for ui, a in zip(u, SKEWED.axes):
        assert ui * (np.array(a) @ bdot) < 0


def test_the_residual_dipole_alone_makes_a_torque():
    rods = Magnetorquers.three(0.2, residual=(0.0, 0.0, 0.05))
    m = rods.body_dipole((0.0, 0.0, 0.0))
    assert magnetic_torque(m, (3e-5, 0.0, 0.0)) == pytest.approx((0.0, 1.5e-6, 0.0), rel=1e-15, abs=0)


def test_columns_agree_with_floats_bit_for_bit():
    m = RNG.normal(size=(3, 6)) * np.array([[0.01], [1.0], [10.0]])
    b = RNG.normal(size=(3, 6)) * 3e-5
    u_col = SKEWED.allocate(tuple(m), COLUMN)
    bb_col = SKEWED.bang_bang(tuple(b), COLUMN)
    for i in range(6):
        assert tuple(float(x[i]) for x in u_col) == SKEWED.allocate(tuple(float(x) for x in m[:, i]))
        assert tuple(float(x[i]) for x in bb_col) == SKEWED.bang_bang(tuple(float(x) for x in b[:, i]))


def test_the_sampled_field_derivative_is_b_cross_w_in_a_body_turning_in_a_fixed_field():
    """A body turning at w in a fixed inertial field sees dB/dt = -w x B = B x w (body axes)."""
    w = np.array([0.1, -0.2, 0.3])
    b_i = np.array([2e-5, -1e-5, 3e-5])
    ctrl = Bdot(Magnetorquers.three(1.0), period=1e-3, gain=1.0)
    q = np.array([0.0, 0.0, 0.0, 1.0])
    for t in (0.0, 1e-3):
        if t:
            q = q + 1e-3 * qdot_from_rates(q, w)  # a first-order step is enough for a 1e-3 check
            q /= np.linalg.norm(q)
        ctrl(t, tuple(cayley(q) @ b_i))
    assert np.allclose(ctrl.bdot, np.cross(b_i, w), rtol=2e-3, atol=0)


def test_the_controller_holds_its_command_between_samples():
    ctrl = Bdot(Magnetorquers.three(1.0), period=0.5, gain=1e4)
    ctrl(0.0, (1e-5, 0.0, 0.0))
    first = ctrl(0.5, (1.1e-5, 0.0, 0.0))
    assert first == pytest.approx((-0.02, 0.0, 0.0), rel=1e-12)  # -k (0.1e-5 / 0.5) = -1e4 * 2e-6
    assert ctrl(0.7, (9e-5, 9e-5, 9e-5)) == first  # not sampled before t = 1.0
    assert ctrl(1.0, (1.1e-5, 0.0, 0.0)) == (0.0, 0.0, 0.0)  # the field stood still since 0.5


def _detumble(law, seconds=1200.0, dt=0.1):
    """A 3U CubeSat at 20 deg/s on a 500 km polar orbit in an axial dipole field, B-dot at 1 Hz."""
    j = np.diag([0.034, 0.036, 0.0067])
    r0 = 6378.137e3 + 500e3
    n = math.sqrt(MU_EARTH / r0**3)
    b0 = 3e-5  # T on the magnetic equator at 500 km (IGRF 2025: about 25 uT there)
    k_w = avanzini_giulietti_gain(n, math.pi / 2, 0.0067)  # polar orbit, axial dipole: xi = 90 deg
    ctrl = Bdot(Magnetorquers.three(0.2), period=1.0, gain=k_w / b0**2, law=law)

    def field(t):  # B = b0 (3 (d.u) u - d), d = -z, on the circle in the x-z plane
        u = np.array([math.cos(n * t), 0.0, math.sin(n * t)])
        d = np.array([0.0, 0.0, -1.0])
        return b0 * (3 * (d @ u) * u - d)

    axis = np.array([0.3, -0.8, 0.5]) / np.linalg.norm([0.3, -0.8, 0.5])
    q, w = np.array([0.0, 0.0, 0.0, 1.0]), math.radians(20.0) * axis
    energy = []
    for i in range(int(seconds / dt)):
        t = i * dt
        m = np.array(ctrl.torquers.body_dipole(ctrl(t, tuple(cayley(q) @ field(t)))))

        def rhs(tt, qq, ww):
            tq = np.cross(m, cayley(qq) @ field(tt))
            return qdot_from_rates(qq, ww), np.linalg.solve(j, tq - np.cross(ww, j @ ww))

        k1 = rhs(t, q, w)
        k2 = rhs(t + dt / 2, q + dt / 2 * k1[0], w + dt / 2 * k1[1])
        k3 = rhs(t + dt / 2, q + dt / 2 * k2[0], w + dt / 2 * k2[1])
        k4 = rhs(t + dt, q + dt * k3[0], w + dt * k3[1])
        q = q + dt / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        w = w + dt / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        q /= np.linalg.norm(q)
        energy.append(0.5 * w @ j @ w)
    return np.array(energy)


@pytest.mark.slow
@pytest.mark.parametrize("law", ["proportional", "bang-bang"])
def test_bdot_takes_kinetic_energy_out_on_average(law):
    e = _detumble(law)
    minute = 600
    means = e[: len(e) // minute * minute].reshape(-1, minute).mean(axis=1)
    assert np.all(np.diff(means) < 0), means  # every minute's mean below the one before
    assert e[-1] < 0.5 * e[0]


def test_dumping_torque_opposes_the_excess_across_the_field():
    for _ in range(30):
        b, dh = RNG.normal(size=3) * 3e-5, RNG.normal(size=3) * 1e-3
        k = 0.01
        t = np.array(magnetic_torque(dumping_dipole(tuple(b), tuple(dh), k), tuple(b)))
        bhat = b / np.linalg.norm(b)
        perp = dh - (dh @ bhat) * bhat
        assert np.allclose(t, -k * perp, rtol=0, atol=1e-14 * np.linalg.norm(perp))
        assert t @ dh < 0


def test_dumping_along_the_field_gives_nothing():
    assert dumping_dipole((0.0, 0.0, 3e-5), (0.0, 0.0, 1e-3), 0.01) == (0.0, 0.0, 0.0)


def test_bdot_dipole_and_the_gain():
    assert bdot_dipole((1e-6, -2e-6, 0.0), 1e4) == pytest.approx((-1e-2, 2e-2, 0.0), rel=1e-15)
    # Avanzini & Giulietti: 2 n (1 + sin xi) J_min; xi = 30 deg gives 3 n J_min
    assert avanzini_giulietti_gain(1e-3, math.radians(30.0), 0.01) == pytest.approx(3e-5, rel=1e-14)


@pytest.mark.parametrize("axes, limits", [(((1, 0, 0), (0, 1, 0)), (1, 1)), (((1, 0, 0), (2, 0, 0), (0, 1, 0)), (1, 1, 1)),
                                          (((1, 0, 0), (0, 1, 0), (0, 0, 1)), (1, 0, 1))])
def test_rods_that_cannot_torque_every_way_are_refused(axes, limits):
    with pytest.raises(ValueError, match="magnetorquers"):
        Magnetorquers(axes, limits)


def test_rods_weaker_than_one_a_m2_are_held_to_their_limits_by_a_command_below_one_a_m2():
    """Cubesat rods (0.2 A m^2): a command of 0.5 A m^2 along x is 2.5 times x's limit, so all rods scale by 1/2.5
    and x sits at its limit (allocate's ``1 / max(1, max_i |u_i| / limit_i)``, by hand); a negative one alike."""
    rods = Magnetorquers.three(0.2)
    for sign in (1.0, -1.0):
        u = np.array(rods.allocate((sign * 0.5, sign * 0.1, 0.0)))
        assert u == pytest.approx((sign * 0.2, sign * 0.04, 0.0), rel=1e-15, abs=1e-18)
        assert np.all(np.abs(u) <= 0.2 * (1 + 1e-15))
