"""The Magnetic tab's derived columns (:class:`app.plots.environment.DerivedHistory`): the values kept from the
last read and the new samples' are those of the whole window derived again, whatever was appended, read, wrapped
round the ring or cleared in between (issue 42, stop 53: only the new samples are derived)."""

import numpy as np
import pytest

from app.plots.environment import DerivedHistory, derived_columns
from app.plots.history import History

COLUMNS = ("t", "wx", "wy", "wz")


def reference(history: History, n: int) -> np.ndarray:
    """log10 of |w| in deg/s of the last ``n`` samples, from the history's own columns (no DerivedHistory)."""
    w = np.array([history.column(c)[len(history) - n:] for c in ("wx", "wy", "wz")])
    return np.log10(np.degrees(np.sqrt((w * w).sum(axis=0))))


@pytest.mark.parametrize("seed", [1, 2])
def test_the_derived_window_equals_the_window_derived_again_after_appends_reads_wraps_and_clears(seed):
    rng = np.random.default_rng(seed)
    history = History(columns=COLUMNS, capacity=64)
    derived = DerivedHistory(history, derived_columns())
    t = 0.0
    for step in range(300):
        m = int(rng.integers(0, 40))   # appended between two reads: none, a few, more than the ring holds
        rows = np.column_stack([t + np.arange(m), rng.normal(size=(m, 3))])
        t += m
        history.append(rows)
        if step == 150:
            history.clear()             # a reset: a new generation, the count goes on or starts again
        if len(history) == 0:
            continue
        n = int(rng.integers(1, len(history) + 1))
        got = derived.last(n, ("log_w_deg", "wx"))
        assert got.shape == (2, n)
        np.testing.assert_array_equal(got[0], reference(history, n))
        np.testing.assert_array_equal(got[1], history.column("wx")[len(history) - n:])


def test_a_reset_forgets_the_kept_values_even_when_the_new_run_has_more_samples():
    history = History(columns=COLUMNS, capacity=64)
    derived = DerivedHistory(history, derived_columns())
    history.append(np.column_stack([np.arange(30.0), np.full((30, 3), 1.0)]))
    derived.last(30, ("log_w_deg",))
    history.clear()                     # a new run: counted from 0 again, its rows other values
    history.append(np.column_stack([np.arange(35.0), np.full((35, 3), 2.0)]))
    np.testing.assert_array_equal(derived.last(35, ("log_w_deg",))[0], reference(history, 35))
