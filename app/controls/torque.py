"""Command torque: a slider per body axis, zero buttons, spring-back, plus the keys."""

from __future__ import annotations

import math

from PySide6.QtWidgets import QCheckBox, QGroupBox, QVBoxLayout

from app.controls.widgets import ValueSlider, text_decimals
from sim import HOFFMANN_INERTIA, SettingsError, axis_ratios

__all__ = ["TorqueGroup", "TORQUE_LIMIT", "torque_limits", "torque_unit"]

#: Slider range for Hoffmann's aircraft, N m (either way).
TORQUE_LIMIT = 10.0
#: Slider positions either side of zero.
STEPS = 100


def torque_limits(inertia) -> tuple:
    """Slider range (N m, either way) about each body axis for a body of ``inertia``.

    :data:`TORQUE_LIMIT` for Hoffmann's aircraft, scaled by the body's
    moment about that axis over the aircraft's and rounded up to 1, 2 or 5
    times a power of ten: a full slider gives every body about the same
    angular acceleration (a T-handle's is about 5 mN m, a small
    satellite's 200-500 N m).
    """
    limits = []
    for ratio in axis_ratios(HOFFMANN_INERTIA, inertia):
        x = TORQUE_LIMIT * ratio
        decade = 10.0 ** math.floor(math.log10(x))
        limits.append(next(float(f"{m * decade:.12g}") for m in (1, 2, 5, 10) if m * decade >= x * (1 - 1e-9)))
    return tuple(limits)


def torque_unit(limit: float) -> tuple:
    """``(factor, name)`` of the unit torques up to ``limit`` (N m) read best in: N m, mN m or µN m."""
    if limit >= 1.0:
        return 1.0, "N m"
    if limit >= 1e-3:
        return 1e3, "mN m"
    return 1e6, "µN m"


class TorqueGroup(QGroupBox):
    """Sliders Tx, Ty, Tz for the command torque in body axes (N m).

    The torque sent is the sliders' value plus the torque of the flying keys
    held at the moment (:meth:`set_key_torque`); releasing the keys goes
    back to the sliders' torque.  The sliders' ranges follow the body's
    moments of inertia (:func:`torque_limits`), and a key gives half of its
    axis's range (5 N m for the aircraft).

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("torque", "body", "mass", "mesh_units", "inertia")

    def __init__(self, submit, parent=None):
        super().__init__("Torque (body axes)", parent)
        self._submit = submit
        self._keys = (0.0, 0.0, 0.0)
        self._limits = (TORQUE_LIMIT,) * 3
        layout = QVBoxLayout(self)
        self.sliders = []
        for axis, what in zip("xyz", ("roll", "pitch", "yaw")):
            slider = ValueSlider(f"t{axis}", f"T{axis}", -TORQUE_LIMIT, TORQUE_LIMIT, TORQUE_LIMIT / STEPS, "N m",
                                 zero_button=True)
            slider.setToolTip(f"Torque about the body {axis} axis ({what}), N m")
            slider.moved.connect(self._send)
            slider.released.connect(lambda slider=slider: self._spring_back(slider))
            layout.addWidget(slider)
            self.sliders.append(slider)
        self.spring_back = QCheckBox("Spring back to zero on release", objectName="check_spring_back")
        layout.addWidget(self.spring_back)

    @property
    def limits(self) -> tuple:
        """The sliders' ranges (N m, either way) about x, y, z."""
        return self._limits

    def slider_torque(self) -> tuple:
        """The sliders' torque (N m), without the keys."""
        return tuple(slider.value for slider in self.sliders)

    def set_key_torque(self, torque) -> None:
        """Add the flying keys' torque to the sliders' and send the sum.

        ``torque`` is the keys' torque for the aircraft (N m,
        :data:`app.window.keys.KEY_TORQUE` per key); it is scaled like the sliders.
        """
        self._keys = tuple(t * limit / TORQUE_LIMIT for t, limit in zip(torque, self._limits))
        self._send()

    def show_settings(self, settings) -> None:
        """Show the model's torque less the keys' share, on ranges sized for the body (signals blocked)."""
        try:
            limits = torque_limits(settings.mass_properties.inertia)
        except SettingsError:  # a body and inertia still in flight: keep the ranges
            limits = self._limits
        if limits != self._limits:  # one unit and one number of decimals for the three axes (issue 43)
            factor, unit = torque_unit(max(limits))
            decimals = max(text_decimals(limit / STEPS, factor) for limit in limits)
            for slider, limit in zip(self.sliders, limits):
                slider.set_range(-limit, limit, limit / STEPS, unit, factor, decimals)
        self._limits = limits
        for slider, total, key in zip(self.sliders, settings.torque, self._keys):
            slider.show_value(total - key)

    def _send(self, _value=None) -> None:
        self._submit("torque", tuple(s + k for s, k in zip(self.slider_torque(), self._keys)))

    def _spring_back(self, slider) -> None:
        if self.spring_back.isChecked():
            slider.set_value(0.0)
