"""Write a :class:`~sim.scenario.Scenario` as a scenario file that
:func:`sim.scenario.load` reads back to the same scenario.

The file has the layout of the built-ins (README, "Scenario files"): a
``[scenario]`` table, every setting under ``[settings]`` in
:data:`~sim.settings.KEYS` order (so the file does not depend on the defaults
of a later version), then the ``[[events]]`` and ``[[compare]]`` tables.
Floats are written with ``repr`` (shortest round trip), so every value reads
back exactly.  A setting that is ``None`` (``command_deg`` before any
command) is left out: absent means ``None``.
"""

from __future__ import annotations

import json
import math
import os

from sim.settings import KEYS

__all__ = ["dumps", "save"]


def _value(value) -> str:
    """One TOML value: a bool, number, string or array of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value!r} cannot be written: settings are finite")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON's escapes are TOML basic-string escapes
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} ({type(value).__name__}) to a scenario file")


def _pairs(items) -> list[str]:
    return [f"{key} = {_value(value)}" for key, value in items if value is not None]


def dumps(scenario) -> str:
    """The scenario as TOML text.

    Parameters
    ----------
    scenario : Scenario

    Returns
    -------
    str
        ``sim.scenario.loads(dumps(s))`` equals ``s`` in every field but
        ``name`` (taken from the file name on :func:`sim.scenario.load`).
    """
    settings = scenario.settings.as_dict()
    lines = ["# attitude-sim scenario (README, \"Scenario files\")", "[scenario]"]
    lines += _pairs([("title", scenario.title), ("caption", scenario.caption),
                     ("duration", float(scenario.duration)), ("pause_at_end", bool(scenario.pause_at_end))])
    lines += ["", "[settings]"]
    lines += _pairs((key, settings[key]) for key in KEYS)
    for event in scenario.events:
        lines += ["", "[[events]]"]
        lines += _pairs([("at", float(event.at)), *((k, event.changes[k]) for k in KEYS if k in event.changes)])
    for label, overrides in scenario.compare:
        lines += ["", "[[compare]]"]
        lines += _pairs([("label", label), *((k, overrides[k]) for k in KEYS if k in overrides)])
    return "\n".join(lines) + "\n"


def save(scenario, path) -> str:
    """Write :func:`dumps` of ``scenario`` to ``path`` (UTF-8, overwritten).

    The text is written to a temporary file beside ``path`` and moved over
    it, so ``path`` never holds half a scenario.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    OSError
        If the file cannot be written.
    """
    path = os.fspath(path)
    text = dumps(scenario)
    partial = f"{path}.part"
    try:
        with open(partial, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(partial, path)
    except OSError:
        if os.path.exists(partial):
            os.remove(partial)
        raise
    return path
