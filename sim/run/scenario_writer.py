"""Save a :class:`~sim.run.scenario.Scenario` as a scenario file that
:func:`sim.run.scenario.load` reads back to the same scenario (the window's
File > Save scenario).

The text is :func:`sim.run.scenario_toml.dumps`: the layout of the built-ins
(README, "Scenario files"), every setting written out, floats with ``repr``
so every value reads back exactly.
"""

from __future__ import annotations

import os

from sim.io.files import write_whole
from sim.run.scenario_toml import dumps

__all__ = ["save"]


def save(scenario, path) -> str:
    """Write ``scenario`` to ``path`` as TOML (UTF-8, overwritten).

    The text is written beside ``path`` under a fresh name (``path.<random>.part``, :mod:`sim.io.files`)
    and moved over ``path``, so
    ``path`` never holds half a scenario.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    OSError
        If the file cannot be written (no partial file is left).
    """
    path = os.fspath(path)
    text = dumps(scenario)
    with write_whole(path, newline="\n") as out:
        out.write(text)
    return path
