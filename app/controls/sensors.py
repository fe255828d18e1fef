"""Sensors and estimation (issue 33): the sensors' noise, the filter's tuning, flying on the estimate."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox, QLabel

from app.controls.widgets import SettingField

__all__ = ["SensorsGroup"]


class SensorsGroup(QGroupBox):
    """The noise of the sensors on board, the MEKF's assumed gyro noise, and what the controller reads.

    Live while the run has an estimator (the scenario's ``estimator``; ``--estimator`` at the command
    line): a change starts the sensors and the estimator again from the present state
    (:mod:`sim.model.navigation`).  A field of a sensor the run does not carry is disabled.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("estimator", "gyro", "star_tracker", "magnetometer", "filter_gyro", "fly_on")

    def __init__(self, submit, parent=None):
        super().__init__("Sensors and estimation", parent)
        self.estimator = QLabel(objectName="label_estimator", wordWrap=True)
        self.gyro = SettingField("gyro", "ARW rad/sqrt(s), RRW rad/s^(3/2), BIAS0 rad/s; the rate gyro's noise")
        self.star_tracker = SettingField("star_tracker", "NOISE arcsec, RATE Hz; the star tracker's noise across "
                                                         "the boresight (8x about it) and its samples a second")
        self.magnetometer = SettingField("magnetometer", "NOISE T; the magnetometer's noise per axis")
        self.filter_gyro = SettingField("filter_gyro", "ARW, RRW; the gyro noises the MEKF assumes (its tuning)")
        self.fly_on = QCheckBox("Fly on the estimate", objectName="check_fly_on")
        self.fly_on.setToolTip("The controller and the pointing modes read the estimate instead of the truth")
        self.fly_on.toggled.connect(lambda on: submit("fly_on", "estimate" if on else "truth"))
        for field in self.fields():
            field.committed.connect(lambda value, key=field.key: submit(key, value))
        layout = QFormLayout(self)
        layout.addRow("Estimator", self.estimator)
        layout.addRow("Gyro", self.gyro)
        layout.addRow("Star tracker", self.star_tracker)
        layout.addRow("Magnetometer", self.magnetometer)
        layout.addRow("Filter gyro", self.filter_gyro)
        layout.addRow(self.fly_on)

    def fields(self) -> list:
        """The group's :class:`~app.controls.widgets.SettingField` s."""
        return [self.gyro, self.star_tracker, self.magnetometer, self.filter_gyro]

    def show_settings(self, settings) -> None:
        """Show the model's sensors and estimator (signals blocked)."""
        on = settings.estimator != "truth"
        self.estimator.setText(settings.estimator if on else "truth (none: --estimator or a scenario's)")
        for field in self.fields():
            value = getattr(settings, field.key)
            if field.key == "filter_gyro" and value is None and settings.gyro is not None:
                value = settings.gyro[:2]
            field.setEnabled(on and value is not None and (field.key != "filter_gyro" or settings.estimator == "mekf"))
            if value is not None:
                field.show_value(value)
        with QSignalBlocker(self.fly_on):
            self.fly_on.setChecked(settings.fly_on == "estimate")
        self.fly_on.setEnabled(on and settings.gyro is not None)
