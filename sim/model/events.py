"""Simulated time reached, and a scenario's events applied as a run's time goes on.

A run's time is ``t = t0 + (k - k0) dt`` after ``k`` fixed steps (``t0``,
``k0``: where the last change of ``dt`` happened), computed in floating
point: eleven steps of 0.03 s end at 0.32999999999999996 s, not 0.33.  So a
time ``at`` counts as reached at the first step boundary with ``t`` within
:data:`TIME_TOLERANCE` of it (:func:`reached`), and :func:`steps_until`
counts the steps to get there.  The single body's runner
(:class:`sim.run.runner.Runner`), the sweep (:func:`sim.sweep.chunk.run_chunk`) and
the window's pause at the end of a scenario all use these two rules, so
they agree on the step at which a time is reached.

:class:`EventCursor` walks a scenario's time-tagged events
(:class:`sim.run.scenario.Event`): every event due now is applied, in time
order, and :meth:`EventCursor.steps_to_next` says how many steps a run may
take at once before the next one is due.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

__all__ = ["TIME_TOLERANCE", "reached", "steps_until", "EventCursor"]

#: Simulated times this close (s) count as the same time: ``t`` is ``k * dt``
#: in floating point, so a step boundary meant to fall on 0.33 s may land at
#: 0.32999999999999996 s.  The rounding error of ``t`` is far smaller (about
#: 1e-13 s after 10^6 steps of 1 ms: ``t`` is computed from ``k``, never
#: summed).  Meant for steps much longer than itself: with ``dt`` near the
#: smallest step :data:`sim.model.settings.MIN_DT` (also 1e-9 s, a different
#: quantity) a time one step ahead would count as reached.
TIME_TOLERANCE = 1e-9


def reached(t: float, at: float) -> bool:
    """Whether a run at time ``t`` has reached time ``at`` (s): ``at <= t + TIME_TOLERANCE``.

    Examples
    --------
    >>> t = 11 * 0.03   # eleven steps of 0.03 s
    >>> t < 0.33, reached(t, 0.33), reached(t, 0.34)
    (True, True, False)
    """
    return at <= t + TIME_TOLERANCE


def steps_until(t: float, at: float, dt: float) -> int:
    """Whole steps of ``dt`` from time ``t`` until time ``at`` is :func:`reached` (0 when it is).

    The count aims :data:`TIME_TOLERANCE` before the time at which ``at``
    counts as reached, so that the rounding of ``t`` can make it one step
    short (the caller takes one more step and looks again), never one step
    too many: a run that takes this many steps at once never passes ``at``
    by a step that a run taking one step at a time would stop at.

    Examples
    --------
    >>> steps_until(0.0, 1.0, 0.1), steps_until(0.0, 1.05, 0.1), steps_until(1.2, 1.0, 0.1)
    (10, 11, 0)
    """
    return max(0, math.ceil((at - t - 2.0 * TIME_TOLERANCE) / dt))


class EventCursor:
    """The next due of a scenario's events, as a run's time goes on.

    Parameters
    ----------
    events : iterable of sim.run.scenario.Event
        Time-tagged settings changes (``at``, s; ``changes``, a dict).
        Taken in order of ``at``; events at the same time keep their order.
    set_setting : callable
        ``set_setting(key, value)``: how a change reaches the run (the
        runner's main body, comparison bodies and ensemble; the sweep's
        ensemble).

    Examples
    --------
    >>> from sim.run.scenario import Event
    >>> changes = []
    >>> cursor = EventCursor([Event(0.25, {"torque": (1.0, 0.0, 0.0)})], lambda k, v: changes.append(k))
    >>> cursor.apply(0.0), cursor.steps_to_next(0.0, 0.1)
    (0, 3)
    >>> cursor.apply(0.30000000000000004), changes, cursor.steps_to_next(0.3, 0.1)
    (1, ['torque'], inf)
    """

    def __init__(self, events: Iterable, set_setting: Callable[[str, object], None]):
        self._events = tuple(sorted(events, key=lambda event: event.at))
        self._set = set_setting
        self.rewind()

    def rewind(self) -> None:
        """Back to the first event (a reset to t = 0)."""
        self._next = 0
        self._next_at = self._events[0].at if self._events else math.inf

    @property
    def next_at(self) -> float:
        """Time of the next event not yet applied, s (inf when none is left)."""
        return self._next_at

    def apply(self, t: float) -> int:
        """Apply every event due at time ``t`` (:func:`reached`), in order; returns how many.

        Each change goes through ``set_setting``; an event's changes in the
        order the event lists them.
        """
        applied = 0
        while self._next_at <= t + TIME_TOLERANCE:  # reached(t, self._next_at), inlined: runs twice a step
            for key, value in self._events[self._next].changes.items():
                self._set(key, value)
            self._next += 1
            self._next_at = self._events[self._next].at if self._next < len(self._events) else math.inf
            applied += 1
        return applied

    def steps_to_next(self, t: float, dt: float) -> float:
        """Steps of ``dt`` a run at time ``t`` may take before the next event is due (>= 1; inf when none).

        After that many steps :meth:`apply` finds the event due (or, when
        the rounding of ``t`` made the count one short, after one more).
        """
        if self._next_at == math.inf:
            return math.inf
        return max(1, steps_until(t, self._next_at, dt))
