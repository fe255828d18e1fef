"""Issue 32 in the window: the field and dipole arrows, the Magnetic tab's plots, the Magnetic control group
and the CSV export's columns, on real runs of the detumble scenario."""

import csv

import numpy as np
import pytest
from scipy.spatial.transform import Rotation
from gui_waits import drawn_as_paused

pytestmark = pytest.mark.gl

SCENE_FROM_NED = np.diag([1.0, -1.0, -1.0])  # the attitude view draws NED with z up (app.view3d.gimbal)


def _drawn(item, point) -> np.ndarray:
    """``point`` of a GL item mapped through its and its parents' transforms (what GL draws)."""
    from PySide6.QtGui import QVector3D

    p = item.viewTransform().map(QVector3D(*map(float, point)))
    return np.array([p.x(), p.y(), p.z()])


def _paused_on(win, qtbot, t: float):
    qtbot.waitUntil(lambda: win.last_snapshot.t > t, timeout=30_000)
    win.worker.pause(True)
    qtbot.waitUntil(lambda: win.worker.paused)
    qtbot.waitUntil(lambda: drawn_as_paused(win))  # the view at the last snapshot
    return win.last_snapshot


def _unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def test_the_field_arrow_points_along_the_field_in_both_views(main_window, qtbot):
    win = main_window("detumble", speed=200.0)
    snap = _paused_on(win, qtbot, 30.0)
    c = Rotation.from_quat(snap.attitude).as_matrix()  # Hoffmann's C(Q) (inertial -> body), from scipy
    arrows = win.viewer.scene.magnetic
    assert arrows.field.visible()
    pos = arrows.field.pos if not callable(arrows.field.pos) else arrows.field.pos()
    drawn = _drawn(arrows.field, pos[1]) - _drawn(arrows.field, pos[0])
    expected = SCENE_FROM_NED @ c.T @ _unit(snap.b_body)
    assert np.allclose(_unit(drawn), expected, atol=1e-6)
    # the body-axes field turned to inertial axes is the world's field (the field is sampled at the step's
    # start, the attitude at its end: within a step's turn, 20 deg/s x 0.1 s)
    assert np.degrees(np.arccos(np.clip(_unit(c.T @ np.asarray(snap.b_body)) @ _unit(snap.world.b_eci), -1, 1))) < 3.0
    # the orbit view draws ECI as it is: the arrow at the spacecraft points along the field in ECI
    orbit = win.orbit_view.scene.magnetic
    opos = orbit.field.pos if not callable(orbit.field.pos) else orbit.field.pos()
    odrawn = _drawn(orbit.field, opos[1]) - _drawn(orbit.field, opos[0])
    assert np.allclose(_unit(odrawn), c.T @ _unit(snap.b_body), atol=1e-6)
    # the dipole arrow points along the command (B-dot is on: the rods are driven after the second sample)
    assert np.linalg.norm(snap.dipole) > 0 and arrows.dipole.visible()
    dpos = arrows.dipole.pos if not callable(arrows.dipole.pos) else arrows.dipole.pos()
    ddrawn = _drawn(arrows.dipole, dpos[1]) - _drawn(arrows.dipole, dpos[0])
    assert np.allclose(_unit(ddrawn), SCENE_FROM_NED @ c.T @ _unit(snap.dipole), atol=1e-6)


def test_the_magnetic_plots_draw_the_history_of_a_detumble(main_window, qtbot):
    win = main_window("detumble", speed=500.0)
    assert win.plot_tabs.indexOf(win.environment) >= 0
    _paused_on(win, qtbot, 400.0)
    panel = win.environment
    assert panel.is_visible("rate_norm") and panel.is_visible("disturbances")
    assert not panel.is_visible("wheel_momentum")  # the CubeSat has no wheels
    panel.refresh()
    h = win.history
    w = np.degrees(np.sqrt(h.column("wx") ** 2 + h.column("wy") ** 2 + h.column("wz") ** 2))
    _, y = panel._curves["rate_norm"][0].getData()
    # the curve is the per-pixel envelope of log10 |w| (deg/s): its extremes are the history's
    assert np.isclose(np.nanmax(y), np.log10(w.max()), rtol=1e-12)
    assert np.isclose(np.nanmin(y), np.log10(w.min()), rtol=1e-12)
    assert np.isin(np.round(y, 12), np.round(np.log10(w), 12)).all()
    assert 10 ** np.nanmax(y) == pytest.approx(20.0, rel=0.02)  # the scenario starts at 20 deg/s
    t_mag = np.sqrt(sum(h.column(f"t_mag_{a}") ** 2 for a in "xyz"))
    labels = [c.name() for c in panel._curves["disturbances"]]
    assert labels == ["gravity gradient", "SRP", "drag", "magnetic"]
    _, y = panel._curves["disturbances"][3].getData()
    assert np.isclose(np.nanmax(y), np.log10(t_mag.max()), rtol=1e-12)
    _, y_gg = panel._curves["disturbances"][0].getData()
    assert np.isnan(y_gg).all()  # the gravity gradient is off in this scenario: exactly zero, nothing drawn


def test_the_magnetic_controls_reach_the_run(main_window, qtbot):
    win = main_window("detumble", speed=200.0)
    group = win.controls.magnetic
    qtbot.waitUntil(lambda: group.isEnabled() and "k = " in group.recommended.text())
    qtbot.waitUntil(lambda: win.last_snapshot.t > 20.0, timeout=30_000)
    inertia = np.asarray(win.worker.settings.mass_properties.inertia[:3])  # the CubeSat's J is diagonal

    def h_norm():
        return float(np.linalg.norm(inertia * np.asarray(win.last_snapshot.w)))
    h0, t0 = h_norm(), win.last_snapshot.t
    qtbot.waitUntil(lambda: win.last_snapshot.t > t0 + 100.0, timeout=30_000)
    assert h_norm() < 0.99 * h0  # B-dot at the scenario's gain takes momentum out
    group.gain.setText("0")  # the model wants a gain > 0: the field is marked and nothing is sent
    group.gain.editingFinished.emit()
    assert group.gain.error is not None and win.worker.settings.bdot_gain == 2.4e4
    group.gain.setText("1e3")
    group.gain.editingFinished.emit()  # as Return does
    qtbot.waitUntil(lambda: win.worker.settings.bdot_gain == 1e3)
    group.law.setCurrentText("off")  # B-dot off: no command, no magnetic torque, |H| stays
    qtbot.waitUntil(lambda: win.worker.settings.bdot_law == "off")
    qtbot.waitUntil(lambda: win.last_snapshot.t > t0 + 110.0, timeout=30_000)
    h1, t1 = h_norm(), win.last_snapshot.t
    qtbot.waitUntil(lambda: win.last_snapshot.t > t1 + 100.0, timeout=30_000)
    assert np.allclose(win.last_snapshot.dipole, 0.0)
    assert h_norm() == pytest.approx(h1, rel=1e-6)
    group.law.setCurrentText("bang-bang")
    qtbot.waitUntil(lambda: win.worker.settings.bdot_law == "bang-bang")
    group.srp.setChecked(True)
    qtbot.waitUntil(lambda: win.worker.settings.srp)


def test_the_csv_export_has_the_orbit_and_issue_32_columns(main_window, qtbot, tmp_path):
    from sim.model.rows import columns_of

    win = main_window("detumble", speed=50.0)
    _paused_on(win, qtbot, 5.0)
    export = win.export_csv(tmp_path / "d.csv")
    assert export.wait(30)
    with open(tmp_path / "d.csv", newline="") as f:
        header = next(csv.reader(f))
    assert tuple(header) == columns_of(win.worker.settings)
    for name in ("x_km", "bx", "mz", "t_gg_x", "t_srp_y", "t_drag_z", "t_mag_x"):
        assert name in header
