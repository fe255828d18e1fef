"""The window's view of the estimator (issue 33): the Estimation tab and the estimate's ghost.

With a run that has an estimator (:mod:`sim.model.navigation`), an "Estimation" tab
beside the plots (:data:`app.plots.estimation.ESTIMATION_PLOTS`) and the estimate's
body axes in green through the body, turned from the truth by the estimation
error magnified (:func:`magnified`), so that an estimate a fraction of a degree
off shows apart from the body's own axes; both go with a run without one.
"""

from __future__ import annotations

import math

import numpy as np

from app.plots.estimation import ESTIMATE_COLOR, ESTIMATE_GHOST, ESTIMATE_MAGNIFY, ESTIMATE_MOST, ESTIMATION_PLOTS
from app.plots.live import PlotPanel
from sim import cayley

__all__ = ["EstimationView", "magnified"]


def magnified(estimate, truth, factor: float, most_deg: float = 180.0) -> np.ndarray:
    """The Cayley matrix ``R^k C`` drawn for an estimate ``C_e = E C`` of the attitude ``C``: its error
    ``E = C_e C^T`` (about the body axes) scaled in angle by ``factor``, to at most ``most_deg`` degrees.

    ``E`` is a rotation by ``theta`` about the unit axis ``n``, read from ``E - E^T = 2 sin(theta) [n x]`` and
    ``trace E = 1 + 2 cos(theta)``; the drawn error is the rotation by ``phi = min(factor theta, most)`` about
    ``n``, by Rodrigues' formula ``I + sin(phi) [n x] + (1 - cos(phi)) [n x]^2`` (the Euler axis and angle of
    Shuster, "A survey of attitude representations", J. Astronaut. Sci. 41 (1993)).  ``factor = 1`` gives
    ``C_e`` back.
    """
    estimate, truth = np.asarray(estimate, dtype=float), np.asarray(truth, dtype=float)
    error = estimate @ truth.T
    skew = 0.5 * (error - error.T)
    s = np.array([skew[2, 1], skew[0, 2], skew[1, 0]])  # sin(theta) n
    theta = math.atan2(float(np.linalg.norm(s)), 0.5 * (float(np.trace(error)) - 1.0))
    if theta == 0.0:
        return truth.copy()
    n = s / np.linalg.norm(s)
    phi = min(factor * theta, math.radians(most_deg))
    cross = np.array([[0.0, -n[2], n[1]], [n[2], 0.0, -n[0]], [-n[1], n[0], 0.0]])
    return (np.eye(3) + math.sin(phi) * cross + (1.0 - math.cos(phi)) * cross @ cross) @ truth


class EstimationView:
    """The Estimation tab in ``tabs`` (a :class:`~app.plots.tabs.PlotTabs`) and the ghost in ``viewer``.

    The tab's plots are made by the first run that has an estimator (:attr:`panel`), not at the window's
    start: most runs never show them (docs/PERFORMANCE.md, launch to first frame).

    Attributes
    ----------
    window_seconds : float
        The plotted time window, s (:meth:`set_window`).
    """

    def __init__(self, history, tabs, viewer):
        self.tabs, self.viewer = tabs, viewer
        self._history = history
        self._panel = None
        self.window_seconds = 20.0
        self._ghost = False

    @property
    def made(self) -> bool:
        """True once the tab's plots are made (:attr:`panel`)."""
        return self._panel is not None

    @property
    def panel(self) -> PlotPanel:
        """The Estimation tab's plots (made on first use)."""
        if self._panel is None:
            self._panel = PlotPanel(self._history, window_seconds=self.window_seconds, plots=ESTIMATION_PLOTS)
            self._panel.setObjectName("estimation")
        return self._panel

    def set_window(self, seconds: float) -> None:
        """Plot the last ``seconds`` of the run (the plots' time window, as the other tabs')."""
        self.window_seconds = seconds
        if self._panel is not None:
            self._panel.window_seconds = seconds

    @property
    def present(self) -> bool:
        """True while the run has an estimator (the tab and the ghost are there)."""
        return self._panel is not None and self.tabs.indexOf(self._panel) >= 0

    def new_run(self, settings) -> None:
        """Add the tab and the ghost for a run with an estimator, or take them away."""
        on = settings.estimator != "truth"
        if on and not self.present:
            self.tabs.addTab(self.panel, "Estimation")
        elif not on and self.present:
            self.tabs.removeTab(self.tabs.indexOf(self._panel))
        if on != self._ghost:
            if on:
                self.viewer.add_body(ESTIMATE_GHOST, ESTIMATE_COLOR, axes=True)
            else:
                self.viewer.remove_body(ESTIMATE_GHOST)
            self._ghost = on
        if self._panel is not None:
            self._panel.clear()

    def show(self, snapshot) -> None:
        """Turn the estimate's axes to the snapshot's estimate, its error magnified (:func:`magnified`)."""
        if snapshot.estimate is not None:
            self.draw(snapshot.attitude, snapshot.estimate[:4])

    @property
    def drawn(self) -> bool:
        """True while the estimate's axes are in the 3D view."""
        return self._ghost

    def draw(self, attitude, estimate) -> None:
        """Turn the estimate's axes to quaternion ``estimate`` about the body at ``attitude``, the error
        magnified (:func:`magnified`); the window draws both at its display time (:mod:`app.window.tween`)."""
        if self._ghost:
            truth = np.asarray(cayley(attitude), dtype=float).reshape(3, 3)
            estimate = np.asarray(cayley(estimate), dtype=float).reshape(3, 3)
            self.viewer.set_body_attitude(ESTIMATE_GHOST, magnified(estimate, truth, ESTIMATE_MAGNIFY, ESTIMATE_MOST))

    def refresh_due(self, frame: int) -> None:
        """Bring the visible plots up in turns (:meth:`PlotPanel.refresh_due`)."""
        if self._panel is not None and self._panel.isVisible():
            self._panel.refresh_due(frame)

    def refresh(self) -> None:
        """Bring every visible plot up to date."""
        if self._panel is not None and self._panel.isVisible():
            self._panel.refresh()
