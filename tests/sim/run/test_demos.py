"""Each built-in demonstration runs headless to its end and shows its point in numbers."""

import functools
import math

import numpy as np
import pytest

from sim.core.quaternion import rotation_angle
from sim.run.runner import Runner
from sim.run.scenario import load
from sim.model.simulation import Simulation
from sim.model.rows import HISTORY_COLUMNS

from oracle import solve_attitude

COL = {name: i for i, name in enumerate(HISTORY_COLUMNS)}


@functools.cache
def _run(name):
    """Rows of the main body and of each comparison body over the whole scenario."""
    scenario = load(name)
    runner = Runner(scenario)
    n = round(scenario.duration / scenario.settings.dt)
    main = np.empty((n, len(HISTORY_COLUMNS)))
    others = {label: np.empty_like(main) for label in runner.compare}
    for k in range(n):
        batch = runner.advance(1)
        assert batch.fault is None
        main[k] = batch.rows[0]
        for label, snap in batch.compare.items():
            others[label][k] = snap.row()
    return main, others


def _attitude_error_deg(rows):
    q = rows[:, COL["q1"]:COL["q4"] + 1]
    qc = rows[:, COL["qc1"]:COL["qc4"] + 1]
    return np.degrees([rotation_angle(a, b) for a, b in zip(q, qc)])


@pytest.mark.slow
def test_gimbal_lock_euler_controller_fails_where_quaternion_tracks():
    main, others = _run("gimbal_lock")
    t = main[:, COL["t"]]
    over_the_top = (t >= 5.0) & (t <= 12.0)     # the command pitches through 90 deg
    quat_err = _attitude_error_deg(main[over_the_top]).max()
    euler_err = _attitude_error_deg(others["euler controller"][over_the_top]).max()
    # the quaternion controller's tracking lag behind the SLERP command over the top: measured 6.52 deg
    # (dt = 1 ms, deterministic); 7.5 leaves 15 % for rounding across machines, and a worse tracking fails
    assert quat_err < 7.5
    assert euler_err > 5 * quat_err
    # the aircraft did pass through theta = 90 deg
    assert main[over_the_top, COL["theta_deg"]].max() > 85.0


def test_gimbal_lock_euler_readout_jumps_while_attitude_moves_smoothly():
    main, _ = _run("gimbal_lock")
    q = main[:, COL["q1"]:COL["q4"] + 1]
    psi = main[:, COL["psi_deg"]]
    step_angle = np.degrees([rotation_angle(a, b) for a, b in zip(q[:-1], q[1:])])
    assert step_angle.max() < 0.5                     # smooth: < 0.5 deg per 1 ms step
    jumps = np.abs(np.diff(psi))
    jumps = np.minimum(jumps, 360.0 - jumps)
    assert jumps.max() > 30.0                         # the Euler readout jumps


@pytest.mark.slow
def test_shortest_path_on_turns_short_way_off_turns_long_way():
    main, others = _run("shortest_path")
    dt = load("shortest_path").settings.dt
    t = main[:, COL["t"]]
    last = t >= 19.0                                  # command 190 deg at t = 19 s

    def yaw_travelled(rows):
        return math.degrees(np.sum(rows[last, COL["wz"]]) * dt)

    on, off = yaw_travelled(main), yaw_travelled(others["shortest path off"])
    assert abs(on) < 180.0 and on < 0.0
    assert abs(off) > 180.0 and off > 0.0


def test_integrator_comparison_rk4_error_far_below_half_quat():
    scenario = load("integrators")
    s = scenario.settings
    assert s.angles_deg == (0.0, 0.0, 0.0) and s.torque == (0.0, 0.0, 0.0)   # the reference's start
    duration = 10.0
    runner = Runner(scenario)
    n = round(duration / s.dt)
    runner.advance(n)
    # independent reference: solve_ivp on Euler's equations and the kinematics
    # (tests/oracle.py), Hoffmann's aircraft written out with his signs
    J = np.array([[0.6, 0.0, -0.2], [0.0, 1.0, 0.0], [-0.2, 0.0, 1.5]])
    np.testing.assert_array_equal(runner.sim.body.J, J)
    _, q_ref = solve_attitude(duration, s.rates, (0.0, 0.0, 0.0, 1.0), J)
    err_half = rotation_angle(runner.sim.snapshot().q, q_ref)
    err_rk4 = rotation_angle(runner.compare["rk4"].snapshot().q, q_ref)
    # measured: half-quat 0.053 rad (first order at dt = 10 ms), rk4 2.0e-10 rad
    assert 0.053 / 1.25 < err_half < 0.053 * 1.25
    assert 2.0e-10 / 1.5 < err_rk4 < 2.0e-10 * 1.5
    assert err_rk4 < 1e-3 * err_half
    # full-quat raw loses its energy, the Lagrange form keeps it (Sherif's term)
    e0 = Simulation(scenario.settings).snapshot().energy
    assert runner.compare["full-quat raw"].snapshot().energy < 0.5 * e0
    # first-order False Euler at dt = 10 ms gains energy, +5.12 % in 10 s measured (about 1 % in 20 s at 1 ms):
    # a band of +-1 % about it, so that a form that keeps the energy worse, or one that suddenly keeps it, fails
    gain = runner.compare["full-quat lagrange"].snapshot().energy / e0 - 1.0
    assert 0.04 < gain < 0.062


@pytest.mark.slow
@pytest.mark.parametrize("name", ["intermediate_axis", "tennis_racket"])
def test_intermediate_axis_flips_only_about_intermediate_axis(name):
    main, others = _run(name)

    def flips(rows, axis):
        w = rows[:, COL["wx"] + axis]
        return int(np.count_nonzero(np.diff(np.sign(w)) != 0))

    assert flips(main, 1) >= 2                        # spin about y flips over and back
    assert flips(others["spin about x"], 0) == 0
    assert flips(others["spin about z"], 2) == 0


def test_hoffmann_experiment_scenario_kick_then_free():
    scenario = load("hoffmann")
    rows = list(Runner(scenario).run())
    assert len(rows) == 11                            # t = 0 .. 1.0 s in steps of 0.1
    torques = [r[COL["tx"]] for r in rows]
    assert torques[0] == 5.0 and all(tx == 0.0 for tx in torques[1:])
    energy = [r[COL["energy"]] for r in rows[1:]]
    assert max(energy) - min(energy) < 0.05 * energy[0]


def test_hoffmann_controller_preset_reaches_every_command_within_limits():
    main, _ = _run("hoffmann_controller")
    t = main[:, COL["t"]]
    for before, command in ((10.9, (40.0, 30.0, 20.0)), (23.9, (-120.0, -45.0, 150.0)), (40.0, (0.0, 0.0, 0.0))):
        row = main[np.argmin(np.abs(t - before))]
        assert row[COL["psi_deg"]:COL["phi_deg"] + 1] == pytest.approx(command, abs=0.5)
    torque = main[:, COL["tx"]:COL["tz"] + 1]
    assert np.all(np.abs(torque) <= np.array([8.0, 2.0, 4.0]) + 1e-12)   # Hoffmann's limiters
    assert np.abs(torque[:, 1]).max() == pytest.approx(2.0)              # pitch saturates
