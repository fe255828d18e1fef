"""The window with control moment gyros (issue 45): the CMG tab shown for a run with a cluster, its curves the
run's columns, the rotors drawn on the body turned to the gimbal angles of the last state, and the Model tab's
group switching a run onto a pyramid (with rk4, one input)."""

import math

import numpy as np
import pytest

from gui_waits import caught_up
from sim.model.rows import history_columns_of

pytestmark = pytest.mark.gl


def test_the_cmg_scenario_shows_its_tab_and_turns_its_rotors(qtbot, main_window):
    win = main_window("cmg_singularity", speed=20.0)
    assert win.history.columns == history_columns_of(win.worker.settings)
    assert win.plot_tabs.currentWidget() is win.cmg and win.cmg.isVisible()
    assert len(win.viewer.scene.wheel_items) == 4                       # the four rotors on the body
    qtbot.waitUntil(lambda: win.last_snapshot.t > 20.0, timeout=30_000)  # the gimbals well away from zero
    win.worker.pause(True)
    qtbot.waitUntil(lambda: caught_up(win))
    win.loop.frame()
    win.cmg.refresh()
    last = win.last_snapshot
    s = win.worker.settings
    c, sb = math.cos(math.radians(s.cmg_skew)), math.sin(math.radians(s.cmg_skew))
    g = np.array([(sb, 0, c), (0, sb, c), (-sb, 0, c), (0, -sb, c)])
    s0 = np.array([(0, 1, 0), (-1, 0, 0), (0, -1, 0), (1, 0, 0)], dtype=float)
    for axis, gi, si, d in zip(win.viewer.scene._wheel_axes, g, s0, np.radians(last.cmg[:4])):
        expected = math.cos(d) * si + math.sin(d) * np.cross(gi, si)   # Wie ch. 7: the spin axis at delta
        np.testing.assert_allclose(axis, expected, atol=1e-12)
    assert max(abs(d) for d in last.cmg[:4]) > 30.0
    t, rows = win.history.window(85.0, ("cmg_m",))
    x, y = [c for c in win.cmg.panel.plot("cmg_m").listDataItems()][0].getData()
    assert x[-1] == t[-1] and np.isin(y, rows["cmg_m"]).all()


def test_the_model_tab_puts_the_run_on_cmgs(qtbot, main_window):
    win = main_window("default")
    group = win.controls.cmg
    assert not group.h0.isEnabled() and win.plot_tabs.indexOf(win.cmg) < 0
    group.cluster.activated.emit(group.cluster.findText("pyramid"))
    qtbot.waitUntil(lambda: win.worker.settings.cmg == "pyramid")
    assert win.worker.settings.integrator == "rk4"
    qtbot.waitUntil(lambda: "cmg_m" in win.history.columns and win.last_snapshot is not None
                    and win.last_snapshot.cmg is not None, timeout=5000)
    assert "CMGs pyramid: the run restarted at t = 0" in win.statusBar().currentMessage()
    assert win.plot_tabs.indexOf(win.cmg) >= 0 and group.h0.isEnabled()
    # a change of the steering law flies on (the same columns); a bad value is marked, never sent
    t0 = win.last_snapshot.t
    group.law.activated.emit(group.law.findData("mp"))
    qtbot.waitUntil(lambda: win.worker.settings.cmg_law == "mp")
    qtbot.waitUntil(lambda: win.last_snapshot.t > t0)
