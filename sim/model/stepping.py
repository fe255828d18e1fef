"""What one body and the ensemble share: settings in, between steps, fanned out to the step.

:class:`Stepper` is the base of :class:`sim.model.simulation.Simulation` (floats)
and :class:`sim.ensemble.Ensemble` (columns): it validates a setting, keeps
the settings record, and turns it into what a step reads (the torque model,
the step ``dt``, the norm mode, the integrator, the wheels and the
environment's torques) and the command (a SLERP toward the command angles,
Hoffmann Appendix C).  Each subclass holds its own state and says, through
a few hooks, what else a change means for it.
"""

from __future__ import annotations

import math

from sim.core.command import CommandInterpolator
from sim.core.integrators import integrator, quasi_rates, rates
from sim.core.norm import NORM_MODES, READS_UNIT
from sim.model.controls import Control, SettingChange, check_control, input_of, with_controls
from sim.model.navigation import flying_law
from sim.model.settings import Settings

__all__ = ["Stepper"]


class Stepper:
    """Settings, validated inputs and the step functions of a Simulation or an Ensemble.

    A subclass sets ``_settings``, ``_torque`` (a
    :class:`~sim.core.control.TorqueModel` of its flavour) and ``_load`` (a
    :class:`~sim.model.loads.LoadModel` around it) before calling
    :meth:`_configure`, holds ``_t``, ``_k``, ``_t0``, ``_k0`` and ``_p``,
    and implements :meth:`_derive_p` and :meth:`_sync_command`.

    ``_step_torque`` is what the integrator calls: the load model when
    there are wheels or an external torque, else the torque law itself.
    """

    _settings: Settings
    _full: bool | None = None
    #: The controls applied since the model last changed (key -> value), or None: laid over ``_settings``.
    _controls: dict | None = None
    _view: tuple = (None, None, None)
    #: The thrusters' drive (issue 45, :mod:`sim.model.thruster_drive`), None without thrusters.
    _thr = None

    @property
    def settings(self) -> Settings:
        """The settings in force: the model, with the controls applied since (:mod:`sim.model.controls`)."""
        s, c = self._settings, self._controls
        if c is None:
            return s
        model, controls, view = self._view
        if model is not s or controls is not c:
            view = with_controls(s, c)
            self._view = (s, c, view)
        return view

    @property
    def t(self) -> float:
        """Simulated time, s."""
        return self._t

    @property
    def steps(self) -> int:
        """Steps taken since the last reset."""
        return self._k

    @property
    def fuel(self):
        """The thrusters' propellant used so far (kg): a float for a Simulation, one per body for an Ensemble
        (:attr:`sim.model.thruster_drive.ThrusterDrive.fuel`); None without thrusters."""
        return None if self._thr is None else self._thr.fuel

    def set(self, key: str, value) -> None:
        """Change one setting between steps (validated; a bad value raises SettingsError): :meth:`apply`.

        ``integrator``, ``norm`` and ``dt`` switch without touching the
        attitude; ``command_deg`` starts a SLERP from the current command;
        ``angles_deg`` and ``rates`` take effect at the next ``reset``.
        """
        self.apply(input_of(key, value))

    def update(self, changes: dict) -> None:
        """Set several settings between steps as one change (:meth:`apply`): all checked before any takes effect."""
        self.apply(*(input_of(key, value) for key, value in changes.items()))

    def apply(self, *inputs) -> None:
        """Typed inputs (:mod:`sim.run.inputs`) between steps, together, dispatched on their type.

        The :class:`~sim.model.controls.SettingChange` values (validated when
        they were made) make one new settings record, checked as a whole
        (:meth:`~sim.model.settings.Settings.replace_validated`: four wheel
        speeds with a pyramid of four wheels pass, in either order); each
        :class:`~sim.model.controls.Control` is checked against that model.
        Only then does anything take effect: the model first, then the
        controls (a command angle flies with a new ``slerp_time`` sent beside
        it).  The order of the inputs does not matter; a refusal
        (SettingsError) changes nothing.
        """
        model, controls = {}, []
        for item in inputs:
            match item:
                case SettingChange(key=key, value=value):
                    model[key] = value
                case Control():
                    controls.append(item)
                case _:
                    raise TypeError(f"expected a Control or a SettingChange, got {item!r}")
        settings = self.settings.replace_validated(**model) if model else self._settings
        for item in controls:
            check_control(settings, item.key, item.value)
        if model:
            self._settings, self._controls = settings, None  # the controls in force are in the model now
            if "dt" in model:  # step _k0 is at _t0 from now on
                self._t0, self._k0, self._dt = self._t, self._k, settings.dt
                self._new_time_base()
            if model.keys() - {"dt"}:  # dt alone rebuilds nothing: the step reads _dt
                self._changed(tuple(model))
        for item in controls:
            self._control(item.key, item.value)

    def control(self, key: str, value) -> None:
        """Apply a control between steps, rebuilding nothing (``value``: a :class:`~sim.model.controls.Control`'s).

        ``torque`` is written into the torque model, ``wheel_torques`` into
        the load model, ``command_deg`` starts a SLERP from the current
        command: what :meth:`set` did with them, without a new settings
        record, body or model.  The value is trusted: validated once, where
        the :class:`~sim.model.controls.Control` was made; only checked
        against this body (one wheel torque per wheel: SettingsError).
        """
        check_control(self._settings, key, value)
        self._control(key, value)

    def _control(self, key: str, value) -> None:
        self._controls = {**(self._controls or {}), key: value}  # a new dict: a reader's view stays whole
        if key == "torque":
            self._torque.command = value
        elif key == "wheel_torques":
            self._load.direct = value
        else:
            self._start_command()
        self._controlled(key)

    def _control_value(self, key: str):
        c = self._controls
        return c[key] if c is not None and key in c else getattr(self._settings, key)

    # ------------------------------------------------------------ hooks
    def _controlled(self, key: str) -> None:
        """A control changed (:meth:`control`)."""

    def _changed(self, keys: tuple) -> None:
        """The settings ``keys`` changed together (besides ``dt`` alone), the settings record holding them all."""
        self._configure()

    def _new_time_base(self) -> None:
        """``dt`` changed: step ``_k0`` is at ``_t0`` from now on."""

    def _derive_p(self, full: bool):
        """The integrator's ``P = dQ/dt`` after a switch to (``full``) or from Full-Quat."""
        raise NotImplementedError

    def _sync_command(self) -> None:
        """The command moved: pass it to the torque model."""
        raise NotImplementedError

    # ----------------------------------------------------------- configure
    def _configure(self, gains=None, j_rows=None) -> None:
        """The torque model, loads, ``dt``, norm mode and integrator from the settings in force.

        ``gains`` overrides the settings' gains (the ensemble's per-body
        rows); ``j_rows`` is the craft's inertia (for the gravity gradient).
        Switching to or from Full-Quat keeps the attitude and the rates and
        derives the other state.
        """
        s = self.settings  # with the controls in force
        self._torque.configure(s, gains)
        self._load.configure(s, j_rows)
        self._step_torque = self._load if self._load.active else self._torque
        self._dt = s.dt
        self._norm = NORM_MODES[s.norm]
        #: The attitude is read as Q/|Q| (sim.core.norm.elimination) and full-quat's rates as Joshi's (27).
        self._unit = s.norm in READS_UNIT
        self._rates = quasi_rates if self._unit else rates
        self._integrate = integrator(s.integrator, s.full_quat_form, self._rates)
        full = s.integrator == "full-quat"
        if self._full is not None and full != self._full:
            self._p = self._derive_p(full)
        self._full = full

    # ------------------------------------------------------------- command
    def _fly_law(self) -> None:
        """What the torque law reads (:func:`sim.model.navigation.flying_law`): the truth, or with ``fly_on``
        estimate the estimate held over each step, at the estimate of now; the load and the step call it."""
        self._law = flying_law(self._settings, self._nav, self._torque)
        self._load.torque = self._law
        self._step_torque = self._load if self._load.active else self._law
        if self._law is not self._torque:
            self._law.hold(self._nav.q, self._nav.rates)

    def _reset_command(self, q0) -> None:
        """The command starts at the attitude ``q0``; a ``command_deg`` in the settings is a change at t = 0."""
        self._cmd = CommandInterpolator(q0)
        if self._control_value("command_deg") is not None:
            self._start_command()
        else:
            self._sync_command()

    def _start_command(self) -> None:
        """A new target starts a SLERP from the current command, Hoffmann Appendix C."""
        s, command = self._settings, self._control_value("command_deg")
        if command is None:  # no new command: Qc stays where it is
            return
        angles = tuple(math.radians(a) for a in command)
        self._cmd.command(angles, self._t, s.slerp_time, s.shortest_path)
        self._sync_command()
