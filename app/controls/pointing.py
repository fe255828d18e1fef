"""Pointing (guidance): the mode, the body axis that points, the ground target."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox

from app.controls.widgets import SettingField
from sim import POINTING_MODES

__all__ = ["PointingGroup"]


class PointingGroup(QGroupBox):
    """Where the controller points the body while the run has an orbit (:mod:`sim.gnc.pointing`).

    ``inertial`` holds the commanded angles; ``nadir``, ``sun``, ``target``
    and ``velocity`` turn the pointing axis to the Earth's centre, the Sun,
    the ground target or along the velocity, with a second axis constrained
    (the two-vector construction).  Without an orbit only ``inertial`` exists,
    so the group is disabled.

    A moving mode is followed by the attitude controller only
    (:class:`~sim.model.settings.Settings` refuses one without): choosing it
    while the controller is ``none`` sends the quaternion controller with it,
    in the same entry, and says so (:attr:`noticed`).

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    submit_all : callable
        ``submit_all(((key, value), ...))`` sends inputs that take effect at the same step.
    current : callable
        ``current()``: the settings as the user last set them, or None.
    parent : QWidget, optional

    Signals
    -------
    noticed(str)
        The controller was switched on for the mode chosen: what was done.
    """

    KEYS = ("pointing", "pointing_axis", "target", "orbit", "tle")
    #: The controller a moving mode switches on when none flies (the one the ensemble flies too).
    FOLLOWER = "quaternion"

    noticed = Signal(str)

    def __init__(self, submit, submit_all, current, parent=None):
        super().__init__("Pointing", parent)
        self._submit_all = submit_all
        self._current = current
        self.mode = QComboBox(objectName="combo_pointing")
        self.mode.addItems(POINTING_MODES)
        self.mode.setToolTip("inertial: the command angles; nadir, sun, target, velocity: the pointing axis "
                             "follows them (needs an orbit; switches the quaternion controller on if none flies)")
        self.mode.currentTextChanged.connect(self.choose)
        self.axis = SettingField("pointing_axis", "x, y, z; the body axis that points (body axes)")
        self.axis.committed.connect(lambda value: submit("pointing_axis", value))
        self.target = SettingField("target", "lat, lon[, alt]; the ground target, deg and km")
        self.target.committed.connect(lambda value: submit("target", value))
        layout = QFormLayout(self)
        layout.addRow("Mode", self.mode)
        layout.addRow("Axis", self.axis)
        layout.addRow("Target", self.target)
        self.setEnabled(False)

    def choose(self, mode: str) -> None:
        """Point in ``mode``; a moving mode with no controller flying brings :attr:`FOLLOWER` in the same entry."""
        settings = self._current()
        if mode != "inertial" and settings is not None and settings.controller == "none":
            self._submit_all((("controller", self.FOLLOWER), ("pointing", mode)))
            self.noticed.emit(f"Pointing {mode}: the {self.FOLLOWER} controller is switched on to follow it "
                              "(Control tab)")
        else:
            self._submit_all((("pointing", mode),))

    def fields(self) -> list:
        """The group's :class:`~app.controls.widgets.SettingField` s."""
        return [self.axis, self.target]

    def show_settings(self, settings) -> None:
        """Show the model's pointing settings (signals blocked); enabled only with an orbit."""
        self.setEnabled(settings.has_orbit)
        with QSignalBlocker(self.mode):
            self.mode.setCurrentText(settings.pointing)
        self.axis.show_value(settings.pointing_axis)
        self.target.show_value(settings.target)
        self.target.setEnabled(settings.pointing == "target")
