"""A pytest plugin for `make mutate` (tools/mutate.py loads it with ``-p mutate_order``).

mutmut runs, for each mutant, every test that calls the mutated function and
stops at the first failure (``-x``).  Its fork server passes those tests in
no particular order, so a mutant that the first fast unit test would kill can
wait for a minute of slow tests first.  This plugin sorts the collected tests
by the duration mutmut measured for each (``mutmut-stats.json`` in the
directory pytest runs in), fastest first.  The set of tests, and so every
verdict, is unchanged; only the time to a kill is shorter.

With ``MUTATE_BUDGET`` set (seconds; ``make mutate MUTATE_BUDGET=30``), a
mutant meets only the fastest of its tests whose measured durations add up
to that budget (at least one).  A survivor then costs the budget instead of
every test that calls the function (up to the whole selection, 10 minutes,
for the core's kernels); a mutant that only a slower test would kill is
counted as survived, so a budget can only lower the score, never raise it.
The clean and stats runs are never cut.
"""

from __future__ import annotations

import json
import os
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
    budget = os.environ.get("MUTATE_BUDGET")
    if not budget or "__mutmut_" not in os.environ.get("MUTANT_UNDER_TEST", ""):
        return
    spent, keep = 0.0, len(items)
    for index, item in enumerate(items):
        spent += durations.get(item.nodeid, 0.0)
        if spent > float(budget):
            keep = max(1, index)  # the tests before the one that overran the budget
            break
    if keep < len(items):
        config.hook.pytest_deselected(items=items[keep:])
        del items[keep:]
