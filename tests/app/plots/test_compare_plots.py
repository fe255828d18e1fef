"""ComparePanel: comparison bodies' error, energy drift and norm drift (offscreen or Xvfb, no OpenGL)."""

import math

import numpy as np
import pytest

from app.plots.compare import ERROR_FLOOR_DEG, MAX_BODY_CAPACITY, PLOT_NAMES, ComparePanel, body_capacity
from app.plots.style import decade_label
from sim.run.runner import COMPARE_COLUMNS, MAIN
from gui_waits import caught_up

DT = 0.01
BODIES = ("rk4", "full-quat", "full-quat raw")
COLORS = ((1.0, 0.6, 0.15, 0.4), (0.85, 0.35, 1.0, 0.4), (1.0, 0.95, 0.25, 0.4))


def make_rows(start: int, n: int, energy0: float = 2.0, loss: float = 0.0, error: float = 1e-3) -> np.ndarray:
    """``n`` rows from step ``start + 1``: t, error = error * step, energy = energy0 * (1 - loss * step), norm."""
    steps = np.arange(start + 1, start + n + 1, dtype=float)
    rows = np.empty((n, len(COMPARE_COLUMNS)))
    rows[:, COMPARE_COLUMNS.index("t")] = steps * DT
    rows[:, COMPARE_COLUMNS.index("error_deg")] = error * steps
    rows[:, COMPARE_COLUMNS.index("energy")] = energy0 * (1.0 - loss * steps)
    rows[:, COMPARE_COLUMNS.index("norm")] = 1e-12 * steps
    return rows


def batch(start: int, n: int, **kwargs) -> dict:
    """One batch of compare rows for the main body and every comparison body; the reference has error 0."""
    rows = {label: make_rows(start, n, **kwargs) for label in (MAIN, *BODIES)}
    rows["rk4"][:, COMPARE_COLUMNS.index("error_deg")] = 0.0
    return rows


@pytest.fixture
def panel(qtbot):
    widget = ComparePanel()
    qtbot.addWidget(widget)
    widget.resize(445, 820)
    widget.set_bodies(BODIES, COLORS, reference="rk4", dt=DT)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def test_every_body_gets_its_rows_and_its_curves_hold_them(panel):
    panel.append(batch(0, 300))
    panel.append(batch(300, 200))
    panel.refresh()
    assert panel.labels == (MAIN, *BODIES)
    for label in panel.labels:
        assert panel.count(label) == 500
        assert panel.curve_points("energy", label) == 500
        assert panel.curve_points("norm", label) == 500
    for label in (MAIN, "full-quat", "full-quat raw"):
        assert panel.curve_points("error", label) == 500


def test_the_reference_has_no_error_curve(panel):
    panel.append(batch(0, 100))
    panel.refresh()
    assert panel.reference == "rk4"
    assert panel.curve_points("error", "rk4") == 0
    assert panel.curve_data("error", "rk4") is None
    assert panel.curve_points("energy", "rk4") == 100
    assert "against rk4" in panel.plot("error").titleLabel.text


def test_error_is_drawn_on_a_log_scale_with_zeros_at_the_floor(panel):
    rows = batch(0, 50)
    rows[MAIN][:10, COMPARE_COLUMNS.index("error_deg")] = 0.0
    panel.append(rows)
    panel.refresh()
    _, y = panel.curve_data("error", MAIN)
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y[:10], math.log10(ERROR_FLOOR_DEG))
    np.testing.assert_allclose(y[10:], np.log10(1e-3 * np.arange(11, 51)))
    low, high = panel.plot("error").viewRange()[1]
    assert low <= y.min() and y.max() <= high


def test_energy_drift_is_relative_to_the_first_sample(panel):
    panel.append(batch(0, 100, energy0=2.0, loss=1e-3))
    panel.append(batch(100, 100, energy0=2.0, loss=1e-3))
    panel.refresh()
    assert panel.relative_energy
    t, drift = panel.curve_data("energy", "full-quat raw")
    energy = 2.0 * (1.0 - 1e-3 * np.arange(1, 201))
    np.testing.assert_allclose(drift, energy / energy[0] - 1.0, rtol=0, atol=1e-15)
    assert drift[0] == 0.0
    np.testing.assert_allclose(t, np.arange(1, 201) * DT)
    assert "T/T0" in panel.plot("energy").titleLabel.text


def test_each_body_has_its_own_t0(panel):
    rows = batch(0, 10)
    rows["full-quat"][:, COMPARE_COLUMNS.index("energy")] = np.linspace(4.0, 5.0, 10)
    panel.append(rows)
    panel.refresh()
    _, drift = panel.curve_data("energy", "full-quat")
    np.testing.assert_allclose(drift, np.linspace(4.0, 5.0, 10) / 4.0 - 1.0)
    _, main = panel.curve_data("energy", MAIN)
    np.testing.assert_allclose(main, 0.0)


def test_a_reset_takes_t0_again(panel):
    panel.append(batch(0, 100, energy0=2.0, loss=1e-3))
    panel.clear()
    panel.append(batch(0, 20, energy0=3.0, loss=1e-2))
    panel.refresh()
    _, drift = panel.curve_data("energy", MAIN)
    np.testing.assert_allclose(drift, (1.0 - 1e-2 * np.arange(1, 21)) / (1.0 - 1e-2) - 1.0, atol=1e-15)


def test_bodies_starting_at_rest_show_the_energy_change(panel):
    panel.append(batch(0, 10, energy0=0.0))
    rows = batch(10, 10, energy0=0.0)
    rows[MAIN][:, COMPARE_COLUMNS.index("energy")] = 0.5
    panel.append(rows)
    panel.refresh()
    assert not panel.relative_energy
    assert "T − T0" in panel.plot("energy").titleLabel.text
    _, change = panel.curve_data("energy", MAIN)
    np.testing.assert_array_equal(change, [0.0] * 10 + [0.5] * 10)
    panel.clear()
    panel.append(batch(0, 10, energy0=1.0))
    assert panel.relative_energy


def test_norm_curve_is_the_norm_column(panel):
    panel.append(batch(0, 30))
    panel.refresh()
    _, norm = panel.curve_data("norm", "full-quat")
    np.testing.assert_allclose(norm, 1e-12 * np.arange(1, 31))


def test_the_window_scrolls_over_the_last_20_seconds(panel):
    n = 3000  # 30 s at 10 ms
    panel.append(batch(0, n))
    panel.refresh()
    t, _ = panel.curve_data("norm", MAIN)
    assert t[-1] == pytest.approx(30.0) and t[0] == pytest.approx(10.0)
    left, right = panel.plot("norm").viewRange()[0]
    assert right == pytest.approx(30.0) and left == pytest.approx(10.0)
    assert panel.plot("error").viewRange()[0] == pytest.approx([10.0, 30.0])  # linked


def test_clear_empties_every_curve(panel):
    panel.append(batch(0, 100))
    panel.refresh()
    panel.clear()
    for name in PLOT_NAMES:
        for label in panel.labels:
            assert panel.curve_points(name, label) == 0
    assert all(panel.count(label) == 0 for label in panel.labels)
    panel.refresh()
    assert panel.curve_points("norm", MAIN) == 0


def test_hidden_panel_does_not_draw_until_shown(panel):
    panel.hide()
    panel.append(batch(0, 40))
    panel.refresh()
    assert panel.curve_points("norm", MAIN) == 0
    panel.show()
    assert panel.curve_points("norm", MAIN) == 40


def test_new_bodies_replace_the_old(panel):
    panel.append(batch(0, 10))
    panel.set_bodies(("euler controller",), ((1.0, 0.6, 0.15, 0.4),), reference=MAIN, dt=1e-3)
    assert panel.labels == (MAIN, "euler controller")
    assert panel.capacity == body_capacity(1e-3)
    assert "against main body" in panel.plot("error").titleLabel.text
    assert sum(len(panel.plot(name).listDataItems()) for name in PLOT_NAMES) == 5  # no main error curve
    panel.append({MAIN: make_rows(0, 5), "euler controller": make_rows(0, 5), "rk4": make_rows(0, 5)})
    panel.refresh()
    assert panel.curve_points("error", "euler controller") == 5
    assert panel.curve_points("error", MAIN) == 0
    legend = panel.legend.text().replace("&nbsp;", " ").replace("\u2011", "-")
    assert "main body (reference)" in legend and "euler controller" in legend and "rk4" not in legend


def test_without_comparison_bodies_nothing_is_kept(panel):
    panel.set_bodies((), (), reference=MAIN, dt=DT)
    assert not panel.has_bodies and panel.labels == ()
    panel.append({})
    panel.refresh()
    assert sum(len(panel.plot(name).listDataItems()) for name in PLOT_NAMES) == 0


def test_capacity_holds_the_window_and_is_bounded():
    assert body_capacity(0.01) * 0.01 >= 20.0
    assert body_capacity(1e-3) * 1e-3 >= 20.0
    assert body_capacity(1e-6) == MAX_BODY_CAPACITY


def test_decade_labels():
    assert [decade_label(e) for e in (-10, -3, -2, -1, 0, 1, 2, 3, 4)] == [
        "1e-10", "1e-3", "0.01", "0.1", "1", "10", "100", "1000", "1e4"]


def test_export_png(panel, tmp_path):
    panel.append(batch(0, 100))
    panel.refresh()
    assert panel.export_png(tmp_path / "c.png") == str(tmp_path / "c.png")
    assert (tmp_path / "c.png").stat().st_size > 0


# ------------------------------------------------------------------ in the window (OpenGL)

@pytest.fixture
def compare_window(main_window):
    """The window on the ``integrators`` scenario at 10x real time; closed at the end."""
    return main_window("integrators", speed=10.0)


def pause(qtbot, win):
    win.controls.run.pause.click()
    qtbot.waitUntil(lambda: caught_up(win))  # the last batches reached the window


@pytest.mark.gl
def test_window_shows_the_compare_tab_for_integrators(qtbot, compare_window):
    win = compare_window
    assert win.plot_tabs.indexOf(win.compare) == 1 and win.plot_tabs.tabBar().isVisible()
    assert win.plot_tabs.currentWidget() is win.compare and win.compare.isVisible()
    assert win.compare_action.isEnabled() and win.compare_action.isChecked()
    assert win.compare.labels == (MAIN, "rk4", "full-quat", "full-quat raw", "full-quat lagrange")
    assert win.compare.reference == "rk4"
    qtbot.waitUntil(lambda: win.last_snapshot.t >= 3.0)
    pause(qtbot, win)
    win.compare.refresh()
    n = win.history.count
    assert n == win.last_snapshot.step > 0
    # Samples at t = dt .. n dt; the curves show those with t >= t_last - window (a busy
    # machine can run past the window before the pause lands).
    shown = min(n, round(win.compare.window_seconds / win.worker.settings.dt) + 1)
    for label in win.compare.labels:
        assert win.compare.count(label) == n
        assert win.compare.curve_points("energy", label) == shown
        assert win.compare.curve_points("norm", label) == shown
    assert win.compare.curve_points("error", "rk4") == 0
    assert win.compare.curve_points("error", "full-quat raw") == shown
    _, drift = win.compare.curve_data("energy", "full-quat raw")
    assert drift[-1] < -0.5  # raw full-quat loses its energy
    if shown == n:
        assert drift[0] == 0.0  # relative to the energy at t = 0
    _, drift = win.compare.curve_data("energy", "rk4")
    assert np.max(np.abs(drift)) < 1e-6


@pytest.mark.gl
def test_a_reset_clears_the_comparison(qtbot, compare_window):
    win = compare_window
    qtbot.waitUntil(lambda: win.last_snapshot.t >= 1.0)
    pause(qtbot, win)
    win.reset()
    qtbot.waitUntil(lambda: win.last_snapshot.t == 0.0)
    assert all(win.compare.count(label) == 0 for label in win.compare.labels)
    win.controls.run.step.click()
    qtbot.waitUntil(lambda: win.last_snapshot.step == 1)
    win.compare.refresh()
    assert win.compare.curve_points("norm", MAIN) == win.history.count == 1
    _, drift = win.compare.curve_data("energy", "full-quat raw")
    assert drift.tolist() == [0.0]  # T0 taken again after the reset


@pytest.mark.gl
def test_compare_tab_hidden_without_comparison_bodies(qtbot, compare_window):
    win = compare_window
    assert win.open_scenario("default")
    assert win.plot_tabs.indexOf(win.compare) == -1
    assert not win.compare.isVisible() and not win.plot_tabs.tabBar().isVisible()
    assert win.plots.isVisible() and not win.compare_action.isEnabled()
    assert win.compare.labels == ()
    qtbot.waitUntil(lambda: win.history.count > 0)  # the run goes on, nothing to compare
    assert win.open_scenario("hoffmann")
    assert win.plot_tabs.currentWidget() is win.compare and win.compare.isVisible()
    assert win.compare.labels == (MAIN, "full-quat", "full-quat raw", "rk4")
    assert "against rk4" in win.compare.plot("error").titleLabel.text


@pytest.mark.gl
def test_view_menu_switches_between_plots_and_compare(qtbot, compare_window):
    win = compare_window
    win.compare_action.trigger()
    assert win.plot_tabs.currentWidget() is win.plots and not win.compare_action.isChecked()
    win.compare_action.trigger()
    assert win.plot_tabs.currentWidget() is win.compare and win.compare_action.isChecked()
    win.plot_tabs.setCurrentIndex(0)
    assert not win.compare_action.isChecked()


def test_long_windows_are_drawn_as_a_min_max_pair_per_pixel_column(qtbot):
    widget = ComparePanel()
    qtbot.addWidget(widget)
    widget.resize(445, 820)
    widget.set_bodies(BODIES, COLORS, reference="rk4", dt=1e-3)
    widget.show()
    qtbot.waitExposed(widget)
    rows = {label: make_rows(0, 20_000) for label in (MAIN, *BODIES)}
    for r in rows.values():
        r[:, COMPARE_COLUMNS.index("t")] *= 0.1               # 1 ms steps: 20 s of samples
    rows["full-quat"][12_345, COMPARE_COLUMNS.index("norm")] = 5e-6   # a one-sample excursion
    widget.append(rows)
    widget.refresh()
    width = widget.plot("norm").getViewBox().width()
    assert widget.curve_points("norm", "full-quat") == 20_000
    t, norm = widget.curve_data("norm", "full-quat")
    assert width <= len(t) <= 2 * width + 4
    assert norm.max() == 5e-6                                  # kept, not decimated away


def test_plots_take_turns_and_zooming_one_moves_all(panel):
    panel.append(batch(0, 100))
    panel.refresh()
    panel.append(batch(100, 50))
    panel.refresh_due(0)                                       # one plot a frame
    fresh = [name for name in PLOT_NAMES if panel.curve_data(name, "full-quat")[0][-1] == pytest.approx(1.5)]
    assert fresh == [PLOT_NAMES[0]]
    assert panel.curve_points("error", "full-quat") == 150
    assert panel.curve_points("energy", "full-quat") == 100      # not redrawn yet
    panel.refresh_due(1)
    panel.refresh_due(2)
    assert all(panel.curve_data(name, "full-quat")[0][-1] == pytest.approx(1.5) for name in PLOT_NAMES)
    panel.plot("energy").setXRange(0.2, 0.7, padding=0)
    for name in PLOT_NAMES:
        assert panel.plot(name).viewRange()[0] == pytest.approx([0.2, 0.7])


@pytest.fixture
def log_axis(qtbot):
    """The error plot's left axis (app.plots.style.LogAxisItem): data in log10 units, ticks at decades."""
    from app.plots.style import LogAxisItem

    return LogAxisItem("left")


def test_log_axis_labels_every_decade_when_they_fit(log_axis):
    """1e-8.3 .. 1e0.2 on 280 px (ten labels of 28 px fit): a labelled tick at each of 1e-8 .. 1, no minor ticks
    (nine decades are too many for 2..9 within each)."""
    (major_step, major), (_, minor) = log_axis.tickValues(-8.3, 0.2, 280)
    assert major_step == 1.0 and major == [-8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0]
    assert minor == []
    assert log_axis.tickStrings(major, 1.0, major_step) == [
        "1e-8", "1e-7", "1e-6", "1e-5", "1e-4", "1e-3", "0.01", "0.1", "1"]


def test_log_axis_labels_every_third_decade_in_a_short_axis_and_marks_the_others(log_axis):
    """84 px hold three labels: 8.5 decades are labelled every 3 (1e-6, 1e-3, 1); the other decades are
    unlabelled minor ticks."""
    (major_step, major), (minor_step, minor) = log_axis.tickValues(-8.3, 0.2, 84)
    assert major_step == 3.0 and major == [-6.0, -3.0, 0.0]
    assert minor == [-8.0, -7.0, -5.0, -4.0, -2.0, -1.0]
    # pyqtgraph asks for each level's labels with that level's spacing: the minor decades stay unlabelled
    assert log_axis.tickStrings(major, 1.0, major_step) == ["1e-6", "1e-3", "1"]
    assert log_axis.tickStrings(minor, 1.0, minor_step) == [""] * 6


@pytest.mark.parametrize("size, step, major, minor", [
    (84, 1.0, [-3.0, -2.0, -1.0, 0.0], 24),      # 84 px hold exactly 3 labels of 28 px: every decade
    (83, 2.0, [-2.0, 0.0], [-3.0, -1.0]),        # one pixel less: every second decade
    (28, 2.0, [-2.0, 0.0], [-3.0, -1.0]),        # a tiny axis still gets two labels, not one
])
def test_log_axis_labels_as_many_decades_as_fit_28_pixels_apart(log_axis, size, step, major, minor):
    """Three decades (0.001 .. 1) on ``size`` pixels; with every decade labelled, 2..9 times each of the
    three lower decades are minor ticks (8 x 3 = 24)."""
    (major_step, got_major), (_, got_minor) = log_axis.tickValues(-3.0, 0.0, size)
    assert major_step == step and got_major == major
    assert (len(got_minor) if isinstance(minor, int) else got_minor) == minor


def test_log_axis_over_four_decades_still_marks_2_to_9_times_each(log_axis):
    _, (_, minor) = log_axis.tickValues(-4.0, 0.0, 280)
    assert len(minor) == 8 * 4 and minor[0] == pytest.approx(math.log10(2e-4))


def test_log_axis_over_a_few_decades_marks_2_to_9_times_each_decade(log_axis):
    """10^-2.5 .. 10^0.5 (0.00316 .. 3.16): decades 0.01, 0.1, 1 labelled; minor ticks at 4..9 e-3,
    2..9 e-2, 0.2 .. 0.9, 2 and 3: the values within the range, in log10 units."""
    (major_step, major), (_, minor) = log_axis.tickValues(-2.5, 0.5, 280)
    assert major_step == 1.0 and major == [-2.0, -1.0, 0.0]
    values = [k * 1e-3 for k in range(4, 10)] + [k * 1e-2 for k in range(2, 10)] + \
             [k * 0.1 for k in range(2, 10)] + [2.0, 3.0]
    assert minor == pytest.approx([math.log10(v) for v in values], abs=1e-12)
    assert log_axis.tickStrings(minor, 1.0, 0.5) == [""] * len(minor)
    assert log_axis.tickStrings([-2.0, -1.0, 0.0, 0.301], 1.0, 1.0) == ["0.01", "0.1", "1", ""]


def test_log_axis_keeps_end_decades_lost_to_rounding_and_steps_by_20_over_huge_ranges(log_axis):
    (_, major), _ = log_axis.tickValues(-2.0 + 1e-12, 2.0 - 1e-12, 280)   # 0.01 .. 100 after float noise
    assert major == [-2.0, -1.0, 0.0, 1.0, 2.0]
    (step, major), (_, minor) = log_axis.tickValues(-100.0, 100.0, 84)   # 200 decades, 3 labels fit
    assert step == 20.0 and major == [float(d) for d in range(-100, 101, 20)]
    assert len(minor) == 201 - 11 and not set(major) & set(minor)


@pytest.mark.parametrize("low, high", [(0.0, 0.0), (1.0, -1.0), (float("nan"), 1.0), (-1.0, float("inf"))])
def test_log_axis_has_no_ticks_for_an_empty_or_undefined_range(log_axis, low, high):
    assert log_axis.tickValues(low, high, 280) == []


@pytest.fixture
def plot_axis(qtbot):
    """A plain left axis of the plots (app.plots.style.PlotAxisItem), as pyqtgraph makes it."""
    from app.plots.style import PlotAxisItem

    return PlotAxisItem("left")


def test_a_log_mode_axis_labels_its_decades_as_powers_of_ten(plot_axis):
    """In log mode the ticks are log10 of the values: 1e-5, 0.01, 1, 10, 1000 read 10⁻⁵, 0.01, 1, 10¹, 10³
    (pyqtgraph's power notation, one significant digit); a scale of 10 moves every label up one decade."""
    plot_axis.setLogMode(True)
    assert plot_axis.tickStrings([-5.0, -2.0, 0.0, 1.0, 3.0], 1.0, 1.0) == ["10⁻⁵", "0.01", "1", "10¹", "10³"]
    assert plot_axis.tickStrings([-5.0, -2.0, 0.0, 1.0, 3.0], 10.0, 1.0) == ["0.0001", "0.1", "10¹", "10²", "10⁴"]


@pytest.mark.parametrize("values, scale, spacing, expected", [
    ([1.0, 2.0, 3.0], 1000.0, 1.0, ["1000", "2000", "3000"]),       # 1000 apart: whole numbers
    ([0.5, 1.0, 1.5], 1e-3, 0.5, ["5e-4", "1.0e-3", "1.5e-3"]),     # 5e-4 apart, below 0.01: scientific
    ([2.0, 2.5, 3.0], 0.1, 0.5, ["0.20", "0.25", "0.30"]),          # 0.05 apart: two decimals
])
def test_a_scaled_axis_labels_the_values_it_shows(plot_axis, values, scale, spacing, expected):
    """pyqtgraph hands tickStrings the ticks in view units and the factor to the shown numbers (an axis
    scale): the labels are those of values * scale, ticks spacing * scale apart."""
    assert plot_axis.tickStrings(values, scale, spacing) == expected


def test_a_plot_axis_reads_small_values_without_an_si_prefix_in_two_tick_levels(plot_axis):
    """A labelled axis over 0 .. 3e-6 keeps the numbers as they are (no µ put into its label, no rescaling);
    ticks come in two levels, major and minor."""
    plot_axis.setLabel("ω (rad/s)")
    plot_axis.setRange(0.0, 3e-6)
    assert plot_axis.autoSIPrefixScale == 1.0 and "µ" not in plot_axis.labelString()
    assert plot_axis.tickStrings([0.0, 1e-6, 2e-6, 3e-6], 1.0, 1e-6) == ["0", "1e-6", "2e-6", "3e-6"]
    assert len(plot_axis.tickValues(0.0, 1.0, 500)) == 2


@pytest.mark.parametrize("decades, step", [(12, 5), (24, 10)])
def test_log_axis_labels_every_fifth_or_tenth_decade_when_fewer_do_not_fit(log_axis, decades, step):
    """84 px hold three labels: 12 decades (1e-12 .. 1) are labelled every 5th (1e-10, 1e-5, 1), 24 decades
    every 10th (1e-20, 1e-10, 1); every other decade is an unlabelled minor tick."""
    (major_step, major), (minor_step, minor) = log_axis.tickValues(-float(decades), 0.0, 84)
    multiples = [float(d) for d in range(-decades, 1) if d % step == 0]
    assert major_step == step and major == multiples
    assert minor == [float(d) for d in range(-decades, 1) if d % step]
    assert log_axis.tickStrings(major, 1.0, major_step) == [decade_label(round(d)) for d in multiples]
    assert log_axis.tickStrings(minor, 1.0, minor_step) == [""] * len(minor)


def test_log_axis_over_five_decades_has_no_minor_ticks(log_axis):
    """1e-5 .. 1 on 280 px: every decade labelled, and more than four decades are too many for 2..9 in each."""
    (major_step, major), (_, minor) = log_axis.tickValues(-5.0, 0.0, 280)
    assert major_step == 1.0 and major == [-5.0, -4.0, -3.0, -2.0, -1.0, 0.0]
    assert minor == []


def test_log_axis_marks_minor_ticks_lying_on_either_end_of_the_range(log_axis):
    """0.002 .. 5: the minor ticks run from 2e-3 (the bottom edge) to 5 (the top edge), both kept."""
    (_, major), (_, minor) = log_axis.tickValues(-3.0 + math.log10(2.0), math.log10(5.0), 280)
    assert major == [-2.0, -1.0, 0.0]
    values = [k * 1e-3 for k in range(2, 10)] + [k * 1e-2 for k in range(2, 10)] + \
             [k * 0.1 for k in range(2, 10)] + [2.0, 3.0, 4.0, 5.0]
    assert minor == pytest.approx([math.log10(v) for v in values], abs=1e-12)


@pytest.mark.parametrize("low, high, size", [(-0.45, 0.3, 40), (-120.0, 10.0, 35), (0.0, 1.1, 30), (-3.0, 2.0, 25)])
def test_a_short_plot_axis_spaces_its_labels_at_least_a_line_of_the_tick_font_apart(plot_axis, low, high, size):
    """pyqtgraph draws every label of the major level: on the CMG tab's plots at 1280x720 (about 40 px high) its
    four labels of dδ/dt overlapped (stop 54).  The labelled ticks are now at least a line of the tick font apart
    (Qt's font metrics as the oracle), of the 1, 2, 5 series, with at least one in view; pyqtgraph's major
    spacing stays as the minor level (its grid lines)."""
    from pyqtgraph.Qt import QtGui

    line = QtGui.QFontMetricsF(QtGui.QFont()).height()
    levels = plot_axis.tickValues(low, high, size)
    (step, major) = levels[0]
    assert step * size / (high - low) >= line
    assert major and all(low <= v <= high for v in major)
    assert round(step / 10.0 ** math.floor(math.log10(step) + 1e-9), 9) in (1.0, 2.0, 5.0)
    assert len(levels) == 2 and levels[1][0] < step


def test_a_tall_plot_axis_keeps_pyqtgraphs_spacing(plot_axis):
    """On a tall axis (400 px) the labels have room: the ticks are pyqtgraph's own (its AxisItem as the oracle)."""
    import pyqtgraph as pg

    plain = pg.AxisItem("left")
    plain.setStyle(maxTickLevel=1)
    for low, high in ((-0.45, 0.3), (0.0, 1.1), (-120.0, 10.0)):
        assert plot_axis.tickSpacing(low, high, 400) == plain.tickSpacing(low, high, 400)
