"""Render interpolation: the 3D view turns smoothly, at every display frame, whatever the step and the batches.

A scenario whose step lasts longer than a frame at its speed (``hoffmann``: dt 0.1 s at 1x, a new state
every sixth frame) would turn the body in jumps, ten a second; one whose batches hold a few steps each
(``sun_pointing``: two steps of 0.5 s at 100x, a batch every 10 ms) would turn it by one batch or two a frame,
and not at all in a frame no batch reached in time (the simulation thread's batches come when it has the
interpreter lock, not on the display's beat: about one frame in twelve at the line, issue 42).  Real-time
simulators draw instead the state interpolated between the last two computed ones at the display time,
behind the latest (G. Fiedler, "Fix your timestep!", 2004, "the final touch":
``state = current * alpha + previous * (1 - alpha)``); for an attitude the interpolation is SLERP (Hoffmann
Appendix C, :func:`sim.core.interpolation.slerp`).

:class:`Tween` keeps, for each body drawn (the main body, the comparison bodies), the computed states the
display has not passed yet (each batch's last), and a display clock that runs at the speed factor between
them: at most one state and :data:`JITTER_SECONDS` of wall time (at the speed) behind the latest, so that a
batch that comes up to a frame late still finds the clock between two states, moving.  The clock never runs
past the latest state: when the simulation stops (paused, a fault) the view stops at its last state.  Only
what the 3D view draws is interpolated (the bodies, the gimbal rig, the orbit frame); the readouts and plots
show the computed states.  A state at or before the latest one (a reset, a new run) is drawn at once.  No Qt
here.
"""

from __future__ import annotations

import math

from sim import slerp

__all__ = ["Tween", "JITTER_SECONDS", "drawable", "FAR_FROM_UNIT"]

#: Wall time the display clock may run behind the previous computed state, s (about a display frame): a
#: batch that comes this much later than its due time is drawn without the view standing still.
JITTER_SECONDS = 0.017


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
    """The attitudes drawn between computed states at the display time (module docstring).

    Attributes
    ----------
    t0 : float or None
        Time of the state the display time is at or after (the start of the step drawn); None before the
        first state.
    t1 : float or None
        Time of the latest computed state (None before the first).
    shown : float or None
        The display time, at most :attr:`t1`.
    taken : int
        States taken so far (a new state at the same time, a reset at t = 0 say, is a new picture).
    """

    def __init__(self):
        self.shown = None
        self.taken = 0
        self._states: list = []  # (t, {key: quaternion}), increasing t; the first at or before the display time
        self._wall = None  # wall time of the last clock reading, s

    @property
    def t0(self):
        return self._states[0][0] if self._states else None

    @property
    def t1(self):
        return self._states[-1][0] if self._states else None

    def take(self, t: float, quaternions: dict, dt: float | None = None) -> None:
        """A newly computed state at time ``t`` (a batch's last): ``quaternions`` maps each body's key to its
        attitude.  Later than the latest: the display runs on towards it; otherwise (a reset, a new run, a new
        state at the same time) the display jumps to it.  ``dt`` (the step) is not needed; kept for callers."""
        t = float(t)
        self.taken += 1
        state = (t, {k: drawable(q) for k, q in quaternions.items()})
        if self._states and t > self._states[-1][0]:
            self._states.append(state)
        else:
            self._states = [state]
            self.shown = t

    def clear(self) -> None:
        """Forget every state (a new run is shown)."""
        self.__init__()

    def advance(self, wall: float | None, speed: float) -> float:
        """Run the display clock to wall time ``wall`` (s) at ``speed``; returns the fraction of the step shown
        (between :attr:`t0` and the next state).

        ``wall`` None jumps to the latest state (an unpaced window: every frame is at a computed state).
        The clock stays between the latest state and the one before it less :data:`JITTER_SECONDS` at the speed.
        The fraction is 0 at a computed state, 1 at the latest.
        """
        states = self._states
        if not states:
            return 1.0
        latest = states[-1][0]
        if wall is None or self._wall is None:
            shown = latest if wall is None else self.shown
        else:
            shown = self.shown + max(wall - self._wall, 0.0) * speed
        self._wall = wall
        if len(states) > 1:
            shown = max(shown, states[0][0], states[-2][0] - JITTER_SECONDS * speed)
        self.shown = min(shown, latest)
        while len(states) > 1 and states[1][0] <= self.shown:  # states the display passed
            states.pop(0)
        if len(states) == 1:
            return 1.0
        return (self.shown - states[0][0]) / (states[1][0] - states[0][0])

    @property
    def keys(self):
        """The bodies of the latest state."""
        return self._states[-1][1].keys() if self._states else {}.keys()

    @property
    def moving(self) -> bool:
        """True while the display time is behind the latest state."""
        return bool(self._states) and self.shown < self._states[-1][0]

    def attitude(self, key, fraction: float):
        """Body ``key``'s quaternion drawn at ``fraction`` of the step shown (:meth:`advance`): the SLERP of the
        states at its two ends, exactly the earlier one at 0 and the later at 1; the latest state when the
        display is at it or the body has no state at both ends."""
        states = self._states
        latest = states[-1][1][key]
        if len(states) == 1 or fraction >= 1.0:
            return latest
        previous, after = states[0][1].get(key), states[1][1].get(key)
        if previous is None or after is None:
            return latest
        if fraction <= 0.0:
            return previous
        return slerp(previous, after, fraction)
