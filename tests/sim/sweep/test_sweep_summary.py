"""The summary's row per gains combination, against numpy's own percentile and max of each group of bodies."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sim.ensemble import EnsembleSpec
from sim.sweep.chunk import SweepResult
from sim.sweep.summary import summary

GRID = ((2.0, 3.0), (5.0,), (7.0, 11.0, 13.0))  # 6 combinations


@pytest.mark.parametrize("per_group", [1, 2, 3, 4, 5, 6, 7, 8])
def test_by_gains_rows_are_numpys_median_and_max_of_each_combination(per_group):
    # Groups of every size mod 4 (numpy's nearest-rank median rounds (n - 1) / 2 half to even), all settling
    # times distinct and finite except one never-settled body in the largest groups.
    combos = list(itertools.product(*GRID))
    n = per_group * len(combos)
    rng = np.random.default_rng(per_group)
    index = rng.permutation(n).astype(np.int64)
    settling = rng.permutation(np.linspace(1.0, 9.0, n))
    if per_group >= 5:
        settling[np.flatnonzero(index % len(combos) == 1)[0]] = np.nan  # never settled: counts as inf
    columns = {"index": index, "faulted": np.zeros(n, bool), "settling_time": settling,
               "final_error_deg": np.zeros(n), "travelled_deg": np.zeros(n)}
    rows = summary(SweepResult(columns), EnsembleSpec(bodies=n, gains_grid=GRID))["by_gains"]
    assert [row[0] for row in rows] == combos
    for number, (_, count, settled, median, top) in enumerate(rows):
        t = np.where(np.isnan(settling), np.inf, settling)[index % len(combos) == number]
        assert count == len(t) == per_group
        assert settled == np.isfinite(t).sum()
        assert median == np.percentile(t, 50, method="nearest")
        assert top == t.max()


def test_unwinding_counts_the_bodies_that_turned_more_than_half_a_turn():
    # a body that took the long way to its target turned 360 deg less its initial error: more than 180
    travelled = np.array([10.0, 179.9, 180.0, 180.1, 350.0, 90.0])
    n = len(travelled)
    columns = {"index": np.arange(n, dtype=np.int64), "faulted": np.zeros(n, bool),
               "settling_time": np.linspace(1.0, 2.0, n), "final_error_deg": np.zeros(n), "travelled_deg": travelled}
    s = summary(SweepResult(columns), EnsembleSpec(bodies=n))
    assert s["unwinding"] == 2  # 180.1 and 350; exactly 180 is the short way's longest
    assert s["settled"] == n and s["faulted"] == 0
