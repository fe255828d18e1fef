"""The frame timer's pace: frames yield to the simulation, down to 33 per second.

On a machine with few cores and software OpenGL, the window's frames and the
simulation share the same cores: at 10,000 ensemble bodies the frame loop
asking for 60 frames a second left the ensemble's process too little time
to keep 1x (docs/PERFORMANCE.md, "10,000 bodies live").  The simulated time
is what the user asked for; the frame rate is the window's to choose.  So
when the measured real-time factor falls below :data:`BEHIND` of the speed
asked for, the frame interval grows by :data:`SLOWER_MS` (to at most
:data:`SLOWEST_MS`; at once to it below :data:`FAR_BEHIND`), and after :data:`CALM_SECONDS` of keeping up it shrinks
by :data:`FASTER_MS` again (to :data:`FASTEST_MS`).  Paused or stopped by a
fault, the pace stays as it is.

A second that straddles a change is no news either: the first measurement of
a run (:meth:`FramePace.restart`: the window being built, the kernels
loading), the first after a change of speed (measured partly at the old
speed) and the first after a pause are not counted.  Counted, each slowed the
frames to 33 a second, and the calm spells took about a minute to bring them
back to 60 (``fly_on_estimate`` opened at 100x drew 50 frames a second at
most for its first minute; issue 42).  Nor is one second behind alone: the
frames slow after :data:`BEHIND_SECONDS` behind in a row.  A single second
a few per cent short (a full garbage collection, a burst of load: 1000x
measured at 991-1008x a second) slowed ``cubesat_year``'s frames for the
8 s of a calm spell and more, while it kept its speed (docs/PERFORMANCE.md,
"The window's frame rates (issue 42, stop 51)").  No Qt here.
"""

from __future__ import annotations

__all__ = ["FramePace", "FASTEST_MS", "SLOWEST_MS", "BEHIND", "FAR_BEHIND", "SLOWER_MS", "FASTER_MS",
           "CALM_SECONDS", "BEHIND_SECONDS"]

#: The frame interval when the simulation keeps up, ms (the frame timer's 60 per second).
FASTEST_MS = 16
#: The longest frame interval, ms: about 33 frames per second, above the 30 the window promises.
SLOWEST_MS = 30
#: Below this share of the speed asked for, the frames slow down (a second's average) ...
BEHIND = 0.98
#: ... and below this one, they go to the slowest at once.
FAR_BEHIND = 0.9
#: How much slower after a second behind, and faster after a calm spell, ms.
SLOWER_MS = 4
FASTER_MS = 2
#: Seconds of keeping up before the frames speed up again.
CALM_SECONDS = 8
#: Seconds behind in a row before the frames slow down (one alone is a hiccup).
BEHIND_SECONDS = 2


class FramePace:
    """The frame timer's interval, from the real-time factor measured once a second.

    Examples
    --------
    >>> pace = FramePace()
    >>> pace.update(0.3, 1.0, False)            # a run's first second: no news
    16
    >>> [pace.update(0.95, 1.0, False) for _ in range(6)]   # the first second behind alone: no news
    [16, 20, 24, 28, 30, 30]
    >>> [pace.update(1.0, 1.0, False) for _ in range(CALM_SECONDS)][-1]
    28
    >>> pace.update(0.0, 1.0, True), pace.update(0.6, 1.0, False), pace.update(0.6, 1.0, False)
    (28, 28, 28)
    >>> pace.update(0.6, 1.0, False)
    30
    """

    def __init__(self):
        self.interval = FASTEST_MS
        self._calm = 0
        self._behind = 0  # seconds behind in a row
        self._speed = None  # the speed of the last second counted; None: the next second is not counted

    def restart(self) -> None:
        """A new run: its first measured second is not counted (the interval stays as it is)."""
        self._speed = None

    def update(self, factor: float, speed: float, halted: bool) -> int:
        """The interval (ms) after a second at real-time ``factor`` for the ``speed`` asked; ``halted``: paused.

        Not counted: a halted second, and the first second of a run, after a pause or at another speed; a second
        behind slows the frames only after :data:`BEHIND_SECONDS` - 1 behind before it."""
        if halted or speed != self._speed:
            self._speed = None if halted else speed
            self._behind = 0
            return self.interval
        if factor < BEHIND * speed:
            self._behind += 1
            self._calm = 0
            if self._behind >= BEHIND_SECONDS:
                slower = SLOWEST_MS if factor < FAR_BEHIND * speed else self.interval + SLOWER_MS
                self.interval = min(slower, SLOWEST_MS)
            return self.interval
        self._behind = 0
        if self.interval > FASTEST_MS:
            self._calm += 1
            if self._calm >= CALM_SECONDS:
                self.interval = max(self.interval - FASTER_MS, FASTEST_MS)
                self._calm = 0
        return self.interval
