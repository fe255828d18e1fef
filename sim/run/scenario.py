"""Scenario files: settings, time-tagged inputs and comparison bodies in TOML.

A scenario file (see ``assets/scenarios/*.toml`` and README, "Scenario
files")::

    [scenario]
    title = "Gimbal lock"
    caption = "What to watch ..."
    duration = 30.0               # s, default run length
    pause_at_end = true           # the window pauses at t = duration (default false)
    speed = 200.0                 # the window's and a video's speed factor to start with (default 1)
    plot_seconds = 6000.0         # the window's plotted time window, s (default 20)

    [settings]                    # any Settings field, see sim.model.settings
    integrator = "half-quat"
    dt = 0.001
    angles_deg = [0, 0, 0]

    [[events]]                    # applied at the first step with t >= at
    at = 1.0
    command_deg = [0, 90, 0]

    [[compare]]                   # extra bodies run in lockstep, same inputs
    label = "euler controller"
    controller = "euler"

    [ensemble]                    # many bodies (sim.ensemble.EnsembleSpec fields)
    bodies = 1000                 # for `attitude-sim sweep` and the ensemble view
    attitudes = "random"

Every error names the file, the line where it can be found, the key and what
is wrong; nothing is half-loaded.
"""

from __future__ import annotations

import importlib.resources
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from sim.ensemble import EnsembleSpec
from sim.io.reading import FileRefused, read_regular
from sim.io.limits import LIMITS
from sim.model.settings import KEYS, Settings, SettingsError, validate
from sim.model.shape import BUILTINS
from sim.run.context import check_inputs

__all__ = ["Scenario", "ScenarioError", "load", "loads", "builtin_dir", "builtin_names",
           "resolve"]

_SCENARIO_KEYS = {"title", "caption", "duration", "pause_at_end", "speed", "plot_seconds"}
_TOP_KEYS = {"scenario", "settings", "events", "compare", "ensemble"}
_ENSEMBLE_KEYS = tuple(f.name for f in fields(EnsembleSpec))
#: Longest scenario, s (:data:`sim.io.limits.LIMITS`, "duration").
MAX_DURATION = LIMITS["duration"].high
#: Largest scenario file and longest line accepted, bytes (the built-ins are about 2 kB): :data:`sim.io.limits.LIMITS`.
MAX_FILE_BYTES = LIMITS["scenario_bytes"].high
MAX_LINE_BYTES = LIMITS["scenario_line_bytes"].high
#: Most comparison bodies of a scenario (:data:`sim.io.limits.LIMITS`).
MAX_COMPARE = LIMITS["compare_bodies"].high


class ScenarioError(ValueError):
    """A scenario file is malformed; the message says where and what."""


@dataclass(frozen=True)
class Event:
    """Settings changed at simulated time ``at`` (s).

    ``where`` names it in a message (``"FILE, line N: [[events]] #i"``; empty: by its time).
    """

    at: float
    changes: dict
    where: str = field(default="", compare=False)


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario: what to run, what changes when, and what to compare with."""

    name: str
    title: str = ""
    caption: str = ""
    duration: float = 20.0
    #: The window pauses when the simulated time reaches ``duration`` (the command line always stops there).
    pause_at_end: bool = False
    #: The speed factor this scenario starts at (simulated s per wall s, or per s of video), or None: 1x
    #: (:attr:`start_speed`).
    speed: float | None = None
    #: The time window of the window's live plots, s, or None: 20 s.
    plot_seconds: float | None = None
    settings: Settings = field(default_factory=Settings)
    events: tuple = ()
    #: (label, dict of settings overrides) for bodies run beside the main one.
    compare: tuple = ()
    #: How the bodies of an ensemble differ (the ``[ensemble]`` table), or None.
    ensemble: EnsembleSpec | None = None

    def __post_init__(self):
        # Comparison bodies: each label names a column group of the output, so each must be
        # unique; their number multiplies the run's cost (LIMITS["compare_bodies"]).
        labels = [label for label, _ in self.compare]
        if len(labels) > MAX_COMPARE:
            raise SettingsError(f"compare: {len(labels):,} comparison bodies, more than {MAX_COMPARE} "
                                "(each multiplies the run's cost and adds a column group)")
        seen = set()
        for label in labels:
            if label in seen:
                raise SettingsError(f"compare: two comparison bodies are labelled {label!r}; "
                                    "each needs its own label (it names its columns)")
            seen.add(label)

    @property
    def start_speed(self) -> float:
        """The speed factor the scenario starts at, in the window and in a video: its own, 1x unless it says
        otherwise (never the speed the last run was left at)."""
        return self.speed if self.speed is not None else 1.0


def builtin_dir() -> Path:
    """Folder of the built-in scenarios, ``assets/scenarios``, found through importlib.resources.

    The same folder in a checkout, an editable install, a wheel or a pipx install.
    """
    return Path(str(importlib.resources.files("assets") / "scenarios"))


def builtin_names() -> list[str]:
    return sorted(p.stem for p in builtin_dir().glob("*.toml"))


def resolve(name_or_path: str) -> Path:
    """Path of a built-in scenario by name, or of a file; ScenarioError if neither exists."""
    if not name_or_path:
        raise ScenarioError("no scenario given (an empty name)")
    candidate = Path(name_or_path)
    try:
        exists = candidate.exists()
    except (OSError, ValueError):  # a name too long, a NUL byte: load() says what is wrong
        exists = True
    if candidate.suffix == ".toml" or exists:
        return candidate  # load() says what is wrong with it: missing, a directory, a device
    builtin = builtin_dir() / f"{name_or_path}.toml"
    if builtin.is_file():
        return builtin
    raise ScenarioError(
        f"unknown scenario {name_or_path!r} (built-ins: {', '.join(builtin_names())}; "
        "or give a .toml file)")


def load(name_or_path: str) -> Scenario:
    """Load a built-in scenario by name or a scenario file by path."""
    path = resolve(name_or_path)
    try:
        raw = read_regular(path, MAX_FILE_BYTES, MAX_LINE_BYTES, "scenario file")
    except FileRefused as exc:
        raise ScenarioError(str(exc)) from None
    return loads(raw, source=str(path), name=path.stem, folder=path.parent)


def loads(text, source: str = "<string>", name: str = "scenario", folder=None) -> Scenario:
    """Parse scenario TOML (str or bytes); raise ScenarioError with source and line.

    A relative mesh file in ``body`` is found from ``folder`` (the scenario
    file's), or from the current directory when None.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ScenarioError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{source}: TOML syntax error: {exc}") from None
    except RecursionError:  # arrays or inline tables nested thousands deep
        raise ScenarioError(f"{source}: nested too deeply (arrays or tables inside each other "
                            "thousands of levels deep), not a scenario") from None
    try:
        return _Parser(text, source, name, folder).parse(data)
    except RecursionError:
        raise ScenarioError(f"{source}: nested too deeply, not a scenario") from None


class _Parser:
    def __init__(self, text: str, source: str, name: str, folder=None):
        self.folder = folder
        self.lines = text.splitlines()
        self.source = source
        self.name = name

    def error(self, message: str, key: str | None = None, occurrence: int = 0, after: int = 0) -> ScenarioError:
        where = self.source
        line = self.find_line(key, occurrence, after) if key else None
        if line:
            where += f", line {line}"
        return ScenarioError(f"{where}: {message}")

    def find_line(self, key: str, occurrence: int = 0, after: int = 0) -> int | None:
        """Line (from 1) of the ``occurrence``-th ``key =`` or ``[key]`` after line ``after``."""
        pattern = re.compile(rf"^\s*(\[\[?\s*)?[\"']?{re.escape(key)}[\"']?\s*(=|\]\]?)")
        hits = [i + 1 for i, line in enumerate(self.lines) if i >= after and pattern.match(line)]
        if not hits:
            return None
        return hits[min(occurrence, len(hits) - 1)]

    def table(self, data, key, kind=dict):
        value = data.get(key, kind())
        if not isinstance(value, kind):
            expected = "a table" if kind is dict else "an array of tables"
            raise self.error(f"[{key}] must be {expected}", key)
        return value

    def parse(self, data: dict) -> Scenario:
        for key in data:
            if key not in _TOP_KEYS:
                raise self.error(f"unknown section {key!r} (known: {', '.join(sorted(_TOP_KEYS))})", key)
        meta = self.table(data, "scenario")
        top = self.find_line("scenario") or 0  # a key of [scenario] is looked up after its header
        for key in meta:
            if key not in _SCENARIO_KEYS:
                raise self.error(f"[scenario]: unknown key {key!r} (known: {', '.join(sorted(_SCENARIO_KEYS))})",
                                 key, 0, top)
        title = self.text(meta, "title", self.name, top)
        caption = self.text(meta, "caption", "", top)
        duration = meta.get("duration", 20.0)
        if (isinstance(duration, bool) or not isinstance(duration, (int, float))
                or not LIMITS["duration"].accepts(duration)):
            raise self.error(f"[scenario] duration: must be a number in (0, {MAX_DURATION:g}] s, got {duration!r}",
                             "duration", 0, top)
        pause_at_end = meta.get("pause_at_end", False)
        if not isinstance(pause_at_end, bool):
            raise self.error(f"[scenario] pause_at_end: must be true or false, got {pause_at_end!r}", "pause_at_end",
                             0, top)
        speed, plot_seconds = (self.window_number(meta, key, top) for key in ("speed", "plot_seconds"))
        settings = self.settings(self.table(data, "settings"), "settings")
        events = self.events(self.table(data, "events", list), settings)
        compare = self.compare(self.table(data, "compare", list), settings)
        ensemble = self.ensemble(self.table(data, "ensemble")) if "ensemble" in data else None
        scenario = Scenario(name=self.name, title=title, caption=caption, duration=float(duration),
                            pause_at_end=pause_at_end, speed=speed, plot_seconds=plot_seconds, settings=settings,
                            events=events, compare=compare, ensemble=ensemble)
        try:  # every event against every body it reaches, in the order of the run
            check_inputs(scenario, source=self.source)
        except SettingsError as exc:
            raise ScenarioError(str(exc)) from None
        return scenario

    def window_number(self, meta: dict, key: str, after: int = 0):
        """``[scenario]`` ``speed`` or ``plot_seconds``: None, or a number in its range of :data:`sim.io.limits.LIMITS`."""
        value = meta.get(key)
        if value is None:
            return None
        limit = LIMITS[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not limit.accepts(value):
            raise self.error(f"[scenario] {key}: must be a number in [{limit.low:g}, {limit.high:g}] {limit.unit}, "
                             f"got {value!r}", key, 0, after)
        return float(value)

    def text(self, table, key, default, after=0):
        value = table.get(key, default)
        if not isinstance(value, str):
            raise self.error(f"[scenario] {key}: expected a string, got {value!r}", key, 0, after)
        return value

    def check(self, section: str, key: str, value, after: int = 0):
        """``value`` validated; an error names the line of ``key`` after line ``after`` (its table's header)."""
        if key not in KEYS:
            raise self.error(f"[{section}]: unknown key {key!r} (known: {', '.join(KEYS)})", key, 0, after)
        if key == "body" and isinstance(value, str) and value not in BUILTINS and self.folder is not None:
            value = str(Path(self.folder) / Path(value).expanduser())  # an absolute path stays as it is
        if key == "surfaces" and isinstance(value, str) and value and self.folder is not None:
            value = str(Path(self.folder) / Path(value).expanduser())  # found beside the scenario, as a body
        try:
            return validate(key, value)
        except SettingsError as exc:
            raise self.error(f"[{section}] {exc}", key, 0, after) from None

    def settings(self, table: dict, section: str) -> Settings:
        header = self.find_line(section) or 0
        checked = {k: self.check(section, k, v, header) for k, v in table.items()}
        try:
            return Settings().replace(**checked)
        except SettingsError as exc:  # a combination: a body without inertia
            raise self.error(f"[{section}] {exc}", str(exc).split(":", 1)[0], 0, header) from None

    def events(self, items: list, settings: Settings) -> tuple:
        events = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise self.error(f"[[events]] #{i + 1}: must be a table", "events", i)
            at = item.get("at")
            if isinstance(at, bool) or not isinstance(at, (int, float)) or not 0 <= at <= MAX_DURATION:
                raise self.error(f"[[events]] #{i + 1}: 'at' must be a time in s >= 0, got {at!r}",
                                 "events", i)
            header = self.find_line("events", i) or 0
            changes = {k: self.check(f"events #{i + 1}", k, v, header) for k, v in item.items() if k != "at"}
            if not changes:
                raise self.error(f"[[events]] #{i + 1}: no setting to change", "events", i)
            try:
                changed = settings.replace(**changes)
            except SettingsError as exc:  # a combination: wheel speeds for another number of wheels
                raise self.error(f"[[events]] #{i + 1}: {exc}", "events", i) from None
            if changed.wheel_count != settings.wheel_count:
                raise self.error(f"[[events]] #{i + 1}: wheels: a run keeps its {settings.wheel_count} wheels "
                                 f"(its rows have a column per wheel), not {changed.wheel_count}", "events", i)
            for what, on in (("an orbit", "has_orbit"), ("a magnetic field", "magnetic_on"),
                             ("the torques one by one (a field, srp or drag)", "torques_on"),
                             ("its thrusters, as many (a column each)", "thruster_count")):
                if getattr(changed, on) != getattr(settings, on):
                    raise self.error(f"[[events]] #{i + 1}: a run keeps or goes without {what} from start to end "
                                     "(its rows have columns for it)", "events", i)
            line = self.find_line("events", i)
            where = f"{self.source}{f', line {line}' if line else ''}: [[events]] #{i + 1}"
            events.append(Event(float(at), changes, where))
        events.sort(key=lambda e: e.at)
        return tuple(events)

    def compare(self, items: list, settings: Settings) -> tuple:
        bodies = []
        if len(items) > MAX_COMPARE:
            raise self.error(f"[[compare]]: {len(items):,} comparison bodies, more than {MAX_COMPARE} "
                             "(each multiplies the run's cost and adds a column group)", "compare", MAX_COMPARE)
        labels = {}
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise self.error(f"[[compare]] #{i + 1}: must be a table", "compare", i)
            label = item.get("label", f"body {i + 1}")
            if not isinstance(label, str):
                raise self.error(f"[[compare]] #{i + 1}: label must be a string", "compare", i)
            if label in labels:
                raise self.error(f"[[compare]] #{i + 1}: label {label!r} is taken by #{labels[label] + 1}; each "
                                 "comparison body needs its own label (it names its columns)", "compare", i)
            labels[label] = i
            if "body" in item:
                raise self.error(f"[[compare]] #{i + 1}: body: comparison bodies fly the main body "
                                 "(drawn with its mesh); give them another inertia or mass instead", "compare", i)
            header = self.find_line("compare", i) or 0
            overrides = {k: self.check(f"compare #{i + 1}", k, v, header) for k, v in item.items() if k != "label"}
            try:
                settings.replace(**overrides)
            except SettingsError as exc:  # a combination: e.g. inertia back to a mesh without volume
                raise self.error(f"[[compare]] #{i + 1}: {exc}", "compare", i) from None
            bodies.append((label, overrides))
        return tuple(bodies)

    def ensemble(self, table: dict) -> EnsembleSpec:
        """The ``[ensemble]`` table: EnsembleSpec fields, each checked on its own so errors name the key."""
        checked = {}
        header = self.find_line("ensemble") or 0  # its keys are looked up after its header
        for key, value in table.items():
            if key not in _ENSEMBLE_KEYS:
                raise self.error(f"[ensemble]: unknown key {key!r} (known: {', '.join(_ENSEMBLE_KEYS)})", key, 0, header)
            if key == "gains_grid":
                value = self.gains_grid(value, header)
            try:
                EnsembleSpec(**{key: value})
            except (SettingsError, TypeError, ValueError) as exc:
                raise self.error(f"[ensemble] {_named(key, exc)}", key, 0, header) from None
            checked[key] = value
        try:
            return EnsembleSpec(**checked)
        except (SettingsError, TypeError, ValueError) as exc:
            raise self.error(f"[ensemble] {exc}", "ensemble") from None

    def gains_grid(self, value, after):
        """``[[k1, ...], [k2, ...], [k3, ...]]`` as a tuple of three tuples."""
        if not isinstance(value, list) or len(value) != 3 or not all(isinstance(a, list) for a in value):
            raise self.error("[ensemble] gains_grid: expected three arrays of gains "
                             f"[[k1, ...], [k2, ...], [k3, ...]], got {value!r}", "gains_grid", 0, after)
        return tuple(tuple(axis) for axis in value)


def _named(key: str, exc: Exception) -> str:
    """The error message, starting with the key it is about."""
    message = str(exc)
    return message if message.startswith(key) else f"{key}: {message}"
