"""The Thrusters tab (issue 45): the phase plane where a dead band's limit cycle shows, the fuel used, the firings.

* **Phase plane**: each axis's attitude error against its rate over the plots' time window: the
  aircraft angles' errors from the command angles (roll ``phi - phi_c`` about x, pitch about y, yaw
  about z, deg, wrapped to +-180) against the body rates ``wx, wy, wz`` (deg/s): for small errors
  the angle about each body axis and its rate.  A dead band's limit cycle is a closed loop (Wie ch. 6:
  drift across the band at +-w, a turn at each wall); the band's walls are drawn dashed when the
  thrusters fly the dead-band controller.
* **Fuel used** (g, the run's ``fuel_kg``) and **thrusters firing** (the sum of the levels
  ``thr_on1..n``: 2 while one couple fires a whole step), against time, as the other tabs'
  plots (:class:`~app.plots.live.PlotPanel` over a :class:`~app.plots.environment.DerivedHistory`).

Its legends follow the one rule of :mod:`app.plots.legend` (wrapped to the width the tab has).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtCore, QtWidgets

from app.plots.environment import DerivedHistory
from app.plots.legend import add_legend, fit_legend
from app.plots.live import CurveSpec, PlotPanel, PlotSpec
from app.plots.style import AMBER, BLUE, GREEN, GRID_ALPHA, PLOT_BACKGROUND, RED, SILVER, PlotAxisItem, style_axes

__all__ = ["ThrusterTab", "THRUSTER_PLOTS", "PHASE_AXES", "phase_points"]

#: Per axis: (label, error column, command column, rate column, colour).
PHASE_AXES = (("x (roll)", "phi_deg", "phic_deg", "wx", RED), ("y (pitch)", "theta_deg", "thetac_deg", "wy", GREEN),
              ("z (yaw)", "psi_deg", "psic_deg", "wz", BLUE))
#: Most points drawn per phase-plane curve (the window's samples, every k-th).
PHASE_POINTS = 4000

THRUSTER_PLOTS = (
    PlotSpec("fuel", "Fuel used", "fuel (g)", (CurveSpec("fuel_g", "fuel used", AMBER),), floor=1e-3),
    PlotSpec("firing", "Thrusters firing", "levels (sum)", (CurveSpec("thr_firing", "thrusters on", SILVER),),
             floor=1.0),
)
"""The tab's time plots, under the phase plane."""


def _derived(count: int) -> dict:
    """The tab's derived columns for ``count`` thrusters (no physics: a unit and a sum of recorded levels)."""
    levels = tuple(f"thr_on{i}" for i in range(1, count + 1))
    return {"fuel_g": (("fuel_kg",), lambda r: 1e3 * r[0]),
            "thr_firing": (levels, lambda r: r.sum(axis=0))} if count else {}


def phase_points(history, seconds: float, most: int = PHASE_POINTS) -> list:
    """Per :data:`PHASE_AXES` axis ``(error_deg, rate_deg_s)`` over the last ``seconds`` of ``history``
    (at most ``most`` points, every k-th sample); empty arrays before the first sample."""
    t, _ = history.window(seconds, ())
    n = len(t)
    step = max(1, -(-n // most))
    out = []
    for _, angle, command, rate, _ in PHASE_AXES:
        if not n:
            out.append((np.empty(0), np.empty(0)))
            continue
        a, c, w = history.last(n, (angle, command, rate))[:, ::step]
        error = (a - c + 180.0) % 360.0 - 180.0
        out.append((error, np.degrees(w)))
    return out


class ThrusterTab(QtWidgets.QWidget):
    """The Thrusters tab: the phase plane on top, :data:`THRUSTER_PLOTS` under it.

    Parameters
    ----------
    history : History
        The live plots' history (read only).
    parent : QWidget, optional
    """

    def __init__(self, history, parent=None):
        super().__init__(parent, objectName="thrusters")
        self.history = history
        self.derived = DerivedHistory(history)
        self.plots = PlotPanel(self.derived, plots=THRUSTER_PLOTS)
        self._graphics = pg.GraphicsLayoutWidget()
        self._graphics.setBackground(PLOT_BACKGROUND)
        self.phase = self._graphics.addPlot(row=0, col=0, axisItems={"left": PlotAxisItem("left"),
                                                                     "bottom": PlotAxisItem("bottom")})
        self.phase.hideButtons()
        self.phase.showGrid(x=True, y=True, alpha=GRID_ALPHA)
        style_axes(self.phase, "rate (deg/s)")
        self.phase.setLabel("bottom", "angle error (deg)")
        add_legend(self.phase, len(PHASE_AXES))
        self.curves = [self.phase.plot([], [], pen=pg.mkPen(color), name=label)
                       for label, _, _, _, color in PHASE_AXES]
        self.walls = [pg.InfiniteLine(angle=90, pen=pg.mkPen(SILVER, style=QtCore.Qt.PenStyle.DashLine))
                      for _ in range(2)]
        for wall in self.walls:
            wall.hide()
            self.phase.addItem(wall)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._graphics, 3)
        layout.addWidget(self.plots, 2)
        self._drawn = None

    @property
    def window_seconds(self) -> float:
        return self.plots.window_seconds

    @window_seconds.setter
    def window_seconds(self, seconds: float) -> None:
        self.plots.window_seconds = seconds

    def show_settings(self, settings) -> bool:
        """A new run: its thrusters' columns, the dead band's walls; returns whether the run has thrusters."""
        count = settings.thruster_count
        self.derived.derived = _derived(count)
        band = settings.thruster_modulation == "deadband" and count > 0
        for wall, sign in zip(self.walls, (1.0, -1.0)):
            wall.setValue(sign * settings.thruster_deadband_deg)
            wall.setVisible(band)
        self.clear()
        return count > 0

    def clear(self) -> None:
        """Empty every curve (a reset)."""
        for curve in self.curves:
            curve.setData([], [])
        self.plots.clear()
        self._drawn = None

    def refresh(self) -> None:
        """The phase plane and the time plots, when the history has grown."""
        self._refresh_phase()
        self.plots.refresh()

    def _refresh_phase(self) -> None:
        key = (self.history.generation, self.history.count)
        if key != self._drawn and self.history.count and "fuel_kg" in self.history.columns:
            self._drawn = key
            for curve, (x, y) in zip(self.curves, phase_points(self.history, self.plots.window_seconds)):
                curve.setData(x, y)

    def refresh_due(self, frame: int) -> None:
        """A share of display ``frame``: the time plots take turns and the phase plane takes its turn after them
        (:meth:`PlotPanel.refresh_due`), not all of them every third frame."""
        if self.plots.refresh_due(frame, ("phase",)):
            self._refresh_phase()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        fit_legend(self.phase, self._graphics.width())
