"""The drift lab's plots as PNG files (``attitude-sim lab``), drawn with pyqtgraph off screen.

Each plot is a :class:`pyqtgraph.GraphicsLayoutWidget` in the live plots'
colours (:mod:`app.plots.style`) with a legend beside it, rendered by
pyqtgraph's ``ImageExporter``; no window is shown (Qt's ``offscreen``
platform when there is no display).  What is plotted is
:class:`sim.lab.LabResult`'s; nothing here measures anything.
"""

from __future__ import annotations

import math
import os

import numpy as np

__all__ = ["write_plots", "PLOTS", "METHOD_COLORS"]

#: File name -> (title, y axis label, series of :data:`sim.lab.SERIES` or a special plot).
PLOTS = {
    "lab_energy.png": ("Energy drift |T/T0 − 1| (norm handling hoffmann)", "|T/T0 − 1|", "energy"),
    "lab_momentum.png": ("Momentum drift | |h|/|h0| − 1 | (norm handling hoffmann)", "| |h|/|h0| − 1 |", "momentum"),
    "lab_norm.png": ("Norm drift | |Q| − 1 | (norm handling elimination: Q carried as integrated)", "| |Q| − 1 |",
                     "norm"),
    "lab_error.png": ("Attitude error against the closed form (norm handling hoffmann)", "error (rad)", "error"),
    "lab_order.png": ("Attitude error after 10 s against the step (norm handling hoffmann)", "error (rad)", "order"),
    "lab_cost.png": ("CPU time per step, one body (norm handling hoffmann)", "µs per step", "cost"),
}
#: One colour per method (:attr:`sim.lab.Combination.method`).
METHOD_COLORS = {
    "half-quat": "#ff4033",
    "full-quat hoffmann": "#f2c14e",
    "full-quat raw": "#a1887f",
    "full-quat lagrange": "#c77dff",
    "full-quat kane": "#ff7ac8",
    "rk4": "#4d80ff",
    "rkmk4": "#33e64d",
    "splitting": "#3fd0d4",
}
#: Methods drawn dashed, on top (rk4 and rkmk4 lie on each other in most plots).
DASHED = ("rk4",)
#: Magnitudes below this are drawn at it (the log axis has no zero).
FLOOR = 1e-17
_SIZE = (960, 560)


def _app():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen" if not os.environ.get("DISPLAY") else
                          os.environ.get("QT_QPA_PLATFORM", "xcb"))
    import pyqtgraph as pg

    return pg.mkQApp()


def _figure(title: str, y_label: str, x_label: str, log_x: bool = True):
    import pyqtgraph as pg

    from app.plots.style import FOREGROUND, PLOT_BACKGROUND, LogAxisItem, PlotAxisItem, style_axes

    widget = pg.GraphicsLayoutWidget()
    widget.setBackground(PLOT_BACKGROUND)
    widget.resize(*_SIZE)
    bottom = LogAxisItem("bottom") if log_x else PlotAxisItem("bottom")
    plot = widget.addPlot(row=0, col=0, axisItems={"left": LogAxisItem("left"), "bottom": bottom})
    plot.hideButtons()
    plot.showGrid(x=log_x, y=True, alpha=0.18)
    style_axes(plot, y_label)
    plot.setLabel("bottom", x_label, color=FOREGROUND)
    plot.setTitle(title, color=FOREGROUND, size="10pt")
    legend = pg.LegendItem(labelTextColor=FOREGROUND, labelTextSize="9pt", colCount=4)
    widget.addItem(legend, row=1, col=0)
    widget.ci.layout.setRowStretchFactor(0, 1)
    widget.ci.layout.setRowStretchFactor(1, 0)
    return widget, plot, legend


def _export(widget, path) -> None:
    import pyqtgraph.exporters

    from pyqtgraph.Qt import QtWidgets

    widget.show()  # lays the items out (no window on the offscreen platform)
    QtWidgets.QApplication.processEvents()
    exporter = pyqtgraph.exporters.ImageExporter(widget.scene())
    exporter.parameters()["width"] = _SIZE[0]
    exporter.export(os.fspath(path))
    widget.close()


def _log(values) -> np.ndarray:
    return np.log10(np.maximum(np.abs(np.asarray(values, dtype=float)), FLOOR))


def _by_method(drifts, norm: str) -> list:
    """The drifts of norm mode ``norm``, the dashed methods last (drawn on top)."""
    chosen = [d for d in drifts if d.combination.norm == norm]
    return sorted(chosen, key=lambda d: d.combination.method in DASHED)


def _pen(method: str):
    import pyqtgraph as pg
    from pyqtgraph.Qt import QtCore

    style = QtCore.Qt.PenStyle.DashLine if method in DASHED else QtCore.Qt.PenStyle.SolidLine
    return pg.mkPen(METHOD_COLORS[method], width=2, style=style)


def _series_plot(result, path, title, y_label, name, norm) -> None:
    import pyqtgraph as pg

    widget, plot, legend = _figure(title, y_label, "t (s)")
    for drift in _by_method(result.drifts, norm):
        t = drift.series["t"][1:]
        y = drift.series[name][1:]
        keep = t > 0
        if not keep.any():
            continue
        curve = pg.PlotDataItem(np.log10(t[keep]), _log(y[keep]), pen=_pen(drift.combination.method))
        plot.addItem(curve)
        label = drift.combination.method + (f" (fault at t = {drift.fault_t:.3g} s)" if drift.fault else "")
        legend.addItem(curve, label)
    plot.enableAutoRange()
    _export(widget, path)


def _order_plot(result, path, title, y_label) -> None:
    import pyqtgraph as pg

    from sim.lab import ORDER_DTS

    widget, plot, legend = _figure(title, y_label, "dt (s)")
    x = np.log10(np.asarray(ORDER_DTS))
    plot.getAxis("bottom").setTicks([[(float(v), f"{dt:g}") for v, dt in zip(x, ORDER_DTS)], []])
    for drift in _by_method(result.drifts, "hoffmann"):
        y = np.asarray(drift.order_errors, dtype=float)
        if not np.isfinite(y).all():
            continue
        color = METHOD_COLORS[drift.combination.method]
        curve = pg.PlotDataItem(x, _log(y), pen=_pen(drift.combination.method), symbol="o", symbolSize=6,
                                symbolBrush=color, symbolPen=color)
        plot.addItem(curve)
        order = f"order {drift.order:.2f}" if math.isfinite(drift.order) else "no order"
        legend.addItem(curve, f"{drift.combination.method} ({order})")
    plot.enableAutoRange()
    _export(widget, path)


def _cost_plot(result, path, title, y_label) -> None:
    import pyqtgraph as pg

    from app.plots.style import FOREGROUND, PLOT_BACKGROUND, PlotAxisItem, style_axes

    drifts = [d for d in result.drifts if d.combination.norm == "hoffmann"]
    widget = pg.GraphicsLayoutWidget()
    widget.setBackground(PLOT_BACKGROUND)
    widget.resize(*_SIZE)
    bottom = PlotAxisItem("bottom")
    plot = widget.addPlot(row=0, col=0, axisItems={"left": PlotAxisItem("left"), "bottom": bottom})
    plot.hideButtons()
    plot.showGrid(y=True, alpha=0.18)
    style_axes(plot, y_label)
    plot.setLabel("bottom", "")
    plot.setTitle(title, color=FOREGROUND, size="10pt")
    costs = [d.cost_us for d in drifts]
    colors = [METHOD_COLORS[d.combination.method] for d in drifts]
    bars = pg.BarGraphItem(x=np.arange(len(drifts)), height=costs, width=0.7, brushes=colors, pens=colors)
    plot.addItem(bars)
    for i, c in enumerate(costs):
        text = pg.TextItem(f"{c:.1f}", color=FOREGROUND, anchor=(0.5, 1.0))
        text.setPos(i, c)
        plot.addItem(text)
    bottom.setTicks([[(i, d.combination.method.replace("full-quat ", "fq ")) for i, d in enumerate(drifts)]])
    plot.setYRange(0, 1.15 * max(costs), padding=0)
    plot.setXRange(-0.6, len(drifts) - 0.4, padding=0)
    _export(widget, path)


def write_plots(result, folder) -> list:
    """Write :data:`PLOTS` for ``result`` (a :class:`sim.lab.LabResult`) into ``folder``; returns the paths."""
    _app()
    paths = []
    for name, (title, y_label, what) in PLOTS.items():
        path = os.path.join(os.fspath(folder), name)
        if what == "order":
            _order_plot(result, path, title, y_label)
        elif what == "cost":
            _cost_plot(result, path, title, y_label)
        else:
            norm = "elimination" if what == "norm" else "hoffmann"
            _series_plot(result, path, title, y_label, what, norm)
        paths.append(path)
    return paths
