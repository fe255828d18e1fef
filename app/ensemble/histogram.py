"""A live histogram of the ensemble's attitude errors, its bars in the errors' colours.

The x axis is ``log10`` of the error in degrees from :data:`~app.ensemble.colors.LOW_DEG`
to 180 deg, in :data:`BINS` bins of equal width (errors below the first
edge count in the first bin); each bar has the colour of its bin's centre
on the scale of :mod:`app.ensemble.colors`, and a strip under the bars shows
the whole scale, so the histogram is also the legend of the sphere's
colours.  A dashed line marks the settling threshold.  Faulted bodies are
not counted (the panel states their number).  pyqtgraph, no OpenGL.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtCore

from app.ensemble.colors import HIGH_DEG, LOW_DEG, error_colors, log_error, tick_label
from app.plots.style import FOREGROUND, GRID_ALPHA, PLOT_BACKGROUND, PlotAxisItem

__all__ = ["ErrorHistogram", "BINS", "EDGES", "histogram_counts"]

#: Number of bins between LOW_DEG and 180 deg (a quarter decade each).
BINS = 17
#: Bin edges in log10 of degrees.
EDGES = np.linspace(math.log10(LOW_DEG), math.log10(HIGH_DEG), BINS + 1)
#: Labelled errors on the x axis, degrees.
TICKS_DEG = (LOW_DEG, 0.1, 1.0, 10.0, 180.0)
#: Height of the colour strip under the bars, as a fraction of the y range.
STRIP = 0.06


def histogram_counts(error_deg, faulted=None) -> np.ndarray:
    """Bodies per bin (:data:`EDGES`); errors below the first edge count in the first bin,
    faulted and non-finite errors nowhere.

    Examples
    --------
    >>> histogram_counts([1e-9, 0.011, 179.9, 180.0]).tolist()[:2], int(histogram_counts([1e-9, 180.0])[-1])
    ([2, 0], 1)
    """
    x = log_error(error_deg)
    keep = np.isfinite(x)
    if faulted is not None:
        keep &= ~np.asarray(faulted, dtype=bool)
    index = np.clip(np.searchsorted(EDGES, x[keep], side="right") - 1, 0, BINS - 1)
    return np.bincount(index, minlength=BINS)


class ErrorHistogram(pg.PlotWidget):
    """Bodies per attitude-error bin, bars coloured by error, with the settling threshold.

    Use :meth:`set_errors` with each new state.
    """

    def __init__(self, parent=None):
        super().__init__(parent=parent, background=PLOT_BACKGROUND,
                         axisItems={"left": PlotAxisItem("left"), "bottom": PlotAxisItem("bottom")})
        plot = self.getPlotItem()
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        for side in ("left", "bottom"):
            axis = plot.getAxis(side)
            axis.setPen(FOREGROUND)
            axis.setTextPen(FOREGROUND)
        plot.getAxis("bottom").setTicks([[(math.log10(d), tick_label(d)) for d in TICKS_DEG], []])
        plot.setLabel("left", "bodies", color=FOREGROUND)
        plot.setLabel("bottom", "attitude error (log scale)", color=FOREGROUND)
        plot.setXRange(EDGES[0] - 0.35, EDGES[-1] + 0.2, padding=0)
        centres = 0.5 * (EDGES[:-1] + EDGES[1:])
        self._brushes = [pg.mkBrush(*(255 * c).astype(int)) for c in error_colors(10.0 ** centres)]
        self._counts = np.zeros(BINS, dtype=int)
        self._bars = pg.BarGraphItem(x0=EDGES[:-1], x1=EDGES[1:], height=self._counts, brushes=self._brushes,
                                     pen=pg.mkPen(PLOT_BACKGROUND))
        plot.addItem(self._bars)
        scale = 10.0 ** np.linspace(EDGES[0], EDGES[-1], 256)
        self._strip = pg.ImageItem((255 * error_colors(scale)).astype(np.uint8).reshape(256, 1, 4))
        plot.addItem(self._strip)
        dashed = pg.mkPen(FOREGROUND, style=QtCore.Qt.PenStyle.DashLine)
        self._threshold = pg.InfiniteLine(angle=90, movable=False, pen=dashed, label="settle",
                                          labelOpts={"color": FOREGROUND, "position": 0.92})
        plot.addItem(self._threshold)
        self._top = 0.0
        self.set_threshold(1.0)
        self._set_top(10.0)

    @property
    def counts(self) -> np.ndarray:
        """Bodies per bin as shown (a copy)."""
        return self._counts.copy()

    def set_threshold(self, settle_deg: float) -> None:
        """Move the dashed line to the settling threshold, degrees."""
        self._threshold.setValue(float(log_error(settle_deg)))
        self._threshold.label.setFormat(f"settle {tick_label(settle_deg)}")

    def set_errors(self, error_deg, faulted=None) -> None:
        """Show the histogram of these errors (degrees; faulted bodies left out)."""
        counts = histogram_counts(error_deg, faulted)
        if np.array_equal(counts, self._counts):
            return
        self._counts = counts
        self._bars.setOpts(height=counts)
        high = float(counts.max(initial=0))
        if high > self._top or high < 0.4 * self._top:  # the y range holds still while it fits
            self._set_top(max(10.0, 1.25 * high))

    def _set_top(self, top: float) -> None:
        self._top = top
        self.getPlotItem().setYRange(-1.6 * STRIP * top, top, padding=0)
        self._strip.setRect(QtCore.QRectF(EDGES[0], -1.3 * STRIP * top, EDGES[-1] - EDGES[0], STRIP * top))
