"""Attitude controller: kind, axes, gains, shortest path and the SLERP time."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout

from app.controls.widgets import SettingField
from sim import CONTROLLERS

__all__ = ["ControllerGroup"]


class ControllerGroup(QGroupBox):
    """The attitude controller that flies the body to the command.

    ``euler`` is Hoffmann's sine/cosine aircraft-angle controller (it fails
    near theta = +-90 deg); ``quaternion`` his quaternion controller.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("controller", "axes", "gains", "shortest_path", "slerp_time")

    def __init__(self, submit, parent=None):
        super().__init__("Attitude controller", parent)
        self._submit = submit
        self.kind = QComboBox(objectName="combo_controller")
        self.kind.addItems(CONTROLLERS)
        self.kind.setToolTip("none, Hoffmann's Euler-angle controller, or his quaternion controller")
        self.kind.currentTextChanged.connect(lambda text: submit("controller", text))
        self.axes = [QCheckBox(label, objectName=f"check_axis_{axis}")
                     for axis, label in zip("xyz", ("roll x", "pitch y", "yaw z"))]
        axes_row = QHBoxLayout()
        for box in self.axes:
            box.setToolTip("Control this body axis")
            box.toggled.connect(self._send_axes)
            axes_row.addWidget(box)
        self.gains = SettingField("gains", "kx, ky, kz; controller gains, N m/rad")
        self.gains.committed.connect(lambda value: submit("gains", value))
        self.shortest_path = QCheckBox("Shortest path", objectName="check_shortest_path")
        self.shortest_path.setToolTip("Turn the short way (flip the error quaternion when its scalar is < 0)")
        self.shortest_path.toggled.connect(lambda on: submit("shortest_path", on))
        self.slerp_time = SettingField("slerp_time", "seconds; SLERP time to a new command (0 = at once)")
        self.slerp_time.committed.connect(lambda value: submit("slerp_time", value))
        layout = QFormLayout(self)
        layout.addRow("Kind", self.kind)
        layout.addRow("Axes", axes_row)
        layout.addRow("Gains", self.gains)
        layout.addRow(self.shortest_path)
        layout.addRow("SLERP time", self.slerp_time)

    def show_settings(self, settings) -> None:
        """Show the model's controller settings (signals blocked)."""
        with QSignalBlocker(self.kind):
            self.kind.setCurrentText(settings.controller)
        for box, on in zip(self.axes, settings.axes):
            with QSignalBlocker(box):
                box.setChecked(on)
        with QSignalBlocker(self.shortest_path):
            self.shortest_path.setChecked(settings.shortest_path)
        self.gains.show_value(settings.gains)
        self.slerp_time.show_value(settings.slerp_time)

    def _send_axes(self, _checked=None) -> None:
        self._submit("axes", tuple(box.isChecked() for box in self.axes))
