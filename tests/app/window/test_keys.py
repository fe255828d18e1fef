"""Flying keys work whatever part of the window has the keyboard focus, text fields excepted (issue 23).

A click or drag in a 3D view gives the keyboard focus to its native GL
window (a ``QOpenGLWindow`` in a window container), as it does on a real
X11 desktop.  The keys then go to that window, not to any widget; they
must still fly the aircraft.  Keys typed into a text field edit the field.

The keys are sent where the platform sends them: to the focus window
(``QGuiApplication.focusWindow()``).  The aircraft's pitch angle is read
from the simulation's snapshots, so a test fails if the keys do not reach
the physics.
"""

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget

from app.window import keys
from app.window.keys import KEY_TORQUE
from gui_waits import caught_up


def activate(qtbot, win):
    win.activateWindow()
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is win.windowHandle())


def drag(qtbot, scene):
    """Press, move and release the left button in a GL window: a camera drag (no click: it moves)."""
    start, end = QPoint(60, 60), QPoint(110, 85)
    QTest.mousePress(scene, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for k in range(1, 6):
        QTest.mouseMove(scene, start + (end - start) * k / 5)
        qtbot.wait(10)
    QTest.mouseRelease(scene, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


def theta(win) -> float:
    return win.last_snapshot.angles_deg[1]


def fly(qtbot, win, key, until, timeout=4000):
    """Hold ``key`` in the focus window until ``until()`` holds, then let go; the key torque goes back to 0."""
    target = QGuiApplication.focusWindow()
    QTest.keyPress(target, key)
    try:
        qtbot.waitUntil(until, timeout=timeout)
    finally:
        QTest.keyRelease(target, key)
    qtbot.waitUntil(lambda: win.worker.settings.torque == (0.0, 0.0, 0.0))


@pytest.mark.gl
@pytest.mark.parametrize("view", ["attitude", "ensemble"])
def test_keys_fly_after_a_drag_in_each_3d_view(qtbot, main_window, view):
    win = main_window("default")  # dampers on, no controller: a held key pitches, letting go stops the turn
    if view == "ensemble":
        win.ensemble.set_bodies(50)
        win.ensemble.set_on(True)
        qtbot.waitUntil(lambda: win.ensemble.frame is not None)
        scene = win.ensemble.scene
    else:
        scene = win.viewer.scene
    qtbot.waitUntil(scene.isValid)
    activate(qtbot, win)
    drag(qtbot, scene)
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is scene)  # the view took the keyboard
    start = theta(win)
    seen = []
    win.keys.changed.connect(seen.append)
    fly(qtbot, win, Qt.Key.Key_W, lambda: theta(win) > start + 15.0)  # nose up
    assert seen[0] == (0.0, KEY_TORQUE, 0.0)
    up = theta(win)
    qtbot.waitUntil(lambda: np.linalg.norm(win.last_snapshot.w) < 0.02)  # the dampers stop the turn
    fly(qtbot, win, Qt.Key.Key_S, lambda: theta(win) < up - 15.0)  # nose down again
    assert QGuiApplication.focusWindow() is scene, "the keys flew while the 3D view kept the focus"
    assert win.controls.torque.sliders[1].value == 0.0, "the slider keeps its own torque"


@pytest.mark.gl
def test_keys_typed_in_a_text_field_edit_it_and_do_not_fly(qtbot, main_window):
    win = main_window("default")
    activate(qtbot, win)
    drag(qtbot, win.viewer.scene)  # the 3D view had the keyboard; the field takes it back
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is win.viewer.scene)
    field = win.findChild(QWidget, "field_rates")
    field.setFocus()
    field.selectAll()
    activate(qtbot, win)
    qtbot.waitUntil(field.hasFocus)
    seen = []
    win.keys.changed.connect(seen.append)
    start = theta(win)
    for key in (Qt.Key.Key_W, Qt.Key.Key_S, Qt.Key.Key_A, Qt.Key.Key_D, Qt.Key.Key_Q, Qt.Key.Key_E):
        QTest.keyClick(QGuiApplication.focusWindow(), key)
    qtbot.waitUntil(lambda: field.text() == "wsadqe")   # the keys went into the field
    assert seen == [] and win.worker.settings.torque == (0.0, 0.0, 0.0)
    assert abs(theta(win) - start) < 1e-9, "the aircraft did not move"
    assert field.property("invalid") == "true", "letters are no rates: the field is marked, nothing sent"


@pytest.mark.gl
@pytest.mark.parametrize("focus", ["slider", "3d view"])
def test_a_key_held_while_x_repeats_it_has_its_torque_at_every_step(qtbot, main_window, tmp_path, focus,
                                                                     monkeypatch):
    """Issue 43: X repeats a held key as a release and a press, and Qt leaves about one pair in six unmarked
    as auto-repeat (the press arrives 0.1-6 ms after the release); each one dropped the key's torque for a
    few steps. Here every repeat is such a pair, the simulation stepping between its release and its press;
    with the dampers off the torque column is the key's alone: it must hold at every step of the hold.

    The gap here is two of the worker's steps, which on a loaded 2-core machine can take longer than the
    real 30 ms grace; the grace is widened so that the test checks the rule (a press within the grace keeps
    the key held), not the machine's load. X's real timing was checked by hand with xdotool (issue 43).
    """
    monkeypatch.setattr(keys, "RELEASE_GRACE_MS", 1000)
    path = tmp_path / "free.toml"
    path.write_text("[settings]\ndampers_on = false\n")
    win = main_window("default")
    assert win.open_scenario(path)
    activate(qtbot, win)
    if focus == "3d view":
        drag(qtbot, win.viewer.scene)
        qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is win.viewer.scene)
    else:
        win.controls.torque.sliders[0].setFocus()
    target = QGuiApplication.focusWindow()
    QTest.keyPress(target, Qt.Key.Key_W)
    qtbot.waitUntil(lambda: win.worker.settings.torque == (0.0, KEY_TORQUE, 0.0))
    for _ in range(20):
        QTest.keyRelease(target, Qt.Key.Key_W)   # a repeat Qt did not recognise: its release ...
        taken = win.worker.steps_taken
        qtbot.waitUntil(lambda: win.worker.steps_taken > taken + 1)   # ... steps on ...
        QTest.keyPress(target, Qt.Key.Key_W)     # ... and its press
    QTest.keyRelease(target, Qt.Key.Key_W)      # let go: the torque goes
    qtbot.waitUntil(lambda: win.worker.settings.torque == (0.0, 0.0, 0.0))
    taken = win.worker.steps_taken
    qtbot.waitUntil(lambda: win.worker.steps_taken > taken + 5)
    win.controls.run.pause.setChecked(True)
    qtbot.waitUntil(lambda: caught_up(win))
    ty = win.history.column("ty")
    held = np.flatnonzero(ty != 0.0)
    assert held.size > 40 and ty[-1] == 0.0, "the hold is in the history, and its end"
    assert np.all(ty[held[0]:held[-1] + 1] == KEY_TORQUE), (
        f"{np.count_nonzero(ty[held[0]:held[-1] + 1] != KEY_TORQUE)} steps without the key's torque")
