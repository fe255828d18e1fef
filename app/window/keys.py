"""Keyboard flying: torques on the body axes while keys are held.

Body axes are x nose, y right wing, z down, so a positive torque about y
lifts the nose, about x drops the right wing, about z turns the nose right.

==========================  ============  ================
Keys                        Axis          Torque
==========================  ============  ================
W or Up / S or Down         pitch (y)     nose up + / nose down -
D or Right / A or Left      roll (x)      right wing down + / left wing down -
E / Q                       yaw (z)       nose right + / nose left -
==========================  ============  ================

Each held key adds :data:`KEY_TORQUE` to the slider torque on its axis;
letting go returns to the slider torque.  A held key stays held while the
keyboard repeats it: X sends each repeat as a release and a press with the
same timestamp, and Qt's xcb plugin marks the pair as auto-repeat only when
the press is already queued behind the release; measured on Xvfb, about one
pair in six arrives unmarked, the press 0.1 to 6 ms after the release
(issue 43).  So a release takes effect only when no press of the same key
follows within :data:`RELEASE_GRACE_MS`; a real release comes that much
later, below what a hand feels.  Keys typed into a text field stay
there, and keys with Ctrl, Alt or Meta are left to shortcuts.  The keys fly
whatever part of the window has the focus, the 3D views included: their GL
windows send their keys on to a widget of the window
(:attr:`app.view3d.glwindow.GLWindow.key_widget`), where this filter sees them.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QPlainTextEdit, QTextEdit

__all__ = ["KeyFlyer", "KEY_TORQUE", "KEY_BINDINGS", "RELEASE_GRACE_MS"]

#: Torque of one held key, N m.
KEY_TORQUE = 5.0

#: How long a release waits for the press of a repeat, ms: longer than the 6 ms measured between an unmarked
#: repeat's release and press on Xvfb (module docstring), shorter than X's default repeat interval (40 ms).
RELEASE_GRACE_MS = 30

#: Qt key -> (body axis index, sign).
KEY_BINDINGS = {
    Qt.Key.Key_W: (1, +1), Qt.Key.Key_Up: (1, +1),
    Qt.Key.Key_S: (1, -1), Qt.Key.Key_Down: (1, -1),
    Qt.Key.Key_D: (0, +1), Qt.Key.Key_Right: (0, +1),
    Qt.Key.Key_A: (0, -1), Qt.Key.Key_Left: (0, -1),
    Qt.Key.Key_E: (2, +1),
    Qt.Key.Key_Q: (2, -1),
}

#: Widgets whose keys are text: they never fly.
_TEXT_ENTRY = (QLineEdit, QAbstractSpinBox, QTextEdit, QPlainTextEdit)

_SHORTCUT_MODIFIERS = (Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier
                       | Qt.KeyboardModifier.MetaModifier)


class KeyFlyer(QObject):
    """Watches the keyboard of one window and turns held keys into a torque.

    Installed as an application event filter (so a focused slider or button
    does not swallow the arrows); it only looks at key events for widgets of
    ``window``.

    Parameters
    ----------
    window : QWidget
        The top-level window whose keys fly the body.

    Signals
    -------
    changed(tuple)
        The keys' torque ``(tx, ty, tz)`` in N m, when it changes.
    """

    changed = Signal(tuple)

    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self._held: set = set()
        self._releasing: dict = {}  # key -> the timer of its release, while a press may still follow
        QApplication.instance().installEventFilter(self)

    def torque(self) -> tuple:
        """The torque of the keys held now, N m."""
        total = [0.0, 0.0, 0.0]
        for key in self._held:
            axis, sign = KEY_BINDINGS[key]
            total[axis] += sign * KEY_TORQUE
        return tuple(total)

    def release_all(self) -> None:
        """Forget every held key (the window lost the keyboard)."""
        self._stop_releases()
        if self._held:
            self._held.clear()
            self.changed.emit(self.torque())

    def detach(self) -> None:
        """Stop watching the keyboard."""
        QApplication.instance().removeEventFilter(self)
        self._stop_releases()
        self._held.clear()

    def _stop_releases(self) -> None:
        for timer in self._releasing.values():
            timer.stop()
            timer.deleteLater()
        self._releasing.clear()

    def _press(self, key) -> None:
        timer = self._releasing.pop(key, None)
        if timer is not None:  # the press of a repeat (or a press again at once): the key never let go
            timer.stop()
            timer.deleteLater()
            return
        self._set(key, True)

    def _release(self, key) -> None:
        if key not in self._held or key in self._releasing:
            return
        timer = QTimer(self, singleShot=True, interval=RELEASE_GRACE_MS)
        timer.timeout.connect(lambda: self._let_go(key, timer))
        self._releasing[key] = timer
        timer.start()

    def _let_go(self, key, timer) -> None:
        if self._releasing.get(key) is timer:
            del self._releasing[key]
            timer.deleteLater()
            self._set(key, False)

    def _set(self, key, held: bool) -> None:
        before = self.torque()
        if held:
            self._held.add(key)
        else:
            self._held.discard(key)
        if self.torque() != before:
            self.changed.emit(self.torque())

    def eventFilter(self, watched, event):
        """Take the flying keys pressed or released in the window; pass everything else on."""
        kind = event.type()
        if kind == QEvent.Type.ApplicationDeactivate or (kind == QEvent.Type.WindowDeactivate
                                                         and watched is self._window):
            self.release_all()
            return False
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease) or not self._flies(watched, event):
            return False
        if not event.isAutoRepeat():  # a repeat Qt recognised changes nothing; an unmarked one waits (docstring)
            if kind == QEvent.Type.KeyPress:
                self._press(event.key())
            else:
                self._release(event.key())
        return True

    def _flies(self, watched, event) -> bool:
        """True for a flying key, without shortcut modifiers, outside text entry, in our window."""
        if event.key() not in KEY_BINDINGS or event.modifiers() & _SHORTCUT_MODIFIERS:
            return False
        if isinstance(watched, _TEXT_ENTRY):
            return False
        return hasattr(watched, "window") and watched.window() is self._window
