"""The legend above each live plot, and a tab's row of controls, laid out to the width they have.

:func:`add_legend` gives a plot its legend; :func:`fit_legend` lays it out in
as many columns as fit beside the plot's left axis
(:func:`app.plots.style.legend_columns`) and as many rows as that takes, so
that no legend makes its plot wider than its panel (issue 43:
:meth:`app.plots.live.PlotPanel.fit_legends` calls it whenever the panel's
width or curves change).  :class:`FitRow` lays a row of widgets out by the
same rule (a tab's controls above its view, as the Ensemble tab's), so that no
tab's controls make the plot column wider than :data:`app.plots.tabs.MIN_WIDTH`.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from pyqtgraph.Qt import QtCore, QtWidgets

from app.plots.style import FOREGROUND, legend_columns

__all__ = ["LEGEND_HEIGHT", "add_legend", "fit_legend", "FitRow"]

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


class FitRow(QtWidgets.QLayout):
    """Widgets side by side while they fit, else in a grid of as many columns as fit, filled row by row.

    The rule of every legend (:func:`~app.plots.style.legend_columns`): a
    column is as wide as its widest widget, the fewest rows whose grid fits
    the width the layout has, filled evenly.  Each widget keeps its size
    hint (nothing is squeezed, so nothing is cut); the layout's minimum is
    its widest widget, and its height follows its width
    (:meth:`heightForWidth`), so a tab with such a row is no wider than its
    widest control.

    Parameters
    ----------
    parent : QWidget, optional
    spacing : int
        Pixels between neighbouring widgets, across and down.
    """

    def __init__(self, parent=None, spacing: int = 6):
        super().__init__(parent)
        self._items = []
        self.setSpacing(spacing)

    # ------------------------------------------------------------ QLayout
    def addItem(self, item) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index):
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index):
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self):
        return QtCore.Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._grid(width, None)

    def sizeHint(self) -> QtCore.QSize:
        """All in one row."""
        left, top, right, bottom = self.getContentsMargins()
        shown = self._shown()
        hints = [item.sizeHint() for item in shown]
        width = sum(h.width() for h in hints) + self.spacing() * max(0, len(hints) - 1)
        height = max((h.height() for h in hints), default=0)
        return QtCore.QSize(width + left + right, height + top + bottom)

    def minimumSize(self) -> QtCore.QSize:
        """One column: as wide as the widest widget."""
        left, top, right, bottom = self.getContentsMargins()
        width = max((item.sizeHint().width() for item in self._shown()), default=0)
        return QtCore.QSize(width + left + right, self._grid(width + left + right, None))

    def setGeometry(self, rect: QtCore.QRect) -> None:
        super().setGeometry(rect)
        self._grid(rect.width(), rect)

    # ------------------------------------------------------------ the grid
    def _shown(self) -> list:
        return [item for item in self._items if not item.isEmpty()]

    def columns(self, width: int) -> int:
        """Columns of the grid in ``width`` pixels (margins included): :func:`~app.plots.style.legend_columns`
        of the widgets' widths, each with the spacing after it (none after the last column)."""
        left, _, right, _ = self.getContentsMargins()
        widths = [item.sizeHint().width() + self.spacing() for item in self._shown()]
        return legend_columns(widths, width - left - right + self.spacing()) if widths else 1

    def _grid(self, width: int, rect: QtCore.QRect | None) -> int:
        """The grid's height in ``width`` pixels (margins included); with ``rect``, place the widgets in it."""
        left, top, right, bottom = self.getContentsMargins()
        shown = self._shown()
        if not shown:
            return top + bottom
        columns = self.columns(width)
        hints = [item.sizeHint() for item in shown]
        widths = [max(h.width() for h in hints[c::columns]) for c in range(columns)]
        heights = [max(h.height() for h in hints[r:r + columns]) for r in range(0, len(hints), columns)]
        if rect is not None:
            y = rect.y() + top
            for r, height in enumerate(heights):
                x = rect.x() + left
                for c in range(columns):
                    k = r * columns + c
                    if k < len(shown):
                        hint = hints[k]
                        shown[k].setGeometry(QtCore.QRect(x, y + (height - hint.height()) // 2, hint.width(),
                                                          hint.height()))
                    x += widths[c] + self.spacing()
                y += height + self.spacing()
        return top + bottom + sum(heights) + self.spacing() * (len(heights) - 1)
