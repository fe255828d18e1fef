"""The window's view of the estimator (issue 33): the Estimation tab and the estimate's ghost.

With a run that has an estimator (:mod:`sim.model.navigation`), an "Estimation" tab
beside the plots (:data:`app.plots.estimation.ESTIMATION_PLOTS`) and a translucent
green ghost at the estimated attitude beside the body (the command ghost is
blue); both go with a run without one.
"""

from __future__ import annotations

from app.plots.estimation import ESTIMATE_COLOR, ESTIMATE_GHOST, ESTIMATION_PLOTS
from app.plots.live import PlotPanel
from sim import cayley

__all__ = ["EstimationView"]


class EstimationView:
    """The Estimation tab in ``tabs`` (a :class:`~app.plots.tabs.PlotTabs`) and the ghost in ``viewer``."""

    def __init__(self, history, tabs, viewer):
        self.tabs, self.viewer = tabs, viewer
        self.panel = PlotPanel(history, plots=ESTIMATION_PLOTS)
        self.panel.setObjectName("estimation")
        self._ghost = False

    @property
    def present(self) -> bool:
        """True while the run has an estimator (the tab and the ghost are there)."""
        return self.tabs.indexOf(self.panel) >= 0

    def new_run(self, settings) -> None:
        """Add the tab and the ghost for a run with an estimator, or take them away."""
        on = settings.estimator != "truth"
        index = self.tabs.indexOf(self.panel)
        if on and index < 0:
            self.tabs.addTab(self.panel, "Estimation")
        elif not on and index >= 0:
            self.tabs.removeTab(index)
        if on != self._ghost:
            if on:
                self.viewer.add_body(ESTIMATE_GHOST, ESTIMATE_COLOR)
            else:
                self.viewer.remove_body(ESTIMATE_GHOST)
            self._ghost = on
        self.panel.clear()

    def show(self, snapshot) -> None:
        """Turn the ghost to the snapshot's estimate."""
        if self._ghost and snapshot.estimate is not None:
            self.viewer.set_body_attitude(ESTIMATE_GHOST, cayley(snapshot.estimate[:4]))

    def refresh_due(self, frame: int) -> None:
        """Bring the visible plots up in turns (:meth:`PlotPanel.refresh_due`)."""
        if self.panel.isVisible():
            self.panel.refresh_due(frame)

    def refresh(self) -> None:
        if self.panel.isVisible():
            self.panel.refresh()
