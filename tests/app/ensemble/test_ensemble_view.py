"""Tests of the ensemble in the window: the runner's lockstep ensemble and the Ensemble view.

The model tests (no Qt) check the runner against independent references:
single-body :class:`~sim.model.simulation.Simulation` runs of a body's own settings
(``EnsembleInfo.body_settings``) given the same inputs at the same steps, and
scipy's Rotation for attitude errors and the angle a body must travel.  The
window tests (marked ``gl``) check that what the view shows follows the
ensemble: points and colours against scipy, inputs, loading the worst
body, the body count field, switching scenarios and closing.
"""

import math

import numpy as np
import pytest
from oracle import scipy_rotation
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget
from scipy.spatial.transform import Rotation

from app.ensemble.colors import error_colors
from app.ensemble.histogram import EDGES, histogram_counts
from app.ensemble.scene import LONG_WAY_SIZE, PICK_PIXELS, POINT_SIZE
from app.ensemble.view import MAX_BODIES
from sim.ensemble import EnsembleSpec
from sim.run.runner import ENSEMBLE, RESET, Runner
from sim.run.scenario import Scenario, load
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation
from gui_waits import caught_up

SCENE_FROM_NED = np.diag([1.0, -1.0, -1.0])
CONTROLLED = Settings(inertia=(0.6, 1.0, 1.5, 0.0, 0.2, 0.0), dt=0.01, dampers_on=True, controller="quaternion",
                      command_deg=(0.0, 0.0, 0.0), slerp_time=0.0)


def command_rotation(angles_deg):
    """scipy Rotation of the attitude with aircraft angles (psi, theta, phi), degrees."""
    return Rotation.from_euler("ZYX", angles_deg, degrees=True)


def scipy_bodies(q):
    """scipy Rotations (body -> inertial) of the columns of Hoffmann quaternions ``q`` (4, n)."""
    q = np.asarray(q, dtype=float)
    return Rotation.from_quat(np.column_stack([-q[0], -q[1], -q[2], q[3]]))


def scipy_errors_deg(q, angles_deg):
    """Each column of ``q``'s rotation angle from the attitude ``angles_deg``, degrees (scipy)."""
    return np.degrees((command_rotation(angles_deg).inv() * scipy_bodies(q)).magnitude())


def scipy_nose(q):
    """Each body's x axis in NED axes, shape (3, n), from scipy."""
    return scipy_bodies(q).apply([1.0, 0.0, 0.0]).T


# ------------------------------------------------------------------ model
def runner_with(settings, spec):
    runner = Runner(Scenario(name="test", settings=settings))
    runner.submit(ENSEMBLE, spec)
    return runner


def test_column_helpers_agree_with_the_shared_oracle():
    q = np.array([0.1, -0.3, 0.2, 0.9])
    q /= np.linalg.norm(q)
    assert np.allclose(scipy_nose(q[:, None])[:, 0], scipy_rotation(q).apply([1.0, 0.0, 0.0]))
    # the nose of yaw psi, pitch theta: (cos theta cos psi, cos theta sin psi, -sin theta) in NED
    yaw_pitch = Rotation.from_euler("ZYX", (30.0, 20.0, 0.0), degrees=True).as_quat()  # Q is its conjugate
    nose = scipy_nose(np.array([-yaw_pitch[0], -yaw_pitch[1], -yaw_pitch[2], yaw_pitch[3]])[:, None])[:, 0]
    c, s = np.cos(np.radians(20.0)), np.sin(np.radians(20.0))
    assert np.allclose(nose, (c * np.cos(np.radians(30.0)), c * np.sin(np.radians(30.0)), -s))


def test_every_body_gets_each_input_at_the_same_step_as_the_main_body():
    spec = EnsembleSpec(bodies=6, seed=4, rate_spread=0.3, inertia_spread=10.0)
    runner = runner_with(Settings(), spec)
    runner.advance(40)
    runner.submit("torque", (1.0, -2.0, 0.5))
    runner.advance(30)
    runner.submit("dampers_on", True)
    runner.submit("controller", "quaternion")
    runner.submit("command_deg", (30.0, 10.0, -20.0))
    frame = runner.advance(50).ensemble
    assert frame.t == pytest.approx(runner.sim.t) and frame.n == 6
    initial = frame.info
    for j in range(6):  # each body flown alone from its initial sample, the same inputs at the same steps
        sim = Simulation(Settings(), angles_deg=tuple(initial.angles_deg0[:, j]),
                         rates=tuple(initial.rates0[:, j]), inertia=tuple(initial.inertia[:, j]))
        sim.step(40)
        sim.set("torque", (1.0, -2.0, 0.5))
        sim.step(30)
        sim.update({"dampers_on": True, "controller": "quaternion", "command_deg": (30.0, 10.0, -20.0)})
        sim.step(50)
        assert np.max(np.abs(np.array(sim.q) - frame.q[:, j])) <= 1e-12


def test_scenario_events_reach_the_ensemble():
    scenario = load("hoffmann_controller")   # commands at t = 1 s and later, dt = 0.1 s
    runner = Runner(scenario)
    runner.submit(ENSEMBLE, EnsembleSpec(bodies=50, seed=1))
    frame = runner.advance(40).ensemble      # t = 4 s: the first command is in force
    command = scenario.events[0].changes["command_deg"]
    assert np.allclose(frame.error_deg, scipy_errors_deg(frame.q, command), atol=1e-6)
    assert frame.info.settings.command_deg == command


def test_reset_restarts_the_ensemble_with_the_main_body():
    runner = runner_with(Settings(torque=(0.0, 2.0, 0.0)), EnsembleSpec(bodies=20, seed=2))
    runner.advance(100)
    runner.submit(RESET)
    frame = runner.advance(0).ensemble
    assert frame.t == 0.0 == runner.sim.t
    assert np.array_equal(frame.q, frame.info.q0)


def test_removing_the_ensemble_leaves_the_main_body_alone():
    runner = runner_with(Settings(), EnsembleSpec(bodies=5))
    assert runner.advance(3).ensemble.n == 5
    runner.submit(ENSEMBLE, None)
    batch = runner.advance(3)
    assert batch.ensemble is None and runner.ensemble is None and len(batch.rows) == 3


def test_ensemble_input_accepts_only_a_spec_or_none():
    runner = Runner(Scenario(name="test"))
    with pytest.raises(SettingsError, match="ensemble"):
        runner.submit(ENSEMBLE, 1000)


def test_the_bodies_own_settings_stay_theirs_when_the_main_body_gets_another_state():
    runner = runner_with(Settings(), EnsembleSpec(bodies=4, seed=9, rate_spread=0.5))
    before = runner.advance(0).ensemble.info
    for key, value in (("angles_deg", (10.0, 20.0, 30.0)), ("rates", (1.0, 0.0, 0.0)),
                       ("inertia", (2.0, 3.0, 4.0, 0.0, 0.0, 0.0))):
        runner.submit(key, value)
    runner.submit(RESET)
    after = runner.advance(0).ensemble.info
    for key in ("q0", "rates0", "inertia"):
        assert np.array_equal(getattr(before, key), getattr(after, key)), key
    assert runner.sim.settings.rates == (1.0, 0.0, 0.0)


def test_without_shortest_path_bodies_facing_away_take_the_long_way():
    frames = {}
    for shortest_path in (True, False):
        runner = runner_with(CONTROLLED.replace(shortest_path=shortest_path), EnsembleSpec(bodies=300, seed=3))
        frames[shortest_path] = runner.advance(3000).ensemble    # 30 s: all home
    for frame in frames.values():
        assert np.all(frame.error_deg < 0.01)
        assert np.allclose(frame.error_deg, scipy_errors_deg(frame.q, (0.0, 0.0, 0.0)), atol=1e-6)
    q0 = frames[True].info.q0
    theta0 = scipy_errors_deg(q0, (0.0, 0.0, 0.0))
    on, off = frames[True].travelled_deg, frames[False].travelled_deg
    # Q and -Q are one attitude; without shortest path the controller drives Q to +Qc = (0, 0, 0, 1), so a
    # body whose Q0 has a negative scalar turns through at least 360 - theta0 degrees, the other way round
    away = (q0[3] < 0) & (theta0 < 170.0)
    assert away.sum() >= 20
    assert np.all(off[away] >= 360.0 - theta0[away] - 1.0) and np.all(off[away] > 180.0)
    assert np.all(on[away] < off[away])
    assert np.array_equal(on[q0[3] > 0], off[q0[3] > 0]), "bodies facing the command: no difference"
    assert np.sum(off > 180.0) > np.sum(on > 180.0)


def test_histogram_counts_match_numpy_histogram():
    rng = np.random.default_rng(5)
    errors = 10.0 ** rng.uniform(-4.0, math.log10(180.0), 2000)
    faulted = rng.random(2000) < 0.1
    expected, _ = np.histogram(np.log10(np.maximum(errors[~faulted], 0.01)), bins=EDGES)
    assert np.array_equal(histogram_counts(errors, faulted), expected)


def test_error_colours_run_from_blue_at_home_to_red_at_a_half_turn():
    from app.ensemble.colors import FAULT_COLOR, STOPS

    degrees = np.array([deg for deg, _ in STOPS])
    colors = error_colors(degrees)
    assert np.allclose(colors[:, :3], [rgb for _, rgb in STOPS]) and np.all(colors[:, 3] == 1.0)
    assert np.allclose(error_colors([1e-9, 0.0])[:, :3], STOPS[0][1])   # below the scale: its first colour
    between = error_colors([np.sqrt(10.0)])[0, :3]                       # halfway between 1 and 10 deg in log10
    assert np.allclose(between, 0.5 * (np.array(STOPS[2][1]) + STOPS[3][1]))
    assert np.allclose(error_colors([5.0, np.nan, 5.0], faulted=[False, False, True])[1:], FAULT_COLOR)
    red, blue = colors[-1], colors[0]
    assert red[0] > 0.9 > red[2] and blue[2] > 0.9 > blue[0]


# ----------------------------------------------------------------- window
def child(win, name):
    widget = win.findChild(QWidget, name)
    assert widget is not None, name
    return widget


def turn_on(qtbot, win, bodies):
    view = win.ensemble
    view.set_bodies(bodies)
    view.set_on(True)
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.n == bodies)
    return view


def pause(qtbot, win):
    win.controls.run.pause.setChecked(True)
    qtbot.waitUntil(lambda: caught_up(win))  # the last batch reached the view
    qtbot.waitUntil(lambda: win.ensemble.settled)  # and its histogram and statistics


@pytest.mark.gl
def test_view_shows_every_body_where_its_nose_points_coloured_by_its_error(qtbot, main_window):
    win = main_window("hoffmann_controller")    # command (40, 30, 20) deg from t = 1 s, dt = 0.1 s
    view = turn_on(qtbot, win, 400)
    assert win.plot_tabs.currentWidget() is view and view.isVisible()
    qtbot.waitUntil(lambda: view.frame.t > 1.1)
    pause(qtbot, win)
    frame = view.frame
    points = view.scene.points_item
    assert points.count == 400
    errors = scipy_errors_deg(frame.q, (40.0, 30.0, 20.0))
    assert errors.max() > 5.0, "not all home yet: the colours differ"
    assert np.allclose(points.color, error_colors(errors), atol=2e-3)
    assert np.allclose(points.pos, (SCENE_FROM_NED @ scipy_nose(frame.q)).T, atol=1e-6)
    assert view.histogram.counts.sum() == 400
    assert np.array_equal(view.histogram.counts, histogram_counts(errors))
    assert "400 bodies" in view.stats.text()


@pytest.mark.gl
def test_a_torque_on_the_aircraft_turns_every_body(qtbot, main_window):
    win = main_window("default")
    view = turn_on(qtbot, win, 200)
    q0 = view.frame.info.q0
    qtbot.waitUntil(lambda: view.frame.t > 0.2)
    assert np.allclose(view.frame.q, q0, rtol=0, atol=1e-12), "at rest without torque"
    child(win, "slider_ty").setValue(50)  # 5 N m pitch
    qtbot.waitUntil(lambda: np.all(np.abs(view.frame.q - q0).max(axis=0) > 1e-3))
    assert win.last_snapshot.w[1] > 0.0


@pytest.mark.gl
def test_loading_the_worst_body_puts_its_initial_state_into_the_main_simulation(qtbot, main_window):
    win = main_window("hoffmann_controller", speed=10.0)
    view = turn_on(qtbot, win, 300)
    qtbot.waitUntil(lambda: view.frame.t > 1.3)
    pause(qtbot, win)
    frame = view.frame
    expected = int(np.argmax(scipy_errors_deg(frame.q, (40.0, 30.0, 20.0))))
    initial = frame.info
    child(win, "button_ensemble_worst").click()
    qtbot.waitUntil(lambda: win.last_snapshot.t == 0.0)
    settings = win.worker.settings
    assert np.allclose(settings.angles_deg, initial.angles_deg0[:, expected], atol=1e-12)
    assert np.allclose(settings.rates, initial.rates0[:, expected])
    assert np.allclose(settings.mass_properties.inertia, initial.inertia[:, expected])
    assert np.max(np.abs(np.array(win.last_snapshot.q) - initial.q0[:, expected])) <= 1e-15
    assert win.controls.body.reset_state() == (settings.angles_deg, settings.rates)
    # from the restart on the aircraft flies exactly that body
    win.controls.run.pause.setChecked(False)
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.t > 2.0)
    pause(qtbot, win)
    assert view.frame.t == win.last_snapshot.t
    assert np.max(np.abs(view.frame.q[:, expected] - np.array(win.last_snapshot.q))) <= 1e-12


@pytest.mark.gl
def test_clicking_a_point_loads_that_body(qtbot, main_window):
    win = main_window("default")
    view = turn_on(qtbot, win, 200)
    pause(qtbot, win)
    info = view.frame.info
    scene = view.scene
    pixels, front = scene.project()
    inside = front & (pixels[:, 0] > 10) & (pixels[:, 1] > 10)
    j = int(np.flatnonzero(inside)[0])
    target = QPoint(round(pixels[j, 0]), round(pixels[j, 1]))
    assert scene.pick(target.x(), target.y()) in np.flatnonzero(
        np.hypot(*(pixels - pixels[j]).T) <= 2.0)  # that point, or one drawn on top of it
    picked = []
    scene.picked.connect(picked.append)
    qtbot.mousePress(scene, Qt.MouseButton.LeftButton, pos=target)
    qtbot.mouseRelease(scene, Qt.MouseButton.LeftButton, pos=target)
    qtbot.waitUntil(lambda: len(picked) == 1)
    loaded = picked[0]
    assert np.hypot(*(pixels[loaded] - (target.x(), target.y()))) <= PICK_PIXELS
    angles = tuple(info.angles_deg0[:, loaded])
    qtbot.waitUntil(lambda: win.worker.settings.angles_deg == angles)


@pytest.mark.gl
def test_shortest_path_box_drives_the_controller_setting(qtbot, main_window):
    win = main_window("hoffmann_controller")
    view = turn_on(qtbot, win, 50)
    box = child(win, "check_ensemble_shortest_path")
    assert box.isChecked()
    box.setChecked(False)
    qtbot.waitUntil(lambda: not win.worker.settings.shortest_path)
    assert not child(win, "check_shortest_path").isChecked()
    qtbot.waitUntil(lambda: not view.frame.info.settings.shortest_path)


@pytest.mark.gl
def test_a_bad_body_count_is_marked_and_the_run_goes_on(qtbot, main_window):
    from tests.app.window.test_window import type_into

    win = main_window("default")
    view = turn_on(qtbot, win, 100)
    field = child(win, "field_bodies")
    for text in ("many", "0", "999999", "-3"):
        t = win.last_snapshot.t
        type_into(qtbot, field, text)
        assert field.property("invalid") == "true", text
        assert "bodies" in field.toolTip()
        qtbot.waitUntil(lambda: win.last_snapshot.t > t + 0.05)
        assert view.spec.bodies == 100 and view.frame.n == 100
    type_into(qtbot, field, "250")
    assert field.property("invalid") == "false"
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.n == 250)
    assert view.scene.points_item.count == 250


@pytest.mark.gl
def test_switching_scenarios_toggling_and_closing_with_the_ensemble_on(qtbot, main_window):
    win = main_window("default", speed=5.0)
    view = turn_on(qtbot, win, 500)
    for name in ("hoffmann_controller", "integrators", "shortest_path", "default"):
        assert win.open_scenario(name)
        qtbot.waitUntil(lambda: view.frame is not None and view.frame.n == 500
                        and view.frame.info is win.worker.runner.ensemble_info, timeout=5000)
        assert view.frame.t <= win.last_snapshot.t + 1e-9 and win.plot_tabs.indexOf(view) >= 0
    for on in (False, True, False, True):
        win.ensemble.action.trigger()
        assert view.is_on is on and (win.plot_tabs.indexOf(view) >= 0) is on
        qtbot.wait(30)
    assert view.is_on and win.plot_tabs.indexOf(view) >= 0
    child(win, "button_ensemble_off").click()
    assert not view.is_on and win.plot_tabs.indexOf(view) == -1
    qtbot.waitUntil(lambda: win.worker.runner.ensemble is None)
    view.set_on(True)
    qtbot.waitUntil(lambda: view.frame is not None)
    thread = win.worker.thread
    win.close()
    assert not thread.is_alive()


@pytest.mark.gl
def test_screenshot_shows_the_sphere_and_the_histogram(qtbot, main_window):
    from app.window import grab_window

    win = main_window("hoffmann_controller")
    view = turn_on(qtbot, win, 1000)
    qtbot.waitUntil(lambda: view.frame.t > 1.1)
    pause(qtbot, win)  # early in the turn: most errors are tens of degrees
    assert np.median(view.frame.error_deg) > 10.0
    image = grab_window(win).convertToFormat(QImage.Format.Format_RGB888)
    width, height = image.width(), image.height()
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(height, image.bytesPerLine())[:, :3 * width]
    pixels = pixels.reshape(height, width, 3).astype(int)
    for widget in (view.view, view.histogram):
        corner = widget.mapTo(win, QPoint(0, 0))
        region = pixels[corner.y():corner.y() + widget.height(), corner.x():corner.x() + widget.width()]
        assert region.std() > 10, f"{widget.objectName()} is blank"
    corner = view.view.mapTo(win, QPoint(0, 0))
    sphere = pixels[corner.y():corner.y() + view.view.height(), corner.x():corner.x() + view.view.width()]
    warm = (sphere[..., 0] > 200) & (sphere[..., 2] < 120)   # yellow to red points: errors of 10-180 deg
    assert warm.sum() > 200, "the bodies' points are drawn"


@pytest.mark.gl
def test_a_scenario_with_an_ensemble_section_opens_the_view_with_it(qtbot, main_window):
    win = main_window("ensemble_long_way", speed=10.0)   # shortest path off, heading 180 deg
    view = win.ensemble
    assert view.is_on and view.spec == load("ensemble_long_way").ensemble
    assert win.plot_tabs.currentWidget() is view and win.ensemble.action.isChecked()
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.t > 6.0)
    pause(qtbot, win)
    frame = view.frame
    q0 = frame.info.q0
    command = Rotation.from_euler("ZYX", (180.0, 0.0, 0.0), degrees=True).as_quat()
    command = np.array([-command[0], -command[1], -command[2], command[3]])  # Hoffmann's Q of the command
    away = command @ q0 < 0.0                # the error quaternion's scalar is negative: these unwind
    assert 300 < away.sum() < 700
    sizes = view.scene.points_item.size
    assert np.all(sizes[away & (scipy_errors_deg(q0, (180.0, 0.0, 0.0)) < 170.0)] == LONG_WAY_SIZE)
    assert np.all(sizes[~away] == POINT_SIZE)
    # the same bodies with shortest path on: none takes the long way
    assert win.open_scenario("ensemble_controller")
    win.controls.run.pause.setChecked(False)
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.t > 6.0)
    assert np.all(view.scene.points_item.size == POINT_SIZE)
    assert "long way (turned > 180°): 0" in view.stats.text()
    # a scenario without the section turns the view off again, unless the user turned it on
    assert win.open_scenario("default")
    assert not view.is_on and win.plot_tabs.indexOf(view) == -1
    view.set_on(True)
    assert win.open_scenario("hoffmann")
    assert view.is_on and view.spec.bodies == 1000


@pytest.mark.gl
def test_a_scenario_with_more_bodies_than_the_window_flies_gets_the_most_it_can(qtbot, main_window, tmp_path):
    path = tmp_path / "big.toml"
    path.write_text('[settings]\ndt = 0.01\n[ensemble]\nbodies = 20000\nseed = 3\n')
    win = main_window("default")
    assert win.open_scenario(path)
    view = win.ensemble
    assert view.spec.bodies == MAX_BODIES and view.spec.seed == 3
    assert "20,000" in win.statusBar().currentMessage() or "20,000" in win.message.text()
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.n == MAX_BODIES)


@pytest.mark.gl
def test_diverging_bodies_are_grey_and_left_out_of_the_histogram(qtbot, main_window, tmp_path):
    from app.ensemble.colors import FAULT_COLOR

    path = tmp_path / "diverging.toml"   # no norm handling: spinning bodies' norms run away, the aircraft rests
    path.write_text('[settings]\nnorm = "none"\ndt = 0.01\n[ensemble]\nbodies = 200\nseed = 1\nrate_spread = 1.0\n')
    win = main_window("default")
    assert win.open_scenario(path)
    view = win.ensemble
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.t > 0.6)
    pause(qtbot, win)
    faulted = view.frame.faulted
    assert 0 < faulted.sum() < 200 and win.worker.fault is None
    assert np.allclose(view.scene.points_item.color[faulted], FAULT_COLOR)
    assert not np.allclose(view.scene.points_item.color[~faulted], FAULT_COLOR)
    assert view.histogram.counts.sum() == 200 - faulted.sum()
    assert f"faulted: {faulted.sum()}" in view.stats.text()


@pytest.mark.gl
def test_recording_with_the_ensemble_on_replays_it_and_the_view_follows(qtbot, main_window, tmp_path):
    win = main_window("default", speed=5.0)
    view = turn_on(qtbot, win, 100)
    path = tmp_path / "run.jsonl"
    assert win.start_recording(path)
    win.controls.torque.sliders[0].set_value(2.0)
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.t > 0.5)
    win.stop_recording()
    qtbot.waitUntil(lambda: '"end"' in path.read_text())  # the worker closes it
    assert '"key": "ensemble"' in path.read_text()
    view.set_on(False)  # the replay turns it on again: the recording holds it
    qtbot.waitUntil(lambda: win.worker.runner.ensemble is None)
    assert win.replay(path)
    qtbot.waitUntil(lambda: win.worker.paused and view.frame is not None and view.frame.t > 0.4)
    assert view.is_on and view.frame.n == 100 and win.worker.fault is None
    assert win.plot_tabs.indexOf(view) >= 0


def test_a_new_body_reaches_the_ensemble_but_an_explicit_inertia_does_not():
    """The Model tab's body change re-draws the ensemble about the new body; "Load worst" (an explicit
    inertia for the main body) leaves the ensemble's bodies as drawn."""
    from sim.model.shape import mass_properties

    runner = runner_with(load("default").settings, EnsembleSpec(bodies=8, seed=3, inertia_spread=10.0))
    drawn = runner.advance(1).ensemble.info.inertia
    assert np.allclose(np.median(drawn[:3], axis=1), (0.6, 1.0, 1.5), rtol=0.15)
    for key, value in (("body", "t_handle"), ("mass", None), ("inertia", None)):  # what the Model tab sends
        runner.submit(key, value)
    info = runner.advance(1).ensemble.info
    own = np.array(mass_properties("t_handle").inertia[:3])
    moments = info.inertia[:3]
    assert np.all(np.abs(moments / own[:, None] - 1.0) <= 0.10 + 1e-12)  # within the 10 % spread of its own
    runner.submit("inertia", tuple(float(a) for a in moments[:, 0]) + (0.0, 0.0, 0.0))  # Load body 0
    assert np.array_equal(runner.advance(1).ensemble.info.inertia[:3], moments)


@pytest.mark.gl
def test_aircraft_stand_on_their_nose_points_turned_as_the_attitude_view_turns_that_body(qtbot, main_window):
    from app.ensemble.view import MAX_AIRCRAFT, aircraft_indices

    win = main_window("default")
    view = turn_on(qtbot, win, 2500)            # more than MAX_AIRCRAFT: every third body is drawn
    box = child(win, "check_ensemble_aircraft")
    assert not box.isChecked() and view.scene.aircraft_item is None, "points only, until asked"
    box.setChecked(True)
    qtbot.waitUntil(lambda: view.scene.aircraft_item is not None and view.scene.aircraft_item.instances > 0,
                    timeout=3000)
    pause(qtbot, win)
    frame, item = view.frame, view.scene.aircraft_item
    index = aircraft_indices(frame.n)
    assert item.instances == len(index) <= MAX_AIRCRAFT and np.array_equal(index, np.arange(0, 2500, 3))
    offsets, axes, tints = (np.asarray(a, dtype=float) for a in item.placements)
    scale = np.linalg.norm(axes[0][:, 0])
    # each copy: the body's own rotation (scipy, body -> NED) in scene axes, times one scale
    rotations = SCENE_FROM_NED @ scipy_bodies(frame.q[:, index]).as_matrix()
    assert np.allclose(axes / scale, rotations, atol=1e-5)
    # on the sphere, just outside its nose point, nose outwards
    nose = (SCENE_FROM_NED @ scipy_nose(frame.q[:, index])).T
    radius = np.linalg.norm(offsets, axis=1)
    assert np.allclose(offsets / radius[:, None], nose, atol=1e-5) and np.all((radius > 1.0) & (radius < 1.2))
    assert np.allclose(tints, view.scene.points_item.color[index]), "each aircraft in its point's colour"
    # the single-body view draws the same body the same way: fly body 3 (drawn) alone and compare at t = 0
    view.load_body(3)
    qtbot.waitUntil(lambda: win.last_snapshot.t == 0.0 and view.frame is not None and view.frame.t == 0.0,
                    timeout=3000)
    qtbot.waitUntil(lambda: np.allclose(view.scene.aircraft_item.placements[1][1] / scale,
                                        _rotation(win.viewer.scene.aircraft_item), atol=1e-5), timeout=3000)
    box.setChecked(False)
    assert view.scene.aircraft_item is None


def _rotation(item):
    """The 3x3 rotation of a pyqtgraph item's transform."""
    return np.array(item.transform().data(), dtype=float).reshape(4, 4).T[:3, :3]


def test_speed_words_say_when_the_simulation_cannot_keep_up():
    from app.window.statusbar import KEEP_UP, speed_state

    assert speed_state(1.0, 1.0, False) == ("1.00× real time", False)
    assert speed_state(0.62, 1.0, False) == ("cannot keep up: ×0.62", True)
    assert speed_state(KEEP_UP * 10.0, 10.0, False) == ("9.00× real time", False)
    assert speed_state(6.2, 10.0, False) == ("cannot keep up: ×6.20 of 10×", True)
    assert speed_state(0.0, 1.0, True) == ("paused", False)


@pytest.mark.gl
def test_the_status_bar_says_when_the_simulation_thread_cannot_keep_up(qtbot, main_window, monkeypatch):
    import time

    win = main_window("default")
    label = child(win, "status_speed")
    qtbot.waitUntil(lambda: "real time" in label.text())
    assert label.property("warning") == "false"
    runner = win.worker.runner
    real = runner.advance

    def slow(n):  # as if each step of a large ensemble took 2.5 ms of wall time: at most 0.4x
        time.sleep(0.0025 * n)
        return real(n)

    monkeypatch.setattr(runner, "advance", slow)
    qtbot.waitUntil(lambda: label.text().startswith("cannot keep up: ×"))
    factor = float(label.text().split("×")[1])
    assert 0.1 < factor < 0.5 and label.property("warning") == "true"
    assert "cannot take its steps" in label.toolTip()
    monkeypatch.setattr(runner, "advance", real)
    qtbot.waitUntil(lambda: label.text().endswith("× real time"))
    assert label.property("warning") == "false"


@pytest.mark.gl
def test_a_hidden_tab_derives_nothing_and_a_shown_one_draws_the_latest_frame(qtbot, main_window):
    win = main_window("default")
    view = turn_on(qtbot, win, 300)
    win.plot_tabs.setCurrentIndex(win.plot_tabs.indexOf(win.plots))  # the plots in view, the sphere hidden
    qtbot.waitUntil(lambda: not view.isVisible())
    t = view.frame.t
    qtbot.waitUntil(lambda: view.frame.t > t + 0.2)
    derived = {"nose", "error_deg", "travelled_deg"}
    assert not derived & set(vars(view.frame)), "no nose directions or angles computed for a hidden tab"
    win.plot_tabs.setCurrentWidget(view)
    pause(qtbot, win)
    frame = view.frame
    assert derived <= set(vars(frame))
    assert np.allclose(view.scene.points_item.pos, (SCENE_FROM_NED @ scipy_nose(frame.q)).T, atol=1e-6)
    assert f"t = {frame.t:.2f} s" in view.stats.text()


@pytest.mark.gl
def test_the_ensemble_tabs_restart_and_load_body_arrive_as_one_entry_each(qtbot, main_window, monkeypatch):
    from sim.run.inputs import typed
    """Turning the ensemble on restarts the run: the reset angles and rates, the ensemble and the reset go
    through the window's one door as one entry, so no step falls between them (issue 29); so do a loaded
    body's inertia and gains with their reset."""
    win = main_window("default")
    runner = win.worker.runner
    entries = []
    send = runner.send
    monkeypatch.setattr(runner, "send", lambda entry: entries.append(tuple(entry)) or send(entry))
    view = turn_on(qtbot, win, 100)
    assert len(entries) == 1
    first = [typed(item) for item in entries[0]]   # typed inputs (issue 41), or pairs the runner types
    assert [item.key for item in first] == ["angles_deg", "rates", ENSEMBLE, RESET]
    assert first[2].value == view.spec
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.n == 100)
    entries.clear()
    view.load_body(0)
    keys = [typed(item).key for item in entries[0]]
    assert len(entries) == 1 and keys[:2] == ["angles_deg", "rates"] and keys[-1] == RESET
    assert set(keys) <= {"inertia", "gains", "angles_deg", "rates", RESET}
