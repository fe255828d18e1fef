"""sim.io.limits: a duration reaches a unit at exactly one of it (60 s, 3600 s, 86400 s, a Julian year of
365.25 days), and the usable cores are at least one even where the process's CPU affinity is unknown."""

import os

import pytest

from sim.io.limits import duration_text, usable_cores

JULIAN_YEAR = 365.25 * 86400.0  # IAU: the Julian year, s


@pytest.mark.parametrize("seconds, text", [
    (60.0, "1 min"), (3600.0, "1 h"), (86400.0, "1 day"), (JULIAN_YEAR, "1 year"), (2 * JULIAN_YEAR, "2 years"), (1.5 * 86400.0, "1.5 days"),
    (59.9, "59.9 s"), (3599.0, "60 min"), (86399.0, "24 h"),
])
def test_a_duration_reaches_a_unit_at_exactly_one_of_it(seconds, text):
    assert duration_text(seconds) == text


@pytest.mark.parametrize("count", [None, 0, 3])
def test_usable_cores_without_an_affinity_is_the_cpu_count_and_at_least_one(monkeypatch, count):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: count)
    assert usable_cores() == max(1, count or 1)
