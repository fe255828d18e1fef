"""Command attitude: aircraft angles psi, theta, phi for the attitude controller."""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout

from app.controls.widgets import ValueSlider

__all__ = ["CommandGroup", "NOTES"]

#: The group's note: whether the command angles fly, and why not.
NOTES = {
    "followed": "The controller flies the body there; the blue ghost shows the command.",
    "no controller": "Needs a controller (Control tab); the blue ghost shows the command.",
    "pointing": "The {mode} pointing makes the command now (Pointing, below); inertial gives it back to "
                "these angles.",
}


class CommandGroup(QGroupBox):
    """Sliders for the command angles (degrees), sent as ``command_deg``.

    A new command starts a SLERP from the current command; an attitude
    controller (Control tab) then flies the body there.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("command_deg", "controller", "pointing")  # the settings it shows: the angles, and whether they fly

    def __init__(self, submit, parent=None):
        super().__init__("Command attitude", parent)
        self._submit = submit
        layout = QVBoxLayout(self)
        self.sliders = [
            ValueSlider("psi", "ψ", -180.0, 180.0, 1.0, "°"),
            ValueSlider("theta", "θ", -90.0, 90.0, 1.0, "°"),
            ValueSlider("phi", "φ", -180.0, 180.0, 1.0, "°"),
        ]
        for slider, what in zip(self.sliders, ("yaw ψ", "pitch θ", "roll φ")):
            slider.setToolTip(f"Command {what}, degrees")
            slider.moved.connect(self._send)
            layout.addWidget(slider)
        self.note = QLabel(NOTES["no controller"], wordWrap=True, objectName="note")
        layout.addWidget(self.note)

    def show_settings(self, settings) -> None:
        """Show the model's command angles (zero when there is no command) and whether they fly: the sliders
        disabled while a moving pointing mode makes the command (``Settings.command_followed``), the note saying
        what flies."""
        angles = settings.command_deg or (0.0, 0.0, 0.0)
        moving = settings.pointing != "inertial"
        for slider, angle in zip(self.sliders, angles):
            slider.show_value(angle)
            slider.setEnabled(not moving)
        if settings.command_followed:
            self.note.setText(NOTES["followed"])
        elif moving:
            self.note.setText(NOTES["pointing"].format(mode=settings.pointing))
        else:
            self.note.setText(NOTES["no controller"])

    def _send(self, _value=None) -> None:
        self._submit("command_deg", tuple(slider.value for slider in self.sliders))
