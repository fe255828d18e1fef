"""Render interpolation: the 3D view turns smoothly when a step is longer than a display frame.

A scenario whose step lasts longer than a frame at its speed (``hoffmann``: dt 0.1 s at 1x, a new state
every sixth frame) would turn the body in jumps, ten a second.  Real-time simulators draw instead the state
interpolated between the last two computed ones at the display time, one step behind at most (G. Fiedler,
"Fix your timestep!", 2004, "the final touch": ``state = current * alpha + previous * (1 - alpha)``); for an
attitude the interpolation is SLERP (Hoffmann Appendix C, :func:`sim.core.interpolation.slerp`).

:class:`Tween` keeps, for each body drawn (the main body, the comparison bodies), the last two computed
quaternions when they are consecutive steps, and a display clock that runs at the speed factor and stays
between their times.  Only what the 3D view draws is interpolated (the bodies, the gimbal rig, the orbit
frame); the readouts and plots show the computed states.  Batches of several steps (a step shorter than a
frame) are drawn at their last state, as before: the clock is then clamped to it at once.  No Qt here.
"""

from __future__ import annotations

import math

from sim import slerp

__all__ = ["Tween", "STEP_TOLERANCE", "drawable", "FAR_FROM_UNIT"]

#: Two states are consecutive steps when their times differ by ``dt`` within this fraction of ``dt``.
STEP_TOLERANCE = 1e-6


#: Beyond this ``|Q|`` (or below its inverse) the Cayley matrix's entries, products of two components, overflow
#: (or vanish): :func:`drawable` divides by ``|Q|`` there.
FAR_FROM_UNIT = 1e150


def drawable(q) -> tuple:
    """Quaternion ``q`` as the 3D view draws it: itself (the view draws the Cayley matrix of the state as it is)
    unless ``|q|`` is so far from 1 that its Cayley matrix would overflow or vanish (a diverging run's last good
    state, ``|Q|`` about 1e190): then ``q / |q|``, the same rotation."""
    n = math.hypot(*q)
    if 1.0 / FAR_FROM_UNIT < n < FAR_FROM_UNIT or not 0.0 < n < math.inf:
        return tuple(q)
    return tuple(x / n for x in q)


class Tween:
    """The attitudes drawn between the last two computed states (module docstring).

    Attributes
    ----------
    t0, t1 : float or None
        Times of the previous and of the latest computed state (equal when there is nothing to interpolate;
        None before the first state).
    shown : float or None
        The display time, in ``[t0, t1]``.
    taken : int
        States taken so far (a new state at the same time, a reset at t = 0 say, is a new picture).
    """

    def __init__(self):
        self.t0 = self.t1 = self.shown = None
        self.taken = 0
        self._previous: dict = {}  # key -> quaternion at t0 (only keys with a state at both times)
        self._latest: dict = {}  # key -> quaternion at t1
        self._wall = None  # wall time of the last clock reading, s

    def take(self, t: float, quaternions: dict, dt: float) -> None:
        """A newly computed state at time ``t``: ``quaternions`` maps each body's key to its attitude.

        Interpolation runs between it and the previous state when that was one step ``dt`` before;
        otherwise (several steps in a batch, a reset, a new run) the display jumps to it.
        """
        t = float(t)
        self.taken += 1
        consecutive = self.t1 is not None and abs((t - self.t1) - dt) <= STEP_TOLERANCE * dt
        if consecutive:
            self._previous = {k: self._latest[k] for k in quaternions if k in self._latest}
            self.t0 = self.t1
        else:
            self._previous = {}
            self.t0 = self.shown = t
        self.t1 = t
        self._latest = {k: drawable(q) for k, q in quaternions.items()}

    def clear(self) -> None:
        """Forget every state (a new run is shown)."""
        self.__init__()

    def advance(self, wall: float | None, speed: float) -> float:
        """Run the display clock to wall time ``wall`` (s) at ``speed``; returns the fraction of the step shown.

        ``wall`` None jumps to the latest state (an unpaced window: every frame is at a computed state).
        The fraction is 0 at the previous state, 1 at the latest (also when there is nothing between).
        """
        if self.t1 is None:
            return 1.0
        if wall is None or self._wall is None:
            shown = self.t1 if wall is None else self.shown
        else:
            shown = self.shown + max(wall - self._wall, 0.0) * speed
        self._wall = wall
        self.shown = min(max(shown, self.t0), self.t1)
        return 1.0 if self.t1 <= self.t0 else (self.shown - self.t0) / (self.t1 - self.t0)

    @property
    def keys(self):
        """The bodies of the latest state."""
        return self._latest.keys()

    @property
    def moving(self) -> bool:
        """True while the display time is behind the latest state."""
        return self.t1 is not None and self.shown < self.t1

    def attitude(self, key, fraction: float):
        """Body ``key``'s quaternion drawn at ``fraction`` of the step: the SLERP of its last two states,
        exactly the previous state at 0 and the latest at 1 (or when it has no previous state)."""
        latest = self._latest[key]
        previous = self._previous.get(key)
        if previous is None or fraction >= 1.0:
            return latest
        if fraction <= 0.0:
            return previous
        return slerp(previous, latest, fraction)
