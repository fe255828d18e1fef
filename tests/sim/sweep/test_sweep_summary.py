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
