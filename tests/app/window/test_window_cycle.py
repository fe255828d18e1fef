"""The window under churn: scenarios replaced while frames are drawn, closing during a paint.

These are the paths where a paint can outlive its data (issue: the suite
crashed under load in a plot's paintEvent and at a framebuffer object made
before the 3D view had a context).  ``make stress`` runs them under load.
"""

import random

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QGraphicsView

from sim.run.scenario import builtin_names


@pytest.mark.gl
def test_every_builtin_scenario_cycles_through_the_window_while_frames_are_drawn(qtbot, main_window, request):
    """Every built-in scenario opened ``--window-cycles`` times (5; make stress: 20), each cycle in another
    order (the first in the built-in order, then seeded shuffles), so the switches cover many pairs of
    scenarios, not the same 26 pairs again and again."""
    win = main_window("default", speed=10.0)
    cycles = request.config.getoption("--window-cycles")
    frames = []
    win.viewer.frameSwapped.connect(lambda: frames.append(1))
    for cycle in range(cycles):
        names = builtin_names()
        if cycle:
            random.Random(cycle).shuffle(names)
        for name in names:
            assert win.open_scenario(name), name
            # Let the new run reach the screen: a 3D frame and the plots' refresh.
            QApplication.processEvents()
            if cycle % 5 == 0 or name == names[-1]:
                qtbot.wait(20)
            if win.compare.has_bodies:  # the Compare tab comes and goes with the scenario
                win.plot_tabs.show_compare(cycle % 2 == 0)
    assert win.scenario.name == names[-1]
    assert len(frames) > cycles  # frames were drawn between the switches
    # The last scenario runs: its time moves on and nothing has faulted.
    win.worker.pause(False)
    t0 = win.last_snapshot.t if win.last_snapshot is not None else 0.0
    qtbot.waitUntil(lambda: win.last_snapshot is not None and win.last_snapshot.t > t0)
    assert win.worker.fault is None
    assert win.worker.thread.is_alive()


class _CloseOnPaint(QObject):
    """Closes ``window`` from inside the first paint event of the watched object."""

    def __init__(self, window, kinds):
        super().__init__()
        self.window = window
        self.kinds = kinds
        self.closed = False

    def eventFilter(self, watched, event):
        if not self.closed and event.type() in self.kinds:
            self.closed = True
            self.window.close()  # the paint goes on after the close
        return False


@pytest.mark.gl
@pytest.mark.parametrize("target", ["plots", "viewer"])
def test_closing_the_window_during_a_paint_ends_cleanly(qtbot, main_window, target):
    win = main_window("integrators", speed=10.0)  # comparison bodies: the busiest window
    qtbot.waitUntil(lambda: win.last_snapshot.t > 0.05)
    if target == "plots":
        # The canvas of the plots shown (the Compare tab, for this scenario).
        watched = win.plot_tabs.currentWidget().findChild(QGraphicsView).viewport()
        kinds = (QEvent.Type.Paint,)
    else:
        watched = win.viewer.scene
        kinds = (QEvent.Type.UpdateRequest, QEvent.Type.Paint)
    closer = _CloseOnPaint(win, kinds)
    watched.installEventFilter(closer)
    watched.update() if target == "plots" else watched.requestUpdate()
    qtbot.waitUntil(lambda: closer.closed)
    for _ in range(10):  # the frames, deferred deletes and timers that were due
        QApplication.processEvents()
        qtbot.wait(10)
    watched.removeEventFilter(closer)
    assert not win.isVisible()
    assert not win.worker.thread.is_alive()
