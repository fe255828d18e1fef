"""The control column: run controls on top, the setting groups in tabs below.

The panel binds the groups to the model both ways.  Inputs go out through
one callable, ``send(entry)`` (an entry: inputs that take effect at the same
step), and are remembered until the model shows them.  A control (the
torque, the command angles, the wheels' motor torques: :data:`sim.model.controls.CONTROLS`)
leaves as a :class:`~sim.model.controls.Control`, validated here once and
applied by the simulation without rebuilding its model; a model setting
leaves as a :class:`~sim.model.controls.SettingChange`, validated here once
too (:func:`~sim.model.controls.input_of`). The model's
settings come back at the window's sync points through
:meth:`ControlPanel.show_settings`, which updates the groups with their
signals blocked.  A value the model has not caught up with yet is shown as
sent, so a slider being dragged never jumps back; a value set by someone
else (a scenario event, a replayed input) is shown as it is.
"""

from __future__ import annotations

import collections
import dataclasses

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from app.controls.body import BodyGroup
from app.controls.command import CommandGroup
from app.controls.controller import ControllerGroup
from app.controls.integrator import IntegratorGroup
from app.controls.magnetic import MagneticGroup
from app.controls.pointing import PointingGroup
from app.controls.run import RunGroup
from app.controls.switched import SWITCHED, SwitchedGroup
from app.controls.sensors import SensorsGroup
from app.controls.thrusters import ThrustersGroup
from app.controls.torque import TorqueGroup
from app.controls.wheels import EnvironmentGroup, WheelsGroup
from app.controls.cmg import CmgGroup
from app.controls.widgets import PageScroll
from sim import input_of, KEYS

__all__ = ["ControlPanel"]

#: Inputs remembered per setting while the model catches up.
_IN_FLIGHT = 256


def _tab(*groups, scroll: bool = False) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    layout.setContentsMargins(4, 6, 4, 4)
    for group in groups:
        layout.addWidget(group)
    layout.addStretch(1)
    if not scroll:
        return page
    return PageScroll(page)


class ControlPanel(QWidget):
    """Every control of the simulation, bound to its settings.

    Parameters
    ----------
    send : callable
        ``send(entry)`` sends one entry of typed, validated inputs (Controls and
        SettingChanges) that take effect at the same step.
    speed_range : (float, float)
        Slowest and fastest speed factor.
    parent : QWidget, optional

    Attributes
    ----------
    run, torque, command, dampers, controller, limiter, integrator, body, wheels, environment, pointing, magnetic,
    sensors
        The control groups.

    Signals
    -------
    rejected(str)
        A field refused what was typed: the message, naming the setting.
    """

    rejected = Signal(str)

    def __init__(self, send, speed_range, parent=None):
        super().__init__(parent)
        self._send = send
        self._sent: dict[str, collections.deque] = {}
        self._shown = None
        self.run = RunGroup(speed_range)
        self.torque = TorqueGroup(self._submit)
        self.command = CommandGroup(self._submit)
        self.dampers = SwitchedGroup(SWITCHED["dampers"], self._submit)
        self.controller = ControllerGroup(self._submit)
        self.limiter = SwitchedGroup(SWITCHED["limiter"], self._submit)
        self.integrator = IntegratorGroup(self._submit)
        self.body = BodyGroup(self._submit_all, self.current_settings)
        self.wheels = WheelsGroup(self._submit)
        self.cmg = CmgGroup(self._submit_all, self.current_settings)  # issue 45
        self.environment = EnvironmentGroup(self._submit)
        self.pointing = PointingGroup(self._submit, self._submit_all, self.current_settings)
        self.magnetic = MagneticGroup(self._submit)
        self.thrusters = ThrustersGroup(self._submit, self.current_settings)  # issue 45
        self.sensors = SensorsGroup(self._submit)
        self._groups = (self.torque, self.command, self.dampers, self.controller, self.limiter,
                        self.integrator, self.body, self.wheels, self.environment, self.pointing, self.magnetic,
                        self.sensors, self.cmg, self.thrusters)
        self.tabs = QTabWidget(objectName="tabs_controls")
        self.tabs.addTab(_tab(self.torque, self.command, self.pointing), "Fly")
        self.tabs.addTab(_tab(self.dampers, self.controller, self.limiter, self.magnetic, self.sensors, scroll=True),
                         "Control")
        self.tabs.addTab(_tab(self.integrator, self.body, self.wheels, self.cmg, self.thrusters, self.environment,
                              scroll=True), "Model")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.run)
        layout.addWidget(self.tabs, 1)
        for field in self.fields():
            field.rejected.connect(self.rejected)

    def fields(self) -> list:
        """Every :class:`~app.controls.widgets.SettingField` of the panel."""
        return [self.dampers.gains, self.controller.gains, self.controller.slerp_time, self.limiter.limits,
                self.integrator.dt, self.body.mass, self.body.inertia, self.body.angles, self.body.rates,
                *self.wheels.fields(), *self.environment.fields(), *self.pointing.fields(),
                *self.magnetic.fields(), *self.sensors.fields(), *self.cmg.fields(), *self.thrusters.fields()]

    def _submit(self, key: str, value) -> None:
        """One group's input, as an entry of its own."""
        self._submit_all(((key, value),))

    def _submit_all(self, inputs) -> None:
        """Inputs that take effect at the same step (a body and the tuning carried to it): one entry."""
        entry = tuple(input_of(key, value) for key, value in inputs)  # typed and validated once, here
        for item in entry:  # all validated: remembered until the model shows them
            self._sent.setdefault(item.key, collections.deque(maxlen=_IN_FLIGHT)).append(item.value)
        self._send(entry)

    def show_settings(self, settings, *, fresh: bool = False) -> None:
        """Show the model's settings in every group that has a changed value.

        Parameters
        ----------
        settings : Settings
            The model's settings at a sync point.
        fresh : bool
            A new run (scenario, replay): forget the inputs in flight and
            show everything.
        """
        if fresh:
            self._sent.clear()
            self._shown = None
        pending = self._in_flight(settings)
        display = dataclasses.replace(settings, **pending) if pending else settings
        shown, self._shown = self._shown, display
        if display is shown:  # the model's settings unchanged since the last sync, nothing in flight: no news
            return
        for group in self._groups:
            if shown is None or any(getattr(display, k) != getattr(shown, k) for k in group.KEYS):
                group.show_settings(display)

    def current_settings(self):
        """The settings as the user last set them: the last shown, with every input sent since (None before any)."""
        if self._shown is None:
            return None
        return dataclasses.replace(self._shown, **{key: sent[-1] for key, sent in self._sent.items() if sent})

    def _in_flight(self, settings) -> dict:
        """Settings sent but not yet in the model: key -> the value last sent."""
        pending = {}
        for key in KEYS:
            sent = self._sent.get(key)
            if not sent:
                continue
            value = getattr(settings, key)
            if value == sent[-1] or value not in sent:  # caught up, or changed by someone else
                del self._sent[key]
            else:
                pending[key] = sent[-1]
        return pending
