"""Min/max decimation of plot data (app.plots.decimate): against a plain per-run loop."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.plots.decimate import envelope, factor_for


def runs_by_loop(x, y, first_index, factor):
    """Reference: group samples by global index // factor, one (x, min, max) per group."""
    groups = {}
    for i, (xi, yi) in enumerate(zip(x, y)):
        groups.setdefault((first_index + i) // factor, []).append((xi, yi))
    out = []
    for key in sorted(groups):
        xs, ys = zip(*groups[key])
        finite = [v for v in ys if not np.isnan(v)]
        out.append((xs[0], min(finite) if finite else np.nan, max(finite) if finite else np.nan))
    return out


@given(n=st.integers(1, 400), first=st.integers(0, 10_000), power=st.integers(0, 6), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=150, deadline=None)
def test_each_run_is_the_min_and_max_of_its_samples(n, first, power, seed):
    rng = np.random.default_rng(seed)
    x = np.cumsum(rng.uniform(0.5, 1.5, n))
    y = rng.normal(size=(2, n))
    y[1, rng.random(n) < 0.2] = np.nan
    factor = 2**power
    x2, y2 = envelope(x, y, first, factor)
    for row in range(2):
        expected = runs_by_loop(x, y[row], first, factor) if factor > 1 else None
        if expected is None:
            np.testing.assert_array_equal(y2[row], y[row])
            continue
        assert (x2[0], x2[-1]) == (x[0], x[-1])                       # exact ends
        np.testing.assert_array_equal(y2[row][[0, -1]], y[row][[0, -1]])
        np.testing.assert_array_equal(x2[1:-1:2], [e[0] for e in expected])
        np.testing.assert_array_equal(x2[2:-1:2], [e[0] for e in expected])
        np.testing.assert_array_equal(y2[row][1:-1:2], [e[1] for e in expected])
        np.testing.assert_array_equal(y2[row][2:-1:2], [e[2] for e in expected])


def test_a_one_sample_spike_survives():
    y = np.zeros(20_000)
    y[12_345] = 7.0
    x2, y2 = envelope(np.arange(20_000.0), y[None], 0, 32)
    assert len(x2) == 2 * 625 + 2
    assert y2.max() == 7.0


def test_runs_hold_still_while_the_window_scrolls():
    """Runs are aligned to the global index: scrolling does not move their boundaries (no shimmer)."""
    rng = np.random.default_rng(1)
    y = rng.normal(size=30_000)
    t = np.arange(30_000) * 1e-3
    a_x, a_y = envelope(t[1000:21000], y[None, 1000:21000], 1000, 16)
    b_x, b_y = envelope(t[1037:21037], y[None, 1037:21037], 1037, 16)
    common = np.intersect1d(a_x[3:-3], b_x[3:-3])  # whole runs in both windows
    assert len(common) > 1200                       # of 1250 runs
    ia, ib = np.searchsorted(a_x, common), np.searchsorted(b_x, common)
    np.testing.assert_array_equal(a_y[0, ia], b_y[0, ib])
    np.testing.assert_array_equal(a_y[0, ia + 1], b_y[0, ib + 1])


def test_a_run_of_nan_only_stays_nan():
    y = np.full(64, np.nan)
    _, y2 = envelope(np.arange(64.0), y[None], 0, 8)
    assert np.isnan(y2).all()


@pytest.mark.parametrize("factor", [1, 4, 32])
def test_wrapping_angles_never_draw_a_stroke_across_the_plot(factor):
    t = np.arange(5000) * 1e-3
    angle = (np.degrees(5.0 * t) + 180.0) % 360.0 - 180.0   # wraps four times
    angle[::7] += np.random.default_rng(2).normal(0.0, 0.5, len(angle[::7]))
    smooth = np.sin(t)
    x2, y2 = envelope(t, np.vstack((angle, smooth)), 3, factor, wraps=[True, False])
    steps = np.abs(np.diff(y2[0]))
    assert np.nanmax(steps) < 180.0                  # finite neighbours are close
    assert np.isnan(y2[0]).sum() >= 4                # a gap at every wrap
    assert not np.isnan(y2[1]).any()                 # the other curve is untouched


def test_a_run_crossing_the_wrap_is_a_gap_not_a_full_height_stroke():
    y = np.array([179.0, 179.5, -179.5, -179.0])
    _, y2 = envelope(np.arange(4.0), y[None], 0, 4, wraps=[True])
    assert np.isnan(y2[0, 1:-1]).all()              # the run: a gap between the exact ends
    assert y2[0, 0] == 179.0 and y2[0, -1] == -179.0


@given(samples=st.integers(0, 10**6), columns=st.floats(1.0, 4000.0))
def test_factor_is_a_power_of_two_giving_one_to_two_runs_per_column(samples, columns):
    factor = factor_for(samples, columns)
    assert factor >= 1 and factor & (factor - 1) == 0
    runs = -(-samples // factor)
    if factor > 1:
        assert columns <= runs <= 2 * columns + 1
    else:
        assert samples <= 2 * columns


def test_no_columns_keeps_every_sample():
    assert factor_for(10**6, 0.0) == 1
