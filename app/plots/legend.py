"""The legend above each live plot, in place of its title, laid out to the width it has.

:func:`add_legend` gives a plot its legend; :func:`fit_legend` lays it out in
as many columns as fit beside the plot's left axis
(:func:`app.plots.style.legend_columns`) and as many rows as that takes, so
that no legend makes its plot wider than its panel (issue 43:
:meth:`app.plots.live.PlotPanel.fit_legends` calls it whenever the panel's
width or curves change).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from pyqtgraph.Qt import QtCore, QtWidgets

from app.plots.style import FOREGROUND, legend_columns

__all__ = ["LEGEND_HEIGHT", "add_legend", "fit_legend"]

LEGEND_HEIGHT = 20
"""Pixels of each row of the legend above each plot."""


def add_legend(plot: pg.PlotItem, entries: int) -> None:
    """Give ``plot`` a legend in place of its title, above the data (one row until :func:`fit_legend`)."""
    plot.layout.removeItem(plot.titleLabel)
    plot.titleLabel.hide()
    plot.layout.setRowFixedHeight(0, LEGEND_HEIGHT)
    legend = pg.LegendItem(colCount=max(1, entries), labelTextColor=FOREGROUND, labelTextSize="8pt",
                           horSpacing=4, frame=False)
    legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Maximum, QtWidgets.QSizePolicy.Policy.Fixed)
    plot.layout.addItem(legend, 0, 1, QtCore.Qt.AlignmentFlag.AlignLeft)
    plot.legend = legend  # PlotItem.addItem enters named curves here


def fit_legend(plot: pg.PlotItem, width: float) -> None:
    """Lay out the legend of ``plot`` in as many columns as fit in a plot ``width`` pixels wide, beside its left
    axis (:func:`~app.plots.style.legend_columns`), in as many rows as it then takes: no legend makes its plot
    wider than its panel."""
    legend = plot.legend
    left, _, right, _ = plot.layout.getContentsMargins()
    width -= left + right + plot.layout.horizontalSpacing() + plot.getAxis("left").width()
    spacing = legend.layout.horizontalSpacing()
    least = QtCore.Qt.SizeHint.MinimumSize
    widths = [sample.effectiveSizeHint(least).width() + label.effectiveSizeHint(least).width() + 2 * spacing
              for sample, label in legend.items]
    columns = legend_columns(widths, width) if widths else 1
    legend.setColumnCount(columns)
    while columns > 1 and legend.layout.effectiveSizeHint(least).width() > width:  # the grid's own margins
        columns -= 1
        legend.setColumnCount(columns)
    rows = max(1, math.ceil(len(widths) / columns))
    plot.layout.setRowFixedHeight(0, rows * LEGEND_HEIGHT)
