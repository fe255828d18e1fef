"""Torques (sim.core.control): dampers, limiter, Euler-angle and quaternion controllers.

References: the small-angle law T = -K a n of a proportional attitude
controller (a body turned by angle a about n is pushed back about -n), the
sign of the response to 179 and 181 deg commands, convergence from scipy's
uniformly random attitudes, Hoffmann's formulas (9.3), (9.8), (9.9) written out.
Attitude errors are rotation angles (scipy), so Q and -Q compare equal.
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core import control
from sim.core import quaternion as quat
from sim.model.simulation import Simulation
from oracle import attitude_error, unit

GAINS = control.HOFFMANN_PRESET["gains"]
DAMPERS = control.HOFFMANN_PRESET["dampers"]
IDENTITY = (0.0, 0.0, 0.0, 1.0)





def q_of_angles_deg(psi, theta, phi):
    """Q for aircraft angles (degrees) from scipy: conjugate of ZYX's quaternion."""
    x = Rotation.from_euler("ZYX", [psi, theta, phi], degrees=True).as_quat()
    return np.array([-x[0], -x[1], -x[2], x[3]])


RNG = np.random.default_rng(4242)
PAIRS = [(unit(RNG.normal(size=4)), unit(RNG.normal(size=4))) for _ in range(30)]


# ---------------------------------------------------------- dampers, limiter
@pytest.mark.parametrize("w", [(0.0, 0.0, 0.0), (1.0, -2.0, 0.5), (-3.0, 0.1, 4.0)])
def test_damper_torque(w):
    np.testing.assert_array_equal(control.damper_torque(w, DAMPERS), -np.array(DAMPERS) * np.array(w))


@pytest.mark.parametrize(
    "t, expected",
    [
        ((10.0, -10.0, 1.0), (8.0, -2.0, 1.0)),
        ((-9.0, 1.5, -5.0), (-8.0, 1.5, -4.0)),
        ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
        ((8.0, -2.0, 4.0), (8.0, -2.0, 4.0)),
    ],
    ids=["clip_x_y", "clip_x_z", "zero", "at_limits"],
)
def test_limit_clips_per_axis(t, expected):
    assert control.limit(t, control.HOFFMANN_PRESET["limits"]) == expected


def test_torque_model_order_command_dampers_controller_limiter():
    tm = control.TorqueModel()
    w = (0.5, -1.0, 2.0)
    tm.command = (1.0, 2.0, -3.0)
    assert tm(IDENTITY, w) == (1.0, 2.0, -3.0)
    tm.dampers_on = True
    expected = np.array(tm.command) - np.array(DAMPERS) * np.array(w)
    np.testing.assert_allclose(tm(IDENTITY, w), expected, atol=1e-15)
    tm.controller = "quaternion"
    q = quat.from_axis_angle((0, 1, 0), 0.3)
    expected = expected + np.array(control.quaternion_controller_torque(q, tm.qc, GAINS))
    np.testing.assert_allclose(tm(q, w), expected, atol=1e-15)
    tm.limiter_on = True
    np.testing.assert_allclose(tm(q, w), np.clip(expected, -np.array(tm.limits), np.array(tm.limits)), atol=1e-15)


def test_dampers_alone_stop_rotation():
    # only dampers on: T = -k w takes out the energy monotonically
    sim = Simulation(integrator="rk4", dt=0.01, rates=(1.0, 0.2, -0.5), dampers_on=True)
    energies = []
    for _ in range(20):
        sim.step(50)
        s = sim.snapshot()
        energies.append(s.energy)
        np.testing.assert_allclose(s.torque, -np.array(DAMPERS) * np.array(s.w), atol=1e-15)
    assert all(b < a for a, b in zip(energies, energies[1:]))
    assert energies[-1] < 1e-6 * energies[0]


# ------------------------------------------------------ quaternion controller
@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_quaternion_controller_sign_invariance(i):
    q, qc = PAIRS[i]
    t = control.quaternion_controller_torque(q, qc, GAINS)
    assert control.quaternion_controller_torque(-q, qc, GAINS) == t
    assert control.quaternion_controller_torque(q, -qc, GAINS) == t


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_quaternion_error_takes_shorter_difference(i):
    q, qc = PAIRS[i]
    d = np.array(control.quaternion_error(q, qc))
    assert np.linalg.norm(d) == pytest.approx(min(np.linalg.norm(qc - q), np.linalg.norm(-qc - q)), rel=1e-15)
    np.testing.assert_allclose(control.quaternion_error(q, qc, shortest_path=False), qc - q, atol=0)


@pytest.mark.parametrize("i", range(len(PAIRS)))
def test_quaternion_controller_zero_at_command(i):
    _, qc = PAIRS[i]
    np.testing.assert_allclose(control.quaternion_controller_torque(qc, qc, GAINS), 0.0, atol=1e-15)
    np.testing.assert_allclose(control.quaternion_controller_torque(-qc, qc, GAINS), 0.0, atol=1e-15)


@pytest.mark.parametrize("i", range(10))
@pytest.mark.parametrize("angle", [1e-6, 1e-3], ids=["micro", "small_angle"])
def test_quaternion_controller_small_angle_is_proportional(i, angle):
    # Body axes turned by a small angle a about n relative to the command:
    # the torque is -K_i a n_i + O(a^2) per axis (a restoring spring).
    _, qc = PAIRS[i]
    n = unit(np.random.default_rng(i).normal(size=3))
    q = quat.product(quat.from_axis_angle(n, angle), qc)
    t = np.array(control.quaternion_controller_torque(q, qc, GAINS))
    np.testing.assert_allclose(t, -np.array(GAINS) * angle * n, rtol=0, atol=2 * max(GAINS) * angle ** 2)


def test_quaternion_controller_axes_flags():
    q, qc = PAIRS[0]
    full = control.quaternion_controller_torque(q, qc, GAINS)
    part = control.quaternion_controller_torque(q, qc, GAINS, axes=(True, False, True))
    assert part == (full[0], 0.0, full[2])


def test_quaternion_controller_matches_hoffmann_listing():
    # (9.9): T1.x := 2 conPhi (-q4 dq1 + q3 dq2 - q2 dq3 + q1 dq4), etc.; with
    # d2 < d1 dQ := dR
    for q, qc in PAIRS[:10]:
        dq, dr = qc - q, -qc - q
        d = dr if np.linalg.norm(dr) < np.linalg.norm(dq) else dq
        q1, q2, q3, q4 = q
        expected = (2 * GAINS[0] * (-q4 * d[0] + q3 * d[1] - q2 * d[2] + q1 * d[3]),
                    2 * GAINS[1] * (-q3 * d[0] - q4 * d[1] + q1 * d[2] + q2 * d[3]),
                    2 * GAINS[2] * (q2 * d[0] - q1 * d[1] - q4 * d[2] + q3 * d[3]))
        np.testing.assert_allclose(control.quaternion_controller_torque(q, qc, GAINS), expected, atol=1e-14)


@pytest.fixture(scope="module")
def random_start_attitudes():
    return Rotation.random(200, random_state=12345).as_euler("ZYX", degrees=True)


def test_quaternion_controller_converges_from_random_attitudes(random_start_attitudes):
    # 200 uniformly random attitudes, dampers on, Hoffmann's gains, half-quat
    # at dt = 0.01, command identity (at once): within 1 deg after 6 s
    worst = 0.0
    for angles in random_start_attitudes:
        sim = Simulation(integrator="half-quat", dt=0.01, angles_deg=tuple(angles), dampers_on=True,
                         controller="quaternion", command_deg=(0.0, 0.0, 0.0), slerp_time=0.0)
        sim.step(600)
        s = sim.snapshot()
        worst = max(worst, attitude_error(s.q, IDENTITY))
    assert math.degrees(worst) < 1.0


def yaw_response(command_yaw_deg, shortest_path, steps=800):
    sim = Simulation(integrator="half-quat", dt=0.01, dampers_on=True, controller="quaternion",
                     command_deg=(command_yaw_deg, 0.0, 0.0), slerp_time=0.0, shortest_path=shortest_path)
    sim.step(1)
    first = sim.snapshot()
    psi = []
    for _ in range(steps):
        sim.step(1)
        psi.append(sim.snapshot().angles_deg[0])
    return first, np.array(psi), sim.snapshot()


@pytest.mark.parametrize(
    "yaw, shortest, direction",
    [(179.0, True, +1), (181.0, True, -1), (181.0, False, +1), (179.0, False, +1), (-179.0, True, -1),
     (-181.0, True, +1), (-181.0, False, -1)],
    ids=["179_short", "181_short", "181_long", "179_long_flag", "minus_179_short", "minus_181_short",
         "minus_181_long"],
)
def test_quaternion_controller_turn_direction(yaw, shortest, direction):
    # From identity, a yaw command of 179 deg is reached by turning positive
    # about z (the short way), 181 deg (= -179 deg) by turning negative; with
    # shortest_path off, Qc and -Qc are not identified: 181 deg goes the long
    # way, through +90 deg.
    first, psi, last = yaw_response(yaw, shortest)
    assert np.sign(first.w[2]) == direction
    assert np.sign(first.torque[2]) == direction
    passed_plus_90 = np.any(np.abs(psi - 90.0) < 10.0)
    passed_minus_90 = np.any(np.abs(psi + 90.0) < 10.0)
    assert (passed_plus_90, passed_minus_90) == ((True, False) if direction > 0 else (False, True))
    # and it arrives
    assert math.degrees(attitude_error(last.q, q_of_angles_deg(yaw, 0.0, 0.0))) < 1.0


# ------------------------------------------------------------ Euler controller
def test_euler_controller_formula_and_axes():
    # (9.3): Tx = -conPhi (sin phi cos phic - cos phi sin phic), y with theta,
    # z with psi
    angles = (0.3, -0.2, 1.1)      # psi, theta, phi
    command = (-0.5, 0.4, 0.2)
    t = control.euler_controller_torque(angles, command, GAINS)
    psi, th, ph = angles
    psic, thc, phc = command
    expected = (-GAINS[0] * (math.sin(ph) * math.cos(phc) - math.cos(ph) * math.sin(phc)),
                -GAINS[1] * (math.sin(th) * math.cos(thc) - math.cos(th) * math.sin(thc)),
                -GAINS[2] * (math.sin(psi) * math.cos(psic) - math.cos(psi) * math.sin(psic)))
    np.testing.assert_allclose(t, expected, atol=1e-15)
    assert control.euler_controller_torque(angles, command, GAINS, axes=(False, True, False)) == (0.0, t[1], 0.0)


@pytest.mark.parametrize("i", range(5))
def test_euler_controller_small_angle_agrees_with_quaternion_controller(i):
    # About the level attitude (command identity) the Euler angles of a small
    # rotation a n are (psi, theta, phi) = a (n_z, n_y, n_x) + O(a^2): both
    # controllers are the same spring -K_i a n_i (difference O(a^2)).
    a = 1e-3
    n = unit(np.random.default_rng(50 + i).normal(size=3))
    q = quat.from_axis_angle(n, a)
    t_q = np.array(control.quaternion_controller_torque(q, IDENTITY, GAINS))
    t_e = np.array(control.euler_controller_torque(quat.as_aircraft_angles(q), (0.0, 0.0, 0.0), GAINS))
    np.testing.assert_allclose(t_e, -np.array(GAINS) * a * n, atol=2 * max(GAINS) * a ** 2)
    np.testing.assert_allclose(t_e, t_q, atol=2 * max(GAINS) * a ** 2)


@pytest.mark.parametrize("start, command",
                         [((30.0, 85.0, 20.0), (0.0, 0.0, 0.0)), ((-60.0, 45.0, 10.0), (0.0, 0.0, 0.0))],
                         ids=["from_near_lock", "moderate"])
def test_euler_controller_works_away_from_lock(start, command):
    sim = Simulation(integrator="half-quat", dt=0.01, angles_deg=start, dampers_on=True, controller="euler",
                     command_deg=command, slerp_time=0.0)
    sim.step(1000)
    assert math.degrees(attitude_error(sim.snapshot().q, q_of_angles_deg(*command))) < 1.0


@pytest.mark.parametrize("command", [(0.0, 89.0, 0.0), (40.0, 88.0, -30.0), (100.0, 87.0, -50.0)],
                         ids=["pitch_89", "mixed_88", "mixed_87"])
def test_euler_controller_fails_near_gimbal_lock_quaternion_does_not(command):
    # Hoffmann 9.5: an Euler-angle controller "cannot be used in the vicinity
    # of singularity orientations"; the quaternion controller can.
    errors = {}
    for ctrl in ("euler", "quaternion"):
        sim = Simulation(integrator="half-quat", dt=0.01, dampers_on=True, controller=ctrl, command_deg=command,
                         slerp_time=0.0)
        sim.step(1000)
        errors[ctrl] = math.degrees(attitude_error(sim.snapshot().q, q_of_angles_deg(*command)))
    assert errors["quaternion"] < 1.0
    assert errors["euler"] > 10.0
