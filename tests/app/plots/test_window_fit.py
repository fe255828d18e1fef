"""The window as a user sees it at laptop and projector sizes (issue 43, items 3, 5 and 7): every tab's plots
and legends inside the plot column, tabs side by side, tick labels on every axis, ranges that start again
with a new run and do not zoom into rounding noise."""

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QPoint, QRect, QRectF, QSize, QSizeF
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QWidget

from app.plots.history import History
from app.plots.live import PlotPanel
from app.plots.tabs import MIN_WIDTH
from app.plots.style import RELATIVE_FLOOR, SMALLEST_SPAN, LogAxisItem, legend_columns, settle_range
from sim.model.rows import HISTORY_COLUMNS
from sim.run.scenario import builtin_dir, load
from app.view3d.layout import GHOST_COLOR
from app.window.theme import COMPARE_COLORS, cycle

#: Window sizes the layout is made for: laptops and projectors (1280x720, 1366x768), the default, full HD.
SIZES = ((1280, 720), (1366, 768), (1400, 900), (1920, 1080))


# ------------------------------------------------------------------ the rules, without a window
def test_settle_range_never_spans_less_than_the_floor():
    # a body at rest: rates of rounding noise drawn flat in the middle of a range of the plot's floor
    low, high = settle_range(None, -1e-14, 3e-14, floor=1e-9)
    assert high - low == pytest.approx(1e-9) and low < -1e-14 and 3e-14 < high
    # lambda against 4T, equal to the last digits: a span of RELATIVE_FLOOR of their size, centred on them
    low, high = settle_range((0.0, 1.0), 0.066, 0.066 + 1e-17)
    assert high - low == pytest.approx(RELATIVE_FLOOR * 0.066) and low < 0.066 < high
    # subnormal numbers (a damped rate on its way to 0): a span an axis can draw, around them
    low, high = settle_range(None, 1e-320, 3e-320)
    assert high - low == pytest.approx(SMALLEST_SPAN) and low < 1e-320 and 3e-320 < high
    # data that vary more than the floor are padded by 5 % as before
    assert settle_range(None, 0.0, 2.0, floor=1e-9) == pytest.approx((-0.1, 2.1))


def test_settle_range_without_a_current_range_takes_the_data():
    # a new run: the data's range whatever the last run showed (it would have kept (0, 1))
    assert settle_range(None, 0.2, 0.8) == pytest.approx((0.17, 0.83))
    assert settle_range((0.0, 1.0), 0.2, 0.8) is None


@pytest.mark.parametrize("widths, available, columns", [
    ([30, 30, 30], 1000, 3),
    ([30, 30, 30, 90, 90, 90], 360, 6),   # Hx Hy Hz Hx body Hy body Hz body on one row
    ([30, 30, 30, 90, 90, 90], 359, 3),   # five would fit (90 + 90 + 90 + 30 + 30): two rows, filled evenly
    ([30, 30, 30, 30, 30, 30, 30], 200, 4),  # six fit (180): two rows, of four and three
    ([30, 30, 30, 90, 90, 90], 269, 2),   # three take 270
    ([200, 10], 150, 1),                  # even one entry too wide: one column, never zero
])
def test_legend_columns_fit_the_room(widths, available, columns):
    assert legend_columns(widths, available) == columns
    grid = sum(max(widths[c::columns]) for c in range(columns))
    assert grid <= available or columns == 1


class _Box(QWidget):
    """A widget of a fixed size hint, for :class:`~app.plots.legend.FitRow`."""

    def __init__(self, width, height):
        super().__init__()
        self._hint = QSize(width, height)

    def sizeHint(self):
        return self._hint


def test_a_row_of_controls_wraps_by_the_legends_rule(qtbot):
    # four controls 80, 100, 60 and 70 px wide, 8 px apart: one row in 400 px (308 needed), in 200 px the fewest
    # rows whose grid fits (three columns need 88 + 108 + 68 = 264 with spacing), filled evenly: two of two
    from app.plots.legend import FitRow

    holder = QWidget()
    qtbot.addWidget(holder)
    row = FitRow(holder, spacing=8)
    row.setContentsMargins(0, 0, 0, 0)
    boxes = [_Box(w, 20) for w in (80, 100, 60, 70)]
    for box in boxes:
        row.addWidget(box)
    row.setGeometry(QRect(0, 0, 400, 100))
    assert [(b.x(), b.y(), b.width()) for b in boxes] == [(0, 0, 80), (88, 0, 100), (196, 0, 60), (264, 0, 70)]
    assert row.heightForWidth(400) == 20 and row.sizeHint().width() == 334
    row.setGeometry(QRect(0, 0, 200, 100))
    assert [(b.x(), b.y()) for b in boxes] == [(0, 0), (88, 0), (0, 28), (88, 28)]  # columns of 80 and 100
    assert row.heightForWidth(200) == 48
    assert (row.minimumSize().width(), row.minimumSize().height()) == (100, 4 * 20 + 3 * 8)  # one column
    row.setGeometry(QRect(0, 0, 100, 200))
    assert [(b.x(), b.y()) for b in boxes] == [(0, 0), (0, 28), (0, 56), (0, 84)]


# ------------------------------------------------------------------------- the window
def _settle(qtbot, win, size):
    """Resize ``win`` to ``size``, or to its smallest when it cannot be that small (more tabs than fit)."""
    win.resize(*size)
    least = win.minimumSizeHint()
    taken = (max(size[0], least.width()), max(size[1], least.height()))
    qtbot.waitUntil(lambda: (win.width(), win.height()) == taken)


def _layouts(widget):
    """The plot views (pyqtgraph GraphicsViews) of a tab, with their visible plots."""
    for view in widget.findChildren(pg.GraphicsView):
        if view.isVisible():
            yield view, [item for item in view.scene().items() if isinstance(item, pg.PlotItem) and item.isVisible()]


def _fits(win, where=None):
    """Assert that the current tab's plots and legends lie inside their view, the view inside the window."""
    tabs = win.plot_tabs
    panel = tabs.currentWidget()
    window = QRectF(win.rect())
    column = QRectF(QRectF(tabs.mapTo(win, QPoint(0, 0)), QSizeF(tabs.size())))
    assert window.contains(column), f"the plot column {column} is not inside the window {window}"
    bar = tabs.tabBar()
    if bar.isVisible():
        for i in range(bar.count()):  # side by side, none behind a scroll arrow
            assert QRectF(bar.rect()).contains(QRectF(bar.tabRect(i))), f"tab {bar.tabText(i)!r} is cut"
    views = list(_layouts(panel))
    assert views, "no plots shown"
    for view, plots in views:
        inside = QRectF(0, 0, view.width(), view.height()).adjusted(-0.5, -0.5, 0.5, 0.5)
        assert view.mapTo(win, view.rect().bottomRight()).x() <= win.width()
        for plot in plots:
            assert inside.contains(plot.sceneBoundingRect()), (
                f"{where} {tabs.tabText(tabs.currentIndex())}: a plot spans {plot.sceneBoundingRect()} in a view of "
                f"{view.width()}x{view.height()}")
            legend = getattr(plot, "legend", None)
            if legend is not None and legend.items:
                assert inside.contains(legend.sceneBoundingRect()), (
                    f"{tabs.tabText(tabs.currentIndex())}: a legend spans {legend.sceneBoundingRect()} in a view "
                    f"of {view.width()}x{view.height()}")


@pytest.mark.gl
@pytest.mark.parametrize("scenario, tabs", [
    ("every_tab", ["Plots", "Compare", "Momentum", "Estimation", "Magnetic", "Ensemble"]),
    ("disturbances", ["Plots", "Momentum", "Magnetic", "Ensemble"]),
    ("sun_pointing", ["Plots", "Momentum", "Ensemble"]),
])
def test_every_tab_fits_at_every_size(qtbot, main_window, tmp_path, scenario, tabs):
    if scenario == "every_tab":  # fly_on_estimate with SRP and a comparison body: every tab there is
        scenario = tmp_path / "every_tab.toml"
        text = (builtin_dir() / "fly_on_estimate.toml").read_text()
        scenario.write_text(text + 'srp = true\n\n[[compare]]\nlabel = "half"\nintegrator = "half-quat"\n')
    win = main_window(str(scenario), speed=10.0)
    win.ensemble.set_on(True)  # View > Ensemble: one tab more
    names = [win.plot_tabs.tabText(i) for i in range(win.plot_tabs.count())]
    assert names == tabs, names
    for squeezed in (False, True):  # as laid out, then the splitter dragged to give the plots the least
        for size in SIZES:
            _settle(qtbot, win, size)
            if squeezed:
                win.splitter.setSizes([300, size[0], MIN_WIDTH])  # no narrower (0 would fold it away)
            for index in range(len(names)):
                win.plot_tabs.setCurrentIndex(index)
                qtbot.waitUntil(lambda: _fits(win, (size, squeezed)))
            if not squeezed:  # as laid out, the 3D view is the widest column
                assert win.viewer.width() >= max(win.controls.width(), win.plot_tabs.width()), size


def _widgets_fit(win):
    """Assert that every widget shown on the current tab lies inside the tab and is not squeezed below its
    minimum width (a control cut at the window's edge, or under its neighbour)."""
    page = win.plot_tabs.currentWidget()
    origin = page.mapTo(win, QPoint(0, 0))
    bounds = QRectF(QRectF(origin.x(), origin.y(), page.width(), page.height())).adjusted(-0.5, -0.5, 0.5, 0.5)
    assert QRectF(win.rect()).contains(bounds.adjusted(0.5, 0.5, -0.5, -0.5))
    for widget in page.findChildren(QWidget):
        if not widget.isVisible() or widget.isWindow():
            continue
        corner = widget.mapTo(win, QPoint(0, 0))
        rect = QRectF(corner.x(), corner.y(), widget.width(), widget.height())
        name = widget.objectName() or type(widget).__name__
        assert bounds.contains(rect), f"{name} spans {rect}, outside its tab {bounds}"
        assert widget.width() >= widget.minimumSizeHint().width(), (
            f"{name} is {widget.width()} px wide, less than its least {widget.minimumSizeHint().width()}")


@pytest.mark.gl
@pytest.mark.parametrize("scenario", ["fly_on_estimate", "disturbances", "sun_pointing", "mekf", "detumble",
                                      "mekf_monte_carlo"])
def test_the_window_takes_the_smallest_supported_size(qtbot, main_window, scenario):
    # docs/WINDOW.md: 1280x720 is the smallest size supported, with the scenario's own tabs and the Ensemble tab
    # (mekf_monte_carlo's own; its row of controls needed some 1,300 pixels across before it wrapped)
    win = main_window(scenario, speed=10.0)
    win.ensemble.set_on(True)  # View > Ensemble: the run restarts
    qtbot.waitUntil(lambda: win.last_snapshot.t > 5.0, timeout=30000)  # the readouts as the run shows them
    _settle(qtbot, win, (1280, 720))
    assert (win.width(), win.height()) == (1280, 720)
    for index in range(win.plot_tabs.count()):
        win.plot_tabs.setCurrentIndex(index)
        qtbot.waitUntil(lambda: _fits(win, (1280, 720)))
        qtbot.waitUntil(lambda: _widgets_fit(win))
    # the plot column dragged to its narrowest: the layout rule's, which no tab's controls widen (tabs.py)
    win.splitter.setSizes([300, 1280, MIN_WIDTH])
    least = max(MIN_WIDTH, win.plot_tabs.tabBar().sizeHint().width())
    qtbot.waitUntil(lambda: win.plot_tabs.width() == least)
    for index in range(win.plot_tabs.count()):
        win.plot_tabs.setCurrentIndex(index)
        qtbot.waitUntil(lambda: _fits(win, (1280, 720)))
        qtbot.waitUntil(lambda: _widgets_fit(win))
    ensemble = win.ensemble
    win.plot_tabs.setCurrentWidget(ensemble)
    controls = (ensemble.bodies.parentWidget(), ensemble.shortest_path, ensemble.aircraft, ensemble.worst)
    qtbot.waitUntil(lambda: _rows(ensemble, controls) == 2)  # two rows of two
    _settle(qtbot, win, (1920, 1080))
    win.splitter.setSizes([300, 900, 700])
    qtbot.waitUntil(lambda: _rows(ensemble, controls) == 1)  # with room, side by side
    _widgets_fit(win)


def _rows(parent, widgets):
    """In how many rows ``widgets`` lie: their middles more than 8 px apart, vertically, start a new one."""
    middles = sorted(w.mapTo(parent, QPoint(0, w.height() // 2)).y() for w in widgets)
    return 1 + sum(b - a > 8 for a, b in zip(middles, middles[1:]))


def _labels(axis):
    """The tick labels ``axis`` draws now."""
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _, _, text in specs[2]] if specs else []


def _data_shown(panel, name):
    return panel.curve_points(name) > 10


@pytest.mark.gl
@pytest.mark.parametrize("scenario", ["mekf", "default", "detumble", "sun_pointing"])
def test_every_plot_has_tick_labels(qtbot, main_window, scenario):
    # mekf's lambda and 4T agree to the last digits; default rests (rates and torques exactly zero)
    win = main_window(scenario, speed=10.0)
    win.resize(1400, 900)
    for index in range(win.plot_tabs.count()):
        win.plot_tabs.setCurrentIndex(index)
        panel = win.plot_tabs.currentWidget()
        if not hasattr(panel, "plot_names"):
            continue
        shown = [n for n in panel.plot_names() if panel.is_visible(n) and panel.columns(n)]
        qtbot.waitUntil(lambda: all(_data_shown(panel, n) for n in shown))
        for name in shown:  # numbers: two at least; a log axis: a whole decade at least
            axis = panel.plot(name).getAxis("left")
            least = 1 if isinstance(axis, LogAxisItem) else 2

            def labelled():
                assert len([text for text in _labels(axis) if text]) >= least, (name, axis.range, _labels(axis))
            qtbot.waitUntil(labelled)


@pytest.mark.gl
def test_log_axes_label_decades_only(qtbot, main_window):
    # detumble's |w| falls from 20 deg/s: less than a decade in the first seconds
    win = main_window("detumble", speed=10.0)
    win.resize(1400, 900)
    panel = win.environment
    win.plot_tabs.setCurrentWidget(panel)
    for name in ("rate_norm", "disturbances"):  # each plot's first data and labels, not only the first plot's
        qtbot.waitUntil(lambda: _data_shown(panel, name))
        qtbot.waitUntil(lambda: any(_labels(panel.plot(name).getAxis("left"))))
        labels = [text for text in _labels(panel.plot(name).getAxis("left")) if text]
        assert labels, name
        for text in labels:  # a whole decade each: 1e-6, 0.01, 1, 10, ...
            assert math.log10(float(text)) == pytest.approx(round(math.log10(float(text))), abs=1e-9), labels
        low, high = panel.plot(name).viewRange()[1]
        assert high - low >= 1.0  # a decade at least: one labelled tick always in sight


@pytest.mark.gl
def test_the_sensor_timeline_names_the_sensors(qtbot, main_window):
    win = main_window("mekf", speed=10.0)
    win.resize(1400, 900)
    panel = win.estimation.panel
    win.plot_tabs.setCurrentWidget(panel)
    qtbot.waitUntil(lambda: _data_shown(panel, "sensors"))
    assert _labels(panel.plot("sensors").getAxis("left")) == ["gyro", "star trk", "sun", "magnet"]


def _rates_rows(t, amplitude):
    """History rows at times ``t`` with every rate a sine of ``amplitude`` rad/s, the rest zero."""
    rows = np.zeros((len(t), len(HISTORY_COLUMNS)))
    rows[:, HISTORY_COLUMNS.index("t")] = t
    for k, column in enumerate(("wx", "wy", "wz")):
        rows[:, HISTORY_COLUMNS.index(column)] = amplitude * np.sin(t + k)
    return rows


#: The times of the rows the range checks below append: 10 s at 1 ms.
T = np.arange(1, 10001) * 1e-3


def _decaying_rows(t):
    """default's dampers decay lambda and 4T exponentially: some ten minutes in they pass through the subnormal
    numbers (below 2.2e-308) to exactly 0; here from 1e-310 to 7e-313."""
    rows = np.zeros((len(t), len(HISTORY_COLUMNS)))
    rows[:, HISTORY_COLUMNS.index("t")] = t
    for column in ("multiplier", "four_t"):
        rows[:, HISTORY_COLUMNS.index(column)] = 1e-310 * np.exp(-5.0 * t)
    return rows


@pytest.mark.parametrize("before, rows, name, floor", [
    # a new run (a reset, as the window's feed does: app.plots.feed.PlotFeed.clear) inside the last run's range
    # (a tumble at 4 rad/s), filling more than half of it: the new data's own range, padded 5 %
    (_rates_rows(T, 4.0), _rates_rows(T, 3.0), "rates", None),
    # a body at rest: rates of rounding noise lie flat in the middle of the rates plot's floor
    (None, _rates_rows(T, 1e-14), "rates", 1e-9),
    # values through the subnormal numbers: an axis spanning them had a tick spacing of 0 (a ZeroDivisionError
    # in every paint, pytest-qt fails the test on it) and every plot of the panel blank
    (None, _decaying_rows(T), "multiplier", SMALLEST_SPAN),
], ids=["a new run forgets the last run's range", "rounding noise at rest", "subnormal numbers"])
def test_the_range_drawn_is_the_datas_padded_or_the_floor_around_them(qtbot, before, rows, name, floor):
    history = History(capacity=2**14)
    panel = PlotPanel(history)
    qtbot.addWidget(panel)
    panel.resize(400, 700)
    panel.show()
    columns = [HISTORY_COLUMNS.index(c) for c in panel.columns(name)]
    if before is not None:
        history.append(before)
        panel.refresh()
        low, high = panel.plot(name).viewRange()[1]
        assert low <= before[:, columns].min() and high >= before[:, columns].max()
        history.clear()
    history.append(rows)
    panel.refresh()
    shown = rows[:, columns]
    low, high = panel.plot(name).viewRange()[1]
    if floor is None:
        assert low == pytest.approx(shown.min() - 0.05 * np.ptp(shown))
        assert high == pytest.approx(shown.max() + 0.05 * np.ptp(shown))
    else:
        assert high - low >= floor * (1.0 - 1e-12) and low < shown.min() and shown.max() < high
    assert any(_labels(panel.plot(name).getAxis("left")))
    panel.grab()  # every plot painted


# ------------------------------------------------------------------------ videos (item 10)
def _has_color(region, rgb, tolerance=6):
    """Whether some pixel of ``region`` (RGBA uint8, rows top-down) has the colour ``rgb`` (0..1 floats)."""
    want = np.round(255 * np.asarray(rgb[:3]))
    return bool(np.any(np.all(np.abs(region[..., :3].astype(float) - want) <= tolerance, axis=-1)))


@pytest.fixture
def video_window(qtbot):
    """An unpaced window laid out for a video as ``attitude-sim video`` opens it (app.window.render), closed after."""
    from app.window import render

    opened = []

    def open_for_video(name, what, size):
        window, grab = render._open(load(name), what, size)
        opened.append(window)
        return window, grab

    yield open_for_video
    for window in opened:
        render._close(window)


@pytest.mark.gl
def test_a_video_of_the_view_explains_its_ghosts(video_window):
    # intermediate_axis flies three comparison bodies beside the main one: their legend is in the picture
    window, grab = video_window("intermediate_axis", "view", (640, 360))
    window.flight.worker.advance_to(0.5)
    window.show_frame(view_only=True)
    frame = grab.take()[::-1]  # rows top-down
    assert frame.shape == (360, 640, 4)
    corner = frame[:60, 320:]  # the top-right corner, where the window's legend is painted
    colors = cycle(COMPARE_COLORS, len(window.frames.bodies))
    assert len(colors) == 2 and "command" not in window.legend.text()
    for color in colors:
        assert _has_color(corner, color), color
    assert not _has_color(corner, GHOST_COLOR)  # no controller: no command ghost, not named


@pytest.mark.gl
@pytest.mark.parametrize("size", [(960, 540), (1280, 720)])
def test_a_small_window_video_draws_the_whole_window(qtbot, video_window, size):
    # a 960x540 video: the window drawn at 1280x720 at least and scaled down, every tab's plots whole
    window, grab = video_window("fly_on_estimate", "window", size)
    assert grab.frame_size == (1280, 720)
    window.flight.worker.advance_to(5.0)
    window.show_frame()
    for index in range(window.plot_tabs.count()):
        window.plot_tabs.setCurrentIndex(index)
        qtbot.waitUntil(lambda: _fits(window, size))


# -------------------------------------------------------------- the estimate drawn (item 8)
@pytest.mark.parametrize("degrees", [0.01, 0.3, 2.0, 30.0])
def test_the_estimate_is_drawn_with_its_error_magnified(degrees):
    from scipy.spatial.transform import Rotation

    from app.window.estimation import magnified

    truth = Rotation.from_euler("zyx", [40.0, -20.0, 75.0], degrees=True).as_matrix()
    axis = np.array([0.2, -0.6, 0.77]) / np.linalg.norm([0.2, -0.6, 0.77])
    error = Rotation.from_rotvec(np.radians(degrees) * axis).as_matrix()
    estimate = error @ truth
    assert np.allclose(magnified(estimate, truth, 1.0), estimate, atol=1e-12)
    drawn = Rotation.from_matrix(magnified(estimate, truth, 50.0, 60.0) @ truth.T).as_rotvec()
    assert np.degrees(np.linalg.norm(drawn)) == pytest.approx(min(50.0 * degrees, 60.0), rel=1e-9)
    assert drawn / np.linalg.norm(drawn) == pytest.approx(axis, abs=1e-9)  # about the error's own axis


@pytest.mark.gl
def test_the_estimate_shows_apart_from_the_body(qtbot, main_window):
    # mekf: the estimate agrees with the truth to a fraction of a degree after its first seconds; its axes are
    # drawn in their own opaque green, longer than the body's own, where a translucent copy showed only in specks
    from app.plots.estimation import ESTIMATE_COLOR
    from app.window.pictures import view_image

    win = main_window("mekf", speed=10.0)
    qtbot.waitUntil(lambda: win.last_snapshot.t > 20.0, timeout=20000)
    image = view_image(win.viewer.scene).convertToFormat(QImage.Format.Format_RGBA8888)
    pixels = np.frombuffer(image.constBits(), np.uint8, count=image.sizeInBytes())
    pixels = pixels.reshape(image.height(), image.bytesPerLine() // 4, 4)[:, :image.width()]
    green = np.all(np.abs(pixels[..., :3].astype(float) - 255 * np.asarray(ESTIMATE_COLOR[:3])) <= 12, axis=-1)
    assert green.sum() >= 100  # three lines some 3 px wide and tens of pixels long
