"""The gamepad in the window: polled from a timer of the GUI thread, its torque added to the keys', its name in
the status bar, and Simulation > Gamepad… to remap it.

:class:`GamepadControl` reads :class:`app.controls.gamepad.Gamepad` at
:data:`POLL_MS` (plugging and unplugging handled live) and maps the axes
with :class:`app.controls.stick.StickMapping`:

* ``torque`` mode: full deflection is the torque slider's full range on
  that axis (:meth:`app.controls.torque.TorqueGroup.set_key_torque`, as the
  keys do; the keys' torque and the gamepad's add up);
* ``command`` mode: the sticks set the command angles (psi, theta, phi)
  for the attitude controller, through the window's inputs.

An input is sent only when it changes: a gamepad at rest sends nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
                               QHBoxLayout, QLabel, QWidget)

from app.controls.gamepad import Gamepad
from app.controls.stick import MODES, SOURCES, StickMapping
from app.controls.torque import TORQUE_LIMIT

__all__ = ["GamepadControl", "GamepadDialog", "POLL_MS"]

#: Milliseconds between two readings of the gamepad (60 Hz).
POLL_MS = 16
_AXES = ("roll (x)", "pitch (y)", "yaw (z)")


class GamepadControl(QObject):
    """The gamepad flying the window's body.

    Parameters
    ----------
    parent : QObject
        The window (owns the timer).
    torque : callable
        ``torque(t)``: the extra torque (aircraft N m, as the keys') to add to the sliders'.
    submit : callable
        ``submit(key, value)``: the window's inputs (``command_deg`` in command mode).
    show_device : callable
        ``show_device(name or None)``: the status bar.
    gamepad : Gamepad, optional
        The device reader, read from now on; by default a new one is made by :meth:`open`, which the window
        calls once it shows its first frame: importing PySDL2 looks for the SDL2 library with
        ``ctypes.util.find_library``, which starts ``ldconfig`` and ``gcc``: 0.6-0.8 s of wall on the loaded
        machine for 0.1 s of CPU (docs/PERFORMANCE.md, "The window's frame rates (issue 42, this stop)").

    Attributes
    ----------
    gamepad : Gamepad or None
        The device reader, None until :meth:`open`.
    """

    def __init__(self, parent, torque, submit, show_device, gamepad: Gamepad | None = None):
        super().__init__(parent)
        self._torque, self._submit, self._show_device = torque, submit, show_device
        self.gamepad: Gamepad | None = None
        self._closed = False
        self.mapping = StickMapping()
        self.axes: dict | None = None
        self._keys = (0.0, 0.0, 0.0)
        self._pad = (0.0, 0.0, 0.0)
        self._command = None
        self.timer = QTimer(self, interval=POLL_MS)
        self.timer.timeout.connect(self.poll)
        if gamepad is not None:
            self.open(gamepad)

    def open(self, gamepad: Gamepad | None = None) -> None:
        """Start reading ``gamepad`` (default: a new :class:`~app.controls.gamepad.Gamepad`); nothing when one
        is read already or the control was closed."""
        if self.gamepad is not None or self._closed:
            return
        self.gamepad = gamepad if gamepad is not None else Gamepad()
        if self.gamepad.available:
            self._show_device(self.gamepad.name)
            self.timer.start()

    def set_key_torque(self, torque) -> None:
        """The flying keys' torque (aircraft N m); sent with the gamepad's."""
        self._keys = tuple(torque)
        self._send_torque()

    def set_mapping(self, mapping: StickMapping) -> None:
        """Fly with ``mapping`` from now on (the torque of the old mode is taken back)."""
        self.mapping = mapping
        self._pad, self._command = (0.0, 0.0, 0.0), None
        self._send_torque()
        self.poll()

    def poll(self) -> None:
        """Read the gamepad now: plug and unplug, then its torque or command if they changed (nothing before
        :meth:`open`)."""
        if self.gamepad is None:
            return
        axes, changed = self.gamepad.poll()
        self.axes = axes
        if changed:
            self._show_device(self.gamepad.name)
        if axes is None:
            pad = (0.0, 0.0, 0.0)
        elif self.mapping.mode == "torque":
            pad = self.mapping.torque(axes, TORQUE_LIMIT)
        else:
            pad = (0.0, 0.0, 0.0)
            command = tuple(round(a, 1) + 0.0 for a in self.mapping.command(axes))
            if command != self._command:
                self._command = command
                self._submit("command_deg", command)
        if pad != self._pad:
            self._pad = pad
            self._send_torque()

    def _send_torque(self) -> None:
        self._torque(tuple(k + p for k, p in zip(self._keys, self._pad)))

    def ask(self) -> None:
        """Simulation > Gamepad…: the mapping dialog; OK flies with the new mapping."""
        self.open()  # asked before the first frame: read it now
        pad = self.gamepad
        dialog = GamepadDialog(self.mapping, (pad.name or pad.why if pad is not None else "") or "no gamepad plugged in",
                               self.parent())
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.set_mapping(dialog.mapping())

    def close(self) -> None:
        """Stop reading and close the device (none is opened afterwards)."""
        self.timer.stop()
        self._closed = True
        if self.gamepad is not None:
            self.gamepad.close()


class GamepadDialog(QDialog):
    """Which stick flies which body axis, inverted or not; the dead zone, the curve, torque or command mode."""

    def __init__(self, mapping: StickMapping, device: str, parent=None):
        super().__init__(parent, objectName="dialog_gamepad", windowTitle="Gamepad")
        form = QFormLayout(self)
        form.addRow("Device", QLabel(device, objectName="label_gamepad_device"))
        self.mode = QComboBox(objectName="combo_gamepad_mode")
        self.mode.addItems(MODES)
        self.mode.setCurrentText(mapping.mode)
        self.mode.setToolTip("torque: full deflection is the torque slider's range; command: the sticks set the "
                             "command angles (switch on the quaternion controller in the Control tab)")
        form.addRow("Flies", self.mode)
        self.sources, self.inverted = [], []
        for i, axis in enumerate(_AXES):
            row = QWidget()
            line = QHBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            source = QComboBox(objectName=f"combo_gamepad_{'xyz'[i]}")
            source.addItems(SOURCES)
            source.setCurrentText(mapping.sources[i])
            invert = QCheckBox("invert", objectName=f"check_gamepad_invert_{'xyz'[i]}")
            invert.setChecked(mapping.signs[i] < 0)
            line.addWidget(source, 1)
            line.addWidget(invert)
            form.addRow(axis, row)
            self.sources.append(source)
            self.inverted.append(invert)
        self.zone = QDoubleSpinBox(objectName="spin_gamepad_zone", minimum=0.0, maximum=0.9, singleStep=0.05,
                                   decimals=2, value=mapping.zone)
        self.zone.setToolTip("Share of the travel around the centre that gives nothing")
        form.addRow("Dead zone", self.zone)
        self.curve = QDoubleSpinBox(objectName="spin_gamepad_curve", minimum=0.0, maximum=1.0, singleStep=0.1,
                                    decimals=2, value=mapping.curve)
        self.curve.setToolTip("Expo: (1 - e) x + e x³; 0 is linear, 1 the finest near the centre")
        form.addRow("Curve (expo)", self.curve)
        self.command_deg = QDoubleSpinBox(objectName="spin_gamepad_command", minimum=1.0, maximum=180.0,
                                          decimals=0, suffix=" °", value=mapping.command_deg)
        form.addRow("Command at full deflection", self.command_deg)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def mapping(self) -> StickMapping:
        """The mapping as set in the dialog."""
        return StickMapping(sources=tuple(c.currentText() for c in self.sources),
                            signs=tuple(-1.0 if box.isChecked() else 1.0 for box in self.inverted),
                            zone=self.zone.value(), curve=self.curve.value(), mode=self.mode.currentText(),
                            command_deg=self.command_deg.value())
