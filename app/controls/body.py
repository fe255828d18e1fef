"""The body and its reset state: inertia, reset angles and rates."""

from __future__ import annotations

from PySide6.QtWidgets import QFormLayout, QGroupBox

from app.controls.widgets import SettingField

__all__ = ["BodyGroup"]


class BodyGroup(QGroupBox):
    """Inertia (sent when committed) and the state Reset goes back to (sent on reset).

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("inertia", "angles_deg", "rates")

    def __init__(self, submit, parent=None):
        super().__init__("Body and reset state", parent)
        self.inertia = SettingField("inertia", "Jxx, Jyy, Jzz, Jxy, Jxz, Jyz; kg m², principal moments 1e-8 to 1e12")
        self.inertia.committed.connect(lambda value: submit("inertia", value))
        self.angles = SettingField("angles_deg", "ψ, θ, φ; reset attitude, degrees")
        self.rates = SettingField("rates", "wx, wy, wz; reset body rates, rad/s")
        layout = QFormLayout(self)
        layout.addRow("Inertia", self.inertia)
        layout.addRow("Reset angles", self.angles)
        layout.addRow("Reset rates", self.rates)

    def reset_state(self) -> tuple:
        """The last valid reset angles (degrees) and rates (rad/s)."""
        return self.angles.value, self.rates.value

    def show_settings(self, settings) -> None:
        """Show the model's inertia and reset state."""
        self.inertia.show_value(settings.inertia)
        self.angles.show_value(settings.angles_deg)
        self.rates.show_value(settings.rates)
