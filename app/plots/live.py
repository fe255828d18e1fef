"""Live scrolling plots of the simulation history (pyqtgraph, no OpenGL).

Five plots stacked in one :class:`pyqtgraph.GraphicsLayoutWidget`, sharing
the x axis (simulated time, s): the quaternion norm error, the Lagrange
multiplier against ``4T`` (Sherif et al. (30)), the aircraft angles with
their commands, the body rates and the applied torques, in the colours of
:mod:`app.plots.style`.

Every item is created once; :meth:`PlotPanel.refresh` reduces the
:class:`~app.plots.history.History`'s time window to a min/max pair per pixel
column (:func:`app.plots.decimate.envelope`, runs aligned to the samples' global
index so the scrolling curves do not shimmer), hands that to ``setData``
and moves the ranges (:func:`app.plots.style.settle_range`); pyqtgraph's own
clipping and downsampling, which would redo the work on every paint, are off.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets

from app.plots.decimate import envelope, factor_for
from app.plots.history import History
from app.plots.legend import LEGEND_HEIGHT, add_legend, fit_legend
from app.plots.turns import turn_share
from app.plots.style import (AMBER, BLUE, GREEN, GRID_ALPHA, PLOT_BACKGROUND, RED, SILVER, VIOLET, LogAxisItem,
                             PlotAxisItem, XLink, settle_range, style_axes)
from sim import whole_path

__all__ = ["PlotPanel", "PlotSpec", "CurveSpec", "PLOTS", "MOMENTUM_PLOTS", "WHEEL_COLORS",
           "wheel_curves", "LEGEND_HEIGHT"]

@dataclass(frozen=True)
class CurveSpec:
    """One curve: a history column drawn in a colour, solid or dashed."""

    column: str
    label: str
    color: str
    dashed: bool = False
    #: An angle in (-180, 180]: the line is broken where it wraps round.
    wraps: bool = False


@dataclass(frozen=True)
class PlotSpec:
    """One plot: its name, left axis label (with units) and curves.

    ``floor``: the smallest span of its y axis, in the curves' units (the
    resolution worth showing, :func:`~app.plots.style.settle_range`);
    ``ticks``: fixed ``(value, label)`` ticks on the y axis instead of
    numbers, the range fixed around them (the sensors' timeline);
    ``log``: the curves are ``log10`` of the quantity, the axis labels
    powers of ten (:class:`~app.plots.style.LogAxisItem`; give ``floor=1``,
    a decade, so that a labelled decade is always in sight).
    """

    name: str
    title: str
    axis_label: str
    curves: tuple
    floor: float = 0.0
    ticks: tuple = ()
    log: bool = False


PLOTS = (
    PlotSpec("norm", "Norm error", "|Q| − 1", (
        CurveSpec("norm", "|Q| − 1", AMBER),
        CurveSpec("norm_correction", "norm correction", VIOLET),
    )),
    PlotSpec("multiplier", "Multiplier", "λ, 4T (J)", (
        CurveSpec("multiplier", "λ", AMBER),
        CurveSpec("four_t", "4T", SILVER, dashed=True),
    )),
    PlotSpec("angles", "Angles", "angle (deg)", (
        CurveSpec("psi_deg", "ψ", BLUE, wraps=True),
        CurveSpec("theta_deg", "θ", GREEN),
        CurveSpec("phi_deg", "φ", RED, wraps=True),
        CurveSpec("psic_deg", "ψ cmd", BLUE, dashed=True, wraps=True),
        CurveSpec("thetac_deg", "θ cmd", GREEN, dashed=True),
        CurveSpec("phic_deg", "φ cmd", RED, dashed=True, wraps=True),
    ), floor=1e-6),
    PlotSpec("rates", "Body rates", "rate (rad/s)", (
        CurveSpec("wx", "ωx", RED),
        CurveSpec("wy", "ωy", GREEN),
        CurveSpec("wz", "ωz", BLUE),
    ), floor=1e-9),
    PlotSpec("torques", "Torques", "torque (N m)", (
        CurveSpec("tx", "τx", RED),
        CurveSpec("ty", "τy", GREEN),
        CurveSpec("tz", "τz", BLUE),
    ), floor=1e-12),
)
"""The plots, top to bottom."""

#: The Momentum tab's plots (:class:`app.plots.tabs.PlotTabs`), for runs with reaction wheels or an
#: external torque: the total angular momentum in inertial axes (with wheels, the body's share
#: ``C^T J w`` dashed), the wheel speeds and motor torques with their limits drawn, and the torque on
#: the body (with wheels, the torque law's command dashed).  The wheels' curves are given per run
#: (:meth:`PlotPanel.set_curves`, :func:`wheel_curves`).
MOMENTUM_PLOTS = (
    PlotSpec("momentum", "Momentum", "H (N m s)", (
        CurveSpec("hx", "Hx", RED),
        CurveSpec("hy", "Hy", GREEN),
        CurveSpec("hz", "Hz", BLUE),
    ), floor=1e-9),
    PlotSpec("wheel_speeds", "Wheel speeds", "Ω (rad/s)", (), floor=1e-6),
    PlotSpec("wheel_torques", "Motor torques", "u (N m)", (), floor=1e-12),
    PlotSpec("body_torques", "Torque on the body", "τ (N m)", (
        CurveSpec("tx", "τx", RED),
        CurveSpec("ty", "τy", GREEN),
        CurveSpec("tz", "τz", BLUE),
    ), floor=1e-12),
)

#: One colour per reaction wheel (cycled beyond eight), in the plots and on the body in the 3D view.
WHEEL_COLORS = ("#f2c14e", "#c77dff", "#4dd0e1", "#ff8a65", "#aed581", "#f06292", "#90a4ae", "#fff176")


def wheel_curves(count: int) -> dict:
    """The Momentum tab's curves for a run with ``count`` wheels: plot name -> tuple of :class:`CurveSpec`."""
    colors = [WHEEL_COLORS[i % len(WHEEL_COLORS)] for i in range(count)]
    momentum = MOMENTUM_PLOTS[0].curves
    torques = MOMENTUM_PLOTS[3].curves
    if count:
        momentum = momentum + tuple(CurveSpec(f"hb{c.column[1]}", f"{c.label} body", c.color, dashed=True)
                                    for c in momentum)
        torques = torques + tuple(CurveSpec(f"tc{c.column[1]}", f"{c.label} asked", c.color, dashed=True)
                                  for c in torques)
    return {"momentum": momentum,
            "wheel_speeds": tuple(CurveSpec(f"wheel{i}", f"Ω{i}", colors[i - 1]) for i in range(1, count + 1)),
            "wheel_torques": tuple(CurveSpec(f"ux{i}", f"u{i}", colors[i - 1]) for i in range(1, count + 1)),
            "body_torques": torques}


def show_wheels(panel: PlotPanel, count: int, speed_limits=(), torque_limits=()) -> None:
    """The Momentum tab ``panel`` set for a run with ``count`` wheels: :func:`wheel_curves`, a dashed line at
    plus and minus each wheel's speed and motor-torque limit (each level once), the wheel plots shown only
    with wheels."""
    levels = {"wheel_speeds": sorted({v for m in speed_limits for v in (m, -m)}),
              "wheel_torques": sorted({v for m in torque_limits for v in (m, -m)})}
    for name, specs in wheel_curves(count).items():
        panel.set_curves(name, specs, levels.get(name, ()))
    panel.set_visible("wheel_speeds", count > 0)
    panel.set_visible("wheel_torques", count > 0)


_EMPTY = np.empty(0)


class PlotPanel(QtWidgets.QWidget):
    """Live plots of the last ``window_seconds`` of a :class:`~app.plots.history.History`.

    Parameters
    ----------
    history : History
        Read on every :meth:`refresh`; the panel never writes it.
    parent : QWidget, optional
    window_seconds : float
        Width of the scrolling time window, s (> 0).
    plots : tuple of PlotSpec
        The plots, top to bottom (default :data:`PLOTS`; the Momentum tab's
        are :data:`MOMENTUM_PLOTS`).

    Signals
    -------
    visibility_changed(str, bool)
        A plot was shown or hidden: its name and new visibility.
    """

    visibility_changed = QtCore.Signal(str, bool)

    def __init__(self, history: History, parent=None, window_seconds: float = 20.0, plots=PLOTS):
        super().__init__(parent)
        self._history = history
        self.window_seconds = window_seconds
        self._graphics = pg.GraphicsLayoutWidget(parent=self)
        self._graphics.setBackground(PLOT_BACKGROUND)
        self._graphics.ci.setSpacing(0)
        self._graphics.ci.setContentsMargins(2, 4, 2, 2)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._graphics)
        self._plots = {spec.name: self._make_plot(row, spec) for row, spec in enumerate(plots)}
        self._curves = {spec.name: [self._make_curve(self._plots[spec.name], curve)
                                    for curve in spec.curves] for spec in plots}
        self._columns = {spec.name: [curve.column for curve in spec.curves] for spec in plots}
        self._wraps = {spec.name: [curve.wraps for curve in spec.curves] for spec in plots}
        self._actions = {spec.name: self._make_action(spec) for spec in plots}
        self._limits = {spec.name: [] for spec in plots}  # horizontal lines: (value, item)
        self._specs = {spec.name: spec for spec in plots}
        self._ranged = {}  # plot name -> the history's run (History.generation) its y range was set in
        self._drawn = {}  # plot name -> (history count, last t) it shows
        self._shown = {}  # (plot name, curve index) -> history samples that curve was last given
        self._x_link = XLink(lambda: [self._plots[name] for name in self._visible()])
        for plot in self._plots.values():
            self._x_link.add(plot)
        self._arrange()
        self._graphics.installEventFilter(self)

    # ---------------------------------------------------------------- set-up
    def _make_plot(self, row: int, spec: PlotSpec) -> pg.PlotItem:
        """Create the plot of ``spec`` in layout row ``row``, with its legend above it."""
        plot = self._graphics.addPlot(row=row, col=0, axisItems={
            "left": (LogAxisItem if spec.log else PlotAxisItem)("left"), "bottom": PlotAxisItem("bottom")})
        plot.disableAutoRange()  # refresh() sets both ranges
        plot.hideButtons()
        plot.showGrid(x=False, y=True, alpha=GRID_ALPHA)
        style_axes(plot, spec.axis_label)
        add_legend(plot, len(spec.curves))
        if spec.ticks:  # labelled levels in place of numbers, the range fixed around them; every label drawn
            axis = plot.getAxis("left")
            axis.setTicks([list(spec.ticks), []])
            axis.setStyle(textFillLimits=[(0, 1.0)])
            values = [v for v, _ in spec.ticks]
            plot.setYRange(min(values) - 0.5, max(values) + 0.5, padding=0)
        return plot

    @staticmethod
    def _make_curve(plot: pg.PlotItem, spec: CurveSpec) -> pg.PlotCurveItem:
        """Create an empty curve of ``spec`` in ``plot`` (and its legend).

        A bare ``PlotCurveItem``: its ``setData`` costs a fifth of a
        ``PlotDataItem``'s, whose clipping, downsampling and transforms are
        not needed for data already reduced to the plot's pixel columns.
        """
        style = QtCore.Qt.PenStyle.DashLine if spec.dashed else QtCore.Qt.PenStyle.SolidLine
        # skipFiniteCheck: no pass over the samples looking for NaN, except where a curve has gaps (wrapping
        # angles, a torque of exactly 0: connect "finite"): there pyqtgraph's check picks its path by the share
        # of gaps, one pass for many where skipping it split the curve into a polygon a gap (cubesat_year's
        # SRP in each eclipse: 1.0 against 0.35 ms a curve of 2,400 samples with 185 gaps, issue 42)
        curve = pg.PlotCurveItem(name=spec.label, pen=pg.mkPen(spec.color, style=style),
                                 skipFiniteCheck=not spec.wraps, connect="finite" if spec.wraps else "all")
        plot.addItem(curve)
        return curve

    def _make_action(self, spec: PlotSpec) -> QtGui.QAction:
        """A checkable action that shows or hides the plot of ``spec``."""
        action = QtGui.QAction(spec.title, self)
        action.setCheckable(True)
        action.setChecked(True)
        action.setToolTip(f"Show or hide the {spec.title.lower()} plot")
        action.toggled.connect(lambda checked, name=spec.name: self.set_visible(name, checked))
        return action

    # -------------------------------------------------------------- settings
    @property
    def window_seconds(self) -> float:
        """Width of the scrolling time window, s."""
        return self._window_seconds

    @window_seconds.setter
    def window_seconds(self, seconds: float) -> None:
        if not (math.isfinite(seconds) and seconds > 0):
            raise ValueError(f"window_seconds: must be a finite number > 0, got {seconds!r}")
        self._window_seconds = float(seconds)
        self._drawn = {}

    def plot_names(self) -> tuple[str, ...]:
        """Names of the plots, top to bottom."""
        return tuple(self._plots)

    def plot(self, name: str) -> pg.PlotItem:
        """The plot item called ``name`` (to add markers or read its view range)."""
        return self._plots[self._checked_name(name)]

    def is_visible(self, name: str) -> bool:
        """Whether plot ``name`` is shown."""
        return self._actions[self._checked_name(name)].isChecked()

    def set_visible(self, name: str, visible: bool) -> None:
        """Show or hide plot ``name``; a shown plot is brought up to date at once.

        Raises
        ------
        KeyError
            If ``name`` is not one of :meth:`plot_names`.
        """
        name = self._checked_name(name)
        action = self._actions[name]
        if action.isChecked() != visible:
            with QtCore.QSignalBlocker(action):
                action.setChecked(visible)
        if self._plots[name].isVisible() == visible:
            return
        self._plots[name].setVisible(visible)
        self._arrange()
        self._drawn.pop(name, None)
        self.refresh()
        self.visibility_changed.emit(name, visible)

    def set_curves(self, name: str, curves, limits=()) -> None:
        """Draw ``curves`` (:class:`CurveSpec`) in plot ``name`` from now on, and dashed lines at ``limits``.

        What a run decides: one curve per reaction wheel, the angles
        relative to the orbit frame, the wheels' limits.  The history must
        hold the curves' columns.  A plot without curves stays empty.
        """
        name = self._checked_name(name)
        plot = self._plots[name]
        for curve in self._curves[name]:
            plot.removeItem(curve)
        for _, line in self._limits[name]:
            plot.removeItem(line)
        curves = tuple(curves)
        plot.legend.setColumnCount(max(1, len(curves)))
        self._curves[name] = [self._make_curve(plot, curve) for curve in curves]
        self._columns[name] = [curve.column for curve in curves]
        self._wraps[name] = [curve.wraps for curve in curves]
        pen = pg.mkPen(SILVER, style=QtCore.Qt.PenStyle.DashLine)
        self._limits[name] = [(float(v), pg.InfiniteLine(pos=float(v), angle=0, pen=pen, movable=False))
                              for v in limits]
        for _, line in self._limits[name]:
            plot.addItem(line)
        for key in [k for k in self._shown if k[0] == name]:
            del self._shown[key]
        self._drawn.pop(name, None)
        self.fit_legends()

    def columns(self, name: str) -> list:
        """The history columns plot ``name`` draws now."""
        return list(self._columns[self._checked_name(name)])

    def limits(self, name: str) -> list:
        """The values of the limit lines drawn in plot ``name``."""
        return [v for v, _ in self._limits[self._checked_name(name)]]

    def toggle_actions(self) -> list[QtGui.QAction]:
        """Checkable actions, one per plot (top to bottom), for a menu or toolbar."""
        return list(self._actions.values())

    def _checked_name(self, name: str) -> str:
        if name not in self._plots:
            raise KeyError(f"unknown plot {name!r}; known: {', '.join(self._plots)}")
        return name

    def _visible(self) -> list[str]:
        """Names of the visible plots, top to bottom."""
        return [name for name, plot in self._plots.items() if plot.isVisible()]

    def eventFilter(self, watched, event):
        """Before the view lays its plots out at a new size, fit every legend to it (:meth:`fit_legends`)."""
        if watched is self._graphics and event.type() == QtCore.QEvent.Type.Resize:
            self.fit_legends(event.size().width())
        return False

    def showEvent(self, event):
        """Fit every legend to the width shown (curves given while hidden)."""
        super().showEvent(event)
        self.fit_legends()

    def fit_legends(self, width: float | None = None) -> None:
        """Every plot's legend in as many columns as fit the view's ``width`` (default: now) (:func:`fit_legend`),
        the plots laid out again inside the view: the one layout rule of every tab."""
        view = self._graphics
        left, _, right, _ = view.ci.layout.getContentsMargins()
        for plot in self._plots.values():
            fit_legend(plot, (view.width() if width is None else width) - left - right)
        if width is None:  # no resize follows: lay the plots out again at the view's size
            view.ci.setGeometry(QtCore.QRectF(0, 0, view.width(), view.height()))

    def _arrange(self) -> None:
        """Time axis under the lowest visible plot only (the only one laid out again as it scrolls)."""
        visible = self._visible()
        lowest = visible[-1] if visible else None
        for name, plot in self._plots.items():
            plot.showAxis("bottom", name == lowest)

    # --------------------------------------------------------------- drawing
    def refresh(self, names=None) -> None:
        """Hand the history's time window to the curves and scroll the x axes.

        Each curve gets the minimum and maximum of every run of samples that
        falls in one pixel column (:func:`app.plots.decimate.envelope`).  A plot
        is left alone when nothing was appended since it was last drawn, so
        the plots can be zoomed and panned while the simulation is paused;
        the next new sample brings them back to the live window.

        Parameters
        ----------
        names : iterable of str, optional
            Plots to bring up to date (default: every visible plot); hidden
            plots are skipped and caught up when shown.
        """
        t, _ = self._history.window(self._window_seconds, ())
        generation = self._history.generation  # a new run or a reset (History.clear)
        key = (generation, self._history.count, float(t[-1]) if len(t) else None)
        visible = self._visible()
        wanted = visible if names is None else set(names)
        due = [name for name in visible if name in wanted and self._drawn.get(name) != key]
        for name in due:
            self._drawn[name] = key
        due = [name for name in due if self._columns[name]]  # a plot without curves (no wheels) stays empty
        if len(t) == 0 or not due:
            return
        right = max(float(t[-1]), float(t[0]) + self._window_seconds)
        first = self._history.count - len(t)  # global index of t[0]
        factor = factor_for(len(t), self._plots[visible[-1]].getViewBox().width() / 2)
        with self._x_link.quiet():
            for name in due:
                plot = self._plots[name]
                plot.setXRange(right - self._window_seconds, right, padding=0)
                x, ys = envelope(t, self._history.last(len(t), self._columns[name]), first, factor,
                                 self._wraps[name])
                for index, (curve, y) in enumerate(zip(self._curves[name], ys)):
                    curve.setData(x, y)
                    self._shown[name, index] = len(t)
                fresh = self._ranged.get(name) != generation  # a new run or a reset: forget the last run's range
                self._ranged[name] = generation
                self._follow(name, ys, fresh)

    def refresh_due(self, frame: int, others: tuple = ()) -> list:
        """Refresh the visible plots whose turn it is in display frame ``frame``; return those of ``others``
        whose turn it is.

        The visible plots take turns (:func:`~app.plots.turns.turn_share`):
        plot ``i`` (top to bottom) is brought up to date in the frames with
        ``frame % REFRESH_EVERY == i % REFRESH_EVERY``, so every frame does
        about ``1 / REFRESH_EVERY`` of the plotting (and repaints only those plots)
        instead of one frame in ``REFRESH_EVERY`` doing all of it.  At 60
        frames per second each plot scrolls 20 times a second, about one
        pixel per step for a 20 s window.  ``others`` (names of a tab's other
        views, not plot names) follow the plots in the same rotation: the
        caller draws those returned.
        """
        due = turn_share(self._visible() + list(others), frame)
        self.refresh([name for name in due if name in self._plots])
        return [name for name in due if name in others]

    def _follow(self, name: str, ys, fresh: bool = False) -> None:
        """Move the y range of plot ``name`` when its data ``ys`` (and its limit lines) no longer sit well in it
        (:func:`~app.plots.style.settle_range` with the plot's floor); ``fresh``: whatever range it shows."""
        finite = ys[np.isfinite(ys)]  # commands are NaN without a controller
        if not len(finite) or self._specs[name].ticks:
            return
        low, high = finite.min(), finite.max()
        for value, _ in self._limits[name]:  # a limit line stays in sight
            low, high = min(low, value), max(high, value)
        plot = self._plots[name]
        new = settle_range(None if fresh else plot.viewRange()[1], float(low), float(high),
                           floor=self._specs[name].floor)
        if new is not None:
            plot.setYRange(*new, padding=0)

    def curve_points(self, name: str, curve_index: int = 0) -> int:
        """History samples that curve ``curve_index`` of plot ``name`` shows (before decimation).

        Counted per curve, when that curve is given its data; its values are
        the curve's own ``getData()``.
        """
        x, _ = self._curves[self._checked_name(name)][curve_index].getData()
        return 0 if x is None or len(x) == 0 else self._shown.get((name, curve_index), 0)

    def clear(self) -> None:
        """Empty every curve (after a reset); call it after :meth:`History.clear`."""
        for curves in self._curves.values():
            for curve in curves:
                curve.setData(_EMPTY, _EMPTY)  # clear() would leave the old curve on screen
        self._shown = {}
        self._drawn = {}

    def export_png(self, path) -> str:
        """Save the plots as they are drawn now to a PNG file.

        Parameters
        ----------
        path : str or os.PathLike

        Returns
        -------
        str
            ``path``.

        Raises
        ------
        OSError
            If the image cannot be written.
        """
        path = os.fspath(path)
        with whole_path(path, ".png") as partial:  # moved into place when complete (sim.io.files)
            if not self._graphics.grab().save(partial, "PNG"):
                raise OSError(f"cannot write {path}")
        return path
