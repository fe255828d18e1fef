"""The live plots draw the right history column in every curve (values, not counts).

Each history column gets its own recognisable function of time (an offset
of its index plus a small sine), and the curve of every plot is compared
with the column a hand-written table says it shows.  Short histories are
drawn sample for sample; long ones are min/max decimated
(:func:`app.plots.decimate.envelope`), where each run of samples (one pixel
column) must show the minimum and maximum of exactly those raw samples.
"""

import numpy as np
import pytest

from app.plots.history import History
from app.plots.live import PlotPanel
from sim.model.rows import HISTORY_COLUMNS

DT = 1e-3

#: plot name -> {curve label: history column}, written by hand from the plots' meaning.
SHOWS = {
    "norm": {"|Q| − 1": "norm", "norm correction": "norm_correction"},
    "multiplier": {"λ": "multiplier", "4T": "four_t"},
    "angles": {"ψ": "psi_deg", "θ": "theta_deg", "φ": "phi_deg",
               "ψ cmd": "psic_deg", "θ cmd": "thetac_deg", "φ cmd": "phic_deg"},
    "rates": {"ωx": "wx", "ωy": "wy", "ωz": "wz"},
    "torques": {"τx": "tx", "τy": "ty", "τz": "tz"},
}


def column_value(name: str, t):
    """The test's own value of column ``name`` at times ``t``: index + 0.4 sin((index + 1) t).

    Columns never share a value (their ranges [i - 0.4, i + 0.4] are disjoint), so a
    curve fed from a wrong column cannot match; angles stay far from +-180 (no wrap).
    """
    i = HISTORY_COLUMNS.index(name)
    return i + 0.4 * np.sin((i + 1) * np.asarray(t))


def make_rows(start: int, n: int) -> np.ndarray:
    """Samples ``start + 1 .. start + n`` at ``DT``, every column from :func:`column_value`."""
    t = np.arange(start + 1, start + n + 1) * DT
    rows = np.column_stack([t if name == "t" else column_value(name, t) for name in HISTORY_COLUMNS])
    return rows


@pytest.fixture
def history():
    return History(capacity=2**15)


@pytest.fixture
def panel(qtbot, history):
    widget = PlotPanel(history)
    qtbot.addWidget(widget)
    widget.resize(700, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def curve_data(panel: PlotPanel, plot: str, label: str):
    """``(x, y)`` drawn by the curve called ``label`` in plot ``plot`` (found by its legend name)."""
    found = [c for c in panel.plot(plot).listDataItems() if c.name() == label]
    assert len(found) == 1, f"{plot}: one curve called {label!r}, found {len(found)}"
    x, y = found[0].getData()
    return (np.empty(0), np.empty(0)) if x is None else (np.asarray(x), np.asarray(y))


def test_every_curve_of_the_table_and_only_those_are_drawn(panel):
    for name in panel.plot_names():
        labels = [c.name() for c in panel.plot(name).listDataItems()]
        assert sorted(labels) == sorted(SHOWS[name]), name
    assert set(panel.plot_names()) == set(SHOWS)


@pytest.mark.parametrize("n", [1, 2, 200])
def test_a_short_history_is_drawn_sample_for_sample(panel, history, n):
    history.append(make_rows(0, n))
    panel.refresh()
    t = history.column("t")
    for plot, curves in SHOWS.items():
        for label, column in curves.items():
            x, y = curve_data(panel, plot, label)
            assert np.array_equal(x, t), (plot, label)
            assert np.array_equal(y, column_value(column, t)), (plot, label, column)


def runs_of(x, t):
    """Start index (into ``t``) of each decimation run, from the curve's abscissae.

    A decimated curve is ``x[0]``, each run's first abscissa twice, ``x[-1]``.
    """
    assert x[0] == t[0] and x[-1] == t[-1]
    inner = x[1:-1]
    assert len(inner) % 2 == 0 and np.array_equal(inner[0::2], inner[1::2])
    starts = np.searchsorted(t, inner[0::2])
    assert np.array_equal(t[starts], inner[0::2]), "every run starts at a sample"
    return starts


@pytest.mark.parametrize("total", [20_000, 30_000])
def test_a_long_history_shows_each_pixel_columns_min_and_max(panel, history, total):
    """20,000 samples fill the 20 s window; 30,000 scroll it (only the last 20 s are drawn)."""
    for start in range(0, total, 5000):
        history.append(make_rows(start, 5000))
    panel.refresh()
    t_all = history.column("t")
    t = t_all[t_all >= t_all[-1] - panel.window_seconds]
    first = history.count - len(t)                    # global index of t[0]
    width = panel.plot("torques").getViewBox().width()
    for plot, curves in SHOWS.items():
        for label, column in curves.items():
            x, y = curve_data(panel, plot, label)
            assert len(x) < len(t), "decimated"
            starts = runs_of(x, t)
            assert starts[0] == 0
            ends = np.append(starts[1:], len(t))
            lengths = ends - starts
            factor = lengths.max()
            assert factor & (factor - 1) == 0, "runs of a power of two samples"
            assert np.all(lengths[1:-1] == factor)
            assert np.all((first + starts[1:]) % factor == 0), "runs aligned to the global index"
            assert len(starts) >= width / 2, "at least a run per two pixel columns"
            raw = column_value(column, t)
            assert y[0] == raw[0] and y[-1] == raw[-1], (plot, label)
            low = np.array([raw[a:b].min() for a, b in zip(starts, ends)])
            high = np.array([raw[a:b].max() for a, b in zip(starts, ends)])
            assert np.array_equal(y[1:-1:2], low), (plot, label, column)
            assert np.array_equal(y[2:-1:2], high), (plot, label, column)


def test_new_samples_reach_every_curve(panel, history):
    history.append(make_rows(0, 100))
    panel.refresh()
    history.append(make_rows(100, 50))
    panel.refresh()
    t = history.column("t")
    assert len(t) == 150
    for plot, curves in SHOWS.items():
        for label, column in curves.items():
            x, y = curve_data(panel, plot, label)
            assert np.array_equal(x, t) and np.array_equal(y, column_value(column, t)), (plot, label)


def test_a_plot_hidden_while_samples_arrive_catches_up_with_their_values(panel, history):
    history.append(make_rows(0, 100))
    panel.refresh()
    panel.set_visible("rates", False)
    history.append(make_rows(100, 50))
    panel.refresh()
    x, _ = curve_data(panel, "rates", "ωy")
    assert len(x) == 100                               # hidden: not redrawn
    panel.set_visible("rates", True)
    t = history.column("t")
    for label, column in SHOWS["rates"].items():
        x, y = curve_data(panel, "rates", label)
        assert np.array_equal(x, t) and np.array_equal(y, column_value(column, t)), label


def test_the_curves_of_a_real_run_are_its_own_csv_columns(panel, history, capsys):
    """The controller scenario (every curve moving), 200 steps of 0.1 s fed to the plots as the window does
    (a Runner's batches into the history), against ``attitude-sim run``'s CSV of the same scenario, column
    by column by name: no synthetic history, so a column swapped or misread between the run and the plots
    fails here whatever the values."""
    import csv
    import io

    from app.cli import main
    from sim.run.runner import Runner
    from sim.run.scenario import load

    runner = Runner(load("hoffmann_controller"))
    assert tuple(runner.columns) == tuple(history.columns)
    history.append(runner.advance(200).rows)
    panel.refresh()
    assert main(["run", "--scenario", "hoffmann_controller", "--duration", "20"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    table = {name: np.array([float(r[k]) for r in rows[2:]]) for k, name in enumerate(rows[0])}  # t > 0
    assert len(table["t"]) == 200
    compared = 0
    for plot, curves in SHOWS.items():
        for label, column in curves.items():
            if column not in table:
                continue    # the history's own columns (the command's angles, 4T, ...) are not in run's CSV
            x, y = curve_data(panel, plot, label)
            np.testing.assert_array_equal(x, table["t"], err_msg=f"{plot} {label}")
            np.testing.assert_allclose(y, table[column], rtol=1e-14, atol=1e-15, err_msg=f"{plot} {label}")
            compared += 1
    assert compared >= 10
