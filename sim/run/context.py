"""The inputs of a run and the bodies they reach, and every one of them checked at load time.

What an input of a :class:`~sim.run.runner.Runner` is (a setting,
:data:`RESET`, :data:`ENSEMBLE`) and which bodies a setting reaches (the
main body, which keeps its number of wheels; every comparison body that
does not override it; the ensemble's bodies for :data:`ENSEMBLE_KEYS`) is
stated here once: the runner applies inputs by these rules, and
:func:`check_inputs` replays a scenario's events and a recording's inputs
by the same rules through the bodies' settings alone, without a step, so
an input that does not fit a body is refused where it is loaded (its file
and line), before a row is written.
"""

from __future__ import annotations

import math

from sim.core.wheels import layout_axes
from sim.model.domain import DOMAIN_KEYS, check_domain
from sim.model.events import reached, steps_until
from sim.model.rows import columns_of
from sim.model.settings import SettingsError

__all__ = ["check_inputs", "check_wheel_count", "check_columns", "reaches_ensemble", "RESET", "ENSEMBLE", "ENSEMBLE_KEYS",
           "ENSEMBLE_BODY_KEYS", "WHEEL_COUNT_KEYS"]

#: The input that resets every body to the scenario's initial state.
RESET = "reset"
#: The input that starts an ensemble beside the main body (value: an
#: :class:`~sim.ensemble.EnsembleSpec`, built from the main body's settings
#: then) or removes it (value None).  Recorded like a setting, so a replay
#: flies the same ensemble bit for bit (it is built from the same settings
#: at the same step).
ENSEMBLE = "ensemble"
#: Settings that reach the ensemble too: the shared inputs of
#: :meth:`sim.ensemble.Ensemble.set`.  A new body reaches it as well
#: (:data:`ENSEMBLE_BODY_KEYS`: ``body``, ``mass``, ``mesh_units``, and ``inertia`` back to
#: None, the body's own), so the ensemble re-draws its inertia about the
#: body now flown.  The others are each body's own: reset angles and rates,
#: and an explicit inertia (what "Load worst" gives the main body: the
#: ensemble drew its bodies about the main body's values when it was built,
#: and keeps them, so the main body can fly beside one of them).
ENSEMBLE_KEYS = frozenset({"torque", "dampers_on", "dampers", "controller", "gains", "axes", "shortest_path",
                           "limiter_on", "limits", "command_deg", "slerp_time", "integrator",
                           "full_quat_form", "norm", "dt", "wheels", "wheel_inertia", "wheel_torque_limit",
                           "wheel_speed_limit", "wheel_friction", "wheel_torques", "gravity_gradient",
                           "altitude_km", "disturbance", "disturbance_axes", "disturbance_period",
                           # a CMG cluster's tuning (issue 45: each body's cluster, sim.ensemble.cmg_bodies)
                           "cmg_h0", "cmg_law", "cmg_lambda0", "cmg_mu", "cmg_null_gain", "cmg_dither",
                           "cmg_dither_rate", "cmg_rate_limit"})
#: Settings whose value fixes how many wheels a body has: a run keeps its number of wheels (its rows
#: have a column per wheel), so a change to another number is refused (:meth:`sim.run.runner.Runner.submit`).
WHEEL_COUNT_KEYS = frozenset({"wheels"})
#: A change of body: reaches the ensemble, but ``inertia`` only when it goes back to None.
ENSEMBLE_BODY_KEYS = frozenset({"body", "mass", "mesh_units", "inertia"})


def reaches_ensemble(key: str, value) -> bool:
    """Whether setting ``key = value`` of the main body reaches the ensemble flying beside it (:data:`ENSEMBLE_KEYS`)."""
    return key in ENSEMBLE_KEYS or (key in ENSEMBLE_BODY_KEYS and (key != "inertia" or value is None))


def check_wheel_count(key: str, value, count: int) -> None:
    """SettingsError when ``key = value`` would change the number of wheels (``count``) of a running body.

    A run's rows hold a column per wheel; the window starts a new run
    for another number of wheels (:meth:`app.flight.Flight.change_wheels`).
    """
    if key in WHEEL_COUNT_KEYS:
        new = len(layout_axes(value))
        if new != count:
            raise SettingsError(f"{key}: a run keeps its {count} wheels (its rows have a "
                                f"column per wheel); {new} wheels need a new run")


def check_columns(key: str, before, after) -> None:
    """SettingsError when a change of ``key`` from settings ``before`` to ``after`` changes the run's columns.

    A run's rows keep the columns its first row has (a CSV's header, an npz's arrays): the wheels, the
    orbit, the field, the torques and the estimate (:func:`sim.model.rows.columns_of`).  An event
    ``estimator = "truth"`` half way would leave rows shorter than the header.
    """
    old, new = columns_of(before), columns_of(after)
    if old != new:
        gone = [c for c in old if c not in new]
        added = [c for c in new if c not in old]
        what = (f"{len(gone)} columns ({', '.join(gone[:3])}{', ...' if len(gone) > 3 else ''}) gone"
                if gone else f"{len(added)} columns ({', '.join(added[:3])}{', ...' if len(added) > 3 else ''}) new")
        raise SettingsError(f"{key}: a run keeps the columns of its rows; this change would leave {what}: "
                            "start a new run with it instead")


class _DryRun:
    """A run's bodies as settings only, and its clock: :class:`~sim.run.runner.Runner` without a step (:func:`check_inputs`)."""

    def __init__(self, scenario):
        self.main = scenario.settings
        self.count = self.main.wheel_count
        self._overrides = dict(scenario.compare)
        self.compare = {}
        for label, overrides in scenario.compare:
            try:
                self.compare[label] = scenario.settings.replace(**overrides)
            except SettingsError as exc:
                raise SettingsError(f"comparison body {label!r}: {exc}") from None
        self.ensemble = None
        self.events = sorted(scenario.events, key=lambda e: e.at)
        self.next = 0  # the next event not yet applied
        # as Simulation's clock: t = t0 + (k - k0) dt, k steps since the last reset, k0 at the last change of dt
        self.t = self.t0 = 0.0
        self.k = self.k0 = 0
        self.dt = self.main.dt
        self.duration = scenario.duration

    def set(self, key: str, value) -> None:
        """``Runner._apply`` of a setting: the wheel count kept, then ``Runner._set_all``; the world's models
        inside their domains for the rest of the run (:func:`sim.model.domain.check_domain`)."""
        check_wheel_count(key, value, self.count)
        before, self.main = self.main, self.main.replace(**{key: value})
        check_columns(key, before, self.main)
        if key in DOMAIN_KEYS:
            check_domain(self.main, self.duration - self.t)
        if key == "dt":
            self.t0, self.k0, self.dt = self.t, self.k, self.main.dt
        for label, overrides in self._overrides.items():
            if key not in overrides:
                try:
                    self.compare[label] = self.compare[label].replace(**{key: value})
                except SettingsError as exc:
                    raise SettingsError(f"comparison body {label!r}: {exc}") from None
        if self.ensemble is not None and reaches_ensemble(key, value):
            try:
                self.ensemble = self.ensemble.replace(**{key: value})
            except SettingsError as exc:
                raise SettingsError(f"the ensemble's bodies: {exc}") from None

    def apply(self, key: str, value) -> None:
        """An input: a setting, :data:`RESET` (the clock and the events back to t = 0) or :data:`ENSEMBLE`."""
        if key == RESET:
            self.t = self.t0 = 0.0
            self.k = self.k0 = self.next = 0
        elif key == ENSEMBLE:  # built from the main body's settings at that step
            self.ensemble = None if value is None else self.main
        else:
            self.set(key, value)

    def apply_events(self) -> None:
        """Every event due at the present time (:class:`~sim.model.events.EventCursor`), its changes in order."""
        while self.next < len(self.events) and reached(self.t, self.events[self.next].at):
            event = self.events[self.next]
            try:
                for key, value in event.changes.items():
                    self.set(key, value)
            except SettingsError as exc:
                raise SettingsError(f"{getattr(event, 'where', '') or f'the event at t={event.at:g} s'}: {exc}") from None
            self.next += 1

    def steps_to_next_event(self) -> float:
        """Steps before the next event is due (>= 1; inf when none is left)."""
        if self.next >= len(self.events):
            return math.inf
        return max(1, steps_until(self.t, self.events[self.next].at, self.dt))

    def advance(self, n: int) -> None:
        self.k += n
        self.t = self.t0 + (self.k - self.k0) * self.dt


def check_inputs(scenario, inputs=(), where=(), source: str = "") -> None:
    """Try every settings change a run of ``scenario`` meets on the bodies it reaches, before the run starts.

    Replays, without a step, what :class:`~sim.run.runner.Runner` does with the scenario's
    events (each at the first step boundary where its time is reached,
    :func:`sim.model.events.reached`, under the main body's ``dt``; again
    after a reset) and with ``inputs``, ``(step, key, value)`` as a
    recording holds them (before global step ``step``; a setting,
    :data:`RESET` or :data:`ENSEMBLE`): each change goes through
    :meth:`Settings.replace <sim.model.settings.Settings.replace>` of the
    main body (which keeps its number of wheels), of every comparison body
    that does not override it, and of the ensemble's bodies when one flies
    and the change reaches them (:data:`ENSEMBLE_KEYS`).  So an input that
    is wrong only in its context (three wheel torques for four wheels,
    splitting with wheels, a comparison body's other wheels) is refused at
    load time, named where it was written, and never ends a run half way.
    Every event is tried, also those due after the last input or the
    scenario's duration (the window flies on).

    Parameters
    ----------
    scenario : Scenario
        Its events name themselves by their ``where`` (file and line), else by their time.
    inputs : sequence of (step, key, value)
        Those of one step in the order they are applied (:meth:`~sim.run.runner.Runner.schedule`).
    where : sequence of str
        What names each input (``"FILE, line N: ..."``); default its number and step.
    source : str
        What names the scenario's comparison bodies (its file).

    Raises
    ------
    SettingsError
        ``"WHERE: [comparison body 'x': ]reason"`` for the first change a body refuses.
    """
    try:
        run = _DryRun(scenario)
    except SettingsError as exc:
        raise SettingsError(f"{source}: {exc}" if source else str(exc)) from None
    check_domain(run.main, run.duration)  # the world's models over the whole run (sim.model.domain)
    order = sorted(range(len(inputs)), key=lambda j: inputs[j][0])  # as Runner.schedule keeps them
    total = i = 0  # global steps taken; inputs applied
    while True:
        # Runner.advance before a step: the inputs scheduled for it, then the events due
        while i < len(order) and inputs[order[i]][0] <= total:
            j = order[i]
            step, key, value = inputs[j]
            try:
                run.apply(key, value)
            except SettingsError as exc:
                name = where[j] if j < len(where) else f"input #{j + 1} ({key}, before step {step:,})"
                raise SettingsError(f"{name}: {exc}") from None
            i += 1
        run.apply_events()
        if i >= len(order) and run.next >= len(run.events):
            return
        n = min(inputs[order[i]][0] - total if i < len(order) else math.inf, run.steps_to_next_event())
        total += n
        run.advance(n)
        run.apply_events()  # after the step: Runner.advance applies the events due before the next inputs
