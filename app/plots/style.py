"""The plots' common look: colours, axes with readable ticks, ranges that hold still, linked zoom.

Shared by the live plots (:mod:`app.plots.live`), the comparison plots
(:mod:`app.plots.compare`) and the ensemble's histogram.  x, y, z (and roll
phi, pitch theta, yaw psi) are red, green, blue everywhere, as the body
axes of the 3D view.  Drawing is kept cheap for software rendering: grid
lines are opaque (blending translucent lines costs about five times more),
and the y ranges move only when the data leave them or fill less than half
of them (:func:`settle_range`), so the y axes are not laid out again on
every frame.
"""

from __future__ import annotations

import contextlib
import math

import pyqtgraph as pg
from pyqtgraph.Qt import QtGui

__all__ = ["PLOT_BACKGROUND", "FOREGROUND", "GRID_ALPHA", "AXIS_WIDTH", "RED", "GREEN", "BLUE", "AMBER",
           "VIOLET", "SILVER", "tick_strings", "settle_range", "legend_columns", "RELATIVE_FLOOR", "SMALLEST_SPAN", "PlotAxisItem", "LogAxisItem", "decade_label",
           "style_axes", "XLink"]

PLOT_BACKGROUND = "#1e1f24"
"""Background of every plot."""
FOREGROUND = "#c9ccd3"
"""Axis, tick and legend text colour."""
GRID_ALPHA = 0.18
"""Weight of the axis colour in the (opaque) grid lines, over the background."""
AXIS_WIDTH = 68
"""Pixels of every left axis, so the stacked plots line up."""
RED, GREEN, BLUE = "#ff4033", "#33e64d", "#4d80ff"
"""Body x / roll, y / pitch, z / yaw: the 3D view's ``AXIS_COLORS``."""
AMBER, VIOLET, SILVER = "#f2c14e", "#c77dff", "#e3e5ea"


def tick_strings(values, spacing: float) -> list[str]:
    """Tick labels: fixed point for ordinary magnitudes, scientific otherwise.

    Parameters
    ----------
    values : sequence of float
        Tick positions.
    spacing : float
        Distance between neighbouring ticks (> 0).

    Returns
    -------
    list of str
        Fixed point with as many decimals as ``spacing`` needs when the
        largest magnitude is in [1e-2, 1e5); otherwise ``"2.5e-15"`` style
        with as many digits as tell neighbouring ticks apart.

    Examples
    --------
    >>> tick_strings([0.0, 5e-15, 1e-14], 5e-15)
    ['0', '5e-15', '1.0e-14']
    >>> tick_strings([-0.5, 0.0, 0.5], 0.5)
    ['-0.5', '0.0', '0.5']
    """
    largest = max((abs(v) for v in values), default=0.0)
    if 1e-2 <= largest < 1e5:
        decimals = max(0, math.ceil(-math.log10(spacing)))
        return [f"{v:.{decimals}f}" for v in values]
    return [_scientific(v, spacing) for v in values]


def _scientific(value: float, spacing: float) -> str:
    """``value`` as ``mantissa e exponent`` with the digits ``spacing`` resolves."""
    if abs(value) < 1e-3 * spacing:
        return "0"
    digits = max(0, math.floor(math.log10(abs(value))) - math.floor(math.log10(spacing)))
    mantissa, exponent = f"{value:.{digits}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


#: Smallest span of an autoscaled axis relative to the size of its values: the digits a tick label can show in
#: the :data:`AXIS_WIDTH` (``0.06601``; labels any longer are dropped by pyqtgraph); closer values (rounding
#: noise on a constant, lambda against 4T) are drawn flat.
RELATIVE_FLOOR = 1e-4

#: Smallest span of any autoscaled axis, in the data's units, whatever the values.  An axis maps its span onto some
#: hundreds of pixels with a scale of pixels / span that Qt squares (a transform's determinant) and pyqtgraph
#: divides into tick spacings: a span under about 1e-150 overflows the square, one of subnormal numbers (a damped
#: rate decaying through 1e-310 to exactly 0) gives a tick spacing of 0 and a ZeroDivisionError in every paint,
#: which blanked every plot of the panel.  1e-100 leaves room and is far below anything worth showing.
SMALLEST_SPAN = 1e-100


def settle_range(current, low: float, high: float, margin: float = 0.05,
                 min_fill: float = 0.5, floor: float = 0.0):
    """A new axis range for data in ``[low, high]``, or None to keep ``current``: every plot's one autoscale rule.

    The range changes only when the data leave it or the padded data span
    less than ``min_fill`` of it, so a scrolling plot's axis holds still
    instead of following every sample.  The range never spans less than
    ``floor`` nor :data:`RELATIVE_FLOOR` times the largest magnitude: data
    that vary less (a body at rest, rates near 1e-14 rad/s) sit flat in the
    middle instead of filling the axis with rounding noise; nor, whatever the
    values, :data:`SMALLEST_SPAN` (what an axis can draw).

    Parameters
    ----------
    current : (float, float) or None
        The axis range shown now; None: none yet (a new run), the data's range is returned.
    low, high : float
        Smallest and largest value to show; non-finite values keep ``current``.
    margin : float
        Padding on each side, as a fraction of the data span.
    min_fill : float
        Fraction of the range the padded data must fill at least.
    floor : float
        Smallest span of the range, in the data's units (>= 0; the plot's resolution).

    Returns
    -------
    (float, float) or None
        The padded data range, or None when ``current`` still fits.

    Examples
    --------
    >>> settle_range((0.0, 1.0), 0.2, 0.8) is None
    True
    >>> settle_range((0.0, 1.0), 0.0, 2.0)
    (-0.1, 2.1)
    >>> settle_range(None, -1e-14, 1e-14, floor=1e-6)
    (-5e-07, 5e-07)
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    pad = margin * (high - low) or 0.1 * abs(high) or 1.0
    target = (low - pad, high + pad)
    least = max(floor, RELATIVE_FLOOR * max(abs(low), abs(high)), SMALLEST_SPAN)
    if target[1] - target[0] < least:
        middle = 0.5 * (low + high)
        target = (middle - 0.5 * least, middle + 0.5 * least)
    if current is None:
        return target
    inside = current[0] <= low and high <= current[1]
    if low == high and low in current:  # a constant on the edge (zero torque on a 0..1 axis): centre it
        inside = False
    if inside and target[1] - target[0] >= min_fill * (current[1] - current[0]):
        return None
    return target


def legend_columns(widths, available: float) -> int:
    """How many columns a legend of entries ``widths`` wide (pixels) takes to fit in ``available`` pixels.

    The legend is a grid (pyqtgraph's ``LegendItem``), filled row by row: a
    column is as wide as its widest entry.  The fewest rows whose grid
    fits, filled evenly, at least one column: the one layout rule of every
    plot's legend, so that no legend makes a plot wider than its panel.

    Examples
    --------
    >>> legend_columns([40, 40, 40, 70, 70, 70], 500)
    6
    >>> legend_columns([40, 40, 40, 70, 70, 70], 300)  # five would fit: two rows all the same, of three
    3
    >>> legend_columns([40, 40, 40, 70, 70, 70], 220)
    3
    >>> legend_columns([40, 40, 40, 70, 70, 70], 10)
    1
    """
    widths = list(widths)
    for columns in range(len(widths), 1, -1):
        if sum(max(widths[c::columns]) for c in range(columns)) <= available:
            rows = math.ceil(len(widths) / columns)
            return math.ceil(len(widths) / rows)  # as many rows, filled evenly: 3 + 3 rather than 5 + 1
    return 1


def _opaque(pen: QtGui.QPen) -> QtGui.QPen:
    """``pen`` with its translucent colour replaced by the same colour over :data:`PLOT_BACKGROUND`."""
    color = pen.color()
    alpha = color.alphaF()
    if alpha >= 1.0:
        return pen
    background = QtGui.QColor(PLOT_BACKGROUND)
    mixed = QtGui.QColor.fromRgbF(*(alpha * c + (1.0 - alpha) * b for c, b in zip(
        (color.redF(), color.greenF(), color.blueF()),
        (background.redF(), background.greenF(), background.blueF()))))
    opaque = QtGui.QPen(pen)
    opaque.setColor(mixed)
    return opaque


#: Room a vertical axis's labelled ticks keep between them, in lines of the tick font (:meth:`PlotAxisItem.tickSpacing`).
LABEL_ROOM = 1.0


def coarser_spacing(spacing: float) -> float:
    """The next spacing of the 1, 2, 5 series above ``spacing`` (itself of the series, as pyqtgraph's are).

    Examples
    --------
    >>> [coarser_spacing(s) for s in (0.1, 0.2, 0.5, 1.0, 20.0)]
    [0.2, 0.5, 1.0, 2.0, 50.0]
    """
    unit = 10.0 ** math.floor(math.log10(spacing) + 1e-9)
    mantissa = round(spacing / unit)
    return (2.0 if mantissa < 2 else 5.0 if mantissa < 5 else 10.0) * unit


class PlotAxisItem(pg.AxisItem):
    """An axis with :func:`tick_strings` labels, no SI prefix and opaque grid lines.

    Ticks and grid lines come in two levels (major, minor) instead of three.  On a short vertical axis the
    labelled ticks are spaced so that their labels do not overlap (:meth:`tickSpacing`).
    """

    def __init__(self, orientation: str):
        super().__init__(orientation)
        self.enableAutoSIPrefix(False)
        self.setStyle(maxTickLevel=1)

    def tickSpacing(self, minVal, maxVal, size):
        """pyqtgraph's spacing, its labelled (major) ticks made coarser on a vertical axis until two are
        :data:`LABEL_ROOM` lines of the tick font apart: pyqtgraph always draws the major level's labels, and on a
        plot 40 px high (the CMG tab at 1280x720) four of them overlapped.  The old major spacing becomes the minor
        one: its grid lines stay, its labels drawn only where they fit."""
        levels = super().tickSpacing(minVal, maxVal, size)
        span = abs(maxVal - minVal)
        if not levels or self.orientation not in ("left", "right") or self.logMode or not size > 0 or not span > 0:
            return levels
        room = LABEL_ROOM * QtGui.QFontMetricsF(self.style["tickFont"] or QtGui.QFont()).height()
        major = levels[0][0]
        spacing = major
        while spacing * size / span < room and coarser_spacing(spacing) <= span:
            spacing = coarser_spacing(spacing)
        return levels if spacing == major else [(spacing, 0.0), (major, 0.0)]

    def tickStrings(self, values, scale, spacing):
        """Labels for ``values`` (pyqtgraph's hook); see :func:`tick_strings`; powers of ten on a log axis."""
        if self.logMode:
            return self.logTickStrings(values, scale, spacing)
        return tick_strings([v * scale for v in values], spacing * scale)

    def generateDrawSpecs(self, p):
        """pyqtgraph's draw specs with every tick and grid line pen made opaque."""
        specs = super().generateDrawSpecs(p)
        if specs is None:
            return None
        axis_spec, tick_specs, text_specs = specs
        opaque = {id(pen): _opaque(pen) for pen, _, _ in tick_specs}  # one pen per tick level
        return axis_spec, [(opaque[id(pen)], p1, p2) for pen, p1, p2 in tick_specs], text_specs


def style_axes(plot: pg.PlotItem, left_label: str) -> None:
    """Colours, labels and layout of the axes of ``plot``."""
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setPen(FOREGROUND)
        axis.setTextPen(FOREGROUND)
        axis.setZValue(-200)  # under the ViewBox (z = -100): opaque grid lines under the curves
    for side in ("top", "right"):  # hidden, but they follow the view: no label work on every scroll
        plot.getAxis(side).enableAutoSIPrefix(False)
    plot.getAxis("left").setWidth(AXIS_WIDTH)
    plot.setLabel("left", left_label, color=FOREGROUND)
    plot.setLabel("bottom", "t (s)", color=FOREGROUND)


def decade_label(exponent: int) -> str:
    """Tick label of ``10**exponent``: plain for 0.01 .. 1000, ``1e-6`` style otherwise.

    Examples
    --------
    >>> [decade_label(e) for e in (-8, -2, 0, 2, 4)]
    ['1e-8', '0.01', '1', '100', '1e4']
    """
    if -2 <= exponent < 0:
        return f"{10.0 ** exponent:.{-exponent}f}"
    if 0 <= exponent <= 3:
        return str(10 ** exponent)
    return f"1e{exponent}"


class LogAxisItem(PlotAxisItem):
    """A left axis for data already in log10 units: decade ticks labelled ``1e-6``, ``0.01``, ``1``.

    Labelled ticks every 1, 2, 3, 5 or 10 decades, whichever fits; unlabelled
    minor ticks at the other decades, or at 2..9 within a decade when the
    range spans few decades.
    """

    def tickValues(self, minVal, maxVal, size):
        """Decades in ``[minVal, maxVal]`` (log10 units), major and minor (pyqtgraph's hook)."""
        if not (math.isfinite(minVal) and math.isfinite(maxVal)) or maxVal <= minVal:
            return []
        low, high = math.ceil(minVal - 1e-9), math.floor(maxVal + 1e-9)
        span = maxVal - minVal
        fits = max(2.0, size / 28.0)  # labels at least 28 px apart
        step = next((s for s in (1, 2, 3, 5, 10) if span / s <= fits), 20)
        major = [float(d) for d in range(low, high + 1) if d % step == 0]
        if step > 1:
            minor = [float(d) for d in range(low, high + 1) if d % step]
        elif span <= 4:
            minor = [d + math.log10(k) for d in range(math.floor(minVal), high + 1) for k in range(2, 10)
                     if minVal <= d + math.log10(k) <= maxVal]
        else:
            minor = []
        return [(float(step), major), (0.5, minor)]

    def tickStrings(self, values, scale, spacing):
        """Labels of the major (whole decade) ticks; minor ticks are unlabelled."""
        if spacing < 1:
            return [""] * len(values)
        return [decade_label(round(v)) if abs(v - round(v)) < 1e-6 else "" for v in values]


class XLink:
    """Zooming or panning one plot moves the others along x; scrolling by the program does not.

    pyqtgraph's ``setXLink`` would move (and repaint) every linked plot each
    time one of them is scrolled; the live plots scroll one at a time
    (:meth:`app.plots.live.PlotPanel.refresh_due`), inside :meth:`quiet`.

    Parameters
    ----------
    linked : callable
        Returns the plot items that move together now (e.g. the visible ones).
    """

    def __init__(self, linked):
        self._linked = linked
        self._quiet = False

    def add(self, plot: pg.PlotItem) -> None:
        """Follow the x range of ``plot``."""
        plot.getViewBox().sigXRangeChanged.connect(self._moved)

    @contextlib.contextmanager
    def quiet(self):
        """Within this block x ranges set on one plot stay its own."""
        quiet, self._quiet = self._quiet, True
        try:
            yield
        finally:
            self._quiet = quiet

    def _moved(self, view_box, x_range) -> None:
        if self._quiet:
            return
        with self.quiet():
            for plot in self._linked():
                if plot.getViewBox() is not view_box:
                    plot.setXRange(*x_range, padding=0)
