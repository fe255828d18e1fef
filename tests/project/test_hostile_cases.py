"""Issue 24's hostile cases (and issue 23's exported meshes), each a real process: tests/hostile_cases.py.

One test per case, grouped by issue 24's classes (1 no file destroyed, 2
every cost estimated first, 3 Dask failures that end, 4 no traceback, 5 no
silently wrong output, 6 friction; M: meshes inside out and in other units).
``make hostile`` runs the same table two at a time and prints the counts of
docs/RELIABILITY.md.
"""

import pytest

from hostile_cases import CASES, ROUND_FOUR, ROUND_THREE, run_case

CLASSES = {"1": "no file destroyed", "2": "costs first", "3": "Dask ends", "4": "no traceback",
           "5": "no silent wrong output", "6": "friction", "M": "meshes as exported"}


def test_every_class_has_several_cases_and_every_surface_is_tried():
    by_class = {k: [c for c in CASES if c.klass == k] for k in CLASSES}
    assert all(len(cases) >= 5 for cases in by_class.values()), {k: len(v) for k, v in by_class.items()}
    assert {c.surface for c in CASES} >= {"run", "sweep", "sweep on Dask", "scenario files", "meshes", "replay",
                                          "I/O and signals"}
    assert len({c.id for c in CASES}) == len(CASES), "each case has its own name"


def test_round_three_tries_each_of_its_classes_on_its_surfaces():
    by_class = {k: [c for c in ROUND_THREE if c.klass == k] for k in ("R1", "R2", "R3", "R4", "R5", "R8")}
    assert all(len(cases) >= 3 for cases in by_class.values()), {k: len(v) for k, v in by_class.items()}
    assert {c.surface for c in ROUND_THREE} >= {"writer", "video", "lab", "numbers", "meshes", "context"}


def test_round_four_tries_each_of_issue_44s_classes():
    by_class = {k: [c for c in ROUND_FOUR if c.klass == k] for k in ("D1", "D2", "D3", "D4", "D5", "D6", "D7", "D8")}
    assert all(len(cases) >= 2 for cases in by_class.values()), {k: len(v) for k, v in by_class.items()}
    assert {c.surface for c in ROUND_FOUR} >= {"domain", "readers", "link", "inputs", "costs", "outputs", "signals",
                                               "API"}


@pytest.mark.parametrize("case", CASES, ids=[f"{c.klass} {c.id}" for c in CASES])
def test_hostile_case_holds(case):
    problem = run_case(case)
    assert problem is None, f"{case.id}: {problem}"
