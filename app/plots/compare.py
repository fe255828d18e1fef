"""Live comparison plots: the main body against the scenario's comparison bodies.

Three plots over the last :data:`WINDOW_SECONDS` of simulated time, one curve
per body in its ghost colour (the aircraft itself in light grey), stacked in
one :class:`pyqtgraph.GraphicsLayoutWidget` with a shared time axis:

``error``
    Attitude error against the reference body (the rotation angle between
    the two attitudes, degrees) on a log scale: errors span round-off
    (1e-13 deg) to 180 deg.  Errors below :data:`ERROR_FLOOR_DEG` are drawn
    at the floor.  The reference itself has no curve (its error is 0).
``energy``
    Energy drift ``T/T0 - 1``, ``T0`` being each body's kinetic energy at
    the first sample after the last start or reset.  When a body starts at
    rest (``T0`` below :data:`REST_ENERGY`) the drift is undefined and the
    plot shows the change ``T - T0`` in J instead, for every body.
``norm``
    Quaternion norm drift ``|Q| - 1``.

Above the plots, the legend and a note (:meth:`ComparePanel.set_note`): the
window writes there the torque-free period of the rates, measured against
its closed form (:class:`sim.core.tumble.PeriodWatch`).

The rows come from :attr:`sim.run.runner.Batch.compare_rows` (columns
:data:`sim.run.runner.COMPARE_COLUMNS`); nothing here integrates anything.  What
is plotted is derived once per row on :meth:`ComparePanel.append` (log10 of
the error, the drift) and kept in one bounded :class:`~app.plots.history.History`
per body, so :meth:`ComparePanel.refresh` only reduces each body's time
window to a min/max pair per pixel column and hands it to ``setData``, as
:class:`~app.plots.live.PlotPanel` does, and does nothing while the panel is hidden.
"""

from __future__ import annotations

import html
import math
import os

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets

from app.plots.decimate import envelope, factor_for
from app.plots.history import History, capacity_for
from app.plots.turns import turn_share
from app.plots.style import (FOREGROUND, GRID_ALPHA, PLOT_BACKGROUND, SILVER, LogAxisItem, PlotAxisItem, XLink,
                             settle_range, style_axes)
from sim import whole_path, COMPARE_COLUMNS, MAIN

__all__ = ["ComparePanel", "period_note", "PLOT_NAMES", "WINDOW_SECONDS", "ERROR_FLOOR_DEG", "REST_ENERGY",
           "MAIN_COLOR", "MAIN_NAME", "MAX_BODY_CAPACITY", "body_capacity"]

#: The plots, top to bottom.
PLOT_NAMES = ("error", "energy", "norm")
#: Width of the scrolling time window, s.
WINDOW_SECONDS = 20.0
#: Attitude errors below this (deg) are drawn at it: the log axis has no zero.
ERROR_FLOOR_DEG = 1e-10
#: Kinetic energy (J) below which a body counts as starting at rest (no relative drift).
REST_ENERGY = 1e-9
#: Colour of the main body's curves.
MAIN_COLOR = SILVER
#: Name of the main body in the legend and titles.
MAIN_NAME = "main body"
#: Most samples kept per body (at dt = 1e-4 s the window then holds 6.5 s).
MAX_BODY_CAPACITY = 2**16
_EMPTY = np.empty(0)
#: History column drawn in each plot.
_PLOTTED = {"error": "log_error", "energy": "energy", "norm": "norm"}

#: Pixel height of each plot's title row.
TITLE_HEIGHT = 20

_T, _ERROR, _ENERGY, _NORM = (COMPARE_COLUMNS.index(c) for c in ("t", "error_deg", "energy", "norm"))
_COLUMNS = ("t", "log_error", "energy", "norm")  # energy: drift or change, see _energy_mode


def body_capacity(dt: float | None, seconds: float = WINDOW_SECONDS) -> int:
    """Samples kept per body: :func:`app.plots.history.capacity_for`, at most :data:`MAX_BODY_CAPACITY`.

    Examples
    --------
    >>> body_capacity(0.01), body_capacity(1e-3), body_capacity(1e-5), body_capacity(None)
    (2264, 22064, 65536, 65536)
    """
    return capacity_for(dt, seconds, MAX_BODY_CAPACITY)


def period_note(watch, torque_free: bool) -> str:
    """The note on the rates' period of a torque-free main body (:class:`sim.core.tumble.PeriodWatch`), or ``""``.

    The closed form ``4 K(m) / lambda`` (Landau and Lifshitz, *Mechanics*,
    section 37) beside the period measured from the zero crossings of the
    rate about the intermediate axis.  Nothing while a torque acts, and
    nothing for a body that spins about a principal axis or is symmetric.
    """
    if watch is None or not torque_free:
        return ""
    closed = watch.closed_form()
    if closed is None:
        return ""
    period, m = closed
    measured = watch.measured
    shown = (f"{measured:.6f} s ({(measured / period - 1.0):+.1e} relative)" if measured is not None
             else "after one period")
    return (f"Torque-free: the rates repeat every 4&nbsp;K(m)/&lambda; = <b>{period:.6f}&nbsp;s</b> "
            f"(m&nbsp;=&nbsp;{m:.6f}, Landau &amp; Lifshitz &sect;37; the body turns over every half period) "
            f"&nbsp;&middot;&nbsp; measured on the main body: <b>{shown}</b>")


def _rgb(color) -> QtGui.QColor:
    """An opaque QColor from ``"#rrggbb"`` or an RGB(A) tuple of floats in [0, 1] (alpha dropped)."""
    if isinstance(color, str):
        return QtGui.QColor(color)
    return QtGui.QColor.fromRgbF(*(float(c) for c in color[:3]))


class ComparePanel(QtWidgets.QWidget):
    """Live plots of the comparison bodies' error, energy drift and norm drift.

    Parameters
    ----------
    parent : QWidget, optional
    window_seconds : float
        Width of the scrolling time window, s (> 0).

    Use :meth:`set_bodies` when a scenario starts, :meth:`append` with every
    :attr:`sim.run.runner.Batch.compare_rows`, :meth:`refresh_due` every frame
    and :meth:`clear` after a reset.
    """

    def __init__(self, parent=None, window_seconds: float = WINDOW_SECONDS):
        super().__init__(parent)
        if not (math.isfinite(window_seconds) and window_seconds > 0):
            raise ValueError(f"window_seconds: must be a finite number > 0, got {window_seconds!r}")
        self.window_seconds = float(window_seconds)
        self._labels: tuple = ()
        self._colors: dict = {}
        self._reference = MAIN
        self._capacity = MAX_BODY_CAPACITY
        self._histories: dict = {}
        self._curves: dict = {name: {} for name in PLOT_NAMES}
        self._t0: dict | None = None
        self._relative = True
        #: The main body's name in the legend and titles (an attitude file's name while it plays).
        self.main_name = MAIN_NAME
        self._drawn: dict = {}  # plot name -> (count, last t) it shows
        self._shown: dict = {}  # (plot name, label) -> samples that curve shows
        self.legend = QtWidgets.QLabel(objectName="compare_legend", wordWrap=True,
                                       textFormat=QtCore.Qt.TextFormat.RichText)
        self.legend.setStyleSheet(f"background: {PLOT_BACKGROUND}; color: {FOREGROUND}; padding: 3px 6px 0 6px;")
        self.note = QtWidgets.QLabel(objectName="compare_note", wordWrap=True,
                                     textFormat=QtCore.Qt.TextFormat.RichText)
        self.note.setStyleSheet(f"background: {PLOT_BACKGROUND}; color: {FOREGROUND}; padding: 2px 6px 0 6px;")
        self.note.hide()
        self._graphics = pg.GraphicsLayoutWidget(parent=self)
        self._graphics.setBackground(PLOT_BACKGROUND)
        self._graphics.ci.setSpacing(0)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.legend)
        layout.addWidget(self.note)
        layout.addWidget(self._graphics, 1)
        self._plots = {name: self._make_plot(row, name) for row, name in enumerate(PLOT_NAMES)}
        self._x_link = XLink(lambda: list(self._plots.values()))
        for name in PLOT_NAMES:
            self._x_link.add(self._plots[name])
        for name in PLOT_NAMES[:-1]:
            self._plots[name].showAxis("bottom", False)
        self._show_titles()

    # ---------------------------------------------------------------- set-up
    def _make_plot(self, row: int, name: str) -> pg.PlotItem:
        left = LogAxisItem("left") if name == "error" else PlotAxisItem("left")
        plot = self._graphics.addPlot(row=row, col=0, axisItems={"left": left, "bottom": PlotAxisItem("bottom")})
        plot.disableAutoRange()  # refresh() sets both ranges
        plot.hideButtons()
        plot.setMenuEnabled(False)
        plot.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        style_axes(plot, "")
        plot.titleLabel.setAttr("justify", "left")
        plot.layout.setRowFixedHeight(0, TITLE_HEIGHT)
        if name == "error":
            plot.setYRange(math.log10(ERROR_FLOOR_DEG), math.log10(180.0), padding=0)
        return plot

    def _show_titles(self) -> None:
        reference = self.main_name if self._reference == MAIN else self._reference
        if self._relative:
            energy = ("Energy drift T/T0 − 1", "T/T0 − 1")
        else:
            energy = ("Energy change T − T0 (a body started at rest)", "T − T0 (J)")
        texts = {"error": (f"Attitude error against {reference}", "error (deg)"),
                 "energy": energy,
                 "norm": ("Norm drift |Q| − 1", "|Q| − 1")}
        for name, (title, axis) in texts.items():
            plot = self._plots[name]
            if plot.titleLabel.text != title:
                plot.setTitle(title, color=FOREGROUND, size="8.5pt")
                plot.setLabel("left", axis, color=FOREGROUND)

    def _show_legend(self) -> None:
        entries = []
        for label in self._labels:
            color = self._colors[label].name()
            name = self.main_name if label == MAIN else label
            if label == self._reference:
                name += " (reference)"
            # wraps between entries only: no-break spaces and hyphens (U+2011) in the names
            name = html.escape(name).replace(" ", "&nbsp;").replace("-", "\u2011")
            entries.append(f'<span style="color: {color}">━━</span>&nbsp;{name}')
        self.legend.setText("&nbsp;&nbsp; ".join(entries))

    # --------------------------------------------------------------- bodies
    def set_bodies(self, labels, colors, reference: str = MAIN, dt: float | None = None) -> None:
        """Plot these bodies from now on (a new scenario); forgets every sample.

        Parameters
        ----------
        labels : sequence of str
            The comparison bodies' labels, in the scenario's order.  The main
            body (:data:`sim.run.runner.MAIN`) is always plotted, first, in
            :data:`MAIN_COLOR`; empty ``labels`` leaves nothing to compare.
        colors : sequence
            One colour per label (``"#rrggbb"`` or RGB(A) floats in [0, 1],
            alpha ignored): the bodies' ghost colours.
        reference : str
            Label of the body the errors are measured against (:attr:`sim.run.runner.Runner.reference`).
        dt : float, optional
            The scenario's time step, s: sizes the per-body store (:func:`body_capacity`).
        """
        labels = tuple(labels)
        colors = tuple(colors)
        if len(colors) < len(labels):
            raise ValueError(f"colors: need one per label, got {len(colors)} for {len(labels)}")
        for name, curves in self._curves.items():
            for curve in curves.values():
                self._plots[name].removeItem(curve)
            curves.clear()
        bodies = tuple(label for label in labels if label != MAIN)
        self._labels = (MAIN, *bodies) if bodies else ()
        self._colors = {MAIN: _rgb(MAIN_COLOR)}
        self._colors.update({label: _rgb(color) for label, color in zip(labels, colors) if label != MAIN})
        self._reference = reference
        self._capacity = body_capacity(dt, self.window_seconds)
        self._histories = {label: History(columns=_COLUMNS, capacity=self._capacity, archive_capacity=2)
                           for label in self._labels}
        # drawn in reverse, so the aircraft's curve lies on top of the ghosts'
        for label in reversed(self._labels):
            pen = pg.mkPen(self._colors[label])
            for name in PLOT_NAMES:
                if name == "error" and label == reference:
                    continue
                # as in PlotPanel: a bare curve, handed data already reduced to pixel columns
                curve = pg.PlotCurveItem(pen=pen, skipFiniteCheck=True, connect="all")
                self._plots[name].addItem(curve)
                self._curves[name][label] = curve
        self.clear()
        self._relative = True  # until the first samples say otherwise
        self._show_titles()
        self._show_legend()

    def show_plots(self, names=PLOT_NAMES) -> None:
        """Show only the plots ``names`` (of :data:`PLOT_NAMES`), the time axis under the lowest."""
        shown = [name for name in PLOT_NAMES if name in set(names)]
        for name, plot in self._plots.items():
            plot.setVisible(name in shown)
            plot.showAxis("bottom", bool(shown) and name == shown[-1])
        self._drawn = {}

    def set_note(self, text: str) -> None:
        """Show ``text`` (rich text) above the plots; empty hides the note."""
        if text != self.note.text():
            self.note.setText(text)
        self.note.setVisible(bool(text))

    @property
    def labels(self) -> tuple:
        """The bodies plotted, main body first; empty without comparison bodies."""
        return self._labels

    @property
    def reference(self) -> str:
        """Label of the body the errors are measured against."""
        return self._reference

    @property
    def has_bodies(self) -> bool:
        """Whether there is anything to compare (the scenario has comparison bodies)."""
        return bool(self._labels)

    @property
    def capacity(self) -> int:
        """Samples kept per body."""
        return self._capacity

    @property
    def relative_energy(self) -> bool:
        """True when the energy plot shows ``T/T0 - 1``; False for ``T - T0`` (a body started at rest)."""
        return self._relative

    def plot(self, name: str) -> pg.PlotItem:
        """The plot item called ``name`` (one of :data:`PLOT_NAMES`)."""
        return self._plots[self._checked_name(name)]

    def _checked_name(self, name: str) -> str:
        if name not in self._plots:
            raise KeyError(f"unknown plot {name!r}; known: {', '.join(PLOT_NAMES)}")
        return name

    # --------------------------------------------------------------- samples
    def append(self, compare_rows: dict) -> None:
        """Take one batch's rows: label -> ndarray (n, len(COMPARE_COLUMNS)), oldest first.

        Labels that are not plotted are ignored.  The first rows after
        :meth:`clear` fix each body's ``T0``.
        """
        if not self._labels or not compare_rows:
            return
        if self._t0 is None:
            firsts = {label: float(np.asarray(rows)[0, _ENERGY]) for label, rows in compare_rows.items()
                      if label in self._histories and len(rows)}
            if not firsts:
                return
            self._t0 = firsts
            relative = all(abs(e) > REST_ENERGY for e in firsts.values())
            if relative != self._relative:
                self._relative = relative
                self._show_titles()
        for label, rows in compare_rows.items():
            history = self._histories.get(label)
            if history is None or len(rows) == 0:
                continue
            rows = np.asarray(rows, dtype=float)
            t0 = self._t0.setdefault(label, float(rows[0, _ENERGY]))
            block = np.empty((len(rows), len(_COLUMNS)))
            block[:, 0] = rows[:, _T]
            np.log10(np.maximum(rows[:, _ERROR], ERROR_FLOOR_DEG), out=block[:, 1])
            if self._relative:
                np.divide(rows[:, _ENERGY], t0, out=block[:, 2])
                block[:, 2] -= 1.0
            else:
                np.subtract(rows[:, _ENERGY], t0, out=block[:, 2])
            block[:, 3] = rows[:, _NORM]
            history.append(block)

    def count(self, label: str) -> int:
        """Samples appended for body ``label`` since the last :meth:`clear`."""
        return self._histories[label].count

    def clear(self) -> None:
        """Forget every sample and each ``T0`` (after a reset); curves empty."""
        for history in self._histories.values():
            history.clear()
        for curves in self._curves.values():
            for curve in curves.values():
                curve.setData(_EMPTY, _EMPTY)  # clear() would leave the old curve on screen
        self._shown = {}
        self._t0 = None
        self._drawn = {}

    # --------------------------------------------------------------- drawing
    def showEvent(self, event):
        """Bring the plots up to date when the panel comes into view."""
        super().showEvent(event)
        self._drawn = {}
        self.refresh()

    def refresh(self, names=PLOT_NAMES) -> None:
        """Hand each body's time window to its curves and scroll the axes.

        Each curve gets the minimum and maximum of every run of samples in
        one pixel column (:func:`app.plots.decimate.envelope`).  Does nothing
        while the panel is hidden (not drawn, e.g. behind another tab), and
        leaves a plot alone when nothing was appended since it was drawn, so
        the plots can be zoomed and panned while the simulation is paused.

        Parameters
        ----------
        names : iterable of str
            Plots to bring up to date (default all, see :data:`PLOT_NAMES`).
        """
        if not self._labels or not self.isVisible():
            return
        first = self._histories[self._labels[0]]
        t_last = float(first.column("t")[-1]) if len(first) else None
        key = (first.count, t_last)
        wanted = set(names)
        due = [name for name in PLOT_NAMES if name in wanted and self._drawn.get(name) != key]
        for name in due:
            self._drawn[name] = key
        if t_last is None or not due:
            return
        t_first = None
        bounds = {name: [] for name in due}
        columns = [_PLOTTED[name] for name in due]
        width = self._plots[PLOT_NAMES[-1]].getViewBox().width() / 2
        for label in self._labels:
            history = self._histories[label]
            t, _ = history.window(self.window_seconds, ())
            if not len(t):
                continue
            t_first = float(t[0]) if t_first is None else min(t_first, float(t[0]))
            x, ys = envelope(t, history.last(len(t), columns), history.count - len(t),
                             factor_for(len(t), width))
            for name, y in zip(due, ys):
                curve = self._curves[name].get(label)
                if curve is not None:
                    curve.setData(x, y)
                    self._shown[name, label] = len(t)
                    finite = y[np.isfinite(y)]
                    if len(finite):
                        bounds[name].append((finite.min(), finite.max()))
        right = max(t_last, (t_first if t_first is not None else t_last) + self.window_seconds)
        with self._x_link.quiet():
            for name in due:
                self._plots[name].setXRange(right - self.window_seconds, right, padding=0)
                self._follow(name, bounds[name])

    def refresh_due(self, frame: int) -> None:
        """Refresh the plot whose turn it is in display frame ``frame`` (one a frame, as
        :meth:`app.plots.live.PlotPanel.refresh_due` does with its share)."""
        self.refresh(turn_share(PLOT_NAMES, frame))

    def _follow(self, name: str, bounds) -> None:
        """Move the y range of plot ``name`` when its data, ``(low, high)`` per curve, no longer sit well in it."""
        if not bounds:
            return
        low = float(min(b[0] for b in bounds))
        high = float(max(b[1] for b in bounds))
        plot = self._plots[name]
        if name == "error":  # whole decades, at least two
            low, high = math.floor(low + 1e-9), math.ceil(high - 1e-9)
            if high - low < 2:
                low = high - 2
            if (low, high) != tuple(round(v) for v in plot.viewRange()[1]):
                plot.setYRange(low, high, padding=0)
            return
        new = settle_range(plot.viewRange()[1], low, high)
        if new is not None:
            plot.setYRange(*new, padding=0)

    # ------------------------------------------------------------- queries
    def curve_points(self, plot_name: str, label: str) -> int:
        """Samples body ``label``'s curve in plot ``plot_name`` shows, before decimation (0 without such a curve)."""
        curve = self._curves[self._checked_name(plot_name)].get(label)
        if curve is None:
            return 0
        x, _ = curve.getData()
        return 0 if x is None or len(x) == 0 else self._shown.get((plot_name, label), 0)

    def curve_data(self, plot_name: str, label: str):
        """The (t, y) last handed to a curve, or None; ``error`` y values are log10 of degrees.

        Every sample while the window holds at most two per pixel column,
        else each column's minimum and maximum (:func:`app.plots.decimate.envelope`).
        """
        curve = self._curves[self._checked_name(plot_name)].get(label)
        if curve is None:
            return None
        x, y = curve.getData()
        return None if x is None or len(x) == 0 else (x, y)

    def export_png(self, path) -> str:
        """Save the comparison plots as they are drawn now to a PNG file (raises OSError)."""
        path = os.fspath(path)
        with whole_path(path, ".png") as partial:  # moved into place when complete (sim.io.files)
            if not self.grab().save(partial, "PNG"):
                raise OSError(f"cannot write {path}")
        return path
