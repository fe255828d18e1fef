"""The window with an estimator (issue 33): the estimate's ghost, the Estimation tab's plots, the Sensors group."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from scipy.spatial.transform import Rotation

from app.plots.estimation import ESTIMATE_GHOST, ESTIMATE_MAGNIFY, ESTIMATE_MOST, ESTIMATION_PLOTS
from gui_waits import drawn_as_paused
from sim.core.quaternion import cayley

pytestmark = pytest.mark.gl


def type_into(qtbot, field, text):
    """Type ``text`` into a line edit as a user would, then press Return (as tests/app/window/test_window.py)."""
    field.setFocus()
    field.selectAll()
    qtbot.keyClick(field, Qt.Key.Key_Delete)
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_the_estimate_is_a_ghost_and_plotted(qtbot, main_window):
    win = main_window("mekf", speed=20.0)
    scene = win.viewer.scene
    assert ESTIMATE_GHOST in scene._bodies and "estimate" in win.legend.text()
    assert win.plot_tabs.indexOf(win.estimation.panel) >= 0
    win.plot_tabs.setCurrentWidget(win.estimation.panel)
    qtbot.waitUntil(lambda: all(win.estimation.panel.curve_points(p.name) > 10 for p in ESTIMATION_PLOTS),
                    timeout=10000)
    win.worker.pause(True)  # the view runs up to a batch behind the latest state: paused, it reaches it
    qtbot.waitUntil(lambda: drawn_as_paused(win))
    # the estimate's axes are turned from the truth about the error's axis by 50 times its angle (scipy the oracle)
    shown = win.last_snapshot
    drawn = np.asarray(scene._orientations[scene._bodies[ESTIMATE_GHOST]]).reshape(3, 3)
    truth = np.asarray(cayley(shown.attitude)).reshape(3, 3)
    error = Rotation.from_matrix(np.asarray(cayley(shown.estimate[:4])).reshape(3, 3) @ truth.T).as_rotvec()
    angle = min(ESTIMATE_MAGNIFY * np.linalg.norm(error), np.radians(ESTIMATE_MOST))
    assert np.linalg.norm(error) > 1e-6  # the estimate is not the truth
    expected = Rotation.from_rotvec(angle * error / np.linalg.norm(error)).as_matrix() @ truth
    assert np.allclose(drawn, expected, atol=1e-9)
    # the +3 sigma curve is the history's sig3 column, the error inside it
    x, y = win.estimation.panel._curves["err_x"][1].getData()
    assert np.nanmin(y) > 0.0
    # the sensors' timeline: the gyro and the star tracker on, no sun sensors or magnetometer
    _, star = win.estimation.panel._curves["sensors"][1].getData()
    _, sun = win.estimation.panel._curves["sensors"][2].getData()
    assert np.nanmax(star) == pytest.approx(2.6) and np.all(np.isnan(sun))


def test_a_run_without_an_estimator_has_no_tab_nor_ghost(qtbot, main_window):
    win = main_window("mekf")
    assert win.open_scenario("default")
    qtbot.waitUntil(lambda: win.last_snapshot is not None and win.last_snapshot.estimate is None)
    assert win.plot_tabs.indexOf(win.estimation.panel) < 0
    assert ESTIMATE_GHOST not in win.viewer.scene._bodies
    assert not win.controls.sensors.gyro.isEnabled()


def test_the_estimation_plots_are_made_by_the_first_run_with_an_estimator(qtbot, main_window):
    """Not at the window's start (a start without an estimator never shows them), and with the run's time
    window when they are made."""
    win = main_window("default")
    assert not win.estimation.made and not win.estimation.present
    assert win.open_scenario("mekf")
    qtbot.waitUntil(lambda: win.last_snapshot is not None and win.last_snapshot.estimate is not None)
    assert win.estimation.made and win.estimation.present
    panel = win.findChild(QWidget, "estimation")
    assert panel is win.estimation.panel and win.plot_tabs.indexOf(panel) >= 0
    assert panel.window_seconds == win.plots.window_seconds


def test_sensor_noise_and_fly_on_go_to_the_model(qtbot, main_window):
    win = main_window("mekf", speed=10.0)
    group = win.controls.sensors
    assert group.gyro.isEnabled() and not group.magnetometer.isEnabled()
    field = win.findChild(QWidget, "field_star_tracker")
    type_into(qtbot, field, "40,2")
    qtbot.waitUntil(lambda: win.worker.settings.star_tracker == (40.0, 2.0))
    group.fly_on.setChecked(True)
    qtbot.waitUntil(lambda: win.worker.settings.fly_on == "estimate")
    type_into(qtbot, field, "0,2")
    assert field.error is not None and win.worker.settings.star_tracker == (40.0, 2.0)
