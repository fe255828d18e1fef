"""Rate dampers: on/off and the gains per body axis."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox

from app.controls.widgets import SettingField

__all__ = ["DampersGroup"]


class DampersGroup(QGroupBox):
    """Dampers ``-k w`` per body axis (Hoffmann's dampP, dampQ, dampR).

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("dampers_on", "dampers")

    def __init__(self, submit, parent=None):
        super().__init__("Rate dampers", parent)
        self.enabled = QCheckBox("Dampers on", objectName="check_dampers")
        self.enabled.setToolTip("Damp the body rates: T = -k w on each axis")
        self.enabled.toggled.connect(lambda on: submit("dampers_on", on))
        self.gains = SettingField("dampers", "kx, ky, kz; damper gains, N m s")
        self.gains.committed.connect(lambda value: submit("dampers", value))
        layout = QFormLayout(self)
        layout.addRow(self.enabled)
        layout.addRow("Gains", self.gains)

    def show_settings(self, settings) -> None:
        """Show the model's damper settings (signals blocked)."""
        with QSignalBlocker(self.enabled):
            self.enabled.setChecked(settings.dampers_on)
        self.gains.show_value(settings.dampers)
