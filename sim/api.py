"""The Python API for scripts and notebooks: run, record, replay, load and save.

What ``attitude-sim run`` and ``attitude-sim replay`` do, as functions that
return numpy columns (docs/API.md has worked examples; the command line uses
these same functions)::

    >>> from sim import api
    >>> result = api.run("hoffmann")
    >>> float(result["t"][-1]), result["psi_deg"].shape
    (1.0, (11,))

A result is a dict of 1-D float arrays, one per column, in order: the
columns of the CSV (:func:`sim.model.rows.columns`: with reaction wheels,
``wheel1..N`` and ``ux1..N`` after ``qc4``) for the main body, then for
every comparison body of the scenario its columns but ``t``, named
``"<label>:<column>"`` (e.g. ``"rk4:q1"``).  Quaternions are scalar last,
Hoffmann's convention (inertial -> body); angles in degrees where a name ends
in ``_deg``.  ``hx, hy, hz`` is the total angular momentum (body and wheels)
in inertial axes.

A torque of your own, ``user_torque=f`` with ``f(t, q, w) -> (tx, ty, tz)``
(N m, body axes), acts on every body of the run besides the scenario's
torques (:func:`run`, :func:`stream`; docs/API.md has an example).

Runs whose step count the machine cannot finish in reasonable time are
refused up front (:class:`RunTooLong`, with the step count and an estimate
measured on this machine) unless ``force=True``; runs whose rows would need
more memory than the machine has available are refused, forced or not
(:func:`sim.io.limits.check_cost`, the one gate of every estimate).
"""

from __future__ import annotations

import math
import operator
import os
from dataclasses import replace as _replace

import numpy as np

from sim.io.conventions import Convention, convert_result
from sim.io.limits import LIMITS, RunTooLong, as_number, check_cost, duration_text, least_seconds
from sim.run.recording import Recorder, load_recording
from sim.run.context import check_inputs
from sim.run.runner import Runner
from sim.run.scenario import MAX_DURATION, Scenario, load
from sim.run.scenario_toml import dumps as scenario_toml
from sim.run.scenario_writer import save
from sim.model.settings import Settings, SettingsError, validate
from sim.model.simulation import Simulation, SimulationFault
from sim.model.rows import COLUMNS
from sim.model.rows import columns_of as body_columns

__all__ = ["run", "replay", "record", "stream", "replay_stream", "columns", "to_dataframe",
           "load_scenario", "save_scenario", "scenario_toml", "as_scenario", "plan", "Plan",
           "RunTooLong", "MAX_SECONDS", "MAX_RESULT_BYTES"]

#: Longest run accepted without ``force``: its estimated wall time, s (:data:`sim.io.limits.LIMITS`).
MAX_SECONDS = LIMITS["run_seconds"].high
#: Largest result :func:`run` and :func:`replay` hold in memory without ``force``, bytes; with
#: ``force`` the limit is what the machine has available (:func:`sim.io.limits.check_cost`).
MAX_RESULT_BYTES = 2 << 30
#: Below this many steps a run is accepted without measuring the cost per step
#: (100,000 steps take seconds even with several comparison bodies).
_CALIBRATE_ABOVE = 100_000
_WIDTH = len(COLUMNS)


# ------------------------------------------------------------------ inputs
def as_scenario(source=None) -> Scenario:
    """A :class:`~sim.run.scenario.Scenario` from a scenario, settings, a built-in name or a file path.

    ``None`` is the built-in ``default``; a :class:`~sim.model.settings.Settings`
    becomes a scenario with the default duration (20 s) and no events.
    """
    if source is None:
        return load("default")
    if isinstance(source, Scenario):
        return source
    if isinstance(source, Settings):
        return Scenario(name="settings", settings=source)
    if isinstance(source, (str, os.PathLike)):
        return load(os.fspath(source))
    raise TypeError(f"expected a Scenario, Settings, a scenario name or a path, got {type(source).__name__}")


def load_scenario(name_or_path) -> Scenario:
    """Load a built-in scenario by name or a ``.toml`` file (raises ScenarioError with file and line)."""
    return load(os.fspath(name_or_path))


def save_scenario(scenario: Scenario, path) -> None:
    """Write ``scenario`` as a TOML file that :func:`load_scenario` reads back equal."""
    save(scenario, path)  # through a temporary file: never half a scenario


def columns(scenario: Scenario) -> tuple:
    """Column names of a result of ``scenario``: the CSV's, then ``"<label>:<column>"`` per comparison body.

    A body with reaction wheels has ``wheel1..N`` and ``ux1..N`` besides
    (:func:`sim.model.rows.columns`).
    """
    settings = scenario.settings
    extra = tuple(f"{label}:{c}" for label, overrides in scenario.compare
                  for c in _body_columns(settings.replace(**overrides))[1:])
    return _body_columns(settings) + extra


def _body_columns(settings) -> tuple:
    return body_columns(settings)


# ------------------------------------------------------------------ planning
class Plan:
    """How big a run is: steps, rows, estimated seconds; :meth:`check` refuses the impossible ones."""

    def __init__(self, scenario: Scenario, steps: int, every: int, user_torque=None):
        self.scenario = scenario
        self.user_torque = user_torque
        self.steps = steps
        self.every = every
        self.rows = 1 + -(-steps // every)
        self.width = len(columns(scenario))
        self._seconds = None

    @property
    def seconds(self) -> float:
        """Estimated wall time: measured cost per step and per row times the counts.

        The user's torque function is never called to measure it (it may
        keep state: a filter, a one-shot thruster); its own time is left out
        of the estimate.
        """
        if self._seconds is None:
            step_cost, row_cost = _measure_costs(self.scenario)
            self._seconds = self.steps * step_cost + self.rows * row_cost
        return self._seconds

    def is_long(self, seconds: float = 2.0) -> bool:
        """True when the run is estimated to take more than ``seconds`` (worth a progress bar)."""
        return self.steps > _CALIBRATE_ABOVE // 10 and self.seconds > seconds

    def memory(self, in_memory: bool) -> int:
        """Bytes the run holds at once: its rows when they are kept in memory (:func:`run`, npz), else one chunk."""
        return self.rows * self.width * 8 if in_memory else 500 * self.width * 64

    def check(self, *, in_memory: bool = False, force: bool = False,
              hint: str = "force=True runs it anyway") -> Plan:
        """Raise :class:`RunTooLong` unless the run fits this machine (:func:`sim.io.limits.check_cost`).

        Refused: more memory than the machine has available (``in_memory``:
        the rows are held in memory, :func:`run` and npz), whatever
        ``force`` says; more than :data:`MAX_RESULT_BYTES` of rows in memory
        or :data:`MAX_SECONDS` of estimated wall time unless ``force``.
        ``hint`` ends the message (how to force it).
        """
        what = f"{self.rows:,} rows of {self.width} columns"
        memory = self.memory(in_memory)
        check_cost(what, memory=memory, memory_hint="keep only every N-th step (every=N, --every N) or write CSV")
        if not force and in_memory and memory > MAX_RESULT_BYTES:
            raise RunTooLong(f"{what} would need {memory / 2**30:.1f} GiB in memory (at most "
                             f"{MAX_RESULT_BYTES / 2**30:g} GiB unless forced); keep only every N-th step; {hint}")
        if not force and self.steps > _CALIBRATE_ABOVE:
            check_cost(f"{self.steps:,} steps", seconds=self.seconds, most_seconds=MAX_SECONDS,
                       hint=f"use a larger dt or a shorter duration; {hint}")
        return self


def plan(scenario: Scenario, duration: float | None = None, every: int = 1, user_torque=None) -> Plan:
    """The :class:`Plan` of running ``scenario`` for ``duration`` s (default: its own).

    Raises
    ------
    SettingsError
        If ``duration`` is not a number > 0 or ``every`` is not an integer >= 1.
    RunTooLong
        If ``duration`` is beyond :data:`~sim.run.scenario.MAX_DURATION` (no force
        runs that); the message gives the step count and the time it would take.
    """
    duration = scenario.duration if duration is None else _duration(duration)
    every = _every(every)
    dt = scenario.settings.dt
    if duration > MAX_DURATION:
        steps = duration / dt
        step_cost, row_cost = _measure_costs(scenario)  # never the user's function (Plan.seconds)
        seconds = steps * step_cost + steps / every * row_cost
        raise RunTooLong(f"duration {duration:g} s is beyond {MAX_DURATION:g} s of simulated time: "
                         + (f"{steps:.3g} steps at dt={dt:g} s would take about "
                            f"{duration_text(seconds)} here" if math.isfinite(seconds) else
                            f"more steps at dt={dt:g} s than a float can count, which would never end"))
    return Plan(scenario, round(duration / dt), every, user_torque)


def _duration(value, name: str = "duration") -> float:
    """A duration: a finite number > 0 (the cap is :func:`plan`'s to state); text is refused (a script's slip)."""
    if isinstance(value, (str, bytes)):
        raise SettingsError(f"{name}: expected a number of seconds, got the text {value!r}")
    x = as_number(name, value)
    if x <= 0:
        raise SettingsError(f"{name}: must be a finite number > 0 s, got {value!r}")
    return x


def _every(every) -> int:
    """``every``: a whole number >= 1 (an int or a numpy integer, never a bool or a float); SettingsError."""
    try:
        n = None if isinstance(every, bool) else operator.index(every)
    except TypeError:
        n = None
    if n is None or n < 1:
        raise SettingsError(f"every: must be an integer >= 1, got {every!r}")
    return n


def _input_time(t) -> float:
    """An input's time for :func:`record`: a finite number of seconds >= 0, within the longest run."""
    if isinstance(t, (str, bytes)):
        raise SettingsError(f"input time: expected a number of seconds, got the text {t!r}")
    x = as_number("input time", t)
    if x < 0:
        raise SettingsError(f"input time: must be >= 0 s, got {t!r}")
    if x > MAX_DURATION:
        raise SettingsError(f"input time {t!r} is beyond {MAX_DURATION:g} s")
    return x


def _measure_costs(scenario: Scenario, repeats: int = 3) -> tuple:
    """Seconds per step (every body) and per output row, measured on copies of the bodies.

    The copies fly without the user's torque function: calling it on
    throw-away bodies before the run would corrupt a function that keeps
    state, so the estimate leaves out its time.

    Each cost is the least of ``repeats`` short timings: a busy machine that
    takes the core away during one of them (tens of milliseconds, longer
    than the timing itself) would otherwise inflate the estimate many times
    over and refuse a run that takes minutes.
    """
    sims = [Simulation(scenario.settings)] + [Simulation(scenario.settings, **o) for _, o in scenario.compare]
    n = 256
    step_cost = row_cost = 0.0
    for sim in sims:
        def steps(sim=sim):
            try:
                sim.step(n)
            except SimulationFault:
                pass  # a cost is still measured; the run itself reports the fault

        def rows(sim=sim):
            for _ in range(32):
                ",".join(map(repr, sim.row()[:_WIDTH + 2 * sim.wheel_count]))

        step_cost += least_seconds(steps, repeats) / n  # sim.io.limits.least_seconds: the least of the timings
        row_cost += least_seconds(rows, repeats) / 32
    return step_cost, row_cost


# ------------------------------------------------------------------ running
def stream(scenario: Scenario, duration: float | None = None, every: int = 1, progress=None, user_torque=None):
    """Yield the rows of a run (tuples in :func:`columns` order): t = 0, every ``every``-th step, the end.

    ``progress`` is an object with ``update(n)`` (e.g. a tqdm bar) told the
    steps taken; ``user_torque`` a function ``f(t, q, w) -> (tx, ty, tz)``
    (N m, body axes) acting on every body besides the scenario's torques.
    This is what the command line writes as CSV; nothing is checked here
    (see :func:`plan`).  The run is built when this is called, so a setting
    that cannot be flown raises here, not at the first row.
    """
    duration = None if duration is None else _duration(duration)
    return _stream_rows(Runner(scenario, user_torque=user_torque), duration, _every(every), progress)


def _stream_rows(runner, duration, every, progress):
    n = len(runner.sim.columns())
    others = tuple((sim, len(sim.columns())) for sim in runner.compare.values())
    done = 0
    for row in runner.run(duration, every):
        if others:
            row = row[:n] + tuple(x for sim, m in others for x in sim.row()[1:m])
        else:
            row = row[:n]
        if progress is not None and runner.total_steps != done:
            progress.update(runner.total_steps - done)
            done = runner.total_steps
        yield row


def replay_stream(path, every: int = 1, progress=None, steps: int | None = None):
    """Yield the rows of a recording's replay, as :func:`stream` does for a run (built when called)."""
    every = _every(every)
    scenario, inputs, last = load_recording(path)
    steps = last if steps is None else steps
    runner = Runner(scenario)
    for step, key, value in inputs:
        runner.schedule(step, key, value)
    return _replay_rows(runner, steps, every, progress)


def _replay_rows(runner, steps, every, progress):
    n = len(runner.sim.columns())
    others = tuple((sim, len(sim.columns())) for sim in runner.compare.values())

    def full(row):
        return tuple(row[:n]) + tuple(x for sim, m in others for x in sim.row()[1:m])

    yield full(runner.sim.row())
    done = 0
    while done < steps:
        chunk = min(10_000, steps - done)
        if others:  # stop at each output row to read the comparison bodies' state there
            chunk = min(chunk, every - done % every)
        batch = runner.advance(chunk)
        if batch.fault:
            raise SimulationFault(batch.fault, batch.last.t)
        if others:
            done += len(batch.rows)
            if done % every == 0 or done == steps:
                yield full(batch.rows[-1].tolist())
        else:
            for k, row in enumerate(batch.rows, start=done + 1):
                if k % every == 0 or k == steps:
                    yield tuple(row[:n].tolist())
            done += len(batch.rows)
        if progress is not None:
            progress.update(len(batch.rows))


def _collect_blocks(runner, duration, plan_: Plan, progress) -> dict:
    """:func:`_collect` of a run of the main body alone from :meth:`sim.run.runner.Runner.blocks` (arrays of rows,
    written by the compiled loop where it covers the body): the rows copied block by block."""
    names = columns(plan_.scenario)
    table = np.empty((len(names), plan_.rows))
    i = done = 0
    for block in runner.blocks(duration, plan_.every):
        table[:, i:i + len(block)] = block[:, :len(names)].T
        i += len(block)
        if progress is not None and runner.total_steps != done:
            progress.update(runner.total_steps - done)
            done = runner.total_steps
    return {name: table[k, :i] for k, name in enumerate(names)}


def _collect(rows, plan_: Plan) -> dict:
    """The rows as columns: one block of memory (column after column), each column a view of it."""
    names = columns(plan_.scenario)
    table = np.empty((len(names), plan_.rows))
    i = 0
    for i, row in enumerate(rows):
        table[:, i] = row
    return {name: table[k, :i + 1] for k, name in enumerate(names)}


def run(source=None, duration: float | None = None, every: int = 1, *, force: bool = False,
        progress: bool = False, user_torque=None, quaternion: str = "scalar-last",
        direction: str = "inertial-to-body", **changes) -> dict:
    """Run a scenario headless; returns a dict of numpy columns (see :func:`columns`).

    Parameters
    ----------
    source : Scenario, Settings, str or path, optional
        What to run (default: the built-in ``default`` scenario).
    duration : float, optional
        Simulated time, s (default: the scenario's).  The run takes
        ``round(duration / dt)`` steps.
    every : int
        Keep every ``every``-th step; the first (t = 0) and the last rows
        are always kept.
    force : bool
        Run even when the run is estimated to take more than
        :data:`MAX_SECONDS` or hold more than :data:`MAX_RESULT_BYTES`
        (never when its rows need more memory than the machine has).
    progress : bool
        Show a tqdm progress bar on stderr.
    user_torque : callable, optional
        ``f(t, q, w) -> (tx, ty, tz)``: a torque of your own (N m, body
        axes) at time ``t`` (s), attitude ``q`` (scalar last) and body rates
        ``w`` (rad/s), acting on every body beside the scenario's torques and
        evaluated at every stage of the integrator.  It acts on the body
        directly, not through reaction wheels.
    quaternion, direction : str
        The convention of the quaternion columns returned
        (:mod:`sim.io.conventions`): ``"scalar-last"`` (default, columns
        ``q1..q4``) or ``"scalar-first"`` (columns ``q0..q3``, ``q0`` the
        scalar); ``"inertial-to-body"`` (default, this project's Q) or
        ``"body-to-inertial"`` (its conjugate).  Only the result is converted.
    **changes
        Settings to change (validated), e.g. ``integrator="rk4"``.

    Raises
    ------
    SettingsError, ScenarioError
        Bad input.
    RunTooLong
        The run would not finish in reasonable time (message: steps, estimate).
    SimulationFault
        A numerical fault; the message gives the time.
    """
    convention = _convention(quaternion, direction)
    scenario = as_scenario(source)
    if changes:
        scenario = _replace(scenario, settings=scenario.settings.replace(**changes))
    if user_torque is not None and not callable(user_torque):
        raise TypeError(f"user_torque must be a function f(t, q, w) -> (tx, ty, tz), got {user_torque!r}")
    duration = None if duration is None else _duration(duration)
    p = plan(scenario, duration, every, user_torque).check(in_memory=True, force=force)
    with _bar(p.steps, progress) as bar:
        runner = Runner(scenario, user_torque=user_torque)
        if not runner.compare:  # the main body alone: its rows a block at a time
            return convert_result(_collect_blocks(runner, duration, p, bar), convention)
        return convert_result(_collect(_stream_rows(runner, duration, p.every, bar), p), convention)


def replay(path, every: int = 1, *, force: bool = False, progress: bool = False,
           quaternion: str = "scalar-last", direction: str = "inertial-to-body") -> dict:
    """Replay a recording; returns the states as :func:`run` does, bit for bit those of the recorded run.

    ``quaternion`` and ``direction`` choose the convention of the quaternion
    columns, as for :func:`run`.
    """
    convention = _convention(quaternion, direction)
    scenario, _, last = load_recording(path)
    every = _every(every)
    p = Plan(scenario, last, every).check(in_memory=True, force=force)
    with _bar(p.steps, progress) as bar:
        return convert_result(_collect(replay_stream(path, every, bar), p), convention)


def _convention(quaternion, direction) -> Convention:
    try:
        return Convention(quaternion, direction)
    except ValueError as exc:
        raise SettingsError(str(exc)) from None


def record(source, path, duration: float | None = None, inputs=(), *, force: bool = False) -> int:
    """Run a scenario with inputs and record it to ``path`` (JSON Lines); returns the steps taken.

    ``inputs`` is a sequence of ``(t, key, value)``: setting ``key`` changes
    to ``value`` before the first step at or after ``t`` s (counted in steps
    of the initial dt: ``round(t / dt)``); ``key`` may be ``"reset"``.
    :func:`replay` of the file reproduces the run bit for bit.  An input
    that does not fit a body it reaches (three wheel torques for four
    wheels) raises SettingsError naming it, before the file is made
    (:func:`sim.run.context.check_inputs`).
    """
    scenario = as_scenario(source)
    p = plan(scenario, duration).check(force=force)
    schedule, where = [], []
    for i, (t, key, value) in enumerate(inputs):
        t = _input_time(t)
        step = round(t / scenario.settings.dt)
        schedule.append((step, key, None if key == "reset" else validate(key, value)))
        where.append(f"inputs[{i}] ({key!r} at t={t:g} s)")
    check_inputs(scenario, schedule, where)  # each against the bodies it reaches, before the file is made
    runner = Runner(scenario)
    recorder = runner.recorder = Recorder(path, scenario)
    try:
        for step, key, value in schedule:
            runner.schedule(step, key, value)
        done = 0
        while done < p.steps:
            batch = runner.advance(min(10_000, p.steps - done))
            done += len(batch.rows)
            if batch.fault:
                raise SimulationFault(batch.fault, batch.last.t)
    finally:
        recorder.close(runner.total_steps)
    return done


def to_dataframe(result: dict):
    """A pandas DataFrame of a result (pandas is optional: ImportError says how to get it)."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_dataframe needs pandas, which attitude-sim does not install: "
                          "pip install pandas") from None
    return pandas.DataFrame(result, copy=False)


class _NoBar:
    def update(self, n):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _bar(total: int, show: bool):
    if not show:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="step", unit_scale=True, mininterval=0.5, leave=False)
