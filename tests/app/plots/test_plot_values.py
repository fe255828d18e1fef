"""The live plots draw the right history column in every curve (values, not counts).

Each history column gets its own recognisable function of time (an offset
of its index plus a small sine), and the curve of every plot is compared
with the column a hand-written table says it shows.  Short histories are
drawn sample for sample; long ones are min/max decimated
(:func:`app.plots.decimate.envelope`), where each run of samples (one pixel
column) must show the minimum and maximum of exactly those raw samples.
"""

import numpy as np
import pyqtgraph as pg
import pytest
from pyqtgraph.Qt import QtCore

from app.plots.history import History
from app.plots.live import PlotPanel
from plot_helpers import curve_data, fed, shown
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
def panel(qtbot, panel):
    """The room's panel (tests/app/plots/conftest.py), shown on the screen."""
    return shown(qtbot, panel)


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


# ------------------------------------------------------------- the Momentum tab with reaction wheels
#: The wheels' limits of the run below, rad/s and N m: one per wheel, all different.
SPEED_LIMITS = (400.0, 500.0, 600.0)
TORQUE_LIMITS = (0.1, 0.2, 0.3)


def wheel_run(steps: int = 100):
    """A Runner of a body with three orthogonal wheels under the quaternion controller (every wheel column
    moving, the motors saturating) and the rows of its first ``steps`` steps of 0.05 s."""
    from sim.model.settings import Settings
    from sim.run.runner import Runner
    from sim.run.scenario import Scenario

    settings = Settings(wheels="orthogonal", controller="quaternion", wheel_speeds=(300.0, -200.0, 100.0),
                        wheel_inertia=1e-3, rates=(0.1, -0.2, 0.3), dt=0.05,
                        wheel_speed_limit=SPEED_LIMITS, wheel_torque_limit=TORQUE_LIMITS)
    runner = Runner(Scenario(name="wheels", settings=settings))
    return runner, np.asarray(runner.advance(steps).rows)


@pytest.fixture
def momentum(qtbot):
    """The Momentum tab's panel, set as the window sets it (app.plots.live.show_wheels, which
    app.window.frames calls) and fed from a real run with three wheels."""
    from app.plots.live import MOMENTUM_PLOTS, show_wheels

    runner, rows = wheel_run()
    history = History(columns=runner.columns, capacity=2**12)
    widget = shown(qtbot, PlotPanel(history, plots=MOMENTUM_PLOTS))
    show_wheels(widget, 3, SPEED_LIMITS, TORQUE_LIMITS)
    fed(widget, history, rows)
    return widget, dict(zip(runner.columns, rows.T))


#: Momentum plot -> {what the curve's legend must name: the run's column it must show}, by hand from the
#: columns' meaning (sim.model.rows: wheel<i> speed, ux<i> motor torque, hb* the body's share of H,
#: tc* the torque law's command), each with its solid (False) or dashed (True) pen.
MOMENTUM_SHOWS = {
    "momentum": [(("Hx",), "hx", False), (("Hy",), "hy", False), (("Hz",), "hz", False),
                 (("Hx", "body"), "hbx", True), (("Hy", "body"), "hby", True), (("Hz", "body"), "hbz", True)],
    "wheel_speeds": [(("Ω", "1"), "wheel1", False), (("Ω", "2"), "wheel2", False), (("Ω", "3"), "wheel3", False)],
    "wheel_torques": [(("u", "1"), "ux1", False), (("u", "2"), "ux2", False), (("u", "3"), "ux3", False)],
    "body_torques": [(("τx",), "tx", False), (("τy",), "ty", False), (("τz",), "tz", False),
                     (("τx", "asked"), "tcx", True), (("τy", "asked"), "tcy", True), (("τz", "asked"), "tcz", True)],
}


def test_each_momentum_curve_of_a_three_wheel_run_is_its_own_column_named_and_dashed_as_it_should(momentum):
    """Every curve of the Momentum tab, found by its legend name, holds the run's column of that name sample
    for sample (5 s of a 20 s window: no decimation); a body or asked twin is dashed, the rest solid."""
    panel, table = momentum
    for plot, curves in MOMENTUM_SHOWS.items():
        items = panel.plot(plot).listDataItems()
        assert len(items) == len(curves), plot
        assert panel.columns(plot) == [column for _, column, _ in curves], plot
        for words, column, dashed in curves:
            found = [c for c in items
                     if all(w in (c.name() or "") for w in words) and ("body" in (c.name() or "")) == ("body" in words)
                     and ("asked" in (c.name() or "")) == ("asked" in words)]
            assert len(found) == 1, (plot, words, [c.name() for c in items])
            x, y = found[0].getData()
            np.testing.assert_array_equal(x, table["t"], err_msg=f"{plot} {column}")
            np.testing.assert_array_equal(y, table[column], err_msg=f"{plot} {column}")
            style = found[0].opts["pen"].style()
            assert (style == QtCore.Qt.PenStyle.DashLine) == dashed, (plot, column)


def test_a_wheel_has_one_colour_in_both_wheel_plots_and_a_twin_the_colour_of_its_axis(momentum):
    """Wheel i is drawn in WHEEL_COLORS[i - 1] (the colour of wheel i on the body in the 3D view) in the speed
    and the motor-torque plots; the dashed body and asked twins take the colour of the solid curve of their axis."""
    from app.plots.live import WHEEL_COLORS

    panel, _ = momentum

    def colours(plot):
        return {c.name(): c.opts["pen"].color().name() for c in panel.plot(plot).listDataItems()}

    speeds, torques = colours("wheel_speeds"), colours("wheel_torques")
    for i in (1, 2, 3):
        (speed,) = [colour for name, colour in speeds.items() if name.endswith(str(i))]
        (torque,) = [colour for name, colour in torques.items() if name.endswith(str(i))]
        assert speed == torque == WHEEL_COLORS[i - 1].lower(), i
    for plot, twin in (("momentum", "body"), ("body_torques", "asked")):
        drawn = colours(plot)
        solid = {name: colour for name, colour in drawn.items() if twin not in name}
        assert len(solid) == 3 and len(set(solid.values())) == 3, plot
        for name, colour in solid.items():
            assert drawn[f"{name} {twin}"] == colour, (plot, name)


def test_the_wheel_limits_are_horizontal_silver_dashed_lines_at_plus_and_minus_each_limit(momentum):
    from app.plots.style import SILVER

    panel, _ = momentum
    for plot, limits in (("wheel_speeds", SPEED_LIMITS), ("wheel_torques", TORQUE_LIMITS)):
        expected = sorted([*limits, *(-m for m in limits)])
        assert panel.limits(plot) == expected, plot
        lines = [i for i in panel.plot(plot).items if isinstance(i, pg.InfiniteLine)]
        assert sorted(line.value() for line in lines) == expected, plot
        for line in lines:
            assert line.angle == 0, "horizontal: a level of the plotted value, not a time"
            assert not line.movable, "a limit cannot be dragged away"
            assert line.pen.style() == QtCore.Qt.PenStyle.DashLine
            assert line.pen.color().name() == pg.mkColor(SILVER).name()
        low, high = panel.plot(plot).viewRange()[1]
        assert low <= expected[0] and expected[-1] <= high, "the limits stay in sight"
    for plot in ("momentum", "body_torques"):
        assert panel.limits(plot) == []
        assert not [i for i in panel.plot(plot).items if isinstance(i, pg.InfiniteLine)], plot


def test_new_curves_replace_the_old_and_are_drawn_at_once_while_paused(momentum):
    """A new run with one wheel (or none) while paused: the old wheels' curves and limit lines leave the plot,
    the new curves show the history at once (no new sample needed), and the other plots keep theirs."""
    from app.plots.live import wheel_curves

    panel, table = momentum
    n = len(table["t"])
    one = wheel_curves(1)
    panel.set_curves("wheel_speeds", one["wheel_speeds"], (-400.0, 400.0))
    items = panel.plot("wheel_speeds").listDataItems()
    assert [c.name() for c in items] == [spec.label for spec in one["wheel_speeds"]]
    lines = [i for i in panel.plot("wheel_speeds").items if isinstance(i, pg.InfiniteLine)]
    assert sorted(line.value() for line in lines) == [-400.0, 400.0]
    assert panel.curve_points("momentum", 3) == n, "another plot keeps its count"
    panel.refresh()                                   # no new sample: only the changed plot is drawn again
    x, y = items[0].getData()
    np.testing.assert_array_equal(y, table["wheel1"])
    assert panel.curve_points("wheel_speeds", 0) == n
    panel.set_curves("wheel_speeds", wheel_curves(0)["wheel_speeds"])
    assert panel.plot("wheel_speeds").listDataItems() == [] and panel.columns("wheel_speeds") == []
    assert not [i for i in panel.plot("wheel_speeds").items if isinstance(i, pg.InfiniteLine)]
    panel.refresh()
    assert panel.curve_points("momentum", 0) == n


@pytest.mark.parametrize("count", [0, 1, 3, 9])
def test_wheel_curves_has_one_speed_and_one_torque_curve_per_wheel_and_twins_only_with_wheels(count):
    """For N wheels: N speed curves wheel1..N and N motor-torque curves ux1..N (colours cycled beyond eight, so
    wheel 9 takes wheel 1's); H and the torque on the body always, their dashed twins only with wheels."""
    from app.plots.live import WHEEL_COLORS, wheel_curves

    curves = wheel_curves(count)
    assert set(curves) == {"momentum", "wheel_speeds", "wheel_torques", "body_torques"}
    assert [c.column for c in curves["wheel_speeds"]] == [f"wheel{i}" for i in range(1, count + 1)]
    assert [c.column for c in curves["wheel_torques"]] == [f"ux{i}" for i in range(1, count + 1)]
    for plot in ("wheel_speeds", "wheel_torques"):
        for i, spec in enumerate(curves[plot], start=1):
            assert spec.label.endswith(str(i)) and not spec.dashed, (plot, i)
            assert spec.color == WHEEL_COLORS[(i - 1) % 8], (plot, i)
    twins = ["hbx", "hby", "hbz"] if count else []
    asked = ["tcx", "tcy", "tcz"] if count else []
    assert [c.column for c in curves["momentum"]] == ["hx", "hy", "hz", *twins]
    assert [c.column for c in curves["body_torques"]] == ["tx", "ty", "tz", *asked]
    assert [c.dashed for c in curves["momentum"]] == [False] * 3 + [True] * len(twins)


# ------------------------------------------------------------- the panel's layout, and the plots as a user drives them
def test_the_plots_stack_top_to_bottom_edge_to_edge_on_the_plot_background_inside_their_parent(qtbot, history):
    """A panel made inside a window is that window's child, and so are its show/hide actions; its plots are
    stacked in PLOTS order, each starting where the one above ends (no gap), one width, on PLOT_BACKGROUND."""
    from pyqtgraph.Qt import QtWidgets

    from app.plots.live import PLOTS
    from app.plots.style import PLOT_BACKGROUND

    host = QtWidgets.QWidget()
    qtbot.addWidget(host)
    panel = PlotPanel(history, parent=host)
    assert panel.parent() is host
    assert all(action.parent() is panel for action in panel.toggle_actions())
    host.resize(700, 800)
    panel.resize(700, 800)
    host.show()
    qtbot.waitExposed(host)
    boxes = [panel.plot(spec.name).geometry() for spec in PLOTS]
    assert boxes[0].height() > 50
    for upper, lower in zip(boxes, boxes[1:]):
        assert lower.top() == pytest.approx(upper.bottom(), abs=1e-9), "stacked edge to edge, in order"
        assert (lower.left(), lower.width()) == (upper.left(), upper.width())
    image = panel.grab().toImage()
    background = pg.mkColor(PLOT_BACKGROUND)
    for x, y in ((2, 2), (690, 400)):                # outside the plots (the screen may have 16-bit colour)
        seen = image.pixelColor(x, y)
        assert abs(seen.red() - background.red()) <= 8 and abs(seen.green() - background.green()) <= 4, (x, y)
        assert abs(seen.blue() - background.blue()) <= 8, (x, y)


def test_each_plot_has_horizontal_grid_lines_at_the_grid_opacity_and_no_vertical_ones(panel):
    """Grid lines mark the values (left and right axes: y) at GRID_ALPHA of the axis colour; none mark the time."""
    from app.plots.style import GRID_ALPHA

    for name in panel.plot_names():
        plot = panel.plot(name)
        for side in ("left", "right"):
            assert plot.getAxis(side).grid / 255 == pytest.approx(GRID_ALPHA, abs=1 / 255), (name, side)
        for side in ("bottom", "top"):
            assert plot.getAxis(side).grid is False, (name, side)


def test_the_legend_names_its_curves_in_8_point_text(panel):
    """Each legend entry's text is as wide as Qt's 8 pt font sets it (the window's text is larger)."""
    from pyqtgraph.Qt import QtGui

    for name in panel.plot_names():
        for _, label in panel.plot(name).legend.items:
            font = QtGui.QFont(label.item.font())
            font.setPointSizeF(8.0)
            width = QtGui.QFontMetricsF(font).horizontalAdvance(label.text)
            margins = 2 * label.item.document().documentMargin()
            assert label.item.boundingRect().width() == pytest.approx(width + margins, abs=1.0), (name, label.text)


def test_a_plot_zoomed_while_paused_stays_zoomed_until_a_new_sample_arrives(panel, history):
    history.append(make_rows(0, 500))
    panel.refresh()
    plot = panel.plot("rates")
    plot.setXRange(0.1, 0.2, padding=0)
    panel.refresh()                                   # paused: nothing new
    assert plot.viewRange()[0] == pytest.approx([0.1, 0.2])
    history.append(make_rows(500, 1))
    panel.refresh()
    t = history.column("t")
    assert plot.viewRange()[0] == pytest.approx([t[0], t[0] + panel.window_seconds])


def test_a_history_refilled_with_another_span_of_as_many_samples_is_drawn_anew(panel, history):
    """The plots never keep a replaced run on screen: the history cleared and refilled with as many samples of
    other times is drawn at the next refresh, even before the panel itself is cleared."""
    history.append(make_rows(0, 300))
    panel.refresh()
    history.clear()
    history.append(make_rows(5000, 300))
    panel.refresh()
    t = history.column("t")
    for label, column in SHOWS["rates"].items():
        x, y = curve_data(panel, "rates", label)
        assert np.array_equal(x, t) and np.array_equal(y, column_value(column, t)), label


def test_the_one_plot_left_visible_is_drawn_and_its_curves_painted(panel, history, qtbot):
    names = panel.plot_names()
    for name in names[1:]:
        panel.set_visible(name, False)
    history.append(make_rows(0, 200))
    panel.refresh()
    t = history.column("t")
    for label, column in SHOWS[names[0]].items():
        x, y = curve_data(panel, names[0], label)
        assert np.array_equal(x, t) and np.array_equal(y, column_value(column, t)), label
    for curve in panel.plot(names[0]).listDataItems():   # the path Qt strokes spans the curve's data
        box = curve.getPath().boundingRect()
        _, y = curve.getData()
        assert (box.left(), box.right()) == pytest.approx((t[0], t[-1]))
        assert (box.top(), box.bottom()) == pytest.approx((y.min(), y.max()))


def test_a_window_of_24_samples_per_pixel_is_cut_into_one_run_per_one_or_two_pixel_columns(panel, history):
    """factor_for(n, width / 2): between width / 2 and width runs of a power of two samples (here 32 a run)."""
    width = panel.plot("torques").getViewBox().width()
    n = int(24 * width)
    assert n < panel.window_seconds / DT              # all in the window
    history.append(make_rows(0, n))
    panel.refresh()
    t = history.column("t")
    for plot, curves in SHOWS.items():
        label = next(iter(curves))
        x, _ = curve_data(panel, plot, label)
        starts = runs_of(x, t)
        assert width / 2 <= len(starts) <= width + 1, (plot, len(starts), width)


def test_a_plot_shown_again_says_so_and_shows_the_live_window(panel, history, qtbot):
    history.append(make_rows(0, 500))
    panel.refresh()
    t = history.column("t")
    panel.plot("rates").setXRange(0.1, 0.2, padding=0)
    panel.set_visible("rates", False)
    with qtbot.waitSignal(panel.visibility_changed) as blocker:
        panel.set_visible("rates", True)
    assert blocker.args == ["rates", True]
    assert panel.plot("rates").viewRange()[0] == pytest.approx([t[0], t[0] + panel.window_seconds])


def test_an_unknown_plot_is_refused_with_the_list_of_the_known_ones(panel):
    with pytest.raises(KeyError) as info:
        panel.plot("speeds")
    message = str(info.value.args[0])
    assert "'speeds'" in message
    assert message.split("known:")[1].strip().split(", ") == list(panel.plot_names())


def test_curve_points_of_a_plot_with_one_curve_counts_that_curve(momentum):
    from app.plots.live import wheel_curves

    panel, table = momentum
    panel.set_curves("wheel_speeds", wheel_curves(1)["wheel_speeds"])
    panel.refresh()
    assert panel.curve_points("wheel_speeds") == len(table["t"])


def test_building_the_panels_lays_every_legend_out_without_a_qt_warning(qtbot, qtlog):
    """Each legend takes its plot's title cell (the title leaves it): Qt's layout engine refuses an item put
    into a taken cell with a warning, which must never be seen, for the main plots and the Momentum tab."""
    from app.plots.live import MOMENTUM_PLOTS, PLOTS

    for plots in (PLOTS, MOMENTUM_PLOTS):
        panel = PlotPanel(History(capacity=64), plots=plots)
        qtbot.addWidget(panel)
        for spec in plots:
            plot = panel.plot(spec.name)
            assert plot.layout.itemAt(0, 1) is plot.legend, spec.name
    warnings = [r.message for r in qtlog.records if r.type != QtCore.QtMsgType.QtDebugMsg]
    assert warnings == []


def test_the_wheel_plots_show_only_for_a_run_with_wheels(momentum):
    """A body without wheels hides the speed and motor-torque plots (and their limit lines); H and the torque
    on the body stay; wheels again bring both plots back with their limits."""
    from app.plots.live import show_wheels

    panel, _ = momentum
    show_wheels(panel, 0)
    assert [panel.is_visible(name) for name in ("momentum", "wheel_speeds", "wheel_torques", "body_torques")] \
        == [True, False, False, True]
    assert panel.limits("wheel_speeds") == panel.limits("wheel_torques") == []
    show_wheels(panel, 2, (100.0, 100.0), (0.5, 0.1))
    assert panel.is_visible("wheel_speeds") and panel.is_visible("wheel_torques")
    assert panel.limits("wheel_speeds") == [-100.0, 100.0]          # one line for the two equal limits
    assert panel.limits("wheel_torques") == [-0.5, -0.1, 0.1, 0.5]
