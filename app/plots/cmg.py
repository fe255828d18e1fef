"""The CMG tab (issue 45): a run's control moment gyros, when it has a cluster.

Four live plots over the :class:`~app.plots.history.History` (a :class:`~app.plots.live.PlotPanel`, the
one legend and layout rule of :mod:`app.plots.legend`): the gimbal angles ``cmg_delta1..N``, the gimbal
rates the steering law asks ``cmg_rate1..N``, the singularity measure ``m = det(A A^T) / h0^6``
(``cmg_m``: 0 on a singular set), and the torque asked (the torque law's, dashed) against the torque
made (the cluster's, solid).  Below them the **momentum envelope** projected on a plane of body axes:
its outline (:func:`sim.core.cmg.envelope_point` for directions in that plane: where the envelope's
normal lies in the plane, the outline of its projection), the internal singular surfaces cut by the plot's
plane through the origin (:func:`internal_sections`: red dots where they are elliptic, impassable by null motion,
violet where hyperbolic; e.g. the pyramid's elliptic ``2 h0 cos(beta) = 1.15 h0`` along x and y), and the
cluster's momentum ``h = h0 sum_i s_i``
(:func:`sim.core.cmg.cluster_momentum` of the recorded gimbal angles) as a moving point with its trail.
The plane is the one the trail spreads over most (x-y, x-z or y-z: the axis it moves least along is left
out, :func:`projection_plane`), chosen again when another axis becomes clearly the least used.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from pyqtgraph.Qt import QtWidgets

from app.plots.legend import add_legend, fit_legend
from app.plots.live import WHEEL_COLORS, CurveSpec, PlotPanel, PlotSpec
from app.plots.style import (AMBER, BLUE, GREEN, GRID_ALPHA, PLOT_BACKGROUND, RED, SILVER, VIOLET, PlotAxisItem,
                             style_axes)
from sim import (ELLIPTIC, HYPERBOLIC, cluster_momentum, envelope_point, sign_sets, singular_section,
                 singularity_kind, spin_transverse)

__all__ = ["CmgTab", "CMG_PLOTS", "cmg_curves", "envelope_outline", "internal_sections", "projection_plane",
           "rotor_axes", "TRAIL_POINTS", "PLANES"]

#: The projection planes: the two body axes kept (indices into x, y, z), by the axis left out.
PLANES = {2: (0, 1), 1: (0, 2), 0: (1, 2)}

#: The tab's time plots, top to bottom; the per-CMG curves are given per run (:func:`cmg_curves`).
CMG_PLOTS = (
    PlotSpec("cmg_angles", "Gimbal angles", "δ (deg)", (), floor=1e-6),
    PlotSpec("cmg_rates", "Gimbal rates", "dδ/dt (rad/s)", (), floor=1e-9),
    PlotSpec("cmg_m", "Singularity measure", "m / h0⁶", (CurveSpec("cmg_m", "m = det(A Aᵀ)/h0⁶", AMBER),),
             floor=1e-3),
    PlotSpec("cmg_torque", "Torque asked and made", "τ (N m)", tuple(
        CurveSpec(f"cmg_{kind}_{a}", f"τ{a} {word}", color, dashed=kind == "tc")
        for a, color in zip("xyz", (RED, GREEN, BLUE)) for kind, word in (("t", "made"), ("tc", "asked"))),
             floor=1e-12),
)

#: Samples of the momentum's trail drawn in the envelope plot (the last ones of the time window, evenly taken).
TRAIL_POINTS = 200


def cmg_curves(count: int) -> dict:
    """The per-CMG curves of a cluster of ``count``: plot name -> tuple of :class:`CurveSpec` (the wheels' colours)."""
    colors = [WHEEL_COLORS[i % len(WHEEL_COLORS)] for i in range(count)]
    return {"cmg_angles": tuple(CurveSpec(f"cmg_delta{i}", f"δ{i}", colors[i - 1], wraps=True)
                                for i in range(1, count + 1)),
            "cmg_rates": tuple(CurveSpec(f"cmg_rate{i}", f"dδ{i}/dt", colors[i - 1]) for i in range(1, count + 1))}


def envelope_outline(h0: float, g, plane=(0, 1), points: int = 181) -> np.ndarray:
    """The outline of the momentum envelope projected on the body-axes ``plane`` (two axis indices), shape
    (points, 2) (N m s): :func:`sim.core.cmg.envelope_point` for the directions in that plane, closed."""
    g = np.ascontiguousarray(g, dtype=float)
    out = np.empty((points, 2))
    i, j = plane
    for k, a in enumerate(np.linspace(0.0, 2 * math.pi, points)):
        u = np.zeros(3)
        u[i], u[j] = math.cos(a), math.sin(a)
        p = envelope_point(h0, g, u)
        out[k] = p[i], p[j]
    return out


def internal_sections(h0: float, g, dropped: int) -> tuple:
    """The internal singular surfaces (every sign set but all ``+1``, :func:`sim.core.cmg_surfaces.sign_sets`) cut by
    the plane ``h[dropped] = 0`` (:func:`sim.core.cmg_surfaces.singular_section`): ``(elliptic, hyperbolic)``, each
    shape (M, 3) (N m s), by :func:`sim.core.cmg_surfaces.singularity_kind` (the degenerate points left out)."""
    g = np.ascontiguousarray(g, dtype=float)
    found = {ELLIPTIC: [np.empty((0, 3))], HYPERBOLIC: [np.empty((0, 3))]}
    for signs in sign_sets(len(g))[1:]:
        h, u = singular_section(h0, g, signs, dropped)
        if len(h):
            kind = singularity_kind(h0, g, u, signs)
            for k, parts in found.items():
                parts.append(h[kind == k])
    return np.concatenate(found[ELLIPTIC]), np.concatenate(found[HYPERBOLIC])


def rotor_axes(cluster, delta_deg) -> np.ndarray:
    """The rotors' spin axes ``s_i`` (body axes, shape (n, 3)) of a checked cluster at the gimbal angles ``delta_deg``
    (deg): :func:`sim.core.cmg.spin_transverse`, what the 3D view turns the drawn rotors to."""
    s, _ = spin_transverse(np.ascontiguousarray(cluster.g), np.ascontiguousarray(cluster.s0),
                           np.radians(np.asarray(delta_deg, dtype=float)))
    return s


def projection_plane(h, dropped: int) -> int:
    """The axis to leave out of the envelope plot for the trail ``h`` (shape (samples, 3)): the one it spreads
    least along, or ``dropped`` (the present one) unless that one spreads twice as much as the least."""
    spread = np.ptp(h, axis=0) if len(h) else np.zeros(3)
    least = int(np.argmin(spread))
    return least if spread[dropped] > 2.0 * spread[least] + 1e-12 else dropped


class CmgTab(QtWidgets.QWidget):
    """The CMG tab: :data:`CMG_PLOTS` over ``history`` and the envelope plot (see the module docstring).

    What :class:`~app.window.frames.FramePresenter` drives, as it drives the Momentum tab: :meth:`show_settings`
    at a new run, :meth:`refresh` / :meth:`refresh_due` while shown, :attr:`window_seconds`.
    """

    def __init__(self, history, parent=None):
        super().__init__(parent, objectName="cmg")
        self.history = history
        self.panel = PlotPanel(history, plots=CMG_PLOTS)
        self.panel.setObjectName("cmg_plots")
        # the house's axes (app.plots.style): opaque grid lines, about five times cheaper in software than
        # pyqtgraph's translucent ones, which cost this plot 0.7 ms a repaint
        self.envelope = pg.PlotWidget(background=PLOT_BACKGROUND,
                                      axisItems={"left": PlotAxisItem("left"), "bottom": PlotAxisItem("bottom")})
        self.envelope.setObjectName("cmg_envelope")
        plot = self.envelope.getPlotItem()
        plot.setAspectLocked(True)
        plot.hideButtons()
        plot.showGrid(x=True, y=True, alpha=GRID_ALPHA)
        style_axes(plot, "hy (N m s)")
        plot.setLabel("bottom", "hx (N m s)")
        add_legend(plot, 4)
        self.outline = plot.plot([], [], pen=pg.mkPen(SILVER), name="envelope")
        self.elliptic = pg.ScatterPlotItem(size=3, pen=None, brush=pg.mkBrush(RED), name="elliptic")
        self.hyperbolic = pg.ScatterPlotItem(size=3, pen=None, brush=pg.mkBrush(VIOLET), name="hyperbolic")
        plot.addItem(self.hyperbolic)
        plot.addItem(self.elliptic)
        self.trail = plot.plot([], [], pen=pg.mkPen(AMBER, width=1))
        self.point = pg.ScatterPlotItem(size=10, brush=pg.mkBrush(AMBER), pen=None, name="h cluster")
        plot.addItem(self.point)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.panel, 3)
        layout.addWidget(self.envelope, 2)
        self._cluster = None
        self._drawn = None
        self._dropped = None  # the axis left out of the envelope plot (PLANES)
        self._sections = {}   # dropped axis -> internal_sections of the run's cluster
        self._trail = {}      # the trail's momenta: sample number -> h, and "key": the history's generation

    @property
    def plane(self) -> tuple:
        """The two body axes (indices) the envelope plot shows now."""
        return PLANES[self._dropped]

    @property
    def window_seconds(self) -> float:
        return self.panel.window_seconds

    @window_seconds.setter
    def window_seconds(self, seconds: float) -> None:
        self.panel.window_seconds = seconds
        self._drawn = None

    def show_settings(self, settings) -> bool:
        """A new run: the curves of its cluster and its envelope; returns whether it has a cluster (the tab shown)."""
        cluster = settings.cmg_set
        count = 0 if cluster is None else len(cluster.delta0)
        for name, specs in cmg_curves(count).items():
            self.panel.set_curves(name, specs)
        self._cluster = cluster
        self._drawn = None
        self._sections = {}
        self._trail = {}
        if cluster is not None:
            self._set_plane(2)
        self.panel.clear()
        self.trail.setData([], [])
        self.point.setData([], [])
        return cluster is not None

    def refresh(self, names=None) -> None:
        self.panel.refresh(names)
        self._refresh_envelope()

    def refresh_due(self, frame: int) -> None:
        """A share of display ``frame``: the envelope takes its turn after the plots (:func:`~app.plots.turns.turn_share`)."""
        if self.panel.refresh_due(frame, ("envelope",)):
            self._refresh_envelope()

    def _refresh_envelope(self) -> None:
        """The cluster's momentum over the time window (at most about :data:`TRAIL_POINTS` samples) and now.

        The trail's samples lie on a grid of the history's sample numbers (every ``stride``-th sample, the
        stride set by the window's length), so a refresh computes the momentum of the samples new since the
        last one only (:attr:`_trail`) and keeps the rest."""
        c, history = self._cluster, self.history
        if c is None or not self.envelope.isVisible():
            return
        n = len(c.delta0)
        names = tuple(f"cmg_delta{i}" for i in range(1, n + 1))
        if not all(name in history.columns for name in names):
            return
        t, _ = history.window(self.panel.window_seconds, ())
        key = (history.generation, history.count)
        if not len(t) or key == self._drawn:
            return
        self._drawn = key
        first = history.count - len(t)  # the sample number of the window's oldest sample
        stride = -(-len(t) // TRAIL_POINTS)
        numbers = list(range(-(-first // stride) * stride, history.count, stride))
        if not numbers or numbers[-1] != history.count - 1:
            numbers.append(history.count - 1)  # now
        if self._trail.get("key") != history.generation:  # a sample's momentum is the same at any stride
            self._trail = {"key": history.generation}
        trail = self._trail
        missing = [k for k in numbers if k not in trail]
        if missing:
            oldest = missing[0]
            rows = np.radians(history.last(history.count - oldest, names))
            g, s0 = np.ascontiguousarray(c.g), np.ascontiguousarray(c.s0)
            for k in missing:
                trail[k] = cluster_momentum(c.h0, g, s0, np.ascontiguousarray(rows[:, k - oldest]))
        for k in [k for k in trail if k != "key" and k < numbers[0]]:
            del trail[k]  # left the window
        h = np.array([trail[k] for k in numbers])
        dropped = projection_plane(h, self._dropped)
        if dropped != self._dropped:
            self._set_plane(dropped)
        i, j = PLANES[self._dropped]
        self.trail.setData(h[:, i], h[:, j])
        self.point.setData([h[-1, i]], [h[-1, j]])

    def _set_plane(self, dropped: int) -> None:
        """Project on the plane without axis ``dropped``: the outline, the internal surfaces' sections, the axis labels."""
        self._dropped = dropped
        c, plot = self._cluster, self.envelope.getPlotItem()
        i, j = PLANES[dropped]
        outline = envelope_outline(c.h0, c.g, (i, j))
        self.outline.setData(outline[:, 0], outline[:, 1])
        if dropped not in self._sections:
            self._sections[dropped] = internal_sections(c.h0, c.g, dropped)
        elliptic, hyperbolic = self._sections[dropped]
        self.elliptic.setData(elliptic[:, i], elliptic[:, j])
        self.hyperbolic.setData(hyperbolic[:, i], hyperbolic[:, j])
        plot.setLabel("bottom", f"h{'xyz'[i]} (N m s)")
        plot.setLabel("left", f"h{'xyz'[j]} (N m s)")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        fit_legend(self.envelope.getPlotItem(), self.envelope.width())

    def clear(self) -> None:
        self.panel.clear()
        self.trail.setData([], [])
        self.point.setData([], [])
        self._drawn = None
