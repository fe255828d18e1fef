"""``make mutate``'s selection of tests for sim/ (``MUTATE_SIM_TESTS``) holds every GUI-free test file of
tests/app/cli and tests/app/flight (``MUTATE_SIM_APP``): those run sim/ in the test process, where its mutants
are, and a file left out of the hand list silently leaves its mutants' killers out (docs/RELIABILITY.md, "With the
compiled kernels, the JIT off (issue 42, stop 52): measured")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("tests/app/cli", "tests/app/flight")


def _makefile_list() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    block = re.search(r"^MUTATE_SIM_APP\s*\?=((?:.*\\\n)*.*)$", text, re.M)
    assert block, "MUTATE_SIM_APP is not in the Makefile"
    return set(block.group(1).replace("\\\n", " ").split())


def _marks() -> str:
    text = (ROOT / "Makefile").read_text()
    return re.search(r'^MUTATE_SIM_TESTS\s*\?=.*-m "([^"]*)"', text, re.M).group(1)


def _files(*options: str) -> set[str]:
    """The test files of FOLDERS with at least one test pytest collects with ``options``."""
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xvfb",
                          "-p", "no:cacheprovider", *FOLDERS, *options],
                         cwd=ROOT, capture_output=True, text=True, timeout=300,
                         env={k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"})
    return {line.split("::")[0] for line in out.stdout.splitlines() if "::" in line}


@pytest.mark.source
def test_every_gui_free_test_file_of_the_cli_and_the_flight_is_in_make_mutates_selection():
    """GUI-free: no test of the file uses Qt (marked ``qt`` or ``gl`` by tests/conftest.py), and some test of it
    is left under the mutation run's marks (a file of child processes only, such as the start-up's, is not)."""
    with_qt = _files("-m", "qt or gl")
    kept = _files("-m", _marks())
    gui_free = kept - with_qt
    listed = _makefile_list()
    assert gui_free - listed == set(), f"GUI-free test files missing from the Makefile's MUTATE_SIM_APP: {sorted(gui_free - listed)}"
    assert listed - gui_free == set(), f"MUTATE_SIM_APP lists files that use Qt or are gone: {sorted(listed - gui_free)}"
