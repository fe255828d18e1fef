"""Recording and replay of runs, bit for bit.

A recording is JSON Lines: the first line holds the scenario at the start
(its settings, events and comparison bodies), every later line one input
with the global step number before which it took effect, or an ``alive``
mark with the step reached.  Floats are written with ``repr`` precision, so
replaying the inputs at the same steps reproduces the states exactly.  The
file is flushed after every line and at least once a second, so killing the
process loses at most the last second.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from sim.runner import RESET, Runner
from sim.scenario import Event, Scenario, ScenarioError
from sim.settings import KEYS, Settings, SettingsError, validate

__all__ = ["Recorder", "load_recording", "replay", "RecordingError", "FORMAT"]

FORMAT = "attitude-sim recording"
VERSION = 1


class RecordingError(ValueError):
    """A recording file cannot be read; the message names the file and line."""


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


def _scenario_header(scenario: Scenario) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": scenario.name,
        "title": scenario.title,
        "caption": scenario.caption,
        "duration": scenario.duration,
        "settings": {k: _jsonable(v) for k, v in scenario.settings.as_dict().items()},
        "events": [{"at": e.at, **{k: _jsonable(v) for k, v in e.changes.items()}}
                   for e in scenario.events],
        "compare": [{"label": label, **{k: _jsonable(v) for k, v in o.items()}}
                    for label, o in scenario.compare],
    }


class Recorder:
    """Writes a recording as the run goes.

    Parameters
    ----------
    path : path-like
    scenario : Scenario
        The scenario at the start of the recording (with the settings in
        force then).
    """

    def __init__(self, path, scenario: Scenario):
        self.path = Path(path)
        self._file = open(self.path, "w", encoding="utf-8")
        self._last_flush = time.monotonic()
        self._last_alive = -1
        self._write(_scenario_header(scenario))

    def _write(self, record: dict):
        self._file.write(json.dumps(record, allow_nan=False) + "\n")
        self._file.flush()
        self._last_flush = time.monotonic()

    def input(self, step: int, key: str, value) -> None:
        """Record an input applied before global step ``step``."""
        self._write({"step": step, "key": key, "value": _jsonable(value)})

    def alive(self, step: int) -> None:
        """Note the step reached; written at most once a second."""
        if step != self._last_alive and time.monotonic() - self._last_flush >= 1.0:
            self._last_alive = step
            self._write({"alive": step})

    def close(self, step: int | None = None) -> None:
        if self._file.closed:
            return
        if step is not None:
            self._write({"end": step})
        self._file.close()


def load_recording(path):
    """Read a recording: returns ``(scenario, inputs, last_step)``.

    ``inputs`` is a list of ``(step, key, value)``; ``last_step`` the last
    step the recording reached (from ``end`` or ``alive`` marks or inputs).
    A truncated last line (the process was killed while writing) is ignored.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordingError(f"{path}: cannot read recording ({exc})") from None
    if not lines:
        raise RecordingError(f"{path}: empty file, not a recording")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise RecordingError(f"{path}, line 1: not a recording header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise RecordingError(f"{path}, line 1: not an attitude-sim recording")
    scenario = _header_scenario(header, path)
    inputs, last = [], 0
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                break  # cut off by a kill while writing
            raise RecordingError(f"{path}, line {number}: not valid JSON") from None
        if "step" in record and "key" in record:
            key = record["key"]
            step = record["step"]
            if key != RESET and key not in KEYS:
                raise RecordingError(f"{path}, line {number}: unknown input {key!r}")
            value = record.get("value")
            try:
                value = None if key == RESET else validate(key, value)
            except SettingsError as exc:
                raise RecordingError(f"{path}, line {number}: {exc}") from None
            inputs.append((int(step), key, value))
            last = max(last, int(step))
        elif "alive" in record or "end" in record:
            last = max(last, int(record.get("end", record.get("alive"))))
        else:
            raise RecordingError(f"{path}, line {number}: unknown record")
    return scenario, inputs, last


def _header_scenario(header: dict, path) -> Scenario:
    try:
        settings = Settings().replace(**header["settings"])
        events = tuple(Event(float(e["at"]), {k: validate(k, v)
                                              for k, v in e.items() if k != "at"})
                       for e in header.get("events", []))
        compare = tuple((c["label"], {k: validate(k, v)
                                      for k, v in c.items() if k != "label"})
                        for c in header.get("compare", []))
    except (KeyError, TypeError, SettingsError, ScenarioError) as exc:
        raise RecordingError(f"{path}, line 1: bad scenario in header ({exc})") from None
    return Scenario(name=header.get("name", "recording"), title=header.get("title", ""),
                    caption=header.get("caption", ""), duration=float(header.get("duration", 20.0)),
                    settings=settings, events=events, compare=compare)


def replay(path, steps: int | None = None):
    """A Runner that replays a recording; yields nothing itself.

    Returns ``(runner, steps)``: advance ``runner`` by ``steps`` (default: the
    last step the recording reached) to reproduce the recorded run.
    """
    scenario, inputs, last = load_recording(path)
    runner = Runner(scenario)
    for step, key, value in inputs:
        runner.schedule(step, key, value)
    return runner, last if steps is None else steps
