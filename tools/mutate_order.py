"""A pytest plugin for `make mutate` (tools/mutate.py loads it with ``-p mutate_order``).

mutmut runs, for each mutant, every test that calls the mutated function and
stops at the first failure (``-x``).  Its fork server passes those tests in
no particular order, so a mutant that the first fast unit test would kill can
wait for a minute of slow tests first.  This plugin sorts the collected tests
by the duration mutmut measured for each (``mutmut-stats.json`` in the
directory pytest runs in), fastest first.  The set of tests, and so every
verdict, is unchanged; only the time to a kill is shorter.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    stats = Path("mutmut-stats.json")
    if not stats.is_file():
        return
    try:
        durations = json.loads(stats.read_text())["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return
    items.sort(key=lambda item: durations.get(item.nodeid, 0.0))
