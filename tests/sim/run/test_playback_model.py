"""sim.run.playback without the window: an attitude file's state at any time, its rows and its clock.

The tracks here are written from closed forms, not read back from the code:
a body spun up at constant angular acceleration ``alpha`` about a fixed axis
``n`` from the rate ``w0`` (angle ``w0 t + alpha t^2 / 2``, rate ``(w0 + alpha t) n``,
Hoffmann (2.1) for the quaternion ``Q = (-n sin(a/2), cos(a/2))``), and bodies spinning at a
constant rate about one axis, whose relative angle is the difference of the
two spin angles.  References: scipy's ``Slerp`` for the attitude between
samples, scipy's ``as_euler("ZYX")`` of ``C^T`` for the aircraft angles
(Hoffmann (7.21): ``C = R1(phi) R2(theta) R3(psi)``), scipy's rotation
magnitude for the angle between two attitudes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from sim.model.rows import HISTORY_COLUMNS
from sim.model.simulation import Simulation
from sim.run.aem import AttitudeTrack
from sim.run.playback import (PLAY_SECONDS, SIMULATION, Playback, attitudes_at, default_speed,
                              history_rows)
from sim.run.runner import COMPARE_COLUMNS, MAIN

AXIS = np.array([1.0, -2.0, 0.5]) / math.sqrt(5.25)
COL = {name: i for i, name in enumerate(HISTORY_COLUMNS)}
ANGLE_COLUMNS = ("psi_deg", "theta_deg", "phi_deg")
ORBIT_ANGLE_COLUMNS = ("psio_deg", "thetao_deg", "phio_deg")
#: What an attitude file holds; every other history column is NaN.
HELD = ("t", "q1", "q2", "q3", "q4", "wx", "wy", "wz") + ANGLE_COLUMNS + ORBIT_ANGLE_COLUMNS


def _turned(angle, axis=AXIS):
    """Q of body axes turned by ``angle`` (rad, right hand) about ``axis``, Hoffmann (2.1), scalar last."""
    return np.array([*(-axis * math.sin(angle / 2.0)), math.cos(angle / 2.0)])


def _track(t, q, w) -> AttitudeTrack:
    t, q, w = (np.asarray(x, dtype=float) for x in (t, q, w))
    return AttitudeTrack(t=t, q=q, w=w, epoch="2000-01-01T12:00:00", time_system="UTC", rates_from="the test",
                         summary="test track")


def _rate(t, w0=-0.25, alpha=0.02):
    """The spin-up's body rates at ``t`` (n, 3), rad/s."""
    return (w0 + alpha * np.asarray(t, dtype=float))[:, None] * AXIS


def _spin_up(t, w0=-0.25, alpha=0.02, flip=()):
    """Constant ``alpha`` from the rate ``w0`` about :data:`AXIS` (the spin slows, stops at 12.5 s and reverses);
    the samples in ``flip`` stored as -Q (a file may).  Between the samples of :data:`TIMES` the body turns by
    3.7 degrees to 2 rad: SLERP's sine branch (not its linear one, below 1 degree of the bivector angle,
    :class:`sim.core.interpolation.SlerpPath`), the short way round."""
    t = np.asarray(t, dtype=float)
    q = np.array([_turned(w0 * s + alpha * s * s / 2.0) for s in t])
    q[list(flip)] *= -1.0
    return _track(t, q, _rate(t, w0, alpha))


def _spin(t, rate):
    """Constant ``rate`` (rad/s) about :data:`AXIS` from the identity."""
    t = np.asarray(t, dtype=float)
    return _track(t, [_turned(rate * s) for s in t], np.tile(rate * AXIS, (len(t), 1)))


def _angle_deg(p, q):
    """Rotation angle between attitudes by scipy (the sign of a quaternion does not matter to it)."""
    return np.degrees((Rotation.from_quat(np.atleast_2d(p)).inv() * Rotation.from_quat(np.atleast_2d(q)))
                      .magnitude())


def _aircraft_deg(q):
    """(psi, theta, phi) in degrees: scipy's intrinsic Z-Y-X angles of C^T (C = scipy's matrix of Q)."""
    return np.degrees(Rotation.from_quat(np.atleast_2d(q)).inv().as_euler("ZYX"))


#: Uneven sampling, 0 .. 40 s; three samples stored as -Q (the last one: the other hemisphere from the one before).
TIMES = np.array([0.0, 0.7, 1.9, 2.5, 4.0, 6.2, 7.1, 9.9, 12.0, 15.5, 17.3, 21.0, 24.4, 28.8, 33.0, 36.1, 40.0])
FLIPPED = (3, 8, len(TIMES) - 1)


# ------------------------------------------------------------------ attitudes_at
def test_at_its_sample_times_the_file_holds_its_own_numbers_exactly():
    """The docstring's promise: at a sample's own time its quaternion exactly (as stored, sign and all), and the
    rates the file gives there (the rates change sign at 12.5 s: ``a + (b - a)`` is not always ``b``)."""
    track = _spin_up(TIMES, flip=FLIPPED)
    q, w = attitudes_at(track, TIMES)
    assert np.array_equal(q, track.q)
    assert np.array_equal(w[:-1], track.w[:-1])
    assert np.allclose(w[-1], track.w[-1], rtol=1e-15, atol=0.0)  # the last as w[-2] + 1 (w[-1] - w[-2])


def test_outside_the_file_the_end_samples_hold_exactly():
    track = _spin_up(TIMES, flip=FLIPPED)
    q, w = attitudes_at(track, [-3.0, -1e-9, 40.0 + 1e-9, 100.0])
    assert np.array_equal(q, track.q[[0, 0, -1, -1]])  # the last: as stored, not the short way's -Q
    assert np.array_equal(w[:2], track.w[[0, 0]])
    assert np.allclose(w[2:], track.w[[-1, -1]], rtol=1e-15, atol=0.0)


def test_between_samples_slerp_and_linear_rates():
    """Attitude: scipy's Slerp of the samples (constant rate about one axis between them).  Rates: the
    spin-up's rate is linear in time, so linear interpolation of the samples gives it exactly ((w0 + alpha t) n)."""
    track = _spin_up(TIMES, flip=FLIPPED)
    times = np.sort(np.random.default_rng(7).uniform(0.0, 40.0, 60))
    q, w = attitudes_at(track, times)
    reference = Slerp(TIMES, Rotation.from_quat(track.q))(times).as_quat()
    assert np.all(_angle_deg(q, reference) < 1e-9)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-14)
    assert np.allclose(w, _rate(times), rtol=1e-12, atol=1e-15)
    one, one_w = attitudes_at(track, 5.1)  # a single time: one row
    assert one.shape == (1, 4) and one_w.shape == (1, 3)
    none, none_w = attitudes_at(track, [])  # no times: no rows (what a paused playback asks for)
    assert none.shape == (0, 4) and none_w.shape == (0, 3)


def test_between_samples_of_a_constant_rate_the_attitude_is_the_closed_form():
    track = _spin(TIMES, 0.1)
    times = np.linspace(0.3, 39.7, 23)
    q, _ = attitudes_at(track, times)
    assert np.all(_angle_deg(q, [_turned(0.1 * s) for s in times]) < 1e-9)


# ------------------------------------------------------------------ history_rows and the snapshot
def test_history_rows_hold_the_files_attitude_rates_and_angles_and_nan_for_the_rest():
    track = _spin_up(TIMES[:6], flip=(2,))
    rows = history_rows(track.t, track.q, track.w)
    assert rows.shape == (6, len(HISTORY_COLUMNS)) and rows.dtype == np.float64
    assert np.array_equal(rows[:, COL["t"]], track.t)
    assert np.array_equal(rows[:, [COL[c] for c in ("q1", "q2", "q3", "q4")]], track.q)
    assert np.array_equal(rows[:, [COL[c] for c in ("wx", "wy", "wz")]], track.w)
    angles = _aircraft_deg(track.q)
    assert np.allclose(rows[:, [COL[c] for c in ANGLE_COLUMNS]], angles, atol=1e-9)
    # Without an orbit the angles relative to the orbit frame are the inertial ones (HISTORY_EXTRA).
    assert np.allclose(rows[:, [COL[c] for c in ORBIT_ANGLE_COLUMNS]], angles, atol=1e-9)
    rest = [i for name, i in COL.items() if name not in HELD]
    assert np.all(np.isnan(rows[:, rest]))
    assert history_rows(np.empty(0), np.empty((0, 4)), np.empty((0, 3))).shape == (0, len(HISTORY_COLUMNS))


def test_last_state_is_a_snapshot_of_the_file_with_nan_for_what_it_does_not_hold():
    track = _spin_up(TIMES)
    playback = Playback(track, "spin-up", speed=1.0)
    playback.seek(5.1)
    last = playback.advance(0.0).last
    q_ref = Slerp(TIMES, Rotation.from_quat(track.q))([5.1]).as_quat()
    assert last.t == 5.1 and last.step == 0 and isinstance(last.step, int)  # nothing is integrated
    assert _angle_deg(last.q, q_ref)[0] < 1e-9 and last.attitude == last.q
    assert np.allclose(last.w, _rate([5.1])[0], rtol=1e-12)
    assert np.allclose(last.angles_deg, _aircraft_deg(last.q)[0], atol=1e-9)
    for name in ("norm", "norm_correction", "multiplier", "energy", "q_dot_p"):
        assert math.isnan(getattr(last, name)), name
    for name, size in (("p", 4), ("h", 3), ("torque", 3), ("qc", 4), ("command_deg", 3)):
        value = getattr(last, name)
        assert len(value) == size and all(math.isnan(x) for x in value), name


# ------------------------------------------------------------------ the clock
@pytest.mark.parametrize(("span", "speed"), [(30.0, 1.0), (60.0, 1.0), (600.0, 10.0), (3600.0, 60.0)])
def test_default_speed_plays_a_file_in_about_a_minute_never_slower_than_real_time(span, speed):
    track = _spin([0.0, 0.2 * span, 0.9 * span, span], 0.01)
    assert PLAY_SECONDS == 60.0
    assert default_speed(track) == pytest.approx(speed, rel=1e-12)
    playback = Playback(track, "f")
    assert playback.speed == pytest.approx(speed, rel=1e-12)
    playback.advance(1.0)
    assert playback.t == pytest.approx(speed, rel=1e-12)


def test_a_new_playback_plays_from_the_start_with_the_simulation_beside():
    playback = Playback(_spin(TIMES, 0.05), "spin.aem", speed=2.5)
    assert playback.name == "spin.aem" and playback.speed == 2.5
    assert playback.paused is False  # the window's Pause button is set from it (setChecked takes a bool)
    assert playback.second is None and playback.second_name == SIMULATION
    assert playback.fresh and playback.t == playback.start == 0.0 and playback.end == 40.0


@pytest.mark.parametrize(("t", "step"), [
    (np.r_[np.arange(0.0, 50.0, 0.5), 10000.0], 0.5),  # the median step, not the mean (one long gap)
    (np.arange(0.0, 101.0, 1.0), 100.0 / 4096.0),  # 1/4096 of its span when that is finer
])
def test_step_of_the_plots_store_is_the_median_step_at_most_a_4096th_of_the_span(t, step):
    assert Playback(_spin(t, 1e-4), "f").step == pytest.approx(step, rel=1e-12)


def test_batches_hand_out_each_sample_once_and_nothing_while_paused():
    """Samples every second and a clock landing exactly on them: each time appears once, in order."""
    track = _spin_up(np.arange(0.0, 11.0))
    playback = Playback(track, "f", speed=1.0)
    shown = []
    for k in range(12):
        if k == 4:
            playback.paused = True
            still = playback.advance(1.0)
            assert len(still.rows) == 0 and still.last.t == 3.0
            playback.paused = False
        batch = playback.advance(1.0 if k else 0.0)
        assert not playback.fresh
        shown.extend(batch.rows[:, COL["t"]])
        assert batch.last.t == batch.rows[-1, COL["t"]] if len(batch.rows) else batch.last.t == 10.0
        assert batch.compare == {} and batch.compare_rows == {}  # nothing beside
    assert shown == list(np.arange(0.0, 11.0))  # the end holds: nothing more after 10 s


def test_rows_of_a_batch_are_the_files_attitude_at_their_times():
    track = _spin_up(TIMES, flip=FLIPPED)
    playback = Playback(track, "f", speed=3.3)
    batch = playback.advance(2.0)  # 0 .. 6.6 s: the samples up to 6.2 s and the state at 6.6 s
    t = batch.rows[:, COL["t"]]
    assert t.tolist() == pytest.approx([0.0, 0.7, 1.9, 2.5, 4.0, 6.2, 6.6], abs=1e-12)
    q = batch.rows[:, [COL[c] for c in ("q1", "q2", "q3", "q4")]]
    assert np.all(_angle_deg(q, Slerp(TIMES, Rotation.from_quat(track.q))(t).as_quat()) < 1e-9)
    assert np.allclose(batch.rows[:, [COL[c] for c in ("wx", "wy", "wz")]], _rate(t), rtol=1e-12)
    assert np.array_equal(batch.last.q, q[-1]) and np.array_equal(batch.last.w,
                                                                  batch.rows[-1, [COL[c] for c in ("wx", "wy", "wz")]])


# ------------------------------------------------------------------ beside: a second file or the simulation
def test_a_second_file_plays_beside_with_the_angle_between():
    """Two spins about one axis from one attitude: the angle between them is (w1 - w2) t."""
    main_rate, second_rate = 0.1, 0.06
    playback = Playback(_spin(TIMES, main_rate), "one", speed=4.0)
    playback.advance(1.0)
    second = _spin(np.linspace(0.0, 45.0, 31), second_rate)  # sampled at other times than the first
    playback.set_second(second, "two")
    assert playback.second is second and playback.second_name == "two" and playback.fresh
    batch = playback.advance(1.5)  # fresh after set_second: from the start to 10 s
    t = batch.rows[:, COL["t"]]
    assert t.tolist() == pytest.approx([0.0, 0.7, 1.9, 2.5, 4.0, 6.2, 7.1, 9.9, 10.0], abs=1e-12)
    assert set(batch.compare) == {"two"} and set(batch.compare_rows) == {MAIN, "two"}
    other = batch.compare["two"]
    assert other.t == 10.0 and _angle_deg(other.q, _turned(second_rate * 10.0))[0] < 1e-9
    assert np.allclose(other.w, second_rate * AXIS, rtol=1e-12)
    for label, error in ((MAIN, np.zeros_like(t)), ("two", np.degrees((main_rate - second_rate) * t))):
        rows = batch.compare_rows[label]
        assert rows.shape == (len(t), len(COMPARE_COLUMNS))
        assert np.array_equal(rows[:, 0], t)
        assert np.allclose(rows[:, 1], error, atol=1e-7)
        assert np.all(np.isnan(rows[:, 2:]))  # energy and |Q| - 1: not in a file
    playback.paused = True  # paused: no new rows, the second still shown where it is
    still = playback.advance(1.0)
    assert len(still.rows) == 0 and still.compare["two"].t == 10.0
    assert {label: rows.shape for label, rows in still.compare_rows.items()} == {
        MAIN: (0, len(COMPARE_COLUMNS)), "two": (0, len(COMPARE_COLUMNS))}


def test_the_simulation_beside_gives_one_angle_row_now():
    track = _spin(TIMES, 0.1)
    playback = Playback(track, "one", speed=4.0)
    playback.set_second(_spin(TIMES, 0.01), "two")
    playback.set_second(None, "two")  # back to the live simulation
    assert playback.second is None and playback.second_name == SIMULATION and playback.fresh
    simulation = Simulation(angles_deg=(30.0, 10.0, -20.0)).snapshot()
    batch = playback.advance(1.5, simulation)  # 0 .. 6 s: six rows, one angle row at 6 s
    assert len(batch.rows) == 6
    assert batch.compare == {SIMULATION: simulation} and batch.compare[SIMULATION] is simulation
    assert set(batch.compare_rows) == {MAIN, SIMULATION}
    expected = _angle_deg(_turned(0.1 * 6.0), simulation.attitude)[0]
    for label, error in ((MAIN, 0.0), (SIMULATION, expected)):
        rows = batch.compare_rows[label]
        assert rows.shape == (1, len(COMPARE_COLUMNS))
        assert rows[0, 0] == 6.0 and rows[0, 1] == pytest.approx(error, abs=1e-7)
        assert np.all(np.isnan(rows[0, 2:]))
