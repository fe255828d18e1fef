"""The flight: one simulation flown in the window, without Qt.

A :class:`Flight` holds the simulation thread (:class:`app.worker.SimulationWorker`)
and what the user does to a run as a whole: open a scenario, record,
replay, reset, pause at the scenario's end, save the scenario flown.  The
window (:mod:`app.window`) calls it and shows what it returns; the flight
never shows anything itself and imports no Qt (import contract in
pyproject.toml), so it is tested without a screen (tests/app/flight/test_flight.py).

An action that starts a new run (:meth:`Flight.open_scenario`,
:meth:`Flight.start_recording`, :meth:`Flight.replay`) hands the worker a
new :class:`~sim.run.runner.Runner` and returns a :class:`Started`: the
scenario and the runner now flying, and what to tell the user.  An action
that cannot be done raises :class:`FlightError`, whose message says why;
the run goes on unchanged.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

from app.engine import EnsembleEngine
from app.worker import SimulationWorker
from sim import (
    reached, check_inputs, Recorder, RecordingError, replay, Runner, Scenario, ScenarioError, load_scenario as load,
    save as save_scenario_file, Settings, SettingsError, layout_axes,
)

#: The settings of one value per wheel (or a tuple of one per wheel).
_PER_WHEEL = ("wheel_speeds", "wheel_torques", "wheel_inertia", "wheel_torque_limit", "wheel_speed_limit",
              "wheel_friction")


def _with_wheels(settings: Settings, wheels) -> Settings:
    """``settings`` with ``wheels``; per-wheel values of another number of wheels back to their defaults."""
    count = len(layout_axes(wheels))
    changes = {"wheels": wheels}
    for key in _PER_WHEEL:
        value = getattr(settings, key)
        if isinstance(value, tuple) and len(value) != count:
            changes[key] = Settings.__dataclass_fields__[key].default
    return settings.replace(**changes)


def _fits(settings: Settings, changes: dict) -> bool:
    """Whether ``changes`` (an event's, a comparison body's) apply to ``settings`` without changing the wheels or
    the CMG cluster (the columns)."""
    try:
        changed = settings.replace(**changes)
        return changed.wheel_count == settings.wheel_count and changed.cmg == settings.cmg
    except SettingsError:
        return False

__all__ = ["Flight", "Started", "FlightError"]


class FlightError(Exception):
    """An action of the flight could not be done; the message says why (the run goes on unchanged)."""


@dataclass(frozen=True)
class Started:
    """A new run handed to the worker.

    Attributes
    ----------
    scenario : Scenario
        What flies now.
    settings : Settings
        The main body's settings as the run starts (frozen: read before the
        runner was handed to the worker's thread, which owns it from then on).
    reference : str
        The body the comparison errors are measured against
        (:attr:`sim.run.runner.Runner.reference`).
    notices : tuple of str
        What to tell the user, in order (none of them is an error).
    columns : tuple of str
        The columns of the run's rows (:attr:`sim.run.runner.Runner.columns`: a
        run with reaction wheels has a speed and a motor torque per wheel).
    """

    scenario: Scenario
    settings: Settings
    reference: str
    notices: tuple = ()
    columns: tuple = ()

    @classmethod
    def of(cls, scenario: Scenario, runner: Runner, notices: tuple = ()) -> Started:
        """What the window needs of a new run; call it before the runner goes to the worker."""
        return cls(scenario, runner.sim.settings, runner.reference, tuple(notices), runner.columns)


class Flight:
    """The simulation worker and the run-level actions of the window.

    Parameters
    ----------
    scenario : Scenario
        What to fly first (from :meth:`start` on).
    speed : float, optional
        Initial speed factor (:data:`app.worker.SPEED_RANGE`; default: the scenario's own, :attr:`Scenario.start_speed`).
    paced : bool
        False: the worker has no thread; its owner steps it
        (:meth:`SimulationWorker.advance_to`), as ``attitude-sim video`` does.
        Paced, an ensemble flies in a process of its own
        (:class:`app.engine.EnsembleEngine`, started by the first ensemble);
        unpaced, in the caller's thread.

    Attributes
    ----------
    worker : SimulationWorker
        The simulation thread: inputs (:meth:`SimulationWorker.send`, one entry at a time), run
        commands (pause, step, speed) and the batches it computed
        (:meth:`SimulationWorker.drain`).
    """

    def __init__(self, scenario: Scenario, speed: float | None = None, paced: bool = True):
        self._scenario = scenario
        self._engine = EnsembleEngine() if paced else None
        self._ensembles = self._engine.ensemble if self._engine is not None else None  # the runners' factory
        self._first = self._runner(scenario)
        self.worker = SimulationWorker(self._first, scenario.start_speed if speed is None else speed, paced)
        self._recording: str | None = None
        self._pause_at_end = bool(scenario.pause_at_end)
        self._prepare = None

    # ------------------------------------------------------------- lifecycle
    def start(self, prepare=None) -> Started:
        """Start flying the first scenario.

        Parameters
        ----------
        prepare : callable, optional
            ``prepare(scenario, runner)`` is called with every new runner
            before the worker runs it, this first one included (the window's
            ensemble view attaches its ensemble there, so it starts at t = 0).
        """
        self._prepare = prepare
        if prepare is not None:
            prepare(self._scenario, self._first)
        started = Started.of(self._scenario, self._first)
        self._arm_end()
        self.worker.start()
        return started

    def stop(self, timeout: float = 1.0) -> bool:
        """Stop the simulation thread, closing any recording, then the ensemble's process; True when it has ended."""
        stopped = self.worker.stop(timeout)
        if self._engine is not None and stopped:  # else the thread may still ask it for a frame
            self._engine.close()
        return stopped

    @property
    def engine(self) -> EnsembleEngine | None:
        """The process the ensembles fly in (None unpaced: they fly in the caller's thread)."""
        return self._engine

    def _runner(self, scenario: Scenario, recorder=None) -> Runner:
        """A runner of ``scenario``; FlightError when one of its events does not fit a body (the run flies on)."""
        try:
            return Runner(scenario, recorder=recorder, ensembles=self._ensembles)
        except SettingsError as exc:
            raise FlightError(str(exc)) from None

    # ----------------------------------------------------------------- state
    @property
    def scenario(self) -> Scenario:
        """The scenario flying now (as loaded; the settings in force are the worker's)."""
        return self._scenario

    @property
    def recording(self) -> str | None:
        """The file being recorded to, or None."""
        return self._recording

    @property
    def pause_at_end(self) -> bool:
        """Whether the run pauses when it reaches the scenario's duration."""
        return self._pause_at_end

    # ------------------------------------------------------------ run control
    def reset(self, angles_deg, rates, with_inputs=()) -> None:
        """Back to ``angles_deg`` and ``rates`` at t = 0, clearing a fault; the end pause holds again.

        ``with_inputs``: what the reset carries, in the same entry (:meth:`SimulationWorker.reset`).
        """
        self.worker.reset(angles_deg, rates, with_inputs)
        self._arm_end()

    def set_pause_at_end(self, pause: bool, t: float) -> None:
        """Pause (or not) at the scenario's end; ``t`` is the time shown now, s.

        Past the end, switching it on takes effect from the next reset.
        """
        self._pause_at_end = bool(pause)
        if not pause or not reached(t, self._scenario.duration):  # at or past the end: from the next reset on
            self._arm_end()

    def _arm_end(self) -> None:
        self.worker.pause_at(self._scenario.duration if self._pause_at_end else None)

    # --------------------------------------------------------------- new runs
    def open_scenario(self, name_or_path) -> Started:
        """Fly a built-in scenario or a scenario file from t = 0 (FlightError if it cannot be loaded)."""
        try:
            scenario = load(str(name_or_path))
        except ScenarioError as exc:
            raise FlightError(str(exc)) from None
        return self._start(scenario, self._runner(scenario), f"Scenario {scenario.name}: {scenario.title}", new=True)

    def current_scenario(self, angles_deg, rates) -> Scenario:
        """The scenario with the settings in force now and the given reset angles and rates."""
        settings = self.worker.settings.replace(angles_deg=angles_deg, rates=rates)
        return dataclasses.replace(self._scenario, settings=settings)

    def save_scenario(self, path, angles_deg, rates) -> None:
        """Write :meth:`current_scenario` as a scenario file (OSError when it cannot be written)."""
        save_scenario_file(self.current_scenario(angles_deg, rates), path)

    def change_wheels(self, wheels, angles_deg, rates) -> Started:
        """Fly :meth:`current_scenario` again from t = 0 with another number of reaction ``wheels``.

        A run keeps its number of wheels (its rows have a column per wheel),
        so another number starts a new run.  The values given per wheel
        (reset speeds, direct motor torques, per-wheel inertias or limits)
        that no longer fit go back to their defaults, and so do the scenario's
        events and comparison bodies that set them; a recording in progress
        is closed.  FlightError when the wheels do not fit the body.
        """
        scenario = self.current_scenario(angles_deg, rates)
        try:
            settings = _with_wheels(scenario.settings, wheels)
        except SettingsError as exc:
            raise FlightError(str(exc)) from None
        count = settings.wheel_count
        return self._fly_again(scenario, settings, f"{count} reaction wheel{'s' if count != 1 else ''}: the run "
                               "restarted at t = 0" if count else "No reaction wheels: the run restarted at t = 0")

    def change_cmg(self, changes: dict, angles_deg, rates) -> Started:
        """Fly :meth:`current_scenario` again from t = 0 with ``changes`` that put a CMG cluster on or off (issue 45:
        its rows have the cluster's columns), as :meth:`change_wheels` does for wheels."""
        scenario = self.current_scenario(angles_deg, rates)
        try:
            settings = scenario.settings.replace(**changes)
        except SettingsError as exc:
            raise FlightError(str(exc)) from None
        return self._fly_again(scenario, settings, f"CMGs {settings.cmg}: the run restarted at t = 0")

    def _fly_again(self, scenario, settings, message: str) -> Started:
        """``scenario`` with ``settings`` from t = 0: its events and comparison bodies that still fit."""
        compare = tuple((label, o) for label, o in scenario.compare if _fits(settings, o))
        events, scenario = scenario.events, dataclasses.replace(scenario, settings=settings, events=(), compare=compare)
        for event in events:  # those that still fit every body, in the order of the run
            try:
                check_inputs(dataclasses.replace(scenario, events=(*scenario.events, event)))
            except SettingsError:
                continue
            scenario = dataclasses.replace(scenario, events=(*scenario.events, event))
        return self._start(scenario, self._runner(scenario), message)

    def start_recording(self, path, angles_deg, rates) -> Started:
        """Restart :meth:`current_scenario` at t = 0 and record it to ``path``."""
        scenario = self.current_scenario(angles_deg, rates)
        runner = self._runner(scenario)  # before the file: a scenario that cannot fly records nothing
        try:
            runner.recorder = Recorder(path, scenario)
        except OSError as exc:
            raise FlightError(f"cannot record to {path}: {exc.strerror}") from None
        path = os.fspath(path)
        started = self._start(scenario, runner,
                              f"Recording to {path}: the run restarted at t = 0")
        self._recording = path
        return started

    def stop_recording(self) -> str | None:
        """Close the recording at the current step; returns what to tell the user (None: nothing recorded)."""
        if self._recording is None:
            return None
        self.worker.stop_recording()
        notice = f"Recording saved to {self._recording}"
        self._recording = None
        return notice

    def replay(self, path) -> Started:
        """Fly a recording; the worker pauses where the recording ended."""
        warnings = []
        try:
            runner, steps = replay(path, warn=warnings.append, ensembles=self._ensembles)
        except (RecordingError, OSError) as exc:
            raise FlightError(str(exc)) from None
        cut = " (no end mark: the recording was cut off; it replays to its last complete line)" if warnings else ""
        return self._start(runner.scenario, runner, f"Replaying {path}: {steps} steps; it pauses at the end{cut}",
                           stop_at=steps, new=True)

    def _start(self, scenario, runner, notice: str, stop_at=None, new: bool = False) -> Started:
        """Hand a new runner to the worker (a recording in progress is closed with the old one).

        The one rule of a scenario's start: a ``new`` scenario (opened or
        replayed) runs at its own speed (:attr:`~sim.run.scenario.Scenario.start_speed`), whatever the
        last one's speed and pause were; a restart of the scenario flown
        (other wheels, a recording) keeps the speed and the pause the user chose.
        """
        notices = []
        if self._recording is not None:  # the worker closes it with the old runner
            notices.append(f"Recording saved to {self._recording}")
            self._recording = None
        if self._prepare is not None:
            self._prepare(scenario, runner)
        started = Started.of(scenario, runner, (*notices, notice))  # before the hand-over
        self.worker.replace_runner(runner, stop_at)
        if new:
            self.worker.set_speed(scenario.start_speed)
            self.worker.pause(False)
        self._scenario = scenario
        self._pause_at_end = bool(scenario.pause_at_end)
        self._arm_end()
        return started
