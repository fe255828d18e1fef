"""Command torque: a slider per body axis, zero buttons, spring-back, plus the keys."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QGroupBox, QVBoxLayout

from app.controls.widgets import ValueSlider

__all__ = ["TorqueGroup", "TORQUE_LIMIT"]

#: Slider range, N m (either way).
TORQUE_LIMIT = 10.0


class TorqueGroup(QGroupBox):
    """Sliders Tx, Ty, Tz for the command torque in body axes (N m).

    The torque sent is the sliders' value plus the torque of the flying keys
    held at the moment (:meth:`set_key_torque`); releasing the keys goes
    back to the sliders' torque.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("torque",)

    def __init__(self, submit, parent=None):
        super().__init__("Torque (body axes)", parent)
        self._submit = submit
        self._keys = (0.0, 0.0, 0.0)
        layout = QVBoxLayout(self)
        self.sliders = []
        for axis, what in zip("xyz", ("roll", "pitch", "yaw")):
            slider = ValueSlider(f"t{axis}", f"T{axis}", -TORQUE_LIMIT, TORQUE_LIMIT, 0.1, "N m", zero_button=True)
            slider.setToolTip(f"Torque about the body {axis} axis ({what}), N m")
            slider.moved.connect(self._send)
            slider.released.connect(lambda slider=slider: self._spring_back(slider))
            layout.addWidget(slider)
            self.sliders.append(slider)
        self.spring_back = QCheckBox("Spring back to zero on release", objectName="check_spring_back")
        layout.addWidget(self.spring_back)

    def slider_torque(self) -> tuple:
        """The sliders' torque (N m), without the keys."""
        return tuple(slider.value for slider in self.sliders)

    def set_key_torque(self, torque) -> None:
        """Add the flying keys' torque (N m) to the sliders' and send the sum."""
        self._keys = tuple(torque)
        self._send()

    def show_settings(self, settings) -> None:
        """Show the model's torque less the keys' share (signals blocked)."""
        for slider, total, key in zip(self.sliders, settings.torque, self._keys):
            slider.show_value(total - key)

    def _send(self, _value=None) -> None:
        self._submit("torque", tuple(s + k for s, k in zip(self.slider_torque(), self._keys)))

    def _spring_back(self, slider) -> None:
        if self.spring_back.isChecked():
            slider.set_value(0.0)
