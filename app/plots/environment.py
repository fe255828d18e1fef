"""The Magnetic tab (issue 32): |w| during a detumble, the wheels' momentum during dumping, the disturbance
torques by source.

Its plots are a :class:`~app.plots.live.PlotPanel` reading a :class:`DerivedHistory`: the
:class:`~app.plots.history.History` behind the live plots with a few columns made from the recorded ones
at drawing time (no physics: a norm, a logarithm, a sum of recorded wheel speeds times their inertia):

* ``log_w_deg``: ``log10 |w|`` with ``w`` in deg/s (the axis shows powers of ten);
* ``hw_x .. hw_z``: the wheels' momentum about their axes in body axes, ``sum_i a_i J_i Omega_i`` (N m s),
  the momentum the dumping law holds near zero (:func:`sim.gnc.magnetic.dumping_dipole`);
* ``log_t_gg .. log_t_mag``: ``log10`` of the size of each disturbance torque (N m; an exact zero, SRP in
  the umbra, leaves a gap).

Each plot is shown when the run has its columns (:meth:`EnvironmentPlots.show_settings`).
"""

from __future__ import annotations

import numpy as np

from app.plots.live import PlotPanel, PlotSpec, CurveSpec
from app.plots.style import AMBER, BLUE, GREEN, RED, SILVER, VIOLET

__all__ = ["DerivedHistory", "EnvironmentPlots", "ENVIRONMENT_PLOTS", "TORQUE_SOURCES", "derived_columns"]

#: The disturbance torques by source: (column prefix, label, colour).
TORQUE_SOURCES = (("t_gg", "gravity gradient", GREEN), ("t_srp", "SRP", AMBER), ("t_drag", "drag", SILVER),
                  ("t_mag", "magnetic", VIOLET))

ENVIRONMENT_PLOTS = (
    PlotSpec("rate_norm", "|ω| (log)", "|ω| (deg/s)", (CurveSpec("log_w_deg", "|ω|", AMBER),), floor=1.0, log=True),
    PlotSpec("wheel_momentum", "Wheel momentum", "h wheels (N m s)", (
        CurveSpec("hw_x", "hx", RED), CurveSpec("hw_y", "hy", GREEN), CurveSpec("hw_z", "hz", BLUE)), floor=1e-9),
    PlotSpec("disturbances", "Disturbance torques (log)", "|τ| (N m)",
             tuple(CurveSpec(f"log_{prefix}", label, color, wraps=True)  # wraps: gaps where a torque is 0
                   for prefix, label, color in TORQUE_SOURCES), floor=1.0, log=True),
)
"""The tab's plots, top to bottom; ``log_*`` columns are drawn on a logarithmic axis, at least a decade high."""


def _log10(values):
    with np.errstate(divide="ignore"):
        out = np.log10(values)
    out[~np.isfinite(out)] = np.nan
    return out


def derived_columns(wheels=None) -> dict:
    """Name -> ``(columns read, function of their rows)`` of the tab's derived columns.

    ``wheels``: the run's :class:`sim.core.wheels.WheelSet` (its ``axes`` and ``inertia``), or None.
    """
    derived = {"log_w_deg": (("wx", "wy", "wz"), lambda r: _log10(np.degrees(np.sqrt((r ** 2).sum(axis=0)))))}
    for prefix, _, _ in TORQUE_SOURCES:
        cols = tuple(f"{prefix}_{a}" for a in "xyz")
        derived[f"log_{prefix}"] = (cols, lambda r: _log10(np.sqrt((r ** 2).sum(axis=0))))
    if wheels is not None:
        names = tuple(f"wheel{i}" for i in range(1, wheels.n + 1))
        weights = np.asarray(wheels.axes, dtype=float) * np.asarray(wheels.inertia, dtype=float)[:, None]
        for k, axis in enumerate("xyz"):
            derived[f"hw_{axis}"] = (names, lambda r, w=weights[:, k]: w @ r)
    return derived


class DerivedHistory:
    """A :class:`~app.plots.history.History` seen with :func:`derived_columns` besides its own (what
    :class:`~app.plots.live.PlotPanel` reads: ``count``, ``window``, ``last``).

    A derived column is a function of each sample alone, so the values of the samples read last time are kept and
    only the samples appended since are derived: the Magnetic tab derived its whole window (thousands of samples
    at 1000x) for each plot at each of its turns (docs/PERFORMANCE.md, "The window's frame rates (issue 42, stop
    53)")."""

    def __init__(self, history, derived=None):
        self.history = history
        self.derived = dict(derived or {})
        self._kept = {}  # name -> ((generation, function), count, values of the last samples up to count)

    @property
    def count(self) -> int:
        return self.history.count

    @property
    def generation(self) -> int:
        return self.history.generation

    def window(self, seconds, names=None):
        return self.history.window(seconds, ())[0], {}

    def has(self, name: str) -> bool:
        """Whether column ``name`` can be read now (recorded, or derived from recorded columns)."""
        if name in self.derived:
            return all(c in self.history.columns for c in self.derived[name][0])
        return name in self.history.columns

    def last(self, n: int, names) -> np.ndarray:
        rows = []
        for name in names:
            if name in self.derived:
                rows.append(self._derived(name, n))
            else:
                rows.append(self.history.last(n, (name,))[0])
        return np.asarray(rows, dtype=float).reshape(len(rows), n)

    def _derived(self, name: str, n: int) -> np.ndarray:
        """The last ``n`` values of derived column ``name``: those kept from the last read, and the new samples'."""
        cols, function = self.derived[name]
        key, count = (self.history.generation, function), self.history.count
        kept = self._kept.get(name)
        new = count - kept[1] if kept is not None and kept[0] == key else -1
        if 0 <= new <= n and len(kept[2]) >= n - new:
            old = kept[2][len(kept[2]) - (n - new):]
            values = np.concatenate([old, np.asarray(function(self.history.last(new, cols)), dtype=float)])
        else:
            values = np.asarray(function(self.history.last(n, cols)), dtype=float)
        self._kept[name] = (key, count, values)
        return values


class EnvironmentPlots(PlotPanel):
    """The Magnetic tab's plots (:data:`ENVIRONMENT_PLOTS`) over a :class:`DerivedHistory`.

    Parameters
    ----------
    history : History
        The live plots' history (read only).
    parent : QWidget, optional
    """

    def __init__(self, history, parent=None):
        self.derived = DerivedHistory(history, derived_columns())
        super().__init__(self.derived, parent, plots=ENVIRONMENT_PLOTS)

    def show_settings(self, settings) -> bool:
        """A new run: the derived columns of its wheels, and each plot shown when its columns are recorded.

        Returns whether the tab has anything to show (a field, SRP or drag).
        """
        self.derived.derived = derived_columns(settings.wheel_set)
        for spec in ENVIRONMENT_PLOTS:
            shown = all(self.derived.has(c.column) for c in spec.curves) and settings.torques_on
            if spec.name == "wheel_momentum":
                shown = shown and settings.wheel_set is not None
            self.set_visible(spec.name, shown)
        self.clear()
        return settings.torques_on
