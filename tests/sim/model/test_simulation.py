"""The Simulation (sim.model.simulation): determinism, snapshots, SLERP command, settings, faults.

References: scipy's Rotation for the snapshot's angles and inertial angular
momentum, numpy for energy and norm, the closed form of SLERP along a single
axis (the command moves at a constant rate), and bit-for-bit comparison of
repeated runs.  Attitude errors are rotation angles (scipy).
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core.integrators import qdot
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation, SimulationFault
from sim.model.rows import HISTORY_COLUMNS, COLUMNS, Snapshot
from oracle import attitude_error, scipy_rotation

W0 = (1.0, 0.2, -0.5)
J = np.array([[0.6, 0.0, -0.2], [0.0, 1.0, 0.0], [-0.2, 0.0, 1.5]])




def q_of_angles_deg(psi, theta, phi):
    x = Rotation.from_euler("ZYX", [psi, theta, phi], degrees=True).as_quat()
    return np.array([-x[0], -x[1], -x[2], x[3]])


# ------------------------------------------------------------- determinism
def scripted_run(**settings):
    sim = Simulation(**settings)
    rows = []

    def record(n):
        for _ in range(n):
            sim.step(1)
            rows.append(sim.snapshot().row())

    record(100)
    sim.set("integrator", "full-quat")
    record(50)
    sim.set("command_deg", (10.0, 20.0, 30.0))
    sim.set("controller", "quaternion")
    record(100)
    sim.set("dt", 0.005)
    record(100)
    sim.update({"norm": "renormalize", "dampers_on": True, "integrator": "rk4"})
    record(50)
    sim.set("torque", (0.1, -0.2, 0.3))
    record(50)
    return rows


@pytest.mark.parametrize("integrator", ["half-quat", "full-quat", "rk4"])
def test_simulation_deterministic(integrator):
    a = scripted_run(integrator=integrator, rates=W0, dt=0.01)
    b = scripted_run(integrator=integrator, rates=W0, dt=0.01)
    assert len(a) == 450
    assert a == b  # bit-identical, including after the set() calls
    # and the script really changed the run (not a constant record)
    assert a[0] != a[-1]


def test_simulation_reset_repeats_run():
    sim = Simulation(rates=W0, dt=0.01, controller="quaternion", command_deg=(30.0, 0.0, 0.0))
    sim.step(200)
    first = sim.snapshot()
    sim.reset()
    assert sim.t == 0.0 and sim.steps == 0
    sim.step(200)
    assert sim.snapshot() == first


# ---------------------------------------------------------------- snapshots
@pytest.mark.parametrize("integrator", ["half-quat", "full-quat", "rk4"])
def test_snapshot_fields_consistent(integrator):
    sim = Simulation(integrator=integrator, rates=W0, dt=0.01, angles_deg=(20.0, 35.0, -50.0), torque=(0.2, 0.1, -0.3))
    sim.step(137)
    s = sim.snapshot()
    q, w, p = np.array(s.q), np.array(s.w), np.array(s.p)
    assert s.step == 137 and sim.steps == 137
    assert s.t == pytest.approx(1.37, abs=1e-12)
    assert s.norm == pytest.approx(np.linalg.norm(q) - 1.0, abs=1e-15)
    assert s.energy == pytest.approx(0.5 * w @ J @ w, rel=1e-14)
    assert s.four_t == 4.0 * s.energy
    # h is C^T J w as documented; C = cayley(Q) is |Q|^2 times the rotation
    # (Full-Quat's norm controller leaves |Q| - 1 ~ 1e-6 at dt = 0.01)
    np.testing.assert_allclose(s.h, (q @ q) * scipy_rotation(q).apply(J @ w), atol=1e-13)
    # aircraft angles of q from scipy (body -> inertial ZYX of the conjugate)
    np.testing.assert_allclose(s.angles_deg, scipy_rotation(q).as_euler("ZYX", degrees=True), atol=1e-10)
    assert s.q_dot_p == pytest.approx(q @ p, abs=1e-15)
    np.testing.assert_allclose(s.torque, (0.2, 0.1, -0.3), atol=0)
    if integrator != "full-quat":
        np.testing.assert_allclose(s.p, qdot(s.q, s.w), atol=0)
        assert abs(s.q_dot_p) < 1e-15
    assert not s.gimbal_lock
    row = s.row()
    assert len(row) == len(HISTORY_COLUMNS)
    named = dict(zip(HISTORY_COLUMNS, row))
    assert named["t"] == s.t and named["energy"] == s.energy and named["four_t"] == s.four_t
    assert (named["q1"], named["q2"], named["q3"], named["q4"]) == s.q
    assert (named["hx"], named["hy"], named["hz"]) == s.h
    assert (named["psi_deg"], named["theta_deg"], named["phi_deg"]) == s.angles_deg
    assert (named["qc1"], named["qc2"], named["qc3"], named["qc4"]) == s.qc
    assert HISTORY_COLUMNS[:len(COLUMNS)] == COLUMNS


def test_snapshot_initial_state_matches_settings():
    s = Simulation(angles_deg=(15.0, 30.0, 15.0), rates=W0).snapshot()
    assert s.t == 0.0 and s.step == 0
    assert attitude_error(s.q, q_of_angles_deg(15.0, 30.0, 15.0)) < 1e-15
    np.testing.assert_allclose(s.angles_deg, (15.0, 30.0, 15.0), atol=1e-12)
    assert s.w == W0
    # the command starts at the attitude
    assert s.qc == s.q


@pytest.mark.parametrize("theta", [89.0, 90.0, -89.5])
def test_snapshot_gimbal_lock_flag(theta):
    s = Simulation(angles_deg=(0.0, theta, 0.0)).snapshot()
    assert s.gimbal_lock == (abs(math.cos(math.radians(theta))) < 0.05)


def test_snapshot_immutable():
    s = Simulation().snapshot()
    assert isinstance(s, Snapshot)
    with pytest.raises(AttributeError):
        s.t = 1.0


def test_docstring_example():
    sim = Simulation(rates=(1.0, 0.2, -0.5))
    sim.step(1000)
    assert round(sim.snapshot().t, 6) == 1.0


def test_set_dt_mid_run_keeps_time_consistent():
    sim = Simulation(dt=0.01)
    sim.step(50)
    sim.set("dt", 0.002)
    sim.step(250)
    assert sim.t == pytest.approx(0.5 + 0.5, abs=1e-12)
    assert sim.steps == 300


def test_set_rates_and_angles_take_effect_at_reset():
    sim = Simulation(rates=W0, dt=0.01)
    sim.step(10)
    before = sim.snapshot()
    sim.set("rates", (0.0, 0.0, 2.0))
    sim.set("angles_deg", (0.0, 45.0, 0.0))
    assert sim.snapshot().w == before.w and sim.snapshot().q == before.q
    sim.reset()
    s = sim.snapshot()
    assert s.w == (0.0, 0.0, 2.0)
    assert attitude_error(s.q, q_of_angles_deg(0.0, 45.0, 0.0)) < 1e-15


# ------------------------------------------------------------ SLERP command
def command_track(slerp_time, command=(120.0, 0.0, 0.0), dt=0.01, steps=300, **settings):
    sim = Simulation(dt=dt, slerp_time=slerp_time, **settings)
    sim.set("command_deg", command)
    track = [sim.snapshot()]
    for _ in range(steps):
        sim.step(1)
        track.append(sim.snapshot())
    return track


def test_slerp_command_reaches_target_at_slerp_time():
    target = q_of_angles_deg(120.0, 0.0, 0.0)
    track = command_track(2.0)
    # t = 2 s is step 200
    assert track[200].t == pytest.approx(2.0, abs=1e-12)
    assert attitude_error(track[200].qc, target) < 1e-14
    assert attitude_error(track[199].qc, target) > math.radians(0.5)
    for s in track[200:]:
        assert attitude_error(s.qc, target) < 1e-14
    np.testing.assert_allclose(track[-1].command_deg, (120.0, 0.0, 0.0), atol=1e-10)
    # without a controller the body does not follow: only the command moves
    assert track[-1].q == track[0].q


@pytest.mark.parametrize("command", [(120.0, 0.0, 0.0), (40.0, -30.0, 70.0), (-170.0, 10.0, 175.0)],
                         ids=["yaw", "mixed", "near_half_turn"])
def test_slerp_command_constant_rate(command):
    # rotation angle from the start grows linearly: t / slerp_time of the total
    track = command_track(2.0, command=command, steps=200)
    q0 = track[0].qc
    total = attitude_error(q0, q_of_angles_deg(*command))
    for s in track[::10]:
        assert attitude_error(q0, s.qc) == pytest.approx(total * s.t / 2.0, abs=1e-12)
        assert np.linalg.norm(s.qc) == pytest.approx(1.0, abs=1e-15)


def test_slerp_command_single_axis_closed_form():
    # a yaw command from level: qc(t) is the yaw rotation by 120 deg * t / 2
    track = command_track(2.0, steps=200)
    for s in track[::20]:
        assert attitude_error(s.qc, q_of_angles_deg(120.0 * s.t / 2.0, 0.0, 0.0)) < 1e-13


def test_slerp_time_zero_jumps():
    track = command_track(0.0, steps=1)
    target = q_of_angles_deg(120.0, 0.0, 0.0)
    assert track[0].t == 0.0
    assert attitude_error(track[0].qc, target) < 1e-15
    assert attitude_error(track[1].qc, target) < 1e-15


def test_new_command_starts_from_current_command():
    # a second command while the first is moving continues from the current
    # command quaternion (no jump)
    sim = Simulation(dt=0.01, slerp_time=2.0)
    sim.set("command_deg", (90.0, 0.0, 0.0))
    sim.step(100)
    mid = sim.snapshot().qc
    assert attitude_error(mid, q_of_angles_deg(45.0, 0.0, 0.0)) < 1e-13
    sim.set("command_deg", (0.0, 60.0, 0.0))
    assert sim.snapshot().qc == mid
    sim.step(1)
    assert attitude_error(sim.snapshot().qc, mid) < math.radians(1.0)
    sim.step(199)
    assert attitude_error(sim.snapshot().qc, q_of_angles_deg(0.0, 60.0, 0.0)) < 1e-14


def test_slerp_command_shortest_path():
    # a 270 deg yaw command is reached through -90 deg (the short way)
    track = command_track(2.0, command=(270.0, 0.0, 0.0), steps=200)
    psi = np.array([s.command_deg[0] for s in track])
    assert psi.min() == pytest.approx(-90.0, abs=1e-9)
    assert np.all(psi <= 1e-9)


def test_slerp_command_followed_by_controller():
    sim = Simulation(integrator="half-quat", dt=0.01, dampers_on=True, controller="quaternion", slerp_time=2.0)
    sim.set("command_deg", (60.0, 20.0, -30.0))
    sim.step(800)
    assert math.degrees(attitude_error(sim.snapshot().q, q_of_angles_deg(60.0, 20.0, -30.0))) < 1.0


def test_set_command_none_is_accepted():
    sim = Simulation(dt=0.01, controller="quaternion", command_deg=(10.0, 0.0, 0.0))
    sim.step(10)
    sim.set("command_deg", None)
    assert sim.settings.command_deg is None
    sim.step(10)


# ---------------------------------------------------------------- settings
@pytest.mark.parametrize(
    "key, value, reason",
    [
        ("dt", -1.0, "must be > 0"),
        ("dt", 0.0, "must be > 0"),
        ("dt", math.nan, "not a finite number"),
        ("dt", 5.0, "too large"),
        ("integrator", "euler", "unknown value"),
        ("full_quat_form", "magic", "unknown value"),
        ("norm", "sometimes", "unknown value"),
        ("inertia", (1.0, 1.0, 3.0, 0.0, 0.0, 0.0), "triangle inequality"),
        ("inertia", (1.0, 1.0, 1.0, 2.0, 0.0, 0.0), "not positive definite"),
        ("inertia", (1.0, 1.0, 1.0), "expected 6 numbers"),
        ("rates", (1.0, 2.0), "expected 3 numbers"),
        ("rates", (1.0, math.inf, 0.0), "not a finite number"),
        ("torque", "a,b,c", "expected a number"),
        ("dampers_on", "yes", "expected true or false"),
        ("dampers", (1.0, -1.0, 1.0), "must be >= 0"),
        ("gains", None, "expected 3 numbers"),
        ("axes", (True, 1, False), "expected true or false"),
        ("limits", (1.0, 0.0, 1.0), "must be > 0"),
        ("slerp_time", -0.5, "must be >= 0"),
        ("command_deg", (1.0, 2.0, "x"), "expected a number"),
        ("controller", "pid", "unknown value"),
    ],
)
def test_set_bad_value_raises_and_leaves_settings(key, value, reason):
    sim = Simulation(rates=W0, dt=0.01)
    sim.step(5)
    before_settings = sim.settings
    before_state = sim.snapshot()
    with pytest.raises(SettingsError, match=key) as info:
        sim.set(key, value)
    assert reason in str(info.value)
    assert isinstance(info.value, ValueError)
    assert sim.settings == before_settings
    assert sim.snapshot() == before_state


def test_set_unknown_key_raises():
    sim = Simulation()
    with pytest.raises(SettingsError, match="unknown setting 'speed'"):
        sim.set("speed", 3)


def test_update_validates_everything_first():
    sim = Simulation(dt=0.01)
    before = sim.settings
    with pytest.raises(SettingsError, match="integrator"):
        sim.update({"dt": 0.02, "dampers_on": True, "integrator": "nope"})
    assert sim.settings == before


@pytest.mark.parametrize("order", ["wheels first", "speeds first"])
def test_update_takes_a_combination_in_either_order(order):
    # four speeds only fit the pyramid's four wheels: sent together, they are one change
    changes = {"wheels": "pyramid", "wheel_speeds": (1.0, 2.0, 3.0, 4.0)}
    if order == "speeds first":
        changes = dict(reversed(changes.items()))
    sim = Simulation(wheels="orthogonal", dt=0.01)
    sim.update(changes)
    assert sim.settings.wheel_count == 4 and sim.settings.wheel_speeds == (1.0, 2.0, 3.0, 4.0)
    sim.reset()
    assert sim.wheel_speeds == (1.0, 2.0, 3.0, 4.0)


def test_update_refused_as_a_whole_changes_nothing():
    # each value alone is valid; together (two speeds for three wheels) they are not: dt stays as it was
    sim = Simulation(wheels="orthogonal", dt=0.01)
    sim.step(10)
    before, t = sim.settings, sim.t
    with pytest.raises(SettingsError, match="wheel_speeds"):
        sim.update({"dt": 0.02, "wheel_speeds": (1.0, 2.0)})
    assert sim.settings == before
    sim.step(10)
    assert sim.t == pytest.approx(t + 10 * 0.01, abs=1e-15)


@pytest.mark.parametrize("order", ["command first", "slerp_time first"])
def test_update_flies_a_command_with_the_slerp_time_sent_beside_it(order):
    # the model first, then the controls: a yaw of 120 deg over the new 4 s, whatever the order of the keys
    changes = {"command_deg": (120.0, 0.0, 0.0), "slerp_time": 4.0}
    if order == "slerp_time first":
        changes = dict(reversed(changes.items()))
    sim = Simulation(dt=0.01, slerp_time=2.0)
    sim.update(changes)
    sim.step(100)
    assert attitude_error(sim.snapshot().qc, q_of_angles_deg(120.0 * 1.0 / 4.0, 0.0, 0.0)) < 1e-13


def test_constructor_rejects_bad_settings():
    with pytest.raises(SettingsError, match="inertia"):
        Simulation(inertia=(1.0, 1.0, 5.0, 0.0, 0.0, 0.0))
    with pytest.raises(SettingsError, match="dt"):
        Simulation(Settings(), dt=-1)


# ------------------------------------------------------------------ faults
def test_runaway_norm_fault_leaves_last_good_state():
    sim = Simulation(norm="none", rates=(1000.0, 0.0, 0.0), dt=0.1)
    before = sim.snapshot()
    with pytest.raises(SimulationFault, match="norm error") as info:
        sim.step(5)
    assert info.value.t == 0.0
    assert sim.snapshot() == before


def test_runaway_norm_fault_after_some_good_steps():
    # Half-Quat without norm handling: |Q| grows by sqrt(1 + dt^2 |w|^2 / 4)
    # per step (w stays (0, 3, 0): y is a principal axis of Hoffmann's
    # aircraft); the fault comes at the first step beyond |Q| - 1 = 1e-3.
    dt, w = 0.01, 3.0
    growth = math.sqrt(1.0 + (dt * w / 2) ** 2)
    last_good = max(n for n in range(1000) if growth ** n - 1.0 <= 1e-3)
    sim = Simulation(norm="none", rates=(0.0, w, 0.0), dt=dt)
    last = sim.snapshot()
    with pytest.raises(SimulationFault, match="ran away"):
        for _ in range(1000):
            sim.step(1)
            last = sim.snapshot()
    assert last.step == last_good
    assert sim.snapshot() == last
    assert last.norm == pytest.approx(growth ** last_good - 1.0, rel=1e-9)
    assert math.isfinite(last.energy)


@pytest.mark.parametrize("integrator", ["half-quat", "full-quat", "rk4"])
def test_nonfinite_state_fault_leaves_last_good_state(integrator):
    # Runaway rates: w grows like w^2 dt each step until it overflows
    sim = Simulation(integrator=integrator, norm="hoffmann", rates=(1e3, 2e3, -1e3), dt=1.0)
    last = sim.snapshot()
    with pytest.raises(SimulationFault, match="no longer finite"):
        for _ in range(200):
            sim.step(1)
            last = sim.snapshot()
    s = sim.snapshot()
    # derived values (energy, h, multiplier) of the huge last good rates may
    # overflow to nan, so compare the state itself
    assert (s.t, s.step, s.q, s.w, s.p) == (last.t, last.step, last.q, last.w, last.p)
    assert all(math.isfinite(x) for x in s.q + s.w)


def test_nonfinite_state_fault_with_renormalize():
    sim = Simulation(integrator="half-quat", norm="renormalize", rates=(1e3, 2e3, -1e3), dt=1.0)
    with pytest.raises(SimulationFault):
        for _ in range(200):
            sim.step(1)
            s = sim.snapshot()
            assert math.sqrt(sum(x * x for x in s.q)) == pytest.approx(1.0)
    s = sim.snapshot()
    assert math.sqrt(sum(x * x for x in s.q)) == pytest.approx(1.0)


@pytest.mark.parametrize("changes", [
    {"integrator": "half-quat"},
    {"integrator": "full-quat", "controller": "quaternion"},
    {"integrator": "rk4", "controller": "euler", "dampers_on": True},
])
def test_row_is_the_snapshot_row_while_a_slerp_command_moves(changes):
    """Simulation.row (what the runner records per step) holds what snapshot() reports."""
    sim = Simulation(rates=(0.4, -0.2, 0.3), slerp_time=0.5, **changes)
    sim.step(10)
    sim.set("command_deg", (30.0, 20.0, -40.0))
    rows = set()
    for _ in range(12):
        sim.step(50)
        assert sim.row() == sim.snapshot().row()
        rows.add(sim.row()[-3:])
    assert len(rows) > 5        # the command angles moved along the SLERP


def test_energy_of_a_body_with_every_product_of_inertia_is_half_w_j_w():
    """Hoffmann's signs: J = [[Jxx, -Jxy, -Jxz], [-Jxy, Jyy, -Jyz], [-Jxz, -Jyz, Jzz]] (README conventions)."""
    jxx, jyy, jzz, jxy, jxz, jyz = 2.0, 3.0, 4.0, 0.3, -0.2, 0.25
    sim = Simulation(Settings(inertia=(jxx, jyy, jzz, jxy, jxz, jyz), rates=(0.7, -1.1, 0.4)))
    j = np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])
    w = np.array([0.7, -1.1, 0.4])
    assert sim.energy() == pytest.approx(0.5 * w @ j @ w, rel=1e-15)
    assert sim.snapshot().energy == pytest.approx(0.5 * w @ j @ w, rel=1e-15)


def test_command_quaternion_is_continuous_through_the_end_of_a_short_way_slerp():
    """A yaw command of 200 deg turns the short way (-160 deg): its path ends on -Q(target), and the command
    written out (qc1..qc4) stays there instead of jumping to the target's own sign (issue 29)."""
    target = q_of_angles_deg(200.0, 0.0, 0.0)
    assert target[3] < 0.0                  # Q(target) . Q(start) < 0: the short way ends on -Q(target)
    sim = Simulation(dt=0.01, slerp_time=0.5, command_deg=(200.0, 0.0, 0.0), controller="quaternion")
    qc = [np.array(sim.snapshot().qc)]
    for _ in range(100):                    # through the end of the SLERP (50 steps) and past it
        sim.step()
        qc.append(np.array(sim.snapshot().qc))
    qc = np.array(qc)
    # a SLERP of 160 deg over 50 steps moves the command by sin(1.6 deg) ~ 0.028 a step, a jump of sign by ~2
    assert np.abs(np.diff(qc, axis=0)).max() < 0.05
    np.testing.assert_allclose(qc[-1], -np.asarray(target), atol=1e-15)     # the same attitude as the target
    assert attitude_error(qc[-1], target) < 1e-14
