"""The window with reaction wheels and gravity gradient: the Wheels and Environment groups, the Momentum
tab, the wheels on the body, the orbit frame and the readouts relative to it.

What is checked is what the user sees: the curves' data against the run's own columns (computed by
the simulation the test steps alongside), the limit lines at the wheels' limits, a saturated wheel
red on the body, and the angles relative to the orbit frame against sim.world.environment's transformation.
"""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.plots.live import WHEEL_COLORS
from app.view3d.layout import SATURATED_COLOR
from gui_waits import caught_up
from sim.model.rows import columns, history_columns

pytestmark = pytest.mark.gl


def _curve(panel, plot, label):
    found = [c for c in panel.plot(plot).listDataItems() if c.name() == label]
    assert len(found) == 1, (plot, label, [c.name() for c in panel.plot(plot).listDataItems()])
    return found[0]


def test_reaction_wheels_scenario_shows_its_wheels_everywhere(qtbot, main_window):
    win = main_window("reaction_wheels", speed=50.0)
    assert win.history.columns == history_columns(4)
    assert win.plot_tabs.currentWidget() is win.momentum and win.momentum.isVisible()
    assert [c.name() for c in win.momentum.plot("wheel_speeds").listDataItems()] == ["Ω1", "Ω2", "Ω3", "Ω4"]
    assert win.momentum.limits("wheel_speeds") == [-350.0, 350.0]
    assert win.momentum.limits("wheel_torques") == [-0.2, 0.2]
    assert len(win.viewer.scene.wheel_items) == 4
    qtbot.waitUntil(lambda: win.last_snapshot.t > 47.0, timeout=20_000)   # into the saturation (44-60 s)
    win.worker.pause(True)
    qtbot.waitUntil(lambda: caught_up(win))
    win.loop.frame()
    win.momentum.refresh()
    last = win.last_snapshot
    at_limit = [abs(s) >= 350.0 for s in last.wheel_speeds]
    assert any(at_limit)
    for (ring, _), full, hue in zip(win.viewer.scene.wheel_items, at_limit, WHEEL_COLORS):
        own = [int(hue[i:i + 2], 16) / 255 for i in (1, 3, 5)] + [1.0]   # its curves' colour
        np.testing.assert_allclose(ring.colors[0], SATURATED_COLOR if full else own, atol=1e-6)
        assert (ring.width > 4) is full
    readout = win.readouts.values["wheels"].text()
    assert "at the speed limit" in readout and "!" in readout
    t, rows = win.history.window(80.0, ("wheel2", "ux2", "hz", "hbz", "tcz"))
    x, y = _curve(win.momentum, "wheel_speeds", "Ω2").getData()
    assert x[-1] == t[-1] and np.isin(y, rows["wheel2"]).all()                    # what the history holds
    assert np.abs(rows["hz"]).max() < 1e-9 < np.abs(rows["hbz"]).max()             # total still, body's share not


def test_a_new_number_of_wheels_starts_a_new_run(qtbot, main_window):
    win = main_window("default")
    group = win.controls.wheels
    win.controls.tabs.setCurrentIndex(2)
    assert not group.inertia.isEnabled()
    group.layout_choice.setCurrentText("orthogonal")
    group.layout_choice.activated.emit(group.layout_choice.currentIndex())
    qtbot.waitUntil(lambda: win.worker.settings.wheel_count == 3 and win.history.columns == history_columns(3),
                    timeout=5000)
    assert "3 reaction wheels: the run restarted at t = 0" in win.statusBar().currentMessage()
    assert win.plot_tabs.indexOf(win.momentum) >= 0
    qtbot.waitUntil(lambda: win.last_snapshot is not None and len(win.last_snapshot.wheel_speeds) == 3)
    # the same number of wheels flies on, and a value that does not fit is refused with a message
    t0 = win.last_snapshot.t
    group.layout_choice.setCurrentText("axes…")
    group.layout_choice.activated.emit(group.layout_choice.currentIndex())
    assert group.axes.isEnabled()
    group.axes.setText("1, 0, 0; 0, 1, 0; 0, 0.6, 0.8")
    group.axes.editingFinished.emit()
    qtbot.waitUntil(lambda: win.worker.settings.wheels == ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.6, 0.8)),
                    timeout=3000)
    assert win.last_snapshot.t >= t0
    group.speeds.setText("1, 2")
    group.speeds.editingFinished.emit()
    qtbot.waitUntil(lambda: "2 values for 3 wheels" in win.statusBar().currentMessage())
    assert win.worker.fault is None and win.worker.settings.wheel_speeds is None


def test_gravity_gradient_reads_and_draws_the_orbit_frame(qtbot, main_window):
    from sim.core.angles import aircraft_angles
    from sim.world.environment import orbit_rate, to_orbit_frame

    win = main_window("gravity_gradient", speed=200.0)
    assert win.readouts.orbit.isEnabled() and win.readouts.orbit.isChecked()
    assert win.orbit_action.isChecked() and win.viewer.scene._orbit.visible()
    assert win.plots.columns("angles") == ["psio_deg", "thetao_deg", "phio_deg"]
    qtbot.waitUntil(lambda: win.last_snapshot.t > 200.0)
    win.loop.sync()
    s = win.last_snapshot
    expected = np.degrees(aircraft_angles(to_orbit_frame(s.q, s.t, orbit_rate(500.0))))
    shown = [float(v) for v in win.readouts.values["angles"].text().strip("() °").split(",")]
    np.testing.assert_allclose(shown, np.round(expected, 2), atol=0.006)
    assert win.readouts.angles_title.text() == "ψ θ φ orbit"
    win.readouts.orbit.setChecked(False)                        # back to inertial axes
    assert win.plots.columns("angles")[:3] == ["psi_deg", "theta_deg", "phi_deg"]
    win.loop.sync()
    shown = [float(v) for v in win.readouts.values["angles"].text().strip("() °").split(",")]
    np.testing.assert_allclose(shown, np.round(win.last_snapshot.angles_deg, 2), atol=0.006)
    win.controls.environment.gravity_gradient.setChecked(False)   # no orbit: no orbit toggles
    qtbot.waitUntil(lambda: not win.worker.settings.gravity_gradient)
    win.loop.sync()
    assert not win.readouts.orbit.isEnabled()


def test_export_csv_writes_the_wheel_columns(qtbot, main_window, tmp_path):
    win = main_window("momentum_exchange", speed=10.0)
    qtbot.waitUntil(lambda: win.history.count > 50)
    export = win.export_csv(tmp_path / "w.csv")
    assert export.wait(30.0)
    header = (tmp_path / "w.csv").read_text().splitlines()[0].split(",")
    assert header == list(columns(3))


def test_the_environment_group_sends_its_values(qtbot, main_window):
    win = main_window("default")
    env = win.controls.environment
    env.disturbance.setText("0.1, 0, 0")
    env.disturbance.editingFinished.emit()
    env.axes.setCurrentText("inertial")
    env.period.setText("5")
    env.period.editingFinished.emit()
    qtbot.waitUntil(lambda: win.worker.settings.disturbance == (0.1, 0.0, 0.0)
                    and win.worker.settings.disturbance_axes == "inertial"
                    and win.worker.settings.disturbance_period == 5.0, timeout=3000)
    env.altitude.setText("50")
    env.altitude.editingFinished.emit()
    assert env.altitude.error is not None and "altitude_km" in env.altitude.error
    assert win.worker.settings.altitude_km == 500.0
    qtbot.keyClick(env.gravity_gradient, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: win.worker.settings.gravity_gradient)
