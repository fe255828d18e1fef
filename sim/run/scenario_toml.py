"""Writing a scenario as TOML (tomllib only reads): the inverse of :func:`sim.run.scenario.loads`.

Only the scenario schema is written: strings, booleans, finite numbers,
arrays of them, the ``[scenario]`` and ``[settings]`` tables and the
``[[events]]`` and ``[[compare]]`` arrays of tables, and the ``[ensemble]`` table.  Strings are TOML basic
strings with every control character escaped; floats are written with
``repr``, so loading the text gives back the same bits.
"""

from __future__ import annotations

import dataclasses
import math

__all__ = ["dumps"]

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(text: str) -> str:
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} cannot be written to a scenario file")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise ValueError(f"{value!r} cannot be written to a scenario file")


def _pairs(table: dict) -> list:
    """``key = value`` lines; a ``None`` (no command) is left out, as in a file that omits it."""
    return [f"{key} = {_value(value)}" for key, value in table.items() if value is not None]


def dumps(scenario) -> str:
    """The TOML text of a :class:`~sim.run.scenario.Scenario` (every setting written out).

    Raises
    ------
    ValueError
        If an event holds nothing a file can express (only ``command_deg = None``).
    """
    lines = ["[scenario]", *_pairs({"title": scenario.title, "caption": scenario.caption,
                                    "duration": scenario.duration,
                                    "pause_at_end": scenario.pause_at_end,
                                    "speed": getattr(scenario, "speed", None),
                                    "plot_seconds": getattr(scenario, "plot_seconds", None)}),
             "", "[settings]", *_pairs(scenario.settings.as_dict())]
    spec = getattr(scenario, "ensemble", None)
    if spec is not None:
        lines += ["", "[ensemble]", *_pairs(dataclasses.asdict(spec))]
    for event in scenario.events:
        pairs = _pairs(event.changes)
        if not pairs:
            raise ValueError(f"the event at t={event.at:g} s changes nothing a scenario file can hold")
        lines += ["", "[[events]]", f"at = {_value(float(event.at))}", *pairs]
    for label, overrides in scenario.compare:
        lines += ["", "[[compare]]", f"label = {_value(label)}", *_pairs(overrides)]
    return "\n".join(lines) + "\n"
