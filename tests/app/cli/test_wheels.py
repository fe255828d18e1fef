"""Reaction wheels (sim.core.wheels, sim.model.loads): the gyrostat against closed forms, conservation laws and scipy.

References, none of them the code's own output:

* spin-up under a constant body-torque command: ``w_x = T t / (J_xx - J_s)``
  and ``W = -T t / J_s - w_x`` from the conventions (issue 21), exact for rk4
  (and half-quat) because the rates grow linearly;
* inertial total momentum ``C^T (J w + sum a_i J_s W_i)``, computed here with
  scipy's Rotation, constant while four wheels exchange momentum with a
  tumbling body (every motor torque is internal);
* the kinetic energy of body and wheels, computed here, constant for free
  wheels and changed by the motors' work ``integral of sum u_i W_i dt``;
* a DOP853 integration (scipy) of the gyrostat's equations written here from
  the conventions, in their other form ``J' dw/dt = -w x (J' w + h)`` with
  the wheels' axial momenta ``h_i`` held;
* the limits: a clipped motor torque gives the closed-form spin-up at the
  limit, a wheel at its speed limit stops being driven further out.
"""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from app.cli import main
from sim import api
from sim.ensemble import Ensemble, EnsembleSpec
from sim.core.ops import COLUMN, FLOAT
from sim.run.runner import Runner
from sim.run.scenario import Event, Scenario, ScenarioError, loads
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation
from sim.model.rows import columns
from sim.core.wheels import PYRAMID_TILT_DEG, layout_axes

from oracle import hamilton, scipy_rotation

BOX = (2.0, 3.0, 4.0, 0.0, 0.0, 0.0)
AIRCRAFT_J = np.array([[0.6, 0.0, -0.2], [0.0, 1.0, 0.0], [-0.2, 0.0, 1.5]])


def _inertial_momentum(snapshot, settings):
    """``C^T (J w + sum a_i J_s,i W_i)`` from a snapshot, with numpy and scipy only."""
    wheels = settings.wheel_set
    comps = settings.mass_properties.inertia
    jxx, jyy, jzz, jxy, jxz, jyz = comps
    J = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    h = J @ np.array(snapshot.w)
    for a, js, s in zip(wheels.axes, wheels.inertia, snapshot.wheel_speeds):
        h = h + np.array(a) * js * s
    return scipy_rotation(snapshot.q).apply(h)


def _energy(snapshot, settings):
    """``1/2 w^T (J - sum J_s a a^T) w + sum J_s (W_i + a_i . w)^2 / 2``, written here."""
    wheels = settings.wheel_set
    jxx, jyy, jzz, jxy, jxz, jyz = settings.mass_properties.inertia
    J = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    w = np.array(snapshot.w)
    jf = J - sum(js * np.outer(a, a) for a, js in zip(wheels.axes, wheels.inertia))
    e = 0.5 * w @ jf @ w
    for a, js, s in zip(wheels.axes, wheels.inertia, snapshot.wheel_speeds):
        e += 0.5 * js * (s + np.dot(a, w)) ** 2
    return e


# ------------------------------------------------------------------ layouts
def test_layouts_are_unit_axes_and_the_pyramid_is_isotropic():
    assert layout_axes("orthogonal") == ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    a = np.array(layout_axes("pyramid")).T
    np.testing.assert_allclose(np.linalg.norm(a, axis=0), 1.0, rtol=1e-15)
    np.testing.assert_allclose(a @ a.T, 4.0 / 3.0 * np.eye(3), atol=1e-15)   # the same torque about every axis
    np.testing.assert_allclose(np.degrees(np.arccos(a[2])), PYRAMID_TILT_DEG, rtol=1e-14)
    assert Settings(wheels="3,4,0;0,0,2").wheels == ((0.6, 0.8, 0.0), (0.0, 0.0, 1.0))


@pytest.mark.parametrize("layout", ["orthogonal", "pyramid", ((1.0, 0.0, 0.0),), ((0.0, 0.0, 1.0), (0.0, 0.0, 1.0)),
                                    ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0))])
def test_the_wheels_realise_the_part_of_the_command_in_their_span(layout):
    # -A u = A A+ T: the projection of T onto the span of the axes (Moore-Penrose), numpy's pinv as the reference
    settings = Settings(wheels=layout, inertia=BOX, wheel_torque_limit=100.0)
    wheels = settings.wheel_set
    A = np.array(wheels.axes).T
    for t in np.random.default_rng(4).normal(size=(5, 3)):
        from sim.core.wheels import wheel_motor_torques
        u = np.array(wheel_motor_torques(tuple(t), (0.0,) * wheels.n, wheels, None, FLOAT))
        np.testing.assert_allclose(-A @ u, A @ np.linalg.pinv(A) @ t, atol=1e-14)
        np.testing.assert_allclose(u, -np.linalg.pinv(A) @ t, atol=1e-14)   # the least-norm motor torques


# ------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("integrator", ["rk4", "half-quat"])
def test_spin_up_of_a_box_by_one_wheel_is_the_closed_form(integrator):
    # 1 N m body-torque command for 0.1 s, one wheel along x of axial inertia 0.5: the wheel's motor
    # takes u = -1 N m, the body gets +1 N m about x: w_x = 0.1 / (J_xx - J_s), W = -0.1 / J_s - w_x.
    js = 0.5
    sim = Simulation(inertia=BOX, wheels=((1.0, 0.0, 0.0),), wheel_inertia=js, wheel_torque_limit=10.0,
                     integrator=integrator, torque=(1.0, 0.0, 0.0), dt=0.001)
    sim.step(100)
    s = sim.snapshot()
    assert s.t == pytest.approx(0.1, abs=1e-15)
    wx = 0.1 / (2.0 - js)
    assert s.w[0] == pytest.approx(wx, rel=1e-14, abs=0)
    assert s.w[1] == 0.0 and s.w[2] == 0.0
    assert s.wheel_speeds[0] == pytest.approx(-0.1 / js - wx, rel=1e-14)
    assert s.wheel_torques == (-1.0,)
    assert s.torque == pytest.approx((1.0, 0.0, 0.0), abs=0)            # the wheel's reaction on the body
    assert np.linalg.norm(s.h) < 1e-15                                  # body and wheel: zero in total
    if integrator == "rk4":  # attitude: a turn about x by 1/2 alpha t^2 (Hoffmann (2.1): Q = cos - n sin)
        angle = 0.5 * (1.0 / (2.0 - js)) * 0.1 ** 2
        np.testing.assert_allclose(s.q, (-math.sin(angle / 2), 0.0, 0.0, math.cos(angle / 2)), atol=1e-15)


def test_total_momentum_in_inertial_axes_is_constant_while_four_wheels_exchange_it():
    # A tumbling aircraft (products of inertia), four pyramid wheels spinning, their motors driven by
    # Hoffmann's quaternion controller with dampers and by direct commands that change every 0.25 s,
    # one wheel with friction: every torque is internal, so C^T H is constant (rk4).
    settings = Settings(integrator="rk4", dt=5e-4, rates=(1.0, 0.2, -0.5), wheels="pyramid", wheel_inertia=0.02,
                        wheel_speeds=(50.0, -20.0, 10.0, 80.0), wheel_torque_limit=0.5, wheel_friction=(0.0, 0.01, 0, 0),
                        controller="quaternion", dampers_on=True, command_deg=(30.0, 20.0, -40.0), slerp_time=1.0)
    rng = np.random.default_rng(7)
    events = tuple(Event(0.25 * k, {"wheel_torques": tuple(rng.uniform(-0.3, 0.3, 4))}) for k in range(1, 16))
    runner = Runner(Scenario(name="exchange", duration=4.0, settings=settings, events=events))
    h0 = _inertial_momentum(runner.sim.snapshot(), settings)
    worst = 0.0
    speeds = []
    for _ in range(40):
        runner.advance(200)
        s = runner.sim.snapshot()
        worst = max(worst, np.linalg.norm(_inertial_momentum(s, settings) - h0) / np.linalg.norm(h0))
        np.testing.assert_allclose(s.h, _inertial_momentum(s, settings), rtol=1e-13, atol=1e-14)  # the CSV's hx..hz
        speeds.append(s.wheel_speeds)
    assert worst < 1e-12
    assert np.ptp(np.array(speeds), axis=0).min() > 1.0    # the wheels really did exchange momentum


def test_energy_of_a_torque_free_gyrostat_with_its_wheel_momenta_held():
    # No motor torque, no friction: each wheel's axial momentum h_i = J_s (W_i + a_i . w) is held, and the
    # kinetic energy of body and wheels is constant; rk4 against the energy written here.
    settings = Settings(integrator="rk4", dt=1e-3, rates=(1.0, 0.2, -0.5), wheels="pyramid", wheel_inertia=0.05,
                        wheel_speeds=(40.0, -10.0, 25.0, 5.0))
    sim = Simulation(settings)
    e0 = _energy(sim.snapshot(), settings)
    assert sim.snapshot().energy == pytest.approx(e0, rel=1e-14)
    for _ in range(10):
        sim.step(1000)
        s = sim.snapshot()
        assert _energy(s, settings) == pytest.approx(e0, rel=1e-11)
        h = [js * (w + np.dot(a, s.w)) for a, js, w in zip(settings.wheel_set.axes, settings.wheel_set.inertia,
                                                             s.wheel_speeds)]
        np.testing.assert_allclose(h, [0.05 * (w + np.dot(a, settings.rates)) for a, w in
                                       zip(settings.wheel_set.axes, settings.wheel_speeds)], rtol=1e-11)


def test_the_motors_work_is_the_change_of_energy():
    # dE/dt = sum u_i W_i: constant motor torques on a tumbling body, the work summed here by the trapezoid rule
    settings = Settings(integrator="rk4", dt=1e-3, rates=(0.3, -0.4, 0.2), wheels="orthogonal", inertia=BOX,
                        wheel_inertia=0.1, wheel_torques=(0.2, -0.1, 0.05), wheel_speed_limit=1e4)
    sim = Simulation(settings)
    energies, power = [sim.snapshot().energy], []
    for _ in range(2000):
        s = sim.snapshot()
        power.append(float(np.dot(s.wheel_torques, s.wheel_speeds)))
        sim.step(1)
    s = sim.snapshot()
    power.append(float(np.dot(s.wheel_torques, s.wheel_speeds)))
    work = np.trapezoid(power, dx=1e-3)
    assert s.energy - energies[0] == pytest.approx(work, rel=1e-6)
    assert abs(work) > 0.1


def test_friction_with_the_motors_off_takes_energy_at_the_rate_c_w_squared():
    # Issue 30, bug 1 (u - cW written u + cW): friction is the only torque on the wheels, so the energy of
    # body and wheels (written here, _energy) falls, at the rate dE/dt = -sum c_i W_i^2 (the friction
    # torque -c_i W_i times the relative speed W_i), summed here by the trapezoid rule.
    friction = (0.02, 0.0, 0.05, 0.01)
    settings = Settings(integrator="rk4", dt=1e-3, rates=(0.3, -0.4, 0.2), wheels="pyramid", wheel_inertia=0.05,
                        wheel_speeds=(40.0, -30.0, 25.0, 10.0), wheel_friction=friction)
    sim = Simulation(settings)
    energies, loss = [_energy(sim.snapshot(), settings)], [float(np.dot(friction, np.square(settings.wheel_speeds)))]
    for _ in range(2000):
        sim.step(1)
        s = sim.snapshot()
        energies.append(_energy(s, settings))
        loss.append(float(np.dot(friction, np.square(s.wheel_speeds))))
    assert np.all(np.diff(energies) < 0.0)
    assert energies[0] - energies[-1] == pytest.approx(np.trapezoid(loss, dx=1e-3), rel=1e-6)
    assert energies[0] - energies[-1] > 0.1 * energies[0]   # friction really acted


def test_one_wheel_on_a_principal_axis_spins_down_by_the_closed_form():
    # One wheel on the body's z axis, the body at rest, the motor off: w stays along z, and from the
    # conventions (J_z - J_s) dw_z/dt = c W and dW/dt = -c W / J_s - dw_z/dt, so
    # W(t) = W0 exp(-c (1/J_s + 1/(J_z - J_s)) t) and, the axial momentum J_z w_z + J_s W being held,
    # w_z = J_s (W0 - W) / J_z.  rk4 at dt = 1 ms: its error ~ (k dt)^5 / 120 per step is below 1e-12.
    jz, js, c, w0 = 4.0, 0.1, 0.05, 100.0
    settings = Settings(integrator="rk4", dt=1e-3, inertia=BOX, wheels=((0.0, 0.0, 1.0),), wheel_inertia=js,
                        wheel_friction=c, wheel_speeds=(w0,))
    sim = Simulation(settings)
    rate = c * (1.0 / js + 1.0 / (jz - js))
    for _ in range(5):
        sim.step(1000)
        s = sim.snapshot()
        speed = w0 * math.exp(-rate * s.t)
        assert s.wheel_speeds[0] == pytest.approx(speed, rel=1e-10)
        assert s.w[2] == pytest.approx(js * (w0 - speed) / jz, rel=1e-10)
        assert s.w[0] == 0.0 and s.w[1] == 0.0
    assert s.wheel_speeds[0] < 0.1 * w0   # spun well down in 5 s (rate 0.51/s)


def _gyrostat_dop853(settings, t_end, t_eval):
    """The free-wheel gyrostat by scipy: ``J' dw/dt = -w x (J' w + h)``, ``h = sum a_i h_i`` constant,
    ``W_i = h_i / J_s - a_i . w``; kinematics ``dQ/dt = -1/2 (w, 0) (x) Q`` (oracle.solve_attitude's)."""
    wheels = settings.wheel_set
    jxx, jyy, jzz, jxy, jxz, jyz = settings.mass_properties.inertia
    J = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    A = np.array(wheels.axes).T
    js = np.array(wheels.inertia)
    jf = J - (A * js) @ A.T
    w0 = np.array(settings.rates)
    hi = js * (np.array(settings.wheel_speeds) + A.T @ w0)
    h = A @ hi
    jf_inv = np.linalg.inv(jf)

    def rhs(t, y):
        w, q = y[:3], y[3:]
        return np.concatenate([jf_inv @ (-np.cross(w, jf @ w + h)), -0.5 * hamilton(np.append(w, 0.0), q)])

    q0 = Simulation(settings).q
    sol = solve_ivp(rhs, (0.0, t_end), np.concatenate([w0, q0]), method="DOP853", rtol=1e-12, atol=1e-12,
                    t_eval=t_eval)
    speeds = hi[:, None] / js[:, None] - A.T @ sol.y[:3]
    return sol.y[:3], sol.y[3:], speeds


def test_free_wheel_gyrostat_agrees_with_an_independent_dop853_integration():
    settings = Settings(integrator="rk4", dt=1e-3, rates=(0.4, 1.1, -0.3), wheels="pyramid", wheel_inertia=0.05,
                        wheel_speeds=(60.0, -30.0, 15.0, 45.0))
    t_eval = np.arange(1, 6) * 1.0
    w_ref, q_ref, speeds_ref = _gyrostat_dop853(settings, 5.0, t_eval)
    sim = Simulation(settings)
    for k in range(5):
        sim.step(1000)
        s = sim.snapshot()
        np.testing.assert_allclose(s.w, w_ref[:, k], atol=1e-9)
        np.testing.assert_allclose(s.wheel_speeds, speeds_ref[:, k], atol=1e-8)
        assert float((scipy_rotation(s.q).inv() * scipy_rotation(q_ref[:, k])).magnitude()) < 1e-9


@pytest.mark.parametrize("integrator, form, order", [("half-quat", "hoffmann", 1), ("full-quat", "lagrange", 1),
                                                     ("rk4", "hoffmann", 4)])
def test_every_integrator_converges_to_the_gyrostat_at_its_order(integrator, form, order):
    # each integrator's wheel terms against the DOP853 gyrostat after 2 s: the error falls as dt^order
    # (full-quat's hoffmann and raw forms converge to their own, damped, equation: PHYSICS.md)
    def error(dt):
        settings = Settings(integrator=integrator, full_quat_form=form, dt=dt, rates=(0.4, 1.1, -0.3),
                            wheels="pyramid", wheel_inertia=0.05, wheel_speeds=(60.0, -30.0, 15.0, 45.0))
        w_ref, _, speeds_ref = _gyrostat_dop853(settings, 2.0, [2.0])
        sim = Simulation(settings)
        sim.step(round(2.0 / dt))
        return max(np.abs(np.array(sim.w) - w_ref[:, 0]).max(),
                   np.abs(np.array(sim.wheel_speeds) - speeds_ref[:, 0]).max() * 0.05)

    coarse, fine = (0.004, 0.002) if order == 4 else (0.002, 0.001)
    ratio = error(coarse) / error(fine)
    assert 2 ** order * 0.8 < ratio < 2 ** order * 1.25


# ------------------------------------------------------------------ limits
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_motor_torque_is_clipped_at_its_limit(sign):
    js, most = 0.5, 0.2
    sim = Simulation(inertia=BOX, wheels=((1.0, 0.0, 0.0),), wheel_inertia=js, wheel_torque_limit=most,
                     integrator="rk4", torque=(sign, 0.0, 0.0), dt=0.001)
    sim.step(100)
    s = sim.snapshot()
    assert s.wheel_torques == (-sign * most,)
    assert s.command_torque == (sign, 0.0, 0.0)
    assert s.w[0] == pytest.approx(sign * most * 0.1 / (2.0 - js), rel=1e-14)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_wheel_at_its_speed_limit_is_driven_no_further(sign):
    # a steady command drives the wheel to -sign * W_max; from there its motor is cut (u = 0), the wheel
    # holds within one step's worth of the limit and the body stops gaining speed.
    js, most, fastest, dt = 0.5, 1.0, 4.0, 0.01
    sim = Simulation(inertia=BOX, wheels=((1.0, 0.0, 0.0),), wheel_inertia=js, wheel_torque_limit=most,
                     wheel_speed_limit=fastest, integrator="rk4", torque=(sign, 0.0, 0.0), dt=dt)
    reached = None
    speeds = []
    for _ in range(400):
        sim.step(1)
        s = sim.snapshot()
        speeds.append(s.wheel_speeds[0])
        if reached is None and abs(s.wheel_speeds[0]) >= fastest:
            reached = s
    assert reached is not None
    s = sim.snapshot()
    one_step = most / js * dt * (1.0 + js / (2.0 - js))
    assert max(abs(x) for x in speeds) <= fastest + one_step
    assert s.wheel_torques == (0.0,)
    assert s.w[0] == pytest.approx(reached.w[0], rel=1e-12)     # no more torque on the body
    assert np.sign(s.wheel_speeds[0]) == -sign
    # and driven back from the limit, the motor works again
    sim.set("torque", (-sign, 0.0, 0.0))
    sim.step(1)
    assert sim.snapshot().wheel_torques == (sign * most,)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("flags, says", [
    (["--wheels", "bogus"], "--wheels bogus: unknown value"),
    (["--wheels", "1,0,0;0,0,0"], "has no direction"),
    (["--wheels", "1,0"], "expected 3 numbers"),
    (["--wheels", "pyramid", "--wheel-inertia", "-1"], "--wheel-inertia -1"),
    (["--wheels", "pyramid", "--wheel-inertia", "5"], "not positive definite"),
    (["--wheels", "pyramid", "--wheel-speeds", "1,2"], "2 values for 4 wheels"),
    (["--wheels", "pyramid", "--wheel-speed-limit", "0"], "must be > 0"),
    (["--wheels", "pyramid", "--wheel-speed-limit", "100", "--wheel-speeds", "0,0,0,101"], "beyond the wheel's speed limit"),
    (["--wheels", "orthogonal", "--wheel-torque-limit", "nan"], "not a finite number"),
    (["--wheels", "orthogonal", "--wheel-friction", "-0.1"], "--wheel-friction -0.1"),
    (["--gravity-gradient", "50"], "must be >= 100 km"),
    (["--gravity-gradient", "abc"], "expected a number"),
    (["--gravity-gradient", "2e6"], "too large"),
    (["--disturbance", "1,2"], "expected 3 numbers"),
    (["--disturbance", "1,2,inf"], "not a finite number"),
    (["--disturbance-period", "-1"], "must be >= 0"),
    (["--disturbance-axes", "orbit"], "invalid choice"),
])
def test_bad_wheel_orbit_and_disturbance_values_are_refused_with_one_line(flags, says, capsys):
    assert main(["run", "--duration", "0.01", *flags]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err


@pytest.mark.parametrize("line, says", [
    ('wheels = "hexagon"', "unknown value 'hexagon'"),
    ("wheels = [1, 0, 0]", "a list of axes"),
    ('wheels = "pyramid"\nwheel_speeds = [1.0, 2.0]', "2 values for 4 wheels"),
    ("altitude_km = -5", "altitude_km: -5 must be >= 100"),
    ('disturbance_axes = "orbit"', "unknown value 'orbit'"),
])
def test_bad_values_in_a_scenario_file_name_the_line(line, says):
    with pytest.raises(ScenarioError, match=says) as info:
        loads(f"[scenario]\ntitle = 't'\n\n[settings]\n{line}\n", source="bad.toml")
    assert str(info.value).startswith("bad.toml, line ")


def test_a_run_keeps_its_number_of_wheels():
    runner = Runner(Scenario(name="w", settings=Settings(wheels="pyramid")))
    with pytest.raises(SettingsError, match="keeps its 4 wheels"):
        runner.submit("wheels", "orthogonal")
    runner.submit("wheels", ((0.0, 0.0, 1.0),) * 4)      # another layout of four: fine
    with pytest.raises(ScenarioError, match="keeps its 4 wheels"):
        loads('[settings]\nwheels = "pyramid"\n\n[[events]]\nat = 1.0\nwheels = "orthogonal"\n')


# ------------------------------------------------------------------ one source, columns, files
def test_the_wheel_formulas_agree_on_floats_and_columns_bit_for_bit():
    rng = np.random.default_rng(11)
    n = 64
    settings = Settings(wheels="pyramid", wheel_friction=(0.01, 0.0, 0.02, 0.0), wheel_speed_limit=50.0,
                        wheel_torque_limit=(0.1, 0.2, 0.3, 0.4))
    wheels = settings.wheel_set
    t = rng.normal(0, 0.5, (3, n))
    speeds = rng.choice([-50.0, 50.0, 0.0], (4, n)) + rng.choice([0.0, 0.0, 1e-3, -1e-3], (4, n))
    speeds[:, :8] = rng.normal(0, 60, (4, 8))
    direct = rng.normal(0, 0.1, (4, n))
    w = rng.normal(size=(3, n))
    jr = tuple(rng.normal(size=9))
    jfi = tuple(rng.normal(size=9))
    col = wheels.formulas(COLUMN).motor_load(tuple(t), tuple(speeds), tuple(direct), tuple(t))
    rhs_col = wheels.arithmetic.rhs(tuple(w) + tuple(speeds), col, jr, jfi)
    for j in range(n):
        flo = wheels.formulas(FLOAT).motor_load(tuple(t[:, j]), tuple(speeds[:, j]), tuple(direct[:, j]), tuple(t[:, j]))
        assert np.array_equal(np.array(flo), np.array([c[j] for c in col]))
        state = tuple(float(x) for x in np.concatenate([w[:, j], speeds[:, j]]))
        rhs = wheels.arithmetic.rhs(state, flo, jr, jfi)
        assert np.array_equal(np.array(rhs), np.array([c[j] for c in rhs_col]))
    assert (np.array(col[3:]) == 0.0).any()        # some wheels were at their limits


@pytest.mark.parametrize("changes", [
    dict(integrator="half-quat", controller="quaternion", dampers_on=True, command_deg=(30, 20, 10), slerp_time=0.5,
         wheel_torque_limit=0.5, wheel_speed_limit=100.0),
    dict(integrator="rk4", gravity_gradient=True, disturbance=(0.01, 0.0, 0.02), disturbance_period=3.0,
         disturbance_axes="inertial", wheels="orthogonal"),
    dict(integrator="full-quat", full_quat_form="lagrange", wheel_friction=0.01, wheel_speeds=(10, 20, 30, 40),
         wheel_torques=(0.1, 0.0, 0.0, -0.1)),
    dict(integrator="full-quat", full_quat_form="hoffmann", controller="euler", command_deg=(10, 5, 0)),
])
def test_every_body_of_an_ensemble_flies_as_one_body_bit_for_bit(changes):
    settings = Settings(dt=0.01, **{"wheels": "pyramid", **changes})
    ens = Ensemble(settings, EnsembleSpec(bodies=24, seed=3, rate_spread=0.3, inertia_spread=10.0))
    ens.step(200)
    close = settings.controller == "euler"   # atan2 through numpy: a few ulps (sim/core/ops.py)
    for j in (0, 11, 23):
        sim = Simulation(ens.body_settings(j))
        sim.step(200)
        ours = np.array(sim.q + sim.w + sim.wheel_speeds)
        theirs = np.concatenate([ens.q[:, j], ens.w[:, j], ens.wheel_speeds[:, j]])
        if close:
            np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
        else:
            assert np.array_equal(ours, theirs)


def test_cli_columns_csv_and_npz_with_wheels(capsys, tmp_path):
    argv = ["run", "--wheels", "pyramid", "--torque", "0.5,0,0", "--dampers", "0,0,0", "--duration", "0.05", "--dt", "0.01"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split(",")
    assert header == list(columns(4))
    assert header[-8:] == ["wheel1", "wheel2", "wheel3", "wheel4", "ux1", "ux2", "ux3", "ux4"]
    last = np.array(lines[-1].split(","), dtype=float)
    assert last[header.index("ux1")] == pytest.approx(-0.75 * math.sqrt(2 / 3) * 0.5, rel=1e-14)  # -A+ T
    out = tmp_path / "w.npz"
    assert main([*argv, "--out", str(out)]) == 0
    with np.load(out) as data:
        assert list(data.files) == header
        assert np.array_equal(data["wheel3"][-1:], last[header.index("wheel3"):header.index("wheel3") + 1])


def test_record_and_replay_carry_the_wheels_bit_for_bit(tmp_path):
    settings = Settings(wheels="pyramid", dt=0.01, controller="quaternion", dampers_on=True, wheel_torque_limit=0.3)
    path = tmp_path / "w.jsonl"
    api.record(settings, path, duration=2.0, inputs=[(0.3, "command_deg", (40.0, 10.0, 0.0)),
                                                     (1.0, "wheel_torques", (0.1, 0.0, -0.1, 0.0)),
                                                     (1.5, "wheel_torque_limit", 0.1)])
    replayed = api.replay(path)
    sim = Simulation(settings)
    sim.step(30)
    sim.set("command_deg", (40.0, 10.0, 0.0))
    sim.step(70)
    sim.set("wheel_torques", (0.1, 0.0, -0.1, 0.0))
    sim.step(50)
    sim.set("wheel_torque_limit", 0.1)
    sim.step(50)
    row = sim.row()
    for i in range(1, 5):
        assert replayed[f"wheel{i}"][-1] == row[list(columns(4)).index(f"wheel{i}")]
    assert replayed["hx"][-1] == sim.snapshot().h[0]


def test_sweep_columns_hold_each_bodys_final_wheel_speeds():
    from sim.sweep import Sweep

    settings = Settings(wheels="orthogonal", dt=0.01, controller="quaternion", dampers_on=True,
                        command_deg=(90.0, 0.0, 0.0), slerp_time=0.0, wheel_torque_limit=0.5)
    spec = EnsembleSpec(bodies=6, seed=2, rate_spread=0.2)
    result = Sweep(Scenario(name="s", duration=1.0, settings=settings), spec, chunk=4).run()
    ens = Ensemble(settings, spec)
    for j in (0, 5):
        sim = Simulation(ens.body_settings(j))
        sim.step(100)
        for i in range(3):
            assert result.columns[f"wheel{i + 1}"][j] == sim.wheel_speeds[i]


# ------------------------------------------------------------------ the built-in scenarios
def _scenario_rows(name):
    from sim.run.scenario import load

    scenario = load(name)
    runner = Runner(scenario)
    rows = runner.advance(round(scenario.duration / scenario.settings.dt)).rows
    return {c: rows[:, i] for i, c in enumerate(runner.columns)}, scenario


def test_reaction_wheels_scenario_slews_then_saturates():
    r, scenario = _scenario_rows("reaction_wheels")
    t = r["t"]
    at = lambda s: int(np.searchsorted(t, s))  # noqa: E731
    assert abs(r["psi_deg"][at(39.0)] - 90.0) < 1.0                     # the 90 deg slew, done
    speeds = np.array([r[f"wheel{i}"] for i in range(1, 5)])
    torques = np.array([r[f"ux{i}"] for i in range(1, 5)])
    assert np.abs(torques).max() <= 0.2                                # the motor-torque limit holds
    assert np.abs(speeds[:, :at(39.0)]).max() < 0.7 * 350.0            # the first slew stays inside
    saturated = np.abs(speeds) >= 350.0
    assert saturated[:, at(40.0):at(65.0)].any(axis=1).sum() >= 1      # the second command saturates a wheel
    assert (torques[saturated] * np.sign(speeds[saturated]) <= 0).all()  # never driven further out
    assert np.abs(speeds).max() <= 350.0 + 0.2 / 0.002 * 0.02 * 1.1    # within one step's worth
    end = (r["psi_deg"][-1], r["theta_deg"][-1], r["phi_deg"][-1])
    np.testing.assert_allclose(end, (-60.0, 50.0, 120.0), atol=0.5)     # and the command is reached
    assert np.abs(np.array([r["hx"], r["hy"], r["hz"]])).max() < 1e-12  # zero total momentum throughout


def test_momentum_exchange_scenario_turns_the_body_the_other_way():
    r, _ = _scenario_rows("momentum_exchange")
    t = r["t"]
    k = int(np.searchsorted(t, 10.0))
    assert r["wheel3"][k] > 40.0 and r["wz"][k] < -0.03                # the wheel one way, the body the other
    assert r["wheel3"][k] * 0.01 == pytest.approx(-r["wz"][k] * (13.45152028115087 - 0.01) - 0.01 * r["wz"][k],
                                                  rel=1e-9)            # J_s W = -(J_zz - J_s) w_z - J_s w_z
    assert np.abs(np.array([r["hx"], r["hy"], r["hz"]])).max() < 1e-12
    assert np.abs(r["wx"][int(np.searchsorted(t, 30.0)):]).max() > 0.01  # the x wheel's turn, with coupling


def test_gravity_gradient_scenario_librates_in_pitch():
    from sim.run.scenario import load

    scenario = load("gravity_gradient")
    sim = Simulation(scenario.settings)
    pitch, roll = [], []
    for _ in range(153):
        sim.step(100)
        o = sim.snapshot().orbit_angles_deg
        pitch.append(o[1])
        roll.append(max(abs(o[0]), abs(o[2])))
    assert max(pitch) == pytest.approx(10.0, abs=0.05) and min(pitch) == pytest.approx(-10.0, abs=0.2)
    assert max(roll) < 1e-6                                             # a pure pitch libration
    crossings = np.flatnonzero(np.diff(np.sign(pitch)) < 0)
    period = np.diff(crossings).mean() * 100.0
    assert period == pytest.approx(5078, rel=0.02)                      # 10 deg: a little longer than small-angle


def test_the_window_s_ensemble_flies_the_wheels_and_the_events_bit_for_bit():
    # the runner's ensemble (the Ensemble tab) gets the wheel events as the main body does
    from sim.run.runner import ENSEMBLE
    from sim.run.scenario import load

    scenario = load("momentum_exchange")
    runner = Runner(scenario)
    spec = EnsembleSpec(bodies=5, seed=4, rate_spread=0.05)
    runner.submit(ENSEMBLE, spec)
    info = runner.advance(0).ensemble.info    # the bodies as they start
    runner.advance(2200)                      # past the events at 10 and 20 s
    frame = runner.ensemble_frame()
    for j in (0, 4):
        sim_runner = Runner(Scenario(name="one", settings=info.body_settings(j), events=scenario.events))
        sim_runner.advance(2200)
        assert np.array_equal(frame.q[:, j], np.array(sim_runner.sim.q))
        assert np.array_equal(runner.ensemble.wheel_speeds[:, j], np.array(sim_runner.sim.wheel_speeds))


def test_a_scenario_with_wheels_writes_and_reads_back_the_same(tmp_path):
    from dataclasses import replace

    from sim.run.scenario import load
    from sim.run.scenario_writer import save

    scenario = load("reaction_wheels")
    custom = replace(scenario, settings=scenario.settings.replace(
        wheels=((1.0, 0.0, 0.0), (0.0, 0.6, 0.8)), wheel_speeds=(1.5, -2.0), wheel_inertia=(0.002, 0.003),
        gravity_gradient=True, altitude_km=700.0, disturbance=(1e-3, 0.0, -2e-3), disturbance_axes="inertial"),
        events=())
    for original in (scenario, custom):
        path = tmp_path / "w.toml"
        save(original, path)
        again = load(str(path))
        assert again.settings == original.settings and again.events == original.events
        assert (again.speed, again.plot_seconds) == (original.speed, original.plot_seconds) == (2.0, 80.0)
