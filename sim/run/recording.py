"""Recording and replay of runs, bit for bit.

A recording is JSON Lines: the first line holds the scenario at the start
(its settings, events, comparison bodies and ``[ensemble]`` table), every
later line one input with the global step number before which it took
effect (a setting, a reset, or an ensemble started with its
:class:`~sim.ensemble.EnsembleSpec` fields or removed), or an ``alive``
mark with the step reached.  Floats are written with ``repr`` precision, so
replaying the inputs at the same steps reproduces the states exactly.  The
file is flushed after every line and at least once a second, so killing the
process loses at most the last second.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

from sim.ensemble import EnsembleSpec
from sim.run.context import check_inputs
from sim.run.runner import ENSEMBLE, RESET, Runner
from sim.io.reading import FileRefused, read_regular
from sim.io.limits import LIMITS, short_repr
from sim.run.scenario import MAX_DURATION, Event, Scenario
from sim.model.settings import KEYS, Settings, SettingsError, validate

__all__ = ["Recorder", "load_recording", "replay", "RecordingError", "FORMAT"]

FORMAT = "attitude-sim recording"
#: The version of the format written; a reader reads every version up to its own.
VERSION = 1
#: Largest recording and longest line accepted, bytes (an input line is about
#: 60 bytes; the header holds a scenario, itself at most 1 MiB): :data:`sim.io.limits.LIMITS`.
MAX_FILE_BYTES = LIMITS["recording_bytes"].high
MAX_LINE_BYTES = LIMITS["recording_line_bytes"].high
#: Largest step number accepted (10^12 steps: about two months of computing).
MAX_STEP = 10 ** 12


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
        **{key: getattr(scenario, key) for key in ("speed", "plot_seconds") if getattr(scenario, key) is not None},
        "settings": {k: _jsonable(v) for k, v in scenario.settings.as_dict().items()},
        "events": [{"at": e.at, **{k: _jsonable(v) for k, v in e.changes.items()}}
                   for e in scenario.events],
        "compare": [{"label": label, **{k: _jsonable(v) for k, v in o.items()}}
                    for label, o in scenario.compare],
        **({"ensemble": dataclasses.asdict(scenario.ensemble)} if scenario.ensemble is not None else {}),
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
        try:
            self._file.write(json.dumps(record, allow_nan=False) + "\n")
            self._file.flush()
        except OSError as exc:  # disk full, I/O error: say which file
            raise OSError(exc.errno, f"cannot write the recording {self.path}: {exc.strerror}") from None
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
        """Write the ``end`` mark and close; never raises (a failed write was already
        reported by the input that hit it, and the file stays loadable)."""
        if self._file.closed:
            return
        try:
            if step is not None:
                self._write({"end": step})
        except OSError:
            pass
        finally:
            try:
                self._file.close()
            except OSError:  # the flush of a line a full disk refused
                pass


def load_recording(path, warn=None):
    """Read a recording: returns ``(scenario, inputs, last_step)``.

    ``inputs`` is a list of ``(step, key, value)``; ``last_step`` the last
    step the recording reached (from ``end`` or ``alive`` marks or inputs).
    A truncated last line (the process was killed while writing) is ignored.
    The header's ``version`` must be one this reader knows (1 to
    :data:`VERSION`).

    ``warn(text)``, when given, is told in one line when the recording has
    no ``end`` mark: it was cut off (the recording program was killed, or
    the disk filled up) and replays only to its last complete input or
    ``alive`` mark.
    """
    if not path:
        raise RecordingError("no recording given (an empty name)")
    path = Path(path)
    try:
        lines = read_regular(path, MAX_FILE_BYTES, MAX_LINE_BYTES, "recording").decode("utf-8").splitlines()
    except FileRefused as exc:
        raise RecordingError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise RecordingError(f"{path}: not UTF-8 text (byte {exc.start}), not a recording") from None
    if not lines:
        raise RecordingError(f"{path}: empty file, not a recording")
    try:
        header = json.loads(lines[0])
    except (ValueError, RecursionError):  # JSONDecodeError, too many digits, nesting too deep
        raise RecordingError(f"{path}, line 1: not a recording header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise RecordingError(f"{path}, line 1: not an attitude-sim recording")
    version = header.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= VERSION:
        if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
            raise RecordingError(f"{path}, line 1: a recording of format version {version}, newer than this "
                                 f"attitude-sim reads (up to {VERSION}); replay it with a newer attitude-sim")
        raise RecordingError(f"{path}, line 1: the header's version {version!r} is not a format version "
                             f"(an integer from 1 to {VERSION})")
    scenario = _header_scenario(header, path)
    inputs, where, last, ended = [], [], 0, False
    for number, line in enumerate(lines[1:], start=2):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            if number == len(lines):
                break  # cut off by a kill while writing
            raise RecordingError(f"{path}, line {number}: not valid JSON") from None
        if not isinstance(record, dict):
            raise RecordingError(f"{path}, line {number}: unknown record")
        if "step" in record and "key" in record:
            key = record["key"]
            step = _step(record["step"], path, number)
            if key not in (RESET, ENSEMBLE) and key not in KEYS:
                raise RecordingError(f"{path}, line {number}: unknown input {key!r}")
            value = record.get("value")
            try:
                if key == ENSEMBLE:
                    value = None if value is None else _ensemble_spec(value)
                else:
                    value = None if key == RESET else validate(key, value)
            except SettingsError as exc:
                raise RecordingError(f"{path}, line {number}: {exc}") from None
            inputs.append((step, key, value))
            where.append(f"{path}, line {number}: input {key!r} before step {step:,}")
            last = max(last, step)
        elif "alive" in record or "end" in record:
            last = max(last, _step(record.get("end", record.get("alive")), path, number))
            ended = ended or "end" in record
        else:
            raise RecordingError(f"{path}, line {number}: unknown record")
    try:  # every input and event against the bodies it will reach, in the order of the replay
        check_inputs(scenario, inputs, where, f"{path}, line 1")
    except SettingsError as exc:
        raise RecordingError(str(exc)) from None
    if not ended and warn is not None:
        warn(f"warning: {path} has no end mark: the recording was cut off (the program recording it was "
             f"killed, or the disk filled up); it replays to its last complete line, step {last:,}")
    return scenario, inputs, last


def _step(value, path, number) -> int:
    """A step number from a recording: an integer in [0, MAX_STEP]."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_STEP:
        raise RecordingError(f"{path}, line {number}: step {short_repr(value)} is not a step number "
                             f"(an integer from 0 to {MAX_STEP:g})")
    return value


def _header_scenario(header: dict, path) -> Scenario:
    try:
        settings = Settings().replace(**header["settings"])
        events = tuple(Event(_time(e["at"]), {k: validate(k, v) for k, v in e.items() if k != "at"},
                             f"{path}, line 1: the header's event #{i + 1} (at {e['at']!r} s)")
                       for i, e in enumerate(header.get("events", [])))
        compare = tuple((_text(c["label"]), {k: validate(k, v)
                                             for k, v in c.items() if k != "label"})
                        for c in header.get("compare", []))
        ensemble = _ensemble_spec(header["ensemble"]) if header.get("ensemble") is not None else None
        duration = _time(header.get("duration", 20.0))
        if duration <= 0:
            raise ValueError(f"duration {duration!r} must be > 0")
        speed, plot_seconds = (None if header.get(key) is None else LIMITS[key].check(header[key], key)
                               for key in ("speed", "plot_seconds"))
        name, title, caption = (_text(header.get(k, d)) for k, d in
                                (("name", "recording"), ("title", ""), ("caption", "")))
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise RecordingError(f"{path}, line 1: bad scenario in header ({exc})") from None
    return Scenario(name=name, title=title, caption=caption, duration=duration, speed=speed,
                    plot_seconds=plot_seconds,
                    settings=settings, events=events, compare=compare, ensemble=ensemble)


def _ensemble_spec(fields) -> EnsembleSpec:
    """An EnsembleSpec from its recorded fields; SettingsError (a ValueError) naming what is wrong."""
    if not isinstance(fields, dict):
        raise SettingsError(f"ensemble: expected the fields of an ensemble, got {fields!r}")
    known = {f.name for f in dataclasses.fields(EnsembleSpec)}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise SettingsError(f"ensemble: unknown field {unknown[0]!r} (known: {', '.join(sorted(known))})")
    return EnsembleSpec(**fields)


def _time(value) -> float:
    """A time from a recording header: a number in [0, MAX_DURATION] s."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_DURATION:
        raise ValueError(f"time {value!r} is not a number in [0, {MAX_DURATION:g}] s")
    return float(value)


def _text(value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a string")
    return value


def replay(path, steps: int | None = None, warn=None, ensembles=None):
    """A Runner that replays a recording; yields nothing itself.

    Returns ``(runner, steps)``: advance ``runner`` by ``steps`` (default: the
    last step the recording reached) to reproduce the recorded run.
    ``warn`` as for :func:`load_recording` (a recording without its end mark);
    ``ensembles`` as for :class:`~sim.run.runner.Runner`.
    """
    scenario, inputs, last = load_recording(path, warn)
    runner = Runner(scenario, ensembles=ensembles)
    for step, key, value in inputs:
        runner.schedule(step, key, value)
    return runner, last if steps is None else steps
