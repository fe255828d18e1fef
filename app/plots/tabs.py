"""The live plots, the momentum plots and the comparison plots as tabs beside the 3D view.

The Momentum tab is there only while the run has reaction wheels or an
external torque (gravity gradient, a disturbance), the Compare tab only
while the scenario has comparison bodies (each is shown when it arrives);
with one tab the tab bar hides.  Other rooms may add their own tab (the
ensemble view does).

The column's one layout rule: it is never narrower than :data:`MIN_WIDTH`
nor than its tabs side by side (no scroll arrows, no elided names), and
each plot's legend wraps to the width it has
(:meth:`app.plots.live.PlotPanel.fit_legends`), as does a tab's row of
controls (:class:`app.plots.legend.FitRow`, the Ensemble tab's), so every
plot, its legend and every control lie inside the column at any size the
window can take.
"""

from __future__ import annotations

from pyqtgraph.Qt import QtCore, QtWidgets

__all__ = ["PlotTabs", "MIN_WIDTH"]

#: The plot column's narrowest, pixels: a left axis, a legend of three entries a row and 20 s of curves.
MIN_WIDTH = 330


class PlotTabs(QtWidgets.QTabWidget):
    """A "Plots" tab and, with comparison bodies, a "Compare" tab.

    Parameters
    ----------
    plots : app.plots.live.PlotPanel
    compare : app.plots.compare.ComparePanel
    parent : QWidget, optional

    Signals
    -------
    compare_shown(bool)
        Whether the Compare tab is the current one, after each change of tab
        and each :meth:`set_bodies` (for a checkable menu action).
    """

    compare_shown = QtCore.Signal(bool)

    def __init__(self, plots, compare, momentum=None, parent=None):
        super().__init__(parent, objectName="plot_tabs", documentMode=True, tabBarAutoHide=True,
                         usesScrollButtons=False, elideMode=QtCore.Qt.TextElideMode.ElideNone)
        self.plots = plots
        self.compare = compare
        #: The Momentum tab's :class:`~app.plots.live.PlotPanel` (of :data:`~app.plots.live.MOMENTUM_PLOTS`), or None.
        self.momentum = momentum
        self.addTab(plots, "Plots")
        self.own(compare, momentum)
        self.currentChanged.connect(self._say_shown)

    def own(self, *widgets) -> None:
        """Make each of ``widgets`` (a widget that may become a tab; None is skipped) a hidden child of the tabs
        until it is one.  A widget without a parent outlives the window: Qt deletes a window's children with it,
        and a connection of such a widget's own children to a Python function (a lambda on ``self``) then
        keeps the window's Python objects too; a main window closed and deleted stayed alive with all its plots
        (about 11,500 objects and 30-50 MB each: stop 53)."""
        for widget in widgets:
            if widget is not None and widget.parent() is None:
                widget.setParent(self)
                widget.hide()

    def minimumSizeHint(self) -> QtCore.QSize:
        """:data:`MIN_WIDTH` wide at least, and as wide as the tabs side by side (the splitter keeps to it)."""
        hint = super().minimumSizeHint()
        return QtCore.QSize(max(MIN_WIDTH, hint.width()), hint.height())

    def set_momentum(self, present: bool) -> None:
        """Add the Momentum tab (after the Compare tab, if any) and show it, or remove it."""
        if self.momentum is None:
            return
        index = self.indexOf(self.momentum)
        if present and index < 0:
            self.addTab(self.momentum, "Momentum")
            self.setCurrentWidget(self.momentum)
        elif not present and index >= 0:
            self.removeTab(index)

    def set_tab(self, widget, label: str, present: bool) -> None:
        """Add ``widget`` as the last tab called ``label`` and show it, or remove it."""
        index = self.indexOf(widget)
        if present and index < 0:
            self.addTab(widget, label)
            self.setCurrentWidget(widget)
        elif not present and index >= 0:
            self.removeTab(index)

    def show_momentum(self, checked: bool) -> None:
        """Show the Momentum tab (or the plots), when it is there."""
        if self.momentum is not None and self.indexOf(self.momentum) >= 0:
            self.setCurrentWidget(self.momentum if checked else self.plots)

    def set_bodies(self, labels, colors, reference: str, dt: float) -> None:
        """Give the comparison plots a scenario's bodies (:meth:`ComparePanel.set_bodies`); add their
        tab and show it, or remove it when there is nothing to compare."""
        self.compare.set_bodies(labels, colors, reference, dt=dt)
        index = self.indexOf(self.compare)
        if self.compare.has_bodies and index < 0:
            self.insertTab(1, self.compare, "Compare")
            self.setCurrentWidget(self.compare)
        elif not self.compare.has_bodies and index >= 0:
            self.removeTab(index)
        self._say_shown()

    def show_compare(self, checked: bool) -> None:
        """Show the Compare tab (or the plots), when there are comparison bodies."""
        if self.compare.has_bodies:
            self.setCurrentWidget(self.compare if checked else self.plots)

    def _say_shown(self, _index=None) -> None:
        self.compare_shown.emit(self.currentWidget() is self.compare)
