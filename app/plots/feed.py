"""Batches of the simulation thread into the plots' histories.

The window hands every :class:`~sim.run.runner.Batch` it collects to a
:class:`PlotFeed`: the main body's rows go to the :class:`~app.plots.history.History`
behind the live plots, the comparison bodies' rows to the compare panel.
A jump back in time (a reset, inside a batch or between two) starts
both anew.  With a :attr:`PlotFeed.period` (a :class:`sim.core.tumble.PeriodWatch`),
the main body's rates go to it too.  The history is sized from the time step so that the plotted
window is always held at full resolution (:func:`~app.plots.history.capacity_for`).
"""

from __future__ import annotations

import math

import numpy as np

from app.plots.history import History, capacity_for
from sim import HISTORY_COLUMNS

__all__ = ["PlotFeed"]

_T, _W = HISTORY_COLUMNS.index("t"), HISTORY_COLUMNS.index("wx")


class PlotFeed:
    """The live plots' history and the compare panel, fed batch by batch.

    Parameters
    ----------
    history : History
        Behind ``plots``.
    plots : app.plots.live.PlotPanel
    compare : app.plots.compare.ComparePanel
    """

    def __init__(self, history: History, plots, compare):
        self.history = history
        self._plots = plots
        self._compare = compare
        self._last_t = -math.inf
        #: A :class:`sim.core.tumble.PeriodWatch` fed the main body's rates, or None.
        self.period = None

    def clear(self, dt: float, columns=None) -> None:
        """Forget every sample (a new run or a reset); size the history for step ``dt``.

        ``columns``: a new run's history columns (:attr:`sim.run.runner.Runner.columns`), None to keep them.
        """
        if columns is not None:
            self.history.reshape(columns)
        self.history.clear()
        self.history.resize(capacity_for(dt, self._plots.window_seconds))
        self._plots.clear()
        self._compare.clear()
        self._last_t = -math.inf
        if self.period is not None:
            self.period.reset()

    def take(self, batch, dt: float) -> None:
        """Append a batch's samples (``dt``: the step in force); a jump back in time starts anew."""
        rows = batch.rows
        t = rows[:, 0] if len(rows) else np.array([batch.last.t])
        back = np.flatnonzero(np.diff(t) < 0)
        start = 0  # first row after the last reset in this batch
        if len(back):
            self.clear(dt)
            start = back[-1] + 1
            rows = rows[start:]
        elif t[0] < self._last_t:
            self.clear(dt)
        if len(rows):
            # a smaller dt: grow, keeping every sample, so the plotted window stays whole
            self.history.reserve(capacity_for(dt, self._plots.window_seconds))
            self.history.append(rows)
            self._last_t = rows[-1, 0]
            if self.period is not None:
                self.period.add(rows[:, _T], rows[:, _W:_W + 3])
        else:
            self._last_t = max(self._last_t, batch.last.t)
        if batch.compare_rows:
            self._compare.append({label: r[start:] for label, r in batch.compare_rows.items()})
