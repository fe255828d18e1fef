"""The simulation thread: a plain loop that owns the Runner and paces it to wall time.

The GUI never touches the :class:`~sim.run.runner.Runner` state.  It sends inputs
with :meth:`SimulationWorker.send`, one entry at a time (the runner's thread-safe queue; an
entry takes effect at the next step) and commands (pause, single step, speed, reset, a new
runner) that the loop carries out between chunks.  Every batch of samples the
loop takes is kept, in order, until the GUI's frame timer collects them with
:meth:`SimulationWorker.drain`; nothing is dropped and neither side ever waits
for the other.

Pacing: simulated time follows wall time times the speed factor.  The loop
owes the simulation the wall time elapsed since the last chunk (times the
speed) and pays it in chunks of at most :data:`CHUNK_SECONDS` of wall time's
worth of simulated time, gathering at least :data:`MIN_TICK` of wall time's
worth per chunk (so at 1,000x with dt 0.5 s a batch holds 16 steps, not
one: each batch is a hand-over of the interpreter lock to the window), except
that a new input wakes it to take the next step as soon as it is due.  A
chunk also takes at most about :data:`CHUNK_WALL` of wall time (the steps'
measured cost decides how many), so the window gets a new state every
display frame even when a step is slow (10,000 ensemble bodies on a busy
machine), rather than one every tenth of a second.  When the machine cannot keep up, the debt is capped at
:data:`MAX_LAG` seconds of wall time, so the run falls behind openly: the
measured real-time factor (:attr:`SimulationWorker.sim_seconds` over wall
time) shows it, rather than the loop drifting ever further behind.

An unpaced worker (``paced=False``: ``attitude-sim video``) has no thread
and no clock: its owner steps it in its own thread to a simulated time
(:meth:`SimulationWorker.advance_to`), frame by frame, and everything else
(inputs, commands, batches) works as with the thread.
"""

from __future__ import annotations

import math
import queue
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim import TIME_TOLERANCE, reached, steps_until, LIMITS, Reset, SettingChange, Batch, Runner

__all__ = ["SimulationWorker", "Fault", "SPEED_RANGE", "CHUNK_SECONDS", "CHUNK_WALL", "MIN_TICK", "MAX_LAG"]

#: Smallest and largest speed factor (simulated seconds per wall second): :data:`sim.io.limits.LIMITS`' "speed".
#: Beyond what the machine can step, the run falls behind openly (:data:`MAX_LAG`).
SPEED_RANGE = (LIMITS["speed"].low, LIMITS["speed"].high)
#: Most simulated time taken in one chunk, in wall seconds' worth at the speed in force (at least 1x): 0.1 s
#: simulated at 1x, 100 s at 1,000x.  A limit in simulated seconds alone made every chunk one step at a
#: large speed with a long step (dt 0.5 s at 1,000x: 2,000 chunks, batches and interpreter-lock hand-overs a
#: wall second); :data:`CHUNK_WALL` still bounds a chunk's wall time.
CHUNK_SECONDS = 0.1
#: Most steps in one chunk, whatever ``dt`` (keeps commands prompt for tiny steps).
MAX_CHUNK_STEPS = 2000
#: Most wall time one chunk should take, s (under a display frame): steps of a measured cost per chunk.
CHUNK_WALL = 0.012
#: Least wall time between chunks, s (half a display frame): a chunk waits until
#: this much simulated time is due, so batches hold many steps, not one each.
MIN_TICK = 0.008
#: Longest sleep, s: the loop looks at its commands at least this often.
MAX_TICK = 0.05
#: Most wall time the loop tries to catch up, s; older debt is written off.
MAX_LAG = 0.25


@dataclass(frozen=True)
class Fault:
    """Why the simulation stopped: shown in the window until a reset.

    Attributes
    ----------
    message : str
        What went wrong (a :class:`~sim.model.simulation.SimulationFault` message
        already names the simulated time).
    t : float
        Simulated time of the last good state, s.
    where : str
        ``file:line in function`` of the innermost frame for an unexpected
        exception; empty for a numerical fault reported by the runner.
    """

    message: str
    t: float
    where: str = ""

    def __str__(self) -> str:
        text = self.message if self.message.startswith("t=") else f"t={self.t:.6g} s: {self.message}"
        return f"{text} (at {self.where})" if self.where else text


def _fault_from_exception(exc: BaseException, t: float) -> Fault:
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f"{Path(last.filename).name}:{last.lineno} in {last.name}"
    return Fault(f"{type(exc).__name__}: {exc}", t, where)


def _current(runner: Runner) -> Batch:
    """The runner's present state as an empty batch (no step taken).

    Without the ensemble when its frame cannot be had (its process died,
    :mod:`app.engine`): that failure is the fault being published, or
    the next step raises it again.
    """
    try:
        frame = runner.ensemble_frame()
    except Exception:
        frame = None
    return Batch(rows=np.empty((0, len(runner.columns))), last=runner.sim.snapshot(),
                 compare={label: sim.snapshot() for label, sim in runner.compare.items()},
                 ensemble=frame)


class SimulationWorker:
    """Runs a :class:`~sim.run.runner.Runner` in its own thread in real time.

    Parameters
    ----------
    runner : Runner
        Owned by the worker's thread from :meth:`start` on.
    speed : float, optional
        Simulated seconds per wall second, within :data:`SPEED_RANGE`.
    paced : bool, optional
        False: no thread; the owner steps the runner with :meth:`advance_to`.

    Attributes
    ----------
    steps_taken : int
        Steps taken since the worker started (all runners).
    sim_seconds : float
        Simulated time advanced since the worker started, s; its rate against
        wall time is the real-time factor.
    """

    def __init__(self, runner: Runner, speed: float = 1.0, paced: bool = True):
        self._paced = bool(paced)
        self._runner = runner  # the latest runner asked for: inputs go there
        self._active = runner  # the runner the loop steps (worker's thread only)
        self._stop_at = None
        self._pause_at: float | None = None
        self._at_end = False
        self._speed = self._clamp_speed(speed)
        self._paused = False
        self._fault: Fault | None = None
        self._commands: queue.SimpleQueue = queue.SimpleQueue()
        self._wake = threading.Event()
        self._stopping = False
        self._input_waiting = False
        self._lock = threading.Lock()
        self._outbox: list[Batch] = [_current(runner)]
        self._settings = runner.sim.settings
        self.steps_taken = 0
        self.sim_seconds = 0.0
        self._step_wall = 0.0  # wall time of one step, s (a running mean over the last chunks)
        self._listeners: tuple = ()  # called with (runner, batch) after every batch (add_listener)
        self._thread = threading.Thread(target=self._loop, name="attitude-sim worker", daemon=True)

    # ------------------------------------------------------------- lifecycle
    def start(self) -> None:
        """Start the simulation thread (an unpaced worker has none: nothing happens)."""
        if self._paced:
            self._thread.start()

    def stop(self, timeout: float = 1.0) -> bool:
        """Stop the thread and close any recording; True when it has ended."""
        self._stopping = True
        self._wake.set()
        if not self._paced:
            for runner in (self._active, self._runner):
                self._close_recording(runner)
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def advance_to(self, t: float) -> int:
        """Unpaced worker: carry out the commands and step until simulated time ``t`` is reached.

        In the caller's thread, to the first step boundary at or after ``t``
        (:func:`sim.model.events.steps_until`, so a change of ``dt`` on the way
        is followed); queued inputs take effect even when no step is due.
        Stops early while paused (the scenario's end) or at a fault.
        Returns the steps taken.
        """
        if self._paced:
            raise RuntimeError("advance_to: the worker is paced by its own thread")
        self._run_commands()
        if self._input_waiting:  # before the steps are counted: an input may change dt
            self._input_waiting = False
            self._advance(0)
        taken = 0
        while not self._paused and self._fault is None:
            sim = self._active.sim
            due = steps_until(sim.t, t, sim.settings.dt)
            if due == 0:
                break
            done = self._advance(min(due, self._chunk_limit(sim.settings.dt)))
            if done == 0:
                break
            taken += done
        if taken == 0 and self._fault is None:  # a fault stays as it was until a reset (as the thread's loop does)
            self._advance(0)  # queued inputs take effect, and the state now is published
        return taken

    @property
    def thread(self) -> threading.Thread:
        """The simulation thread."""
        return self._thread

    # ----------------------------------------------------------------- state
    @property
    def paused(self) -> bool:
        """True while paused by the user or at the end of a replay."""
        return self._paused

    @property
    def speed(self) -> float:
        """The speed factor in force."""
        return self._speed

    @property
    def fault(self) -> Fault | None:
        """The fault that stopped the simulation, until a reset."""
        return self._fault

    @property
    def settings(self):
        """The main body's :class:`~sim.model.settings.Settings` after the last chunk."""
        return self._settings

    @property
    def runner(self) -> Runner:
        """The latest runner (read only from the GUI: never step it or set its state)."""
        return self._runner

    @property
    def undrained(self) -> int:
        """Batches published and not yet taken by :meth:`drain` (the tests wait for 0 rather than sleep)."""
        with self._lock:
            return len(self._outbox)

    def drain(self) -> list[Batch]:
        """Every batch taken since the last call, oldest first."""
        with self._lock:
            batches, self._outbox = self._outbox, []
        return batches

    # ---------------------------------------------------------------- inputs
    def send(self, entry) -> None:
        """The one door for inputs: an entry of inputs that take effect at the same step (:meth:`Runner.send`).

        Checked in the caller's thread (SettingsError there, and nothing
        sent).  The worker wakes for it: the entry takes effect at the next
        step that is due, not at the end of a :data:`MIN_TICK` wait.
        """
        self._runner.send(entry)
        self._input_waiting = True
        self._wake.set()

    def add_listener(self, listener) -> None:
        """Call ``listener(runner, batch)`` in the simulation thread after every batch it takes (and publishes).

        For the live link (:mod:`app.link`): it must be quick, must never block
        and must never raise.  Add listeners before :meth:`start`.
        """
        self._listeners = (*self._listeners, listener)

    def submit(self, key: str, value=None) -> None:
        """:meth:`send` of one input: ``send(((key, value),))``."""
        self.send(((key, value),))

    def pause(self, paused: bool) -> None:
        """Pause or resume; wall time spent paused is not simulated afterwards."""
        self._command(self._do_pause, bool(paused))

    def step(self) -> None:
        """Take exactly one step while paused."""
        self._command(self._do_step)

    def set_speed(self, speed: float) -> None:
        """Change the speed factor (clamped to :data:`SPEED_RANGE`)."""
        self._command(self._do_speed, self._clamp_speed(speed))

    def reset(self, angles_deg, rates, with_inputs=()) -> None:
        """Back to ``angles_deg`` and ``rates`` at t = 0, clearing a fault.

        Sends ``angles_deg``, ``rates``, ``with_inputs`` (what the reset
        carries: a new ensemble, built from those angles; an ensemble body's
        inertia and gains) and ``reset`` as one entry through the runner's queue (so they take
        effect at one step, and a recording holds them); while paused the
        window shows the t = 0 state at once.
        """
        self._runner.send((SettingChange("angles_deg", angles_deg), SettingChange("rates", rates), *with_inputs,
                           Reset()))
        self._command(self._do_reset, self._runner)

    def replace_runner(self, runner: Runner, stop_at: int | None = None) -> None:
        """Run ``runner`` instead, from its present state; batches of the old one are dropped.

        The old runner's recording, if any, is closed.  With ``stop_at`` the
        worker pauses when the runner has taken that many steps (the end of
        a replay).
        """
        with self._lock:
            self._runner = runner
            self._outbox = []
            self._settings = runner.sim.settings
        self._command(self._do_replace, runner, stop_at)

    def pause_at(self, t: float | None) -> None:
        """Pause when the simulated time reaches ``t`` s (the end of a scenario); None: never.

        Holds until reached (then :attr:`at_end` is True until the run goes
        on, which clears it) or replaced by another call; a reset does not
        clear it, so a reset run pauses there again.
        """
        if t is not None and not (math.isfinite(t) and t > 0):
            raise ValueError(f"pause_at: must be a finite time > 0 or None, got {t!r}")
        self._command(self._do_pause_at, t)

    @property
    def at_end(self) -> bool:
        """True while paused because the time given to :meth:`pause_at` was reached."""
        return self._at_end and self._paused

    def republish(self) -> None:
        """Publish the runner's present state again (no step taken): a window that showed something else
        meanwhile (an attitude file) shows the simulation's state at once, also while paused."""
        self._command(lambda: self._publish(self._active, _current(self._active)))

    def stop_recording(self) -> None:
        """Close the runner's recording, if any, at the current step."""
        self._command(self._do_stop_recording)

    # ------------------------------------------------------- worker's thread
    @staticmethod
    def _clamp_speed(speed: float) -> float:
        speed = float(speed)
        if not math.isfinite(speed):
            raise ValueError(f"speed: {speed!r} is not a finite number")
        return min(max(speed, SPEED_RANGE[0]), SPEED_RANGE[1])

    def _command(self, function, *args) -> None:
        self._commands.put((function, args))
        self._wake.set()

    def _publish(self, runner: Runner, batch: Batch) -> None:
        with self._lock:
            if runner is self._runner:
                self._outbox.append(batch)
                self._settings = runner.sim.settings

    def _advance(self, n: int) -> int:
        """Take up to ``n`` steps, publish them and handle a fault; returns the steps taken."""
        runner = self._active
        dt = runner.sim.settings.dt
        start = time.perf_counter()
        try:
            batch = runner.advance(n)
        except Exception as exc:
            self._fault = _fault_from_exception(exc, runner.sim.t)
            self._publish(runner, _current(runner))
            return 0
        taken = len(batch.rows)
        if taken:
            each = (time.perf_counter() - start) / taken
            self._step_wall = each if self._step_wall == 0.0 else self._step_wall + 0.3 * (each - self._step_wall)
        self.steps_taken += taken
        self.sim_seconds += taken * dt
        self._publish(runner, batch)
        for listener in self._listeners:
            listener(runner, batch)
        if batch.fault is not None:
            self._fault = Fault(batch.fault, batch.last.t)
        if self._stop_at is not None and runner.total_steps >= self._stop_at:
            self._paused = True
            self._stop_at = None
        if self._pause_at is not None and reached(runner.sim.t, self._pause_at):
            self._paused = self._at_end = True
        if self._paused and batch.ensemble is not None and batch.ensemble.t != batch.last.t:
            self._show_ensemble(runner)
        return taken

    def _show_ensemble(self, runner: Runner) -> None:
        """Publish the state now, for a paused run to show its ensemble where its bodies are, not where the
        last batch's frame found them (a frame from another process is up to a batch behind, :mod:`app.engine`)."""
        self._publish(runner, _current(runner))

    def _chunk_limit(self, dt: float) -> int:
        limit = max(1, int(CHUNK_SECONDS * max(self._speed, 1.0) / dt))
        if self._step_wall > 0.0:
            limit = min(limit, max(1, int(CHUNK_WALL / self._step_wall)))
        if self._stop_at is not None:
            limit = min(limit, self._stop_at - self._active.total_steps)
        if self._pause_at is not None:
            t = self._active.sim.t
            if not reached(t, self._pause_at):  # else the run went on past it: no limit
                limit = min(limit, steps_until(t, self._pause_at, dt))
        return max(1, min(limit, MAX_CHUNK_STEPS))

    def _do_pause(self, paused):
        if paused and not self._paused and self._active.ensemble is not None:
            self._show_ensemble(self._active)
        self._paused = paused
        if not paused and self._at_end:  # run on past the end: do not stop there again
            self._at_end = False
            self._pause_at = None

    def _do_pause_at(self, t):
        self._pause_at, self._at_end = t, False

    def _do_step(self):
        if self._paused and self._fault is None:
            self._advance(1)

    def _do_speed(self, speed):
        self._speed = speed

    def _do_reset(self, runner):
        if runner is not self._active:
            return
        self._fault = None
        if self._paused:
            self._advance(0)  # applies the queued reset and shows t = 0 at once

    def _do_replace(self, runner, stop_at):
        self._close_recording(self._active)
        self._active, self._stop_at, self._fault = runner, stop_at, None
        self._publish(runner, _current(runner))

    def _do_stop_recording(self):
        self._close_recording(self._active)

    @staticmethod
    def _close_recording(runner):
        if runner.recorder is not None:
            runner.recorder.close(runner.total_steps)
            runner.recorder = None

    def _run_commands(self) -> None:
        while True:
            try:
                function, args = self._commands.get_nowait()
            except queue.Empty:
                return
            function(*args)

    def _loop(self) -> None:
        debt = 0.0  # simulated seconds owed to wall time
        last = time.perf_counter()
        while not self._stopping:
            self._wake.clear()
            try:
                self._run_commands()
                now = time.perf_counter()
                if self._paused or self._fault is not None:
                    debt, last = 0.0, now
                    self._wake.wait(MAX_TICK)
                    continue
                debt = min(debt + (now - last) * self._speed, MAX_LAG * self._speed)
                last = now
                dt = self._active.sim.settings.dt
                due = int((debt + TIME_TOLERANCE) / dt)  # whole steps owed; k * dt in floating point
                enough = 1 if self._input_waiting else max(1, math.ceil(MIN_TICK * self._speed / dt - 1e-9))
                if due < enough:
                    self._wake.wait(min((enough * dt - debt) / self._speed, MAX_TICK))
                    continue
                self._input_waiting = False
                debt -= self._advance(min(due, self._chunk_limit(dt))) * dt
            except Exception as exc:
                self._fault = _fault_from_exception(exc, self._active.sim.t)
        for runner in (self._active, self._runner):
            self._close_recording(runner)
