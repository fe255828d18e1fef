"""Reaction wheels and the environment: the wheels' layout, inertia and limits; gravity gradient, disturbance."""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QLabel

from app.controls.widgets import SettingField
from sim import DISTURBANCE_AXES, orbit_rate, LIMITS, LAYOUTS, PYRAMID_TILT_DEG

__all__ = ["WheelsGroup", "EnvironmentGroup", "CUSTOM"]

#: The layout chooser's entry for axes typed in.
CUSTOM = "axes…"


class WheelsGroup(QGroupBox):
    """Reaction wheels: layout (none, orthogonal, pyramid, axes typed in), axial inertia, limits, friction.

    With wheels, the body-torque command (the sliders and both controllers)
    is realised by the wheels' motors, ``u = -A+ T``, within each wheel's
    torque and speed limits.  Another number of wheels starts the run again
    at t = 0 (the state has a speed per wheel).

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("wheels", "wheel_inertia", "wheel_torque_limit", "wheel_speed_limit", "wheel_friction",
            "wheel_speeds", "wheel_torques")

    def __init__(self, submit, parent=None):
        super().__init__("Reaction wheels", parent)
        self._submit = submit
        self.layout_choice = QComboBox(objectName="combo_wheels",
                                       toolTip=f"none; orthogonal: three along x, y, z; pyramid: four tilted "
                                               f"{PYRAMID_TILT_DEG:.1f} deg from z; or axes typed in below")
        self.layout_choice.addItems([*LAYOUTS, CUSTOM])
        self.layout_choice.activated.connect(self._choose)
        self.axes = SettingField("wheels", "x1, y1, z1; x2, y2, z2; ...: spin axes in body axes (made unit); "
                                 "a new number of wheels restarts the run")
        self.axes.committed.connect(lambda value: submit("wheels", value))
        self.axes.setEnabled(False)
        self.inertia = self._field("wheel_inertia", "kg m²", "axial inertia of each wheel (one value, or one "
                                   "per wheel); the body's inertia is the whole craft's, wheels included")
        self.torque_limit = self._field("wheel_torque_limit", "N m", "motor-torque limit")
        self.speed_limit = self._field("wheel_speed_limit", "rad/s", "speed limit, relative to the body")
        self.friction = self._field("wheel_friction", "N m s", "viscous friction between wheel and body")
        self.speeds = SettingField("wheel_speeds", "W1, W2, ...; reset speeds relative to the body, rad/s "
                                   "(empty: at rest); they take effect at Reset")
        self.speeds.committed.connect(lambda value: submit("wheel_speeds", value))
        self.motor = SettingField("wheel_torques", "u1, u2, ...; direct motor torques, N m, added to the "
                                  "wheels' share of the torque command (empty: none)")
        self.motor.committed.connect(lambda value: submit("wheel_torques", value))
        self.note = QLabel(objectName="note", wordWrap=True)
        layout = QFormLayout(self)
        layout.addRow("Layout", self.layout_choice)
        layout.addRow("Axes", self.axes)
        layout.addRow("Inertia", self.inertia)
        layout.addRow("Torque limit", self.torque_limit)
        layout.addRow("Speed limit", self.speed_limit)
        layout.addRow("Friction", self.friction)
        layout.addRow("Reset speeds", self.speeds)
        layout.addRow("Motor torques", self.motor)
        layout.addRow(self.note)

    def _field(self, key: str, unit: str, what: str) -> SettingField:
        field = SettingField(key, f"{unit}; {what}, {LIMITS[key].describe()}")
        field.committed.connect(lambda value: self._submit(key, value))
        return field

    def _choose(self, index: int) -> None:
        text = self.layout_choice.itemText(index)
        self.axes.setEnabled(text == CUSTOM)
        if text != CUSTOM:
            self._submit("wheels", text)
        else:
            self.axes.setFocus()

    def fields(self) -> list:
        """The group's :class:`~app.controls.widgets.SettingField` s."""
        return [self.axes, self.inertia, self.torque_limit, self.speed_limit, self.friction, self.speeds, self.motor]

    def show_settings(self, settings) -> None:
        """Show the model's wheels (signals blocked)."""
        wheels = settings.wheels
        custom = not isinstance(wheels, str)
        with QSignalBlocker(self.layout_choice):
            self.layout_choice.setCurrentText(CUSTOM if custom else wheels)
        if custom:
            self.axes.show_value(wheels)
        self.axes.setEnabled(custom or self.layout_choice.currentText() == CUSTOM)
        for field, key in ((self.inertia, "wheel_inertia"), (self.torque_limit, "wheel_torque_limit"),
                           (self.speed_limit, "wheel_speed_limit"), (self.friction, "wheel_friction"),
                           (self.speeds, "wheel_speeds"), (self.motor, "wheel_torques")):
            field.show_value(getattr(settings, key))
            field.setEnabled(settings.wheel_count > 0)
        ws = settings.wheel_set
        self.note.setText("No wheels: the torque command acts on the body directly." if ws is None else
                          f"{ws.n} wheels realise the torque command; each stores up to "
                          f"{max(ws.momentum_capacity):.3g} N m s relative to the body.")


class EnvironmentGroup(QGroupBox):
    """The environment's torques: gravity gradient of a circular orbit, a disturbance torque.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("gravity_gradient", "altitude_km", "disturbance", "disturbance_axes", "disturbance_period")

    def __init__(self, submit, parent=None):
        super().__init__("Environment", parent)
        self.gravity_gradient = QCheckBox("Gravity gradient", objectName="check_gravity_gradient",
                                          toolTip="3 n² c × (J c), c the nadir in body axes, on a circular orbit; "
                                                  "the orbit frame is the inertial frame at t = 0")
        self.gravity_gradient.toggled.connect(lambda on: submit("gravity_gradient", on))
        self.altitude = SettingField("altitude_km", f"km; altitude of the circular orbit, "
                                     f"{LIMITS['altitude_km'].describe()}")
        self.altitude.committed.connect(lambda value: submit("altitude_km", value))
        self.orbit = QLabel(objectName="note")
        self.disturbance = SettingField("disturbance", "Dx, Dy, Dz; disturbance torque, N m")
        self.disturbance.committed.connect(lambda value: submit("disturbance", value))
        self.axes = QComboBox(objectName="combo_disturbance_axes", toolTip="the axes the disturbance is given in")
        self.axes.addItems(DISTURBANCE_AXES)
        self.axes.currentTextChanged.connect(lambda text: submit("disturbance_axes", text))
        self.period = SettingField("disturbance_period", "s; 0: constant; else D sin(2 pi t / period)")
        self.period.committed.connect(lambda value: submit("disturbance_period", value))
        layout = QFormLayout(self)
        layout.addRow(self.gravity_gradient)
        layout.addRow("Altitude", self.altitude)
        layout.addRow(self.orbit)
        layout.addRow("Disturbance", self.disturbance)
        layout.addRow("in axes", self.axes)
        layout.addRow("Period", self.period)

    def fields(self) -> list:
        """The group's :class:`~app.controls.widgets.SettingField` s."""
        return [self.altitude, self.disturbance, self.period]

    def show_settings(self, settings) -> None:
        """Show the model's environment (signals blocked)."""
        with QSignalBlocker(self.gravity_gradient):
            self.gravity_gradient.setChecked(settings.gravity_gradient)
        with QSignalBlocker(self.axes):
            self.axes.setCurrentText(settings.disturbance_axes)
        self.altitude.show_value(settings.altitude_km)
        self.disturbance.show_value(settings.disturbance)
        self.period.show_value(settings.disturbance_period)
        n = orbit_rate(settings.altitude_km)
        self.orbit.setText(f"orbit rate n = {n:.4g} rad/s, period {2 * math.pi / n / 60:.1f} min")
