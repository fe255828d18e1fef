"""File > Open attitude file: an AEM played back in the window (sim.run.playback, app.window.playback).

References: the file's own numbers parsed here by hand (the standard's
quaternion from EME2000 to SC_BODY_1 is the conjugate of this project's Q,
504.0-B-2 annex F2), scipy's ``Slerp`` for the attitude between samples,
scipy's rotation magnitude and known rotations for the angle between two
attitudes.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel, QWidget
from scipy.spatial.transform import Rotation, Slerp

from app.cli.entry import main
from sim.core.quaternion import cayley, from_axis_angle, product
from sim.run.aem import aem_text, read_aem
from sim.run.playback import Playback, angle_between_deg, attitudes_at

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data")
G4 = os.path.join(DATA, "ccsds_aem_g4.aem")
#: The 3D view's scene axes against the body's (tests/app/view3d/test_viewer.py): the item's matrix is S C^T.
S = np.diag([1.0, -1.0, -1.0])


def _file_quaternions(path):
    """(t, Q) of a one-segment-or-more KVN AEM of QUATERNION data, parsed by hand: Q = conjugate of the file's."""
    from datetime import datetime

    stamps, q, inside = [], [], False
    for line in open(path).read().splitlines():
        word = line.strip()
        if word in ("DATA_START", "DATA_STOP"):
            inside = word == "DATA_START"
            continue
        if inside and word and not word.startswith("COMMENT"):
            epoch, *values = word.split()
            stamps.append(datetime.fromisoformat(epoch))
            raw = np.array([float(v) for v in values[:4]])
            q.append(raw * [-1, -1, -1, 1] / np.linalg.norm(raw))
    return np.array([(x - stamps[0]).total_seconds() for x in stamps]), np.array(q)


def _angle_deg(p, q):
    """Rotation angle between two attitudes by scipy (order and direction do not change a relative angle's size)."""
    return np.degrees((Rotation.from_quat(p).inv() * Rotation.from_quat(q)).magnitude())


# ------------------------------------------------------------------ the model, no Qt
def test_attitude_at_samples_is_the_files_quaternion():
    t, q = _file_quaternions(G4)
    got, _ = attitudes_at(read_aem(G4), t)
    assert np.all(_angle_deg(got, q) < 1e-9)


def test_attitude_between_samples_is_slerp():
    track = read_aem(G4)
    t, q = _file_quaternions(G4)
    times = np.sort(np.random.default_rng(3).uniform(t[0], t[-1], 50))
    reference = Slerp(t, Rotation.from_quat(q))(times).as_quat()
    got, _ = attitudes_at(track, times)
    assert np.all(_angle_deg(got, reference) < 1e-9)
    ends, _ = attitudes_at(track, [-5.0, t[-1] + 5.0])  # the end samples hold outside the file
    assert np.all(_angle_deg(ends, q[[0, -1]]) < 1e-9)


@pytest.mark.parametrize("angle_deg", [0.0, 1e-4, 30.0, 179.0])
def test_angle_between_is_the_rotation_between(angle_deg):
    q = read_aem(G4).q
    turn = from_axis_angle([1.0, -2.0, 0.5], math.radians(angle_deg))
    rotated = np.array([product(turn, x) for x in q])
    assert np.allclose(angle_between_deg(q, rotated), angle_deg, atol=1e-6)
    assert np.allclose(angle_between_deg(q, -rotated), angle_deg, atol=1e-6)  # Q and -Q: one attitude
    assert np.allclose(angle_between_deg(q, rotated), _angle_deg(q, rotated), atol=1e-6)


def test_clock_plays_at_its_speed_and_seeks():
    track = read_aem(G4)
    playback = Playback(track, "g4", speed=1000.0)
    first = playback.advance(0.5)
    assert first.last.t == pytest.approx(500.0) and first.rows[-1, 0] == pytest.approx(500.0)
    second = playback.advance(2.0)  # 2500 s: the samples at 2336.3 and 2337.3 s, then the state now
    assert second.rows[:, 0].tolist() == pytest.approx([2336.3, 2337.3, 2500.0])
    playback.paused = True
    assert playback.advance(10.0).last.t == pytest.approx(2500.0)
    playback.seek(1e12)
    assert playback.t == track.t[-1] and playback.fresh
    replay = playback.advance(0.0)
    assert replay.rows[:, 0].tolist() == pytest.approx(track.t.tolist())  # after a seek: from the start


# ------------------------------------------------------------------ the window
def _shown_cayley(window):
    return (S @ window.viewer.aircraft_item.transform().matrix()[:3, :3]).T  # the item holds S C^T


def _written(tmp_path, q_turn=None):
    """A run exported by `attitude-sim run --out x.aem` (and, with ``q_turn``, the same turned by it)."""
    out = tmp_path / "x.aem"
    assert main(["run", "--scenario", "hoffmann", "--duration", "2", "--out", str(out)]) == 0
    if q_turn is None:
        return out
    track = read_aem(out)
    turned = tmp_path / "turned.aem"
    turned.write_text(aem_text(track.t, [product(q_turn, x) for x in track.q]))
    return out, turned


@pytest.mark.gl
@pytest.mark.parametrize("which", ["g4", "exported"])
def test_body_shown_is_the_files_attitude_and_scrubbing_moves_it(qtbot, main_window, tmp_path, which):
    window = main_window("default")
    path = G4 if which == "g4" else _written(tmp_path)
    t, q = _file_quaternions(path)
    assert window.playback.open(path)
    window.playback.bar.pause.setChecked(True)
    bar = window.playback.bar
    assert bar.isVisible() and "Attitude file" in window.title.text()
    reference = Slerp(t, Rotation.from_quat(q))
    for k in (1, len(t) // 2):  # on a sample, then between two
        at = t[k] if k == 1 else 0.5 * (t[k] + t[k + 1])
        window.playback.seek(at)
        expected = cayley(reference([at]).as_quat()[0])
        assert np.allclose(_shown_cayley(window), expected, atol=1e-6)
        assert window.playback.playback.t == pytest.approx(at)
    before = _shown_cayley(window)
    bar.slider.setValue(bar.slider.maximum())  # scrub to the end
    assert np.allclose(_shown_cayley(window), cayley(q[-1]), atol=1e-6)
    assert not np.allclose(before, _shown_cayley(window), atol=1e-3)
    angles = window.plots.curve_points("angles")
    assert angles > 0 and window.history.column("t")[-1] == pytest.approx(t[-1])


@pytest.mark.gl
def test_it_plays_and_the_plots_follow(qtbot, main_window):
    window = main_window("default")
    assert window.playback.open(G4)
    playback = window.playback.playback
    qtbot.waitUntil(lambda: playback.t > 2 * playback.speed * 0.1)  # plays by itself
    qtbot.waitUntil(lambda: window.plots.curve_points("rates") > 2)
    track = read_aem(G4)
    shown = np.isin(track.t, window.history.column("t"))
    at_samples = np.isin(window.history.column("t"), track.t)
    assert shown.sum() >= 2  # the file's differentiated rates at its samples
    assert np.allclose(window.history.column("wx")[at_samples], track.w[shown, 0])
    assert "rates_from_samples" in window.caption.text()


@pytest.mark.gl
@pytest.mark.parametrize("angle_deg", [0.0, 25.0])
def test_angle_between_two_files_is_plotted(qtbot, main_window, tmp_path, angle_deg):
    window = main_window("default")
    turn = from_axis_angle([0.3, 1.0, -0.2], math.radians(angle_deg))
    first, turned = _written(tmp_path, turn)
    assert window.playback.open(first)
    assert window.playback.open_second(first if angle_deg == 0.0 else turned)
    window.playback.seek(1.5)
    window.plot_tabs.show_compare(True)
    label = window.playback.playback.second_name
    qtbot.waitUntil(lambda: window.compare.curve_data("error", label) is not None)
    _, log_error = window.compare.curve_data("error", label)
    expected = max(angle_deg, 1e-10)  # the log plot draws 0 at its floor, 1e-10 deg
    assert np.allclose(10.0 ** log_error, expected, rtol=1e-6)


@pytest.mark.gl
def test_simulation_runs_beside_with_the_angle_between(qtbot, main_window):
    window = main_window("default")
    assert window.playback.open(G4)
    window.plot_tabs.show_compare(True)
    qtbot.waitUntil(lambda: window.compare.count("simulation") > 3)
    sim = window.playback._simulation
    assert sim is not None
    t1 = sim.t
    qtbot.waitUntil(lambda: window.playback._simulation.t > t1 + 0.1)  # it flies on
    window.worker.pause(True)
    window.playback.bar.pause.setChecked(True)
    qtbot.wait(200)  # the last batch of the paused simulation collected
    t, q = _file_quaternions(G4)
    window.playback.seek(1000.0)
    sim = window.playback._simulation
    _, log_error = window.compare.curve_data("error", "simulation")
    expected = _angle_deg(Slerp(t, Rotation.from_quat(q))([1000.0]).as_quat()[0], sim.attitude)
    assert 10.0 ** log_error[-1] == pytest.approx(expected, rel=1e-6)
    window.worker.pause(False)
    window.playback.close()
    assert not window.playback.bar.isVisible() and "Attitude file" not in window.title.text()
    qtbot.waitUntil(lambda: window.last_snapshot is not None)
    t2 = window.last_snapshot.t
    qtbot.waitUntil(lambda: window.last_snapshot.t > t2 + 0.1)
    assert window.plots.is_visible("norm")  # the plots hidden while the file played are back


@pytest.mark.gl
def test_malformed_file_says_one_line_and_the_simulation_runs_on(qtbot, main_window, tmp_path, capsys):
    window = main_window("default")
    bad = tmp_path / "bad.aem"
    bad.write_text(open(G4).read().replace("0.45689 0.68427", "0.45689 zz"))
    title = window.title.text()
    assert not window.playback.open(bad)
    message = window.findChild(QLabel, "label_message")
    assert main(["gui", "--attitude-file", str(bad)]) == 2  # the command line's one line, before any window
    cli = capsys.readouterr().err.strip()
    assert len(cli.splitlines()) == 1 and cli == f"attitude-sim: error: {message.text()}"
    assert message.isVisible() and "line 26" in message.text()
    assert not window.playback.active and not window.findChild(QWidget, "playback").isVisible()
    assert window.title.text() == title
    t = window.last_snapshot.t
    qtbot.waitUntil(lambda: window.last_snapshot.t > t + 0.1)


@pytest.mark.gl
def test_closing_a_file_while_paused_shows_the_simulation_as_it_was(qtbot, main_window):
    # issue 43: closed while paused, the readouts kept the file's t = 747685.796 s and "nan", and the plots
    # were empty until the next step
    from gui_waits import caught_up

    window = main_window("default")
    qtbot.waitUntil(lambda: window.history.count > 20)
    window.controls.run.pause.setChecked(True)
    qtbot.waitUntil(lambda: caught_up(window))
    before, times = window.last_snapshot, window.history.column("t").copy()
    shown_t = window.findChild(QLabel, "readout_t")
    assert window.playback.open(G4)
    window.playback.bar.pause.setChecked(True)
    window.playback.seek(1000.0)
    qtbot.waitUntil(lambda: float(shown_t.text().split()[0]) == pytest.approx(1000.0))   # the file's
    window.playback.close()
    qtbot.waitUntil(lambda: shown_t.text() == f"{before.t:10.3f} s")
    texts = [label.text() for label in window.readouts.values.values()]
    assert all("nan" not in text for text in texts), texts
    assert window.last_snapshot.t == before.t and window.worker.paused
    assert np.array_equal(window.history.column("t"), times)   # the plots' samples as they were
    qtbot.waitUntil(lambda: window.plots.curve_points("rates") >= len(times))
