"""PlotPanel: the live plots follow the History (offscreen or Xvfb, no OpenGL)."""

import time

import numpy as np
import pyqtgraph as pg
import pytest
from pyqtgraph.Qt import QtCore, QtGui

from app.plots.history import History
from app.plots.live import PLOTS, PlotPanel
from app.plots.turns import REFRESH_EVERY
from app.plots.style import settle_range, tick_strings
from sim.model.rows import HISTORY_COLUMNS

DT = 1e-3


def make_rows(start: int, n: int) -> np.ndarray:
    """Synthetic samples ``start .. start + n - 1`` at ``DT``: smooth angles, tiny norm error."""
    t = np.arange(start + 1, start + n + 1) * DT
    rng = np.random.default_rng(start)
    rows = np.sin(np.outer(t, 1.0 + np.arange(len(HISTORY_COLUMNS)) / 10.0))
    rows[:, HISTORY_COLUMNS.index("t")] = t
    rows[:, HISTORY_COLUMNS.index("norm")] = rng.normal(0.0, 1e-14, n)
    return rows


def scene_item_count(panel: PlotPanel) -> int:
    return len(panel.plot("norm").scene().items())


def test_plot_names_top_to_bottom(panel):
    assert panel.plot_names() == ("norm", "multiplier", "angles", "rates", "torques")


def test_after_n_steps_the_norm_curve_holds_n_points(panel, history):
    history.append(make_rows(0, 5000))
    panel.refresh()
    assert panel.curve_points("norm") == 5000
    assert panel.curve_points("norm", 1) == 5000


def test_every_plot_has_its_curves(panel, history):
    history.append(make_rows(0, 100))
    panel.refresh()
    counts = {spec.name: len(spec.curves) for spec in PLOTS}
    assert counts == {"norm": 2, "multiplier": 2, "angles": 6, "rates": 3, "torques": 3}
    for name, n in counts.items():
        assert all(panel.curve_points(name, i) == 100 for i in range(n))


def test_curve_points_counts_the_curve_asked_for(panel, history):
    history.append(make_rows(0, 100))
    panel.refresh()
    panel.plot("rates").listDataItems()[1].setData(np.empty(0), np.empty(0))  # only ωy emptied
    assert [panel.curve_points("rates", i) for i in range(3)] == [100, 0, 100]


def test_multiplier_plot_draws_lambda_solid_and_four_t_dashed(panel):
    spec = next(spec for spec in PLOTS if spec.name == "multiplier")
    assert [c.column for c in spec.curves] == ["multiplier", "four_t"]
    lam, four_t = panel.plot("multiplier").listDataItems()
    assert lam.opts["pen"].style() == QtCore.Qt.PenStyle.SolidLine
    assert four_t.opts["pen"].style() == QtCore.Qt.PenStyle.DashLine
    assert lam.opts["pen"].color() != four_t.opts["pen"].color()


def test_commands_are_dashed_in_the_colours_of_their_angles():
    spec = next(spec for spec in PLOTS if spec.name == "angles")
    colour = {c.column: c.color for c in spec.curves}
    for angle in ("psi", "theta", "phi"):
        assert colour[f"{angle}c_deg"] == colour[f"{angle}_deg"]
    assert [c.dashed for c in spec.curves] == [False] * 3 + [True] * 3


def test_x_y_z_colours_agree_across_plots():
    colour = {c.column: c.color for spec in PLOTS for c in spec.curves}
    assert colour["wx"] == colour["tx"] == colour["phi_deg"]
    assert colour["wy"] == colour["ty"] == colour["theta_deg"]
    assert colour["wz"] == colour["tz"] == colour["psi_deg"]
    assert len({colour["wx"], colour["wy"], colour["wz"]}) == 3


def test_curves_hold_a_min_max_pair_per_pixel_column_not_every_sample(panel, history, qtbot):
    panel.show()
    qtbot.waitExposed(panel)
    rows = make_rows(0, 20_000)
    rows[7_777, HISTORY_COLUMNS.index("wy")] = 50.0          # a one-sample spike
    history.append(rows)
    panel.refresh()
    width = panel.plot("rates").getViewBox().width()
    for name in panel.plot_names():
        for curve in panel.plot(name).listDataItems():
            x, _ = curve.getData()
            assert width <= len(x) <= 2 * width + 4
            assert curve.opts["skipFiniteCheck"] == (curve.opts["connect"] == "all")  # checked where gaps are
    assert panel.curve_points("rates") == 20_000               # what the curves stand for
    _, wy = panel.plot("rates").listDataItems()[1].getData()
    assert np.nanmax(wy) == 50.0                              # the spike is drawn


def test_refresh_shows_the_last_window_on_linked_x_axes(panel, history):
    history.append(make_rows(0, 30_000))
    panel.refresh()
    t_last = history.column("t")[-1]
    assert panel.curve_points("angles") == np.count_nonzero(history.column("t") >= t_last - 20.0)
    for name in panel.plot_names():
        x0, x1 = panel.plot(name).getViewBox().viewRange()[0]
        assert x0 == pytest.approx(t_last - 20.0) and x1 == pytest.approx(t_last)


def test_window_starts_at_the_first_sample_before_it_fills(panel, history):
    history.append(make_rows(0, 2000))
    panel.window_seconds = 5.0
    panel.refresh()
    x0, x1 = panel.plot("torques").getViewBox().viewRange()[0]
    assert x0 == pytest.approx(DT) and x1 == pytest.approx(DT + 5.0)


def test_refresh_creates_no_items(panel, history):
    history.append(make_rows(0, 1000))
    panel.refresh()
    before = scene_item_count(panel)
    for start in range(1000, 5000, 500):
        history.append(make_rows(start, 500))
        panel.refresh()
    assert scene_item_count(panel) == before


def test_hidden_plot_is_skipped_by_refresh(panel, history, qtbot):
    history.append(make_rows(0, 1000))
    panel.refresh()
    with qtbot.waitSignal(panel.visibility_changed) as signal:
        panel.set_visible("rates", False)
    assert signal.args == ["rates", False]
    assert not panel.is_visible("rates")
    history.append(make_rows(1000, 500))
    panel.refresh()
    assert panel.curve_points("rates") == 1000
    assert panel.curve_points("norm") == 1500
    panel.set_visible("rates", True)  # brought up to date at once
    assert panel.curve_points("rates") == 1500


def test_set_visible_to_the_same_state_emits_nothing(panel, qtbot):
    with qtbot.assertNotEmitted(panel.visibility_changed):
        panel.set_visible("norm", True)


def test_toggle_actions_show_and_hide_plots(panel, qtbot):
    actions = panel.toggle_actions()
    assert [a.text() for a in actions] == [spec.title for spec in PLOTS]
    assert all(a.isCheckable() and a.isChecked() for a in actions)
    with qtbot.waitSignal(panel.visibility_changed):
        actions[1].trigger()
    assert not panel.is_visible("multiplier")
    panel.set_visible("multiplier", True)
    assert actions[1].isChecked()


def test_time_axis_only_under_the_lowest_visible_plot(panel):
    def with_time_axis():
        return [name for name in panel.plot_names() if panel.plot(name).getAxis("bottom").isVisible()]

    assert with_time_axis() == ["torques"]
    panel.set_visible("torques", False)
    assert with_time_axis() == ["rates"]


def test_zooming_any_visible_plot_moves_all(panel, history):
    history.append(make_rows(0, 5000))
    panel.refresh()
    panel.set_visible("angles", False)
    panel.plot("rates").setXRange(1.0, 2.0, padding=0)
    for name in ("norm", "multiplier", "rates", "torques"):
        assert panel.plot(name).viewRange()[0] == pytest.approx([1.0, 2.0])
    assert panel.plot("angles").viewRange()[0] != pytest.approx([1.0, 2.0])  # hidden: unlinked


def test_unknown_plot_raises(panel):
    with pytest.raises(KeyError, match="unknown plot"):
        panel.set_visible("nope", False)


def test_clear_empties_every_curve(panel, history):
    history.append(make_rows(0, 1000))
    panel.refresh()
    history.clear()
    panel.clear()
    assert all(panel.curve_points(spec.name, i) == 0
               for spec in PLOTS for i in range(len(spec.curves)))
    history.append(make_rows(0, 10))
    panel.refresh()
    assert panel.curve_points("norm") == 10


def test_refresh_of_an_empty_history_draws_nothing(panel):
    panel.refresh()
    assert panel.curve_points("norm") == 0


@pytest.mark.parametrize("seconds", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_window_seconds_raises(panel, seconds):
    with pytest.raises(ValueError, match="window_seconds"):
        panel.window_seconds = seconds


def test_export_png_writes_the_panel(panel, history, tmp_path, qtbot):
    history.append(make_rows(0, 5000))
    panel.show()
    qtbot.waitExposed(panel)
    panel.refresh()
    path = panel.export_png(tmp_path / "plots.png")
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    image = QtGui.QImage(path)
    assert (image.width(), image.height()) == (700, 800)


@pytest.mark.parametrize("values, spacing, expected", [
    ([0.0, 5e-15, 1e-14], 5e-15, ["0", "5e-15", "1.0e-14"]),
    ([-1.5e-14, -1e-14], 5e-15, ["-1.5e-14", "-1.0e-14"]),
    ([-2e-4, 0.0, 2e-4], 2e-4, ["-2e-4", "0", "2e-4"]),
    ([-0.5, 0.0, 0.5], 0.5, ["-0.5", "0.0", "0.5"]),
    ([100.0000001, 100.0000002], 1e-7, ["100.0000001", "100.0000002"]),
    ([2e5, 4e5], 2e5, ["2e5", "4e5"]),
    ([], 0.5, []),                                          # no ticks at all
    ([0.0, 0.01], 0.01, ["0.00", "0.01"]),                 # 1e-2 is still fixed point
    ([0.0, 1e5], 5e4, ["0", "1.0e5"]),                      # 1e5 is not
    ([0.0, 10.0, 20.0], 10.0, ["0", "10", "20"]),           # no decimals for a spacing of 10
    ([0.001, 2e5], 1.0, ["1e-3", "2.00000e5"]),             # 1e-3 of the spacing is not zero yet
])
def test_tick_strings(values, spacing, expected):
    assert tick_strings(values, spacing) == expected


@pytest.mark.parametrize("current, low, high, expected", [
    ((0.0, 1.0), 0.2, 0.8, None),                    # fits and fills the range: keep
    ((0.0, 1.0), 0.0, 2.0, (-0.1, 2.1)),             # data leave the range: follow, 5 % margin
    ((-10.0, 10.0), 0.0, 1.0, (-0.05, 1.05)),        # data fill too little: shrink
    ((0.0, 1.0), 0.0, float("nan"), None),           # non-finite data: keep
    ((-3.0, 3.0), 0.0, 0.0, (-1.0, 1.0)),            # constant zero: unit range
    ((-1.0, 1.0), 0.0, 0.0, None),                   # ... which then stays
    ((0.0, 1.0), 0.0, 0.0, (-1.0, 1.0)),             # constant on the edge: centred, not hidden there
    ((0.0, 1.0), 5.0, 5.0, (4.5, 5.5)),              # constant: 10 % either side
    ((-1e-14, 1e-14), -4e-15, 6e-15, None),          # tiny norm errors behave alike
    ((0.0, 1.0), 0.0, 1.0, None),                    # data exactly on both edges still fit
    ((0.0, 10.0), 2.0, 4.0, (1.9, 4.1)),             # the margin is 5 % of the span, not of high + low
])
def test_settle_range(current, low, high, expected):
    result = settle_range(current, low, high)
    assert result == (None if expected is None else pytest.approx(expected))


def test_settle_range_keeps_a_range_the_data_fill_exactly_min_fill_of():
    # pad 0.25 * 2 = 0.5: the padded data (0.5, 3.5) fill 3 of 6, exactly min_fill = 0.5
    assert settle_range((0.0, 6.0), 1.0, 3.0, margin=0.25, min_fill=0.5) is None
    assert settle_range((0.0, 6.5), 1.0, 3.0, margin=0.25, min_fill=0.5) == (0.5, 3.5)


def test_y_range_holds_still_while_the_data_fit(panel, history):
    history.append(make_rows(0, 5000))
    panel.refresh()
    before = panel.plot("rates").viewRange()[1]
    history.append(make_rows(5000, 10))
    panel.refresh()
    assert panel.plot("rates").viewRange()[1] == before


def test_refresh_cost_20000_points(qtbot, capsys):
    """Benchmark, not a timed test: prints the cost of one frame, nothing asserted on time."""
    history = History(capacity=2**16)
    panel = PlotPanel(history)
    qtbot.addWidget(panel)
    panel.resize(700, 800)
    panel.show()
    qtbot.waitExposed(panel)
    history.append(make_rows(0, 20_000))
    refresh, draw = [], []
    for frame in range(30):
        history.append(make_rows(20_000 + 33 * frame, 33))  # 33 ms of simulation per frame
        t0 = time.perf_counter()
        panel.refresh()
        t1 = time.perf_counter()
        panel.grab()  # paints every item, as the next screen update would
        t2 = time.perf_counter()
        refresh.append(t1 - t0)
        draw.append(t2 - t1)
    assert panel.curve_points("angles") >= 20_000
    with capsys.disabled():
        print(f"\nPlotPanel, 20,000 points x 16 curves in 5 plots, 700x800: "
              f"refresh() median {1e3 * np.median(refresh):.2f} ms, "
              f"paint (grab) median {1e3 * np.median(draw):.2f} ms")


def test_wrapping_angle_is_broken_not_stroked_across_the_plot(panel, history):
    rows = make_rows(0, 1000)
    phi = HISTORY_COLUMNS.index("phi_deg")
    rows[:, phi] = np.where(np.arange(1000) % 2 == 0, 179.9, -179.9)   # noise at the wrap
    history.append(rows)
    panel.refresh()
    curve = next(c for c in panel.plot("angles").listDataItems() if c.name() == "φ")
    _, y = curve.getData()
    steps = np.abs(np.diff(y))              # NaN where a gap breaks the line
    assert not (steps > 180.0).any()        # no stroke across the plot: every jump is a gap
    assert np.isnan(y).sum() >= len(y) - 2
    assert curve.opts["connect"] == "finite"
    path = curve.getPath()  # what is stroked: no line element from one side of the wrap to the other
    points = [path.elementAt(i) for i in range(path.elementCount())]
    assert not any(b.isLineTo() and abs(b.y - a.y) > 180.0 for a, b in zip(points, points[1:]))


def test_plots_take_turns_so_each_frame_redraws_a_share(panel, history):
    history.append(make_rows(0, 1000))
    panel.refresh()
    history.append(make_rows(1000, 50))
    names = panel.plot_names()
    panel.refresh_due(0)
    fresh = [name for name in names if panel.curve_points(name) == 1050]
    assert fresh == list(names[0::REFRESH_EVERY])
    for frame in range(1, REFRESH_EVERY):
        panel.refresh_due(frame)
    assert all(panel.curve_points(name) == 1050 for name in names)


def test_live_scrolling_of_one_plot_does_not_drag_the_others(panel, history):
    history.append(make_rows(0, 30_000))
    panel.refresh()
    history.append(make_rows(30_000, 500))
    panel.refresh(["norm"])
    t_last = history.column("t")[-1]
    assert panel.plot("norm").viewRange()[0][1] == pytest.approx(t_last)
    assert panel.plot("rates").viewRange()[0][1] == pytest.approx(t_last - 0.5)


def test_grid_lines_are_their_translucent_colour_composited_over_the_background(panel, history):
    """Each tick and grid pen is pyqtgraph's translucent one made opaque: alpha c + (1 - alpha) bg."""
    import pyqtgraph as pg

    history.append(make_rows(0, 500))
    panel.refresh()
    image = QtGui.QImage(200, 200, QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(image)
    mine, theirs = [], []
    try:
        for side in ("left", "bottom"):  # grid lines on the left, half-transparent minor ticks below
            axis = panel.plot("rates").getAxis(side)
            mine += axis.generateDrawSpecs(painter)[1]
            theirs += pg.AxisItem.generateDrawSpecs(axis, painter)[1]
    finally:
        painter.end()
    background = QtGui.QColor("#1e1f24")  # the plots' background (app.plots.BACKGROUND)
    assert mine and len(mine) == len(theirs)
    translucent = 0
    for (pen, p1, p2), (raw, r1, r2) in zip(mine, theirs):
        assert (p1, p2) == (r1, r2)
        a, c = raw.color().alphaF(), raw.color()
        translucent += 0.1 < a < 0.9
        assert pen.color().alphaF() == 1.0
        expected = [a * x + (1.0 - a) * b for x, b in zip((c.redF(), c.greenF(), c.blueF()),
                                                           (background.redF(), background.greenF(), background.blueF()))]
        np.testing.assert_allclose([pen.color().redF(), pen.color().greenF(), pen.color().blueF()], expected,
                                   atol=1.0 / 255)
    assert translucent  # the case is meaningful: pyqtgraph's grid pens are translucent


def test_each_plot_follows_data_that_leave_its_range_with_a_five_percent_margin(panel, history):
    """Rates far outside the first range: the axis becomes exactly their span plus 5 % either side."""
    rows = make_rows(0, 400)
    cols = [HISTORY_COLUMNS.index(c) for c in ("wx", "wy", "wz")]
    rows[:, cols] = 40.0 + 10.0 * rows[:, cols]  # within [30, 50], far above any first range
    history.append(rows)
    panel.refresh()
    low, high = rows[:, cols].min(), rows[:, cols].max()
    pad = 0.05 * (high - low)
    assert panel.plot("rates").viewRange()[1] == pytest.approx([low - pad, high + pad], rel=1e-12)


def test_curves_set_for_the_orbit_frame_keep_their_wrapping_angles_broken(panel, history):
    """The window's orbit-frame switch (app.window.frames.show_orbit_angles) gives the Angles plot new curves:
    a yaw that wraps at +-180 deg there is still broken at the wrap, never stroked across the plot."""
    from app.plots.live import CurveSpec
    from app.plots.style import BLUE, GREEN

    rows = make_rows(0, 1000)
    rows[:, HISTORY_COLUMNS.index("psio_deg")] = np.where(np.arange(1000) % 2 == 0, 179.9, -179.9)
    history.append(rows)
    panel.set_curves("angles", (CurveSpec("psio_deg", "ψ orbit", BLUE, wraps=True),
                                CurveSpec("thetao_deg", "θ orbit", GREEN)))
    panel.refresh()
    yaw, pitch = panel.plot("angles").listDataItems()
    _, y = yaw.getData()
    assert not (np.abs(np.diff(y)) > 180.0).any() and np.isnan(y).sum() >= len(y) - 2
    assert yaw.opts["connect"] == "finite"
    assert not np.isnan(pitch.getData()[1]).any()


def test_a_png_that_cannot_be_written_raises_oserror_naming_the_file(panel, tmp_path):
    """Qt's save refusing the image (a full disk, a format it cannot write): OSError names the file, and
    neither the file nor a partial one is left behind."""
    class Refused:
        def save(self, *args):
            return False

    panel._graphics.grab = Refused
    target = tmp_path / "plots.png"
    with pytest.raises(OSError, match="plots.png"):
        panel.export_png(target)
    assert list(tmp_path.iterdir()) == []


def test_every_axis_reads_its_quantity_in_plain_numbers_in_the_foreground_colour_under_the_curves(panel):
    """Each plot's left axis is labelled with its quantity and unit (PlotSpec.axis_label), the time axis t (s);
    both in the foreground colour, drawn under the view box (z below it: opaque grid lines under the curves),
    without an SI prefix rescaling the numbers (3e-6 reads 3e-06, not 3 µ), in two tick levels; the left axes
    are one width, so the stacked plots line up."""
    from app.plots.style import AXIS_WIDTH, FOREGROUND

    foreground = pg.mkColor(FOREGROUND).name()
    for spec in PLOTS:
        plot = panel.plot(spec.name)
        left, bottom = plot.getAxis("left"), plot.getAxis("bottom")
        assert left.labelText == spec.axis_label and bottom.labelText == "t (s)", spec.name
        for axis in (left, bottom):
            assert axis.pen().color().name() == foreground and axis.textPen().color().name() == foreground
            assert axis.labelStyle.get("color") == FOREGROUND, spec.name
            assert axis.zValue() < plot.getViewBox().zValue(), spec.name
            assert len(axis.tickValues(0.0, 1.0, 500)) == 2, "major and minor ticks only"
        for side in ("left", "bottom", "top", "right"):
            assert not plot.getAxis(side).autoSIPrefix, (spec.name, side)
        assert left.width() == AXIS_WIDTH
    plot = panel.plot("norm")
    plot.setYRange(0.0, 3e-6, padding=0)
    assert plot.getAxis("left").autoSIPrefixScale == 1.0
    assert "µ" not in plot.getAxis("left").labelString()


def test_each_plot_names_its_curves_in_a_one_row_legend_above_its_data_and_has_a_show_hide_action(panel):
    """In place of a title: a frameless legend of one row, in the foreground colour, left-aligned over the data
    and LEGEND_HEIGHT pixels high, naming the plot's curves in order; and a checked, checkable action named
    after the plot whose tool tip says which plot it shows or hides."""
    from app.plots.live import LEGEND_HEIGHT
    from app.plots.style import FOREGROUND

    panel.show()
    for spec, action in zip(PLOTS, panel.toggle_actions()):
        plot = panel.plot(spec.name)
        legend = plot.legend
        assert [label.text for _, label in legend.items] == [c.label for c in spec.curves], spec.name
        assert legend.layout.rowCount() == 1, spec.name
        assert all(label.opts["color"] == FOREGROUND for _, label in legend.items), spec.name
        assert legend.opts["pen"].style() == QtCore.Qt.PenStyle.NoPen, "no frame"
        assert not plot.titleLabel.isVisible()
        assert plot.layout.rowMaximumHeight(0) == LEGEND_HEIGHT == plot.layout.rowMinimumHeight(0)
        assert legend.geometry().left() == plot.getViewBox().geometry().left(), spec.name
        assert legend.geometry().top() < plot.getViewBox().geometry().top(), spec.name
        assert action.text() == spec.title and action.isCheckable() and action.isChecked()
        assert spec.title.lower() in action.toolTip()
