"""History: the bounded sample store behind the live plots (no Qt)."""

import math

import numpy as np
import pytest

from app.plots.history import MAX_CAPACITY, History, capacity_for
from sim.model.rows import COLUMNS, HISTORY_COLUMNS

DT = 1e-3


def make_rows(start: int, n: int, columns=HISTORY_COLUMNS) -> np.ndarray:
    """Rows for global sample indices ``start .. start + n - 1``.

    Column ``t`` is ``(index + 1) * DT``; column ``j`` of sample ``i`` holds
    ``i + j / 100``, so every value names its sample and column.
    """
    index = np.arange(start, start + n, dtype=float)[:, None]
    rows = index + np.arange(len(columns)) / 100.0
    rows[:, columns.index("t")] = (index[:, 0] + 1) * DT
    return rows


def sample_index(history: History, name: str = "wx") -> np.ndarray:
    """Global sample indices of the recent samples, read back from column ``name``."""
    j = history.columns.index(name)
    return np.round(history.column(name) - j / 100.0).astype(int)


def test_append_below_capacity_holds_every_sample_in_order():
    h = History(capacity=1000)
    h.append(make_rows(0, 300))
    h.append(make_rows(300, 400))
    assert len(h) == h.count == 700
    np.testing.assert_array_equal(sample_index(h), np.arange(700))
    np.testing.assert_array_equal(h.column("t"), np.arange(1, 701) * DT)


def test_wrap_around_keeps_order_and_latest_values():
    h = History(capacity=1000)
    for start in range(0, 2550, 170):
        h.append(make_rows(start, 170))
    assert h.count == 2550 and len(h) == 1000
    np.testing.assert_array_equal(sample_index(h), np.arange(1550, 2550))
    np.testing.assert_array_equal(h.column("t")[-1], 2550 * DT)


def test_append_more_than_capacity_at_once_keeps_the_latest():
    h = History(capacity=100, archive_capacity=64)
    h.append(make_rows(0, 30))
    h.append(make_rows(30, 1000))
    assert h.count == 1030 and len(h) == 100
    np.testing.assert_array_equal(sample_index(h), np.arange(930, 1030))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_any_split_into_batches_stores_the_same(seed):
    rng = np.random.default_rng(seed)
    rows = make_rows(0, 5000)
    whole = History(capacity=700, archive_capacity=50)
    whole.append(rows)
    cuts = np.sort(rng.integers(0, len(rows), size=40))
    split = History(capacity=700, archive_capacity=50)
    for part in np.split(rows, cuts):
        split.append(part)
    for name in ("t", "q1", "norm", "phic_deg"):
        np.testing.assert_array_equal(split.column(name), whole.column(name))
        np.testing.assert_array_equal(split.archive(name), whole.archive(name))
    assert split.stride == whole.stride


def test_memory_is_constant_over_many_appends():
    h = History(capacity=1000, archive_capacity=128)
    nbytes = h.nbytes
    for start in range(0, 200_000, 997):
        h.append(make_rows(start, 997))
    assert h.nbytes == nbytes
    assert len(h) == 1000
    assert len(h.archive("t")) <= 128


def test_archive_keeps_every_stride_th_sample_from_the_start():
    h = History(capacity=1000, archive_capacity=128)
    for start in range(0, 200_000, 997):
        h.append(make_rows(start, 997))
    archived = np.round(h.archive("t") / DT).astype(int) - 1
    first_recent = h.count - len(h)
    np.testing.assert_array_equal(archived, np.arange(0, first_recent, h.stride))
    assert 64 <= len(archived) <= 128


def test_window_returns_exactly_the_samples_of_the_last_seconds():
    h = History(capacity=50_000)
    h.append(make_rows(0, 30_000))
    t, columns = h.window(20.0)
    everything = h.column("t")
    expected = everything[everything >= everything[-1] - 20.0]
    np.testing.assert_array_equal(t, expected)
    assert set(columns) == set(HISTORY_COLUMNS)
    np.testing.assert_array_equal(columns["t"], t)
    np.testing.assert_array_equal(columns["wy"], h.column("wy")[-len(t):])


def test_window_of_selected_columns():
    h = History(capacity=100)
    h.append(make_rows(0, 10))
    t, columns = h.window(1.0, ("norm", "four_t"))
    assert list(columns) == ["norm", "four_t"] and len(t) == 10


def test_window_of_empty_history_is_empty():
    t, columns = History(capacity=10).window(20.0, ("wx",))
    assert len(t) == 0 and len(columns["wx"]) == 0


def test_append_zero_rows_changes_nothing():
    h = History(capacity=10)
    h.append(np.empty((0, len(HISTORY_COLUMNS))))
    assert h.count == 0 and len(h) == 0
    h.append(make_rows(0, 3))
    h.append(np.empty((0, len(HISTORY_COLUMNS))))
    assert h.count == 3


@pytest.mark.parametrize("shape", [(5,), (5, 3), (2, len(HISTORY_COLUMNS) + 1)])
def test_append_wrong_shape_raises(shape):
    with pytest.raises(ValueError, match="expected shape"):
        History(capacity=10).append(np.zeros(shape))


def test_to_csv_round_trip(tmp_path):
    h = History(capacity=500)
    rows = make_rows(0, 800)
    rows[:, HISTORY_COLUMNS.index("norm")] = np.random.default_rng(3).normal(0, 1e-15, 800)
    h.append(rows)
    path = h.to_csv(tmp_path / "history.csv")
    with open(path, encoding="utf-8") as f:
        assert f.readline().rstrip("\n") == ",".join(COLUMNS)
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    assert data.shape == (500, len(COLUMNS))
    np.testing.assert_array_equal(data, rows[300:, :len(COLUMNS)])  # repr reads back exactly


def test_to_csv_selected_columns(tmp_path):
    h = History(capacity=10)
    h.append(make_rows(0, 4))
    path = h.to_csv(tmp_path / "some.csv", columns=("t", "multiplier", "four_t"))
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    np.testing.assert_array_equal(data[:, 0], h.column("t"))
    np.testing.assert_array_equal(data[:, 2], h.column("four_t"))


def test_clear_forgets_everything():
    h = History(capacity=100, archive_capacity=8)
    h.append(make_rows(0, 500))
    h.clear()
    assert h.count == 0 and len(h) == 0 and h.stride == 1
    assert len(h.column("t")) == 0 and len(h.archive("t")) == 0
    h.append(make_rows(0, 5))
    np.testing.assert_array_equal(sample_index(h), np.arange(5))


def test_column_is_a_read_only_view():
    h = History(capacity=10)
    h.append(make_rows(0, 5))
    column = h.column("wx")
    assert column.flags.c_contiguous and not column.flags.writeable
    with pytest.raises(ValueError):
        column[0] = 1.0


def test_unknown_column_raises():
    with pytest.raises(KeyError, match="unknown column 'nope'"):
        History(capacity=10).column("nope")


@pytest.mark.parametrize("kwargs, match", [
    ({"capacity": 0}, "capacity"),
    ({"archive_capacity": 1}, "archive_capacity"),
    ({"columns": ("x", "y")}, "must contain 't'"),
    ({"columns": ("t", "x", "x")}, "unique"),
])
def test_bad_construction_raises(kwargs, match):
    with pytest.raises(ValueError, match=match):
        History(**kwargs)


def test_last_returns_the_latest_samples_of_several_columns_across_the_wrap():
    h = History(capacity=1000)
    for start in range(0, 2550, 170):
        h.append(make_rows(start, 170))
    block = h.last(300, ["wz", "t"])
    assert block.shape == (2, 300)
    j = HISTORY_COLUMNS.index("wz")
    np.testing.assert_array_equal(np.round(block[0] - j / 100.0), np.arange(2250, 2550))
    np.testing.assert_array_equal(block[1], np.arange(2251, 2551) * DT)
    block[0] = 0.0                                   # a copy: the store is untouched
    assert h.column("wz")[-1] == 2549 + j / 100.0


@pytest.mark.parametrize("n", [-1, 1001])
def test_last_beyond_what_is_held_raises(n):
    h = History(capacity=1000)
    h.append(make_rows(0, 1000))
    with pytest.raises(ValueError, match="n: must be in"):
        h.last(n, ["t"])


# ------------------------------------------------------------------ sizing
@pytest.mark.parametrize("dt", [1.0, 0.1, 0.01, 1e-3, 2.5e-4, 1e-4, 1.1 * 20.0 / MAX_CAPACITY])
@pytest.mark.parametrize("seconds", [5.0, 20.0])
def test_capacity_holds_the_window_down_to_the_smallest_dt_it_serves(dt, seconds):
    # a window of `seconds` at step dt spans floor(seconds / dt) + 1 samples
    needed = math.floor(seconds / dt) + 1
    assert needed <= capacity_for(dt, seconds) <= MAX_CAPACITY


def test_capacity_is_bounded_below_and_above():
    assert capacity_for(1.0, 20.0) == 256
    assert capacity_for(1e-9, 20.0) == MAX_CAPACITY
    assert capacity_for(None, 20.0) == MAX_CAPACITY
    assert capacity_for(1e-3, 20.0, limit=1000) == 1000


def test_default_window_needs_a_few_megabytes_not_a_hundred():
    h = History(capacity=capacity_for(1e-3, 20.0))
    # 33 columns, mirrored, float64: 2 * 22,064 * 33 * 8 B = 11.6 MB, plus the 4.3 MB archive
    assert h.nbytes < 16 * 2**20


def test_resize_up_keeps_every_held_sample_and_goes_on():
    h = History(capacity=500, archive_capacity=64)
    h.append(make_rows(0, 1200))
    archived = h.archive("t").copy()
    h.resize(2000)
    assert h.capacity == 2000 and len(h) == 500
    np.testing.assert_array_equal(sample_index(h), np.arange(700, 1200))
    np.testing.assert_array_equal(h.archive("t"), archived)
    h.append(make_rows(1200, 1700))
    assert len(h) == 2000
    np.testing.assert_array_equal(sample_index(h), np.arange(900, 2900))
    assert h.archive("t")[-1] < h.column("t")[0]


def test_resize_down_keeps_the_latest_and_archives_the_rest():
    h = History(capacity=1000, archive_capacity=4096)
    h.append(make_rows(0, 800))
    h.resize(300)
    np.testing.assert_array_equal(sample_index(h), np.arange(500, 800))
    np.testing.assert_array_equal(np.round(h.archive("t") / DT).astype(int) - 1, np.arange(500))
    h.append(make_rows(800, 10))
    np.testing.assert_array_equal(sample_index(h), np.arange(510, 810))


def test_views_taken_before_a_resize_keep_their_values():
    h = History(capacity=100)
    h.append(make_rows(0, 50))
    view = h.column("t")
    before = view.copy()
    h.resize(400)
    h.append(make_rows(50, 300))
    np.testing.assert_array_equal(view, before)


def test_reserve_only_grows():
    h = History(capacity=100)
    assert not h.reserve(50) and h.capacity == 100
    assert h.reserve(150) and h.capacity == 150


def test_growing_before_each_batch_never_loses_a_sample_of_the_plotted_window():
    """The window's policy: reserve(capacity_for(dt)) before each batch, dt shrinking mid-run."""
    seconds = 2.0
    h = History(columns=("t", "x"), capacity=capacity_for(0.01, seconds))
    times = []
    t = 0.0
    for dt, steps in ((0.01, 500), (1e-3, 3000), (2e-4, 12000), (0.05, 100), (1e-4, 25000)):
        for _ in range(0, steps, 160):  # batches of a frame at 10x
            h.reserve(capacity_for(dt, seconds))
            batch = t + dt * np.arange(1, 161)
            t = batch[-1]
            times.append(batch)
            h.append(np.column_stack((batch, -batch)))
            everything = np.concatenate(times)
            window = everything[everything >= t - seconds]
            shown, columns = h.window(seconds)
            np.testing.assert_array_equal(shown, window)
            np.testing.assert_array_equal(columns["x"], -window)
