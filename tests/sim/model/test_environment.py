"""The environment's torques (sim.world.environment) and the user's torque function, against closed forms and scipy.

* The orbit: ``n = sqrt(mu / r^3)`` at 500 km is 1.107e-3 rad/s (docs and NOTES); a body
  held in the orbit frame has rates ``(0, -n, 0)`` and stays at zero orbit angles.
* The gravity-gradient torque against ``3 n^2 c x J c`` computed here with scipy's Rotation.
* The small-angle pitch libration period ``2 pi / (n sqrt(3 (Jx - Jz) / Jy))`` to 1e-4
  relative (about 5,078 s for 100/120/50 kg m^2 at 500 km), and the full 3D motion
  against a DOP853 integration of Euler's equations with the gravity gradient written
  here (with and without a spinning wheel).
* Disturbance torques: in inertial axes a constant D adds ``D t`` to the inertial angular
  momentum whatever the attitude; a sinusoid ``D sin(2 pi t / P)`` adds
  ``D P / (2 pi) (1 - cos(2 pi t / P))``.
* The user's torque ``f(t, q, w)``: evaluated at the stages' times (rk4 meets the closed
  form of a sinusoidal torque to 1e-12), refused with a clear error when it returns junk.
"""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from sim import api
from sim.world.environment import gravity_gradient_torque, orbit_quaternion, orbit_rate, to_orbit_frame
from sim.model.loads import UserTorqueError
from sim.core.ops import COLUMN
from sim.core.quaternion import cayley, from_aircraft_angles
from sim.model.settings import Settings
from sim.model.simulation import Simulation

from oracle import hamilton, scipy_rotation

SAT = (100.0, 120.0, 50.0, 0.0, 0.0, 0.0)
N500 = orbit_rate(500.0)


def test_the_orbit_rate_and_the_orbit_frame():
    r = (6378.137 + 500.0) * 1e3
    assert N500 == pytest.approx(math.sqrt(3.986004418e14 / r ** 3), rel=1e-15)
    assert N500 == pytest.approx(1.107e-3, abs=1e-6)                # NOTES.md
    t = 1234.5
    c = cayley(orbit_quaternion(t, N500))                            # rows: the orbit axes in inertial axes
    np.testing.assert_allclose(c[2], (-math.sin(N500 * t), 0.0, math.cos(N500 * t)), atol=1e-15)   # z: nadir
    np.testing.assert_allclose(c[0], (math.cos(N500 * t), 0.0, math.sin(N500 * t)), atol=1e-15)    # x: velocity
    np.testing.assert_allclose(np.cross(c[2], c[0]), c[1], atol=1e-15)                               # y = z x x
    q = from_aircraft_angles(0.3, -0.2, 1.1)
    np.testing.assert_allclose(cayley(q), cayley(to_orbit_frame(q, t, N500)) @ c, atol=1e-15)


def test_a_body_held_in_the_orbit_frame_stays_there():
    # at rest in the orbit frame: body rates (0, -n, 0) (issue 21), no torque needed for a sphere
    sim = Simulation(inertia=(5.0, 5.0, 5.0, 0.0, 0.0, 0.0), rates=(0.0, -N500, 0.0), integrator="rk4", dt=1.0,
                     gravity_gradient=True, altitude_km=500.0, dampers_on=False)
    sim.step(6000)                                                    # more than one orbit (5,677 s)
    assert max(abs(a) for a in sim.snapshot().orbit_angles_deg) < 1e-9


def test_the_gravity_gradient_torque_against_scipy():
    rng = np.random.default_rng(5)
    jr = (3.0, -0.2, 0.1, -0.2, 4.0, 0.3, 0.1, 0.3, 5.0)
    J = np.array(jr).reshape(3, 3)
    for _ in range(10):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        t = rng.uniform(0, 6000)
        nadir = np.array([-math.sin(N500 * t), 0.0, math.cos(N500 * t)])
        c = scipy_rotation(q).inv().apply(nadir)                     # inertial -> body
        expected = 3.0 * N500 ** 2 * np.cross(c, J @ c)
        np.testing.assert_allclose(gravity_gradient_torque(tuple(q), t, N500, jr), expected, atol=1e-18, rtol=1e-12)
        q2 = tuple(2.0 * q)                                           # any |Q|: the nadir is unit in body axes
        np.testing.assert_allclose(gravity_gradient_torque(q2, t, N500, jr), expected, atol=1e-18, rtol=1e-12)
    cols = gravity_gradient_torque(tuple(rng.normal(size=(4, 8))), 100.0, N500, jr)
    assert all(isinstance(c, np.ndarray) for c in cols)              # written once: columns too


def _pitch_crossings(sim, steps, every):
    """Times where the pitch relative to the orbit frame crosses zero downward, interpolated."""
    t, pitch = [], []
    for _ in range(steps // every):
        sim.step(every)
        s = sim.snapshot()
        t.append(s.t)
        pitch.append(s.orbit_angles_deg[1])
    t, pitch = np.array(t), np.array(pitch)
    down = np.flatnonzero((pitch[:-1] > 0) & (pitch[1:] <= 0))
    return t[down] + (t[down + 1] - t[down]) * pitch[down] / (pitch[down] - pitch[down + 1]), pitch


def test_small_angle_pitch_libration_has_the_closed_form_period():
    period = 2 * math.pi / (N500 * math.sqrt(3 * (100.0 - 50.0) / 120.0))
    assert period == pytest.approx(5078, abs=1)                       # NOTES.md
    sim = Simulation(inertia=SAT, integrator="rk4", dt=1.0, angles_deg=(0.0, 0.2, 0.0), rates=(0.0, -N500, 0.0),
                     gravity_gradient=True, altitude_km=500.0)
    crossings, pitch = _pitch_crossings(sim, 16000, 1)
    assert pitch.max() == pytest.approx(0.2, rel=1e-3)               # a libration, not a tumble
    measured = np.diff(crossings)
    assert len(measured) >= 2
    np.testing.assert_allclose(measured, period, rtol=1e-4)


def _body_to_inertial(q):
    """The rotation matrix of scipy's quaternion ``r = (-q1, -q2, -q3, q4)`` (body -> inertial), the textbook
    formula for a unit ``(x, y, z, w)``, times ``|q|^2``."""
    x, y, z, w = -q[0], -q[1], -q[2], q[3]
    return np.array([[w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z]])


def _gravity_gradient_dop853(settings, t_eval):
    """Euler's equations of the gyrostat (free wheels) with ``3 n^2 c x J c``, by scipy, written here."""
    jxx, jyy, jzz, jxy, jxz, jyz = settings.mass_properties.inertia
    J = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    wheels = settings.wheel_set
    if wheels is None:
        jf, h = J, np.zeros(3)
    else:
        A, js = np.array(wheels.axes).T, np.array(wheels.inertia)
        jf = J - (A * js) @ A.T
        h = A @ (js * (np.array(settings.wheel_speeds) + A.T @ np.array(settings.rates)))
    n = orbit_rate(settings.altitude_km)
    jf_inv = np.linalg.inv(jf)

    def rhs(t, y):
        w, q = y[:3], y[3:]
        nadir = np.array([-math.sin(n * t), 0.0, math.cos(n * t)])
        c = _body_to_inertial(q).T @ nadir / (q @ q)
        torque = 3.0 * n * n * np.cross(c, J @ c)
        return np.concatenate([jf_inv @ (torque - np.cross(w, jf @ w + h)), -0.5 * hamilton(np.append(w, 0.0), q)])

    y0 = np.concatenate([settings.rates, Simulation(settings).q])
    sol = solve_ivp(rhs, (0.0, t_eval[-1]), y0, method="DOP853", rtol=1e-12, atol=1e-14, t_eval=t_eval)
    assert sol.success
    return sol.y[:3], sol.y[3:]


@pytest.mark.parametrize("wheels", [None, ((0.0, 1.0, 0.0),)])
def test_gravity_gradient_motion_in_3d_agrees_with_dop853(wheels):
    # roll, pitch and yaw off the local vertical, rates off the orbit's, for one orbit; with a momentum
    # wheel along y too (a gyrostat in the gravity gradient)
    changes = {} if wheels is None else dict(wheels=wheels, wheel_inertia=0.05, wheel_speeds=(4.0,))
    settings = Settings(inertia=SAT, integrator="rk4", dt=1.0, angles_deg=(8.0, -12.0, 5.0),
                        rates=(2e-4, -N500 + 3e-4, -1e-4), gravity_gradient=True, altitude_km=500.0, **changes)
    t_eval = np.array([1000.0, 3000.0, 5600.0])
    w_ref, q_ref = _gravity_gradient_dop853(settings, t_eval)
    sim = Simulation(settings)
    done = 0
    for k, t in enumerate(t_eval):
        sim.step(round(t) - done)
        done = round(t)
        s = sim.snapshot()
        assert float((scipy_rotation(s.q).inv() * scipy_rotation(q_ref[:, k])).magnitude()) < 1e-7
        np.testing.assert_allclose(s.w, w_ref[:, k], atol=1e-10)


def test_a_constant_inertial_disturbance_adds_d_t_to_the_inertial_momentum():
    # H_I(t) = H_I(0) + integral of the inertial torque: D t, whatever the body does meanwhile
    d = (0.02, -0.01, 0.03)
    sim = Simulation(inertia=(2.0, 3.0, 4.0, 0.1, 0.0, -0.2), integrator="rk4", dt=0.01, rates=(0.5, -0.3, 0.8),
                     dampers_on=False, disturbance=d, disturbance_axes="inertial")
    h0 = np.array(sim.snapshot().h)
    sim.step(1000)
    np.testing.assert_allclose(np.array(sim.snapshot().h) - h0, np.array(d) * 10.0, rtol=1e-8)


def test_a_sinusoidal_body_disturbance_on_a_sphere_is_the_closed_form():
    # J = 2 I: w x J w = 0, so w(t) = D P / (2 pi J) (1 - cos(2 pi t / P)) about each axis
    d, period, j = (0.3, -0.1, 0.2), 4.0, 2.0
    sim = Simulation(inertia=(j, j, j, 0.0, 0.0, 0.0), integrator="rk4", dt=0.01, dampers_on=False,
                     disturbance=d, disturbance_period=period)
    sim.step(700)
    expected = np.array(d) * period / (2 * math.pi * j) * (1 - math.cos(2 * math.pi * 7.0 / period))
    np.testing.assert_allclose(sim.w, expected, rtol=1e-9)


def test_the_user_torque_is_evaluated_at_the_stages_times():
    # f = (A sin(k t), 0, 0) on a body at rest about a principal axis: w_x = A (1 - cos k t) / (k J_xx);
    # rk4 meets it to its own order only when the stages see their own times
    a, k = 0.5, 3.0
    seen = []

    def f(t, q, w):
        seen.append(t)
        return (a * math.sin(k * t), 0.0, 0.0)

    result = api.run(Settings(integrator="rk4", dt=0.01, inertia=(2.0, 3.0, 4.0, 0.0, 0.0, 0.0)), duration=2.0,
                     user_torque=f, dampers_on=False)
    assert result["wx"][-1] == pytest.approx(a * (1 - math.cos(k * 2.0)) / (k * 2.0), rel=1e-8)
    assert result["tx"][-1] == pytest.approx(a * math.sin(k * 2.0), rel=1e-12)   # the CSV's applied torque
    assert 0.005 in [round(t, 12) for t in seen]                      # a half-step stage


def test_a_constant_user_torque_is_the_torque_command():
    plain = api.run(Settings(torque=(0.3, -0.2, 0.1), dt=0.01), duration=1.0, dampers_on=False)
    user = api.run(Settings(dt=0.01), duration=1.0, dampers_on=False, user_torque=lambda t, q, w: (0.3, -0.2, 0.1))
    for key in ("q1", "q2", "q3", "q4", "wx", "wy", "wz", "tx"):
        assert np.array_equal(plain[key], user[key]), key


@pytest.mark.parametrize("junk", [None, (1.0, 2.0), "abc", (1.0, math.nan, 0.0)])
def test_a_user_torque_that_returns_junk_is_refused(junk):
    with pytest.raises(UserTorqueError, match="user torque"):
        api.run("default", duration=0.01, user_torque=lambda t, q, w: junk)
    with pytest.raises(TypeError, match="user_torque must be a function"):
        api.run("default", duration=0.01, user_torque=3.0)


def test_orbit_formulas_on_columns():
    rng = np.random.default_rng(2)
    q = rng.normal(size=(4, 16))
    rel = to_orbit_frame(tuple(q), 321.0, N500)
    for j in range(16):
        assert np.array_equal(np.array(to_orbit_frame(tuple(q[:, j]), 321.0, N500)), np.array(rel)[:, j])
    from sim.world.environment import disturbance_torque
    cols = disturbance_torque(tuple(q), 3.0, (1.0, 2.0, 3.0), 7.0, True)
    for j in range(16):
        assert np.array_equal(np.array(disturbance_torque(tuple(q[:, j]), 3.0, (1.0, 2.0, 3.0), 7.0, True)),
                              np.array(cols)[:, j])
    assert COLUMN.name == "column"
