"""The simulation loop as the application runs it: inputs in, batches of samples out.

A :class:`Runner` owns the main :class:`~sim.model.simulation.Simulation`, the
comparison bodies of its scenario, the scenario's time-tagged events, an
optional recorder and an optional :class:`~sim.ensemble.Ensemble`.  Other
threads only call :meth:`Runner.submit`, which puts an input on a
thread-safe queue; the thread that owns the runner calls
:meth:`Runner.advance`, which applies queued inputs at the next step
boundary, steps, and returns every sample as one numpy array.  No Qt here.

The ensemble (the input :data:`ENSEMBLE`) flies in lockstep with the main
body: every shared input (:data:`ENSEMBLE_KEYS`) and scenario event reaches
it at the same step boundary as the main body, a reset resets it, and each
batch ends with an :class:`EnsembleFrame` of its state.
"""

from __future__ import annotations

import dataclasses
import math
import queue
from dataclasses import dataclass, field

import numpy as np

from sim.ensemble import Ensemble
from sim.ensemble.info import EnsembleFrame, EnsembleInfo
from sim.model.controls import Control, SettingChange, check_control, validated_input
from sim.model.events import EventCursor
from sim.core import advance as compiled
from sim.model import advance_craft as craft
from sim.core.algebra import norm2_Q, rotation_angle
from sim.run.context import (ENSEMBLE, ENSEMBLE_BODY_KEYS, ENSEMBLE_KEYS, RESET, check_inputs, check_wheel_count,
                             reaches_ensemble)
from sim.model.one_body import check_no_ensemble
from sim.run.inputs import EnsembleChange, Reset, recorded, typed
from sim.run.scenario import Scenario
from sim.model.settings import SettingsError
from sim.model.simulation import Simulation, SimulationFault
from sim.model.rows import Snapshot, history_columns_of

__all__ = ["Runner", "Batch", "live_ensemble", "RESET", "ENSEMBLE", "ENSEMBLE_KEYS", "ENSEMBLE_BODY_KEYS", "MAIN",
           "COMPARE_COLUMNS"]

#: Label of the main body in :attr:`Batch.compare_rows`.
MAIN = "main"
#: Columns of :attr:`Batch.compare_rows`: time, attitude error against the
#: reference body (degrees), kinetic energy, ``|Q| - 1``.
COMPARE_COLUMNS = ("t", "error_deg", "energy", "norm")
_DEG = 180.0 / math.pi
#: Most steps :meth:`Runner.advance` takes in one call: below the plain kernel's ``WARM_AFTER``, a call of which
#: waits for its load (:meth:`sim.core.jit.Kernel.wanted`); the window's thread steps in Python meanwhile.
_NO_WAIT = compiled.WARM_AFTER - 1


@dataclass
class Batch:
    """What one :meth:`Runner.advance` produced.

    Attributes
    ----------
    rows : ndarray, shape (n, len(history_columns(wheels)))
        One row per step taken (the state after the step), main body
        (:func:`sim.model.rows.history_columns` of its number of wheels).
    last : Snapshot
        The main body's state after the batch.
    compare : dict
        Label -> last Snapshot of each comparison body.
    compare_rows : dict
        With comparison bodies: label (and :data:`MAIN`) -> ndarray of shape
        (n, len(COMPARE_COLUMNS)), one row per step, the attitude error taken
        against :attr:`Runner.reference`.
    applied : list of (global_step, key, value)
        Inputs that took effect in this batch.
    fault : str or None
        Set when a :class:`SimulationFault` stopped the batch early.
    ensemble : EnsembleFrame or None
        The ensemble after the batch, when the runner has one.
    """

    rows: np.ndarray
    last: Snapshot
    compare: dict = field(default_factory=dict)
    compare_rows: dict = field(default_factory=dict)
    applied: list = field(default_factory=list)
    fault: str | None = None
    ensemble: EnsembleFrame | None = None


def live_ensemble(settings, spec) -> Ensemble:
    """The ensemble the input :data:`ENSEMBLE` builds, wherever it is stepped (this thread, :mod:`app.engine`).

    Without the per-step metrics (a third of the step's cost): a frame needs the state only.
    """
    return Ensemble(settings, spec, track=False)


class Runner:
    """Runs a scenario step by step with inputs from other threads.

    Parameters
    ----------
    scenario : Scenario
    recorder : sim.run.recording.Recorder, optional
        Receives every applied input with its global step number.
    user_torque : callable, optional
        ``f(t, q, w)``: a torque of the user's on every body (Python API only;
        :class:`~sim.model.simulation.Simulation`).
    ensembles : callable, optional
        ``f(settings, spec)``: what the input :data:`ENSEMBLE` builds.  By
        default :func:`live_ensemble`, stepped in this thread;
        the window passes :meth:`app.engine.EnsembleEngine.ensemble`, the
        same ensemble stepped in a process of its own.  Either way the
        runner uses only ``set``, ``control``, ``reset``, ``step`` and ``frame``.
    """

    def __init__(self, scenario: Scenario, recorder=None, user_torque=None, ensembles=None):
        check_inputs(scenario)  # an event that does not fit a body: refused now, not half way
        self.scenario = scenario
        self.recorder = recorder
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._scheduled: dict[int, list] = {}
        self.total_steps = 0
        self.sim = Simulation(scenario.settings, user_torque=user_torque)
        self.compare = {label: Simulation(scenario.settings, user_torque=user_torque, **overrides)
                        for label, overrides in scenario.compare}
        #: The history columns of the main body's rows (its number of wheels is fixed for the run).
        self.columns = history_columns_of(self.sim.settings)
        #: The scenario's events: each reaches every body at the first step boundary where its time is reached.
        self._events = EventCursor(scenario.events, self._event)
        #: The ensemble flying beside the main body (the input :data:`ENSEMBLE`), or None.
        self.ensemble: Ensemble | None = None
        self._ensembles = ensembles if ensembles is not None else live_ensemble
        self._ensemble_info: EnsembleInfo | None = None  # published with the last frame
        #: The body the others' attitude errors are measured against: the
        #: first comparison body integrated by rk4, else the main body.
        self.reference = next((label for label, sim in self.compare.items()
                               if sim.settings.integrator == "rk4"), MAIN)

    # ---------------------------------------------------------------- inputs
    def send(self, entry) -> None:
        """Queue one entry (thread-safe): inputs that take effect together, in order, at the next step boundary.

        The one way in.  Each input is typed (:mod:`sim.run.inputs`): a
        :class:`~sim.model.controls.Control` or a
        :class:`~sim.model.controls.SettingChange` (validated once, when it
        was made), :class:`~sim.run.inputs.Reset` or
        :class:`~sim.run.inputs.EnsembleChange`; a pair ``(key, value)`` is
        made one here (:func:`sim.run.inputs.typed`, validated).  Here a
        control is only checked against the body (one wheel torque per
        wheel), and the entry's model settings together (one that cannot be
        refuses them all), without validating them again.  A bad input
        raises SettingsError in the caller's thread and nothing of the
        entry is queued.

        What belongs together must not be split by a step: a new body and
        the tuning carried to it (a step of the T-handle with the aircraft's
        dampers diverges), reset angles, rates and the reset, the Ensemble
        tab's new ensemble with its reset.
        """
        checked, settings = [], {}
        for item in entry:
            item = typed(item)
            if isinstance(item, Control):
                check_control(self._model, item.key, item.value)
            elif isinstance(item, SettingChange):
                self.check_wheel_count(item.key, item.value)
                settings[item.key] = item.value
            elif isinstance(item, EnsembleChange) and item.spec is not None:
                check_no_ensemble(self._model)  # issue 45: refused here, in the caller's thread
            checked.append(item)
        if settings:
            self._model.replace_validated(**settings)  # a combination that cannot be (wheel speeds, one too many)
        self._inbox.put(tuple(checked))

    def submit(self, key: str, value=None) -> None:
        """:meth:`send` of one input: ``send(((key, value),))``."""
        self.send(((key, value),))

    @property
    def _model(self):
        """The main body's settings, read in the caller's thread (an immutable record)."""
        return self.sim.settings

    def check_wheel_count(self, key: str, value) -> None:
        """SettingsError when ``key = value`` would change the number of wheels of the main body (:func:`check_wheel_count`)."""
        check_wheel_count(key, value, self.sim.wheel_count)

    def schedule(self, step: int, key: str, value=None) -> None:
        """Apply an input just before the step that follows global step ``step`` (replay; the value validated
        when the recording was read)."""
        self._scheduled.setdefault(step, []).append(recorded(key, value))

    def scheduled(self, key: str) -> list:
        """``[(step, value), ...]`` of the scheduled inputs ``key`` not yet applied, in step order."""
        return [(step, item.value) for step in sorted(self._scheduled) for item in self._scheduled[step]
                if item.key == key]

    def _event(self, key, value):
        """A scenario's event (validated when the scenario was read): to every body it reaches."""
        self._set_all(validated_input(key, value))

    def _set_all(self, item):
        """Set on the main body, on each comparison body that does not override it, on the ensemble.

        A :class:`~sim.model.controls.Control` is applied as one (``control``:
        nothing rebuilt), a :class:`~sim.model.controls.SettingChange` with ``set``.
        """
        key, value = item.key, item.value
        how = "control" if isinstance(item, Control) else "set"
        getattr(self.sim, how)(key, value)
        for label, overrides in self.scenario.compare:
            if key not in overrides:
                getattr(self.compare[label], how)(key, value)
        if self.ensemble is not None and reaches_ensemble(key, value):
            getattr(self.ensemble, how)(key, value)

    def _apply(self, item, applied):
        """One typed input at this step boundary, dispatched on its type; recorded with its step."""
        match item:
            case EnsembleChange(spec=spec):
                # built from the main body's settings now; its bodies start at t = 0 (send a reset to align)
                self.ensemble = None if spec is None else self._ensembles(self.sim.settings, spec)
                self._ensemble_info = None
                if self.recorder is not None:
                    self.recorder.input(self.total_steps, ENSEMBLE, None if spec is None else dataclasses.asdict(spec))
                return
            case Reset():
                for sim in (self.sim, *self.compare.values()):
                    sim.reset()
                if self.ensemble is not None:
                    self.ensemble.reset()
                self._events.rewind()
            case Control():
                self._set_all(item)
            case SettingChange():
                self.check_wheel_count(item.key, item.value)
                self._set_all(item)
        applied.append((self.total_steps, item.key, item.value))
        if self.recorder is not None:
            self.recorder.input(self.total_steps, item.key, item.value)

    def _apply_inputs(self, applied):
        """Inputs (queued or scheduled) due before the next step."""
        while not self._inbox.empty():
            for item in self._inbox.get_nowait():
                self._apply(item, applied)
        if self._scheduled:
            for item in self._scheduled.pop(self.total_steps, ()):
                self._apply(item, applied)
        self._events.apply(self.sim.t)

    # -------------------------------------------------------------- stepping
    def advance(self, n: int) -> Batch:
        """Take up to ``n`` steps; returns every sample of the main body.

        ``advance(0)`` only applies the queued inputs (a reset while paused).
        A :class:`SimulationFault` ends the batch early with ``fault`` set
        (naming the comparison body when it is one of them); the bodies stay
        at their last good state.
        """
        applied: list = []
        rows = np.empty((n, len(self.columns)))
        bodies = {MAIN: self.sim, **self.compare} if self.compare else {}
        metrics = {label: np.empty((n, len(COMPARE_COLUMNS))) for label in bodies}
        taken = 0
        fault = None
        try:
            if n == 0:
                self._apply_inputs(applied)       # e.g. a reset while paused shows at once
            while taken < n:
                self._apply_inputs(applied)
                if bodies or self.ensemble is not None:  # in lockstep with the others: one step at a time
                    self._lockstep()
                    rows[taken] = self.sim.row()
                    if bodies:
                        self._measure(bodies, metrics, taken)
                    taken += 1
                else:  # fewer steps a call than make a kernel wait for its load: the window's thread never waits
                    taken += self._rows_to_boundary(rows[taken:], min(n - taken, _NO_WAIT))
        except (SimulationFault, SettingsError) as exc:
            fault = str(exc)
        if self.recorder is not None:
            self.recorder.alive(self.total_steps)
        return Batch(rows=rows[:taken], last=self.sim.snapshot(),
                     compare={label: sim.snapshot() for label, sim in self.compare.items()},
                     compare_rows={label: m[:taken] for label, m in metrics.items()},
                     applied=applied, fault=fault, ensemble=self.ensemble_frame())

    def _lockstep(self) -> None:
        """One step of the main body, the comparison bodies and the ensemble; the events due after it."""
        self.sim.step()
        for label, sim in self.compare.items():
            try:
                sim.step()
            except SimulationFault as exc:
                raise SimulationFault(f"comparison body {label!r}: {exc.reason}", exc.t) from None
        if self.ensemble is not None:
            self.ensemble.step()  # a diverging body is flagged there, never raises
        self.total_steps += 1
        self._events.apply(self.sim.t)

    def _boundary(self, limit: int) -> int:
        """Steps the main body may take at once (at most ``limit``, at least 1) before an input or event is due:
        the next scheduled input's step, the next event's (:meth:`sim.model.events.EventCursor.steps_to_next`)."""
        m = min(limit, self._events.steps_to_next(self.sim.t, self.sim.settings.dt))
        if self._scheduled:
            m = min(m, min((s for s in self._scheduled if s > self.total_steps), default=m) - self.total_steps)
        return max(1, int(m))

    def _rows_to_boundary(self, out, limit: int) -> int:
        """The main body alone, up to :meth:`_boundary` steps in one call with a row after each written into
        ``out`` (:meth:`sim.model.simulation.Simulation.step_rows`); the events due after the last step, whose
        row is then written again (the row after the step shows the event, as one step at a time did).  The
        steps taken; a fault raises after the good steps' rows are written and counted."""
        sim = self.sim
        m = self._boundary(limit)
        start = sim.steps
        try:
            sim.step_rows(m, out)
        finally:
            self.total_steps += sim.steps - start
        if self._events.apply(sim.t):
            out[m - 1] = sim.row()
        return m

    @property
    def ensemble_info(self) -> EnsembleInfo | None:
        """The :class:`EnsembleInfo` published with the last frame (None before the first, or without an ensemble).

        An immutable record: any thread may read it.  The owning thread
        makes a new one for the next frame after every change of the
        ensemble (a new ensemble, an input or event that reaches it, a reset):
        :meth:`sim.ensemble.Ensemble.frame`.
        """
        return self._ensemble_info

    def ensemble_frame(self) -> EnsembleFrame | None:
        """The ensemble's present state (:meth:`sim.ensemble.Ensemble.frame`), None without one; the owning thread only."""
        if self.ensemble is None:
            return None
        frame = self.ensemble.frame()
        self._ensemble_info = frame.info
        return frame

    def _measure(self, bodies, metrics, i):
        """Row ``i`` of the comparison metrics: error to the reference, energy, norm."""
        ref = bodies[self.reference].attitude
        t = self.sim.t
        for label, sim in bodies.items():
            q = sim.q
            norm = math.sqrt(norm2_Q(q)) - 1.0
            metrics[label][i] = (t, rotation_angle(sim.attitude, ref) * _DEG, sim.energy(), norm)

    def _wait_for_kernels(self, n: int) -> None:
        """A long headless run of ``n`` steps asks the kernel that covers its body (the plain advance, or the
        spacecraft's) for them: past its ``WARM_AFTER`` steps it is loaded now, once, as one long call does
        (:meth:`sim.core.jit.Kernel.prepare`); a window's thread never waits (it steps in Python while a thread
        loads it: :meth:`sim.core.jit.Kernel.wanted`)."""
        s = self.sim.settings
        for module, kernel in ((compiled, compiled.advance), (craft, craft.advance_craft)):
            if module.covers(s):
                kernel.prepare(n)
                return

    def run(self, duration: float | None = None, every: int = 1):
        """Yield snapshot rows (:attr:`columns` order) from t = 0 to ``duration``.

        ``duration`` defaults to the scenario's.  The first row is the
        initial state; then one row every ``every`` steps, and always the
        final state.  The run takes ``round(duration/dt)`` steps of the
        initial ``dt``.  Raises :class:`SimulationFault` on a numerical fault.
        """
        for piece in self._pieces(duration, every):
            if isinstance(piece, tuple):
                yield piece
            else:
                for row in piece.tolist():
                    yield tuple(row)

    #: Most rows in one block of :meth:`blocks` (a few MB).
    BLOCK = 10_000

    def blocks(self, duration: float | None = None, every: int = 1):
        """:meth:`run`'s rows as arrays of rows, in order: with ``every`` = 1 and the main body alone, up to
        :attr:`BLOCK` steps a block, each block's steps in one call up to the next input or event
        (:meth:`sim.model.simulation.Simulation.step_rows`: the compiled loop writes the rows where it covers the
        body); else one row a block.  On a fault the rows of the good steps come first, then the
        :class:`SimulationFault`."""
        for piece in self._pieces(duration, every):
            yield np.array((piece,)) if isinstance(piece, tuple) else piece

    def _pieces(self, duration, every):
        """:meth:`blocks`, a row alone as the tuple :meth:`sim.model.simulation.Simulation.row` gave."""
        duration = self.scenario.duration if duration is None else duration
        n = round(duration / self.sim.settings.dt)
        applied: list = []
        self._events.apply(self.sim.t)
        yield self.sim.row()
        self._wait_for_kernels(n)
        sim, compare = self.sim, tuple(self.compare.values())
        k = 0
        while k < n:
            self._apply_inputs(applied)
            if every == 1 and not compare and self.ensemble is None:
                out = np.empty((min(n - k, self.BLOCK), len(self.columns)))
                start = sim.steps
                try:
                    m = self._rows_to_boundary(out, len(out))
                except SimulationFault:
                    yield out[:sim.steps - start]
                    raise
                k += m
                yield out[:m]
                continue
            m = min(every - k % every, n - k, self._boundary(n - k))
            sim.step(m)
            for other in compare:
                other.step(m)
            if self.ensemble is not None:
                self.ensemble.step(m)
            k += m
            self.total_steps += m
            self._events.apply(sim.t)
            if k % every == 0 or k == n:
                yield sim.row()
