"""The live plots and the comparison plots as tabs beside the 3D view.

The Compare tab is there only while the scenario has comparison bodies
(it is shown when they arrive); with one tab the tab bar hides.  Other
rooms may add their own tab (the ensemble view does).
"""

from __future__ import annotations

from pyqtgraph.Qt import QtCore, QtWidgets

__all__ = ["PlotTabs"]


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

    def __init__(self, plots, compare, parent=None):
        super().__init__(parent, objectName="plot_tabs", documentMode=True, tabBarAutoHide=True)
        self.plots = plots
        self.compare = compare
        self.addTab(plots, "Plots")
        self.currentChanged.connect(self._say_shown)

    def set_bodies(self, labels, colors, reference: str, dt: float) -> None:
        """Give the comparison plots a scenario's bodies (:meth:`ComparePanel.set_bodies`); add their
        tab and show it, or remove it when there is nothing to compare."""
        self.compare.set_bodies(labels, colors, reference, dt=dt)
        index = self.indexOf(self.compare)
        if self.compare.has_bodies and index < 0:
            self.addTab(self.compare, "Compare")
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
