"""Thrusters (issue 45): the modulator and its parameters, the thrusters' force, Isp and minimum impulse bit,
the unloading gain; the set itself (none, the cube, positions) comes from the scenario or ``--thrusters``."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel

from app.controls.widgets import SettingField
from sim import LIMITS, MODULATIONS, validate

__all__ = ["ThrustersGroup"]


class ThrustersGroup(QGroupBox):
    """The thrusters' settings while the run has them (disabled without).

    Each field is checked with the run's other settings (``current``): a value the settings refuse
    together (``thruster_off`` not below ``thruster_on``, a force list of another length) is marked
    in the field and never sent; the simulation keeps the last good one.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    current : callable
        ``current()`` returns the settings in force.
    parent : QWidget, optional
    """

    KEYS = ("thrusters", "wheels", "thruster_modulation", "thruster_force", "thruster_isp", "thruster_impulse_bit",
            "thruster_period", "thruster_on", "thruster_off", "pwpf_km", "pwpf_tau", "thruster_deadband_deg",
            "thruster_unloading")

    def __init__(self, submit, current, parent=None):
        super().__init__("Thrusters", parent)
        self._submit, self._current = submit, current
        self.modulation = QComboBox(objectName="combo_thruster_modulation",
                                    toolTip="schmitt or pwpf per axis at each control period, or deadband: a "
                                            "pulse of one period when an axis leaves the dead band moving out")
        self.modulation.addItems(list(MODULATIONS))
        self.modulation.activated.connect(lambda i: submit("thruster_modulation", self.modulation.itemText(i)))
        self.force = self._field("thruster_force", "N; thrust (one value, or one per thruster)")
        self.isp = self._field("thruster_isp", "s; specific impulse (fuel = impulse / (Isp g0))")
        self.impulse_bit = self._field("thruster_impulse_bit", "N s; minimum impulse bit: a firing of one "
                                       "period below it is not made")
        self.period = self._field("thruster_period", "s; the control period (a whole number of steps)")
        self.on = self._field("thruster_on", "the trigger's U_on, command normalised to 1 (rule of thumb > 0.3)")
        self.off = self._field("thruster_off", "the trigger's U_off, below U_on (rule of thumb < 0.8 U_on)")
        self.km = self._field("pwpf_km", "PWPF's gain K_m (rule of thumb 2 to 7)")
        self.tau = self._field("pwpf_tau", "s; PWPF's time constant tau_m (rule of thumb 0.1 to 1 s)")
        self.deadband = self._field("thruster_deadband_deg", "deg; the dead band of the deadband modulator")
        self.unloading = self._field("thruster_unloading", "1/s; with wheels the thrusters unload them, "
                                     "T = -k h_w")
        self.note = QLabel(objectName="note", wordWrap=True)
        layout = QFormLayout(self)
        layout.addRow("Modulation", self.modulation)
        for label, field in (("Force", self.force), ("Isp", self.isp), ("Impulse bit", self.impulse_bit),
                             ("Period", self.period), ("U on", self.on), ("U off", self.off), ("PWPF K_m", self.km),
                             ("PWPF tau_m", self.tau), ("Dead band", self.deadband), ("Unloading", self.unloading)):
            layout.addRow(label, field)
        layout.addRow(self.note)

    def _check(self, key: str, text):
        """``text`` as setting ``key``, refused when the run's settings refuse it together (SettingsError)."""
        value = validate(key, text)
        settings = self._current()
        if settings is not None:
            settings.replace(**{key: value})
        return value

    def _field(self, key: str, what: str) -> SettingField:
        field = SettingField(key, f"{what}, {LIMITS[key].describe()}", check=self._check)
        field.committed.connect(lambda value: self._submit(key, value))
        return field

    def fields(self) -> list:
        """The group's :class:`~app.controls.widgets.SettingField` s."""
        return [self.force, self.isp, self.impulse_bit, self.period, self.on, self.off, self.km, self.tau,
                self.deadband, self.unloading]

    def show_settings(self, settings) -> None:
        """Show the model's thrusters (signals blocked); the group is enabled while the run has thrusters."""
        count = settings.thruster_count
        with QSignalBlocker(self.modulation):
            self.modulation.setCurrentText(settings.thruster_modulation)
        for field in self.fields():
            field.show_value(getattr(settings, field.key))
        self.setEnabled(count > 0)
        self.note.setText("No thrusters (a scenario's thrusters, or --thrusters cube)." if not count else
                          f"{count} thrusters: " + ("they unload the wheels." if settings.wheel_count else
                                                    "they realise the torque command."))
