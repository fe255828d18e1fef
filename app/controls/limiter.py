"""Torque limiter: on/off and the limit per body axis."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox

from app.controls.widgets import SettingField

__all__ = ["LimiterGroup"]


class LimiterGroup(QGroupBox):
    """Clip the total torque per body axis to +-limit.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("limiter_on", "limits")

    def __init__(self, submit, parent=None):
        super().__init__("Torque limiter", parent)
        self.enabled = QCheckBox("Limiter on", objectName="check_limiter")
        self.enabled.setToolTip("Clip the total torque on each axis")
        self.enabled.toggled.connect(lambda on: submit("limiter_on", on))
        self.limits = SettingField("limits", "Lx, Ly, Lz; torque limits > 0, N m")
        self.limits.committed.connect(lambda value: submit("limits", value))
        layout = QFormLayout(self)
        layout.addRow(self.enabled)
        layout.addRow("Limits", self.limits)

    def show_settings(self, settings) -> None:
        """Show the model's limiter settings (signals blocked)."""
        with QSignalBlocker(self.enabled):
            self.enabled.setChecked(settings.limiter_on)
        self.limits.show_value(settings.limits)
