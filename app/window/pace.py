"""The frame timer's pace: frames yield to the simulation, down to 33 per second.

On a machine with few cores and software OpenGL, the window's frames and the
simulation share the same cores: at 10,000 ensemble bodies the frame loop
asking for 60 frames a second left the ensemble's process too little time
to keep 1x (docs/PERFORMANCE.md, "10,000 bodies live").  The simulated time
is what the user asked for; the frame rate is the window's to choose.  So
when the measured real-time factor falls below :data:`BEHIND` of the speed
asked for, the frame interval grows by :data:`SLOWER_MS` (to at most
:data:`SLOWEST_MS`; at once to it below :data:`FAR_BEHIND`).  Paused or
stopped by a fault, the pace stays as it is.

The way back: after :data:`QUICK_CALM` seconds of keeping up, the interval
shrinks by :data:`QUICK_MS` each calm second, down to the fastest interval
not known to be too fast: :data:`FASTEST_MS`, or :data:`FASTER_MS` above the
interval at which the run last fell behind.  Below that the pace only probes,
:data:`FASTER_MS` after each :data:`CALM_SECONDS` calm at its limit.  So a run
that fell behind once (the kernels loading in its first seconds:
``mekf_monte_carlo``'s ensemble at 0.9x, then 1x for good) is back at 60
frames a second about six seconds after it keeps up, where the old rule, 2 ms
per 8 calm seconds, took a minute; and a run that cannot keep up at 16 ms
(10,000 bodies) settles a step above the interval it could not keep, trying
a step faster every 8 calm seconds as before, instead of swinging between
16 and 30 ms.  A slow-down in a run's first :data:`START_SECONDS` counted
seconds is its start (the kernels loading, the window being built) and sets
no limit.

A second that straddles a change is no news either: the first measurement of
a run (:meth:`FramePace.restart`: the window being built, the kernels
loading), the first after a change of speed (measured partly at the old
speed) and the first after a pause are not counted.  Counted, each slowed the
frames to 33 a second (``fly_on_estimate`` opened at 100x drew 50 frames a
second at most for its first minute; issue 42).  Nor is one second behind
alone: the frames slow after :data:`BEHIND_SECONDS` behind in a row.  A
single second a few per cent short (a full garbage collection, a burst of
load: 1000x measured at 991-1008x a second) slowed ``cubesat_year``'s frames
while it kept its speed (docs/PERFORMANCE.md, "The window's frame rates
(issue 42, stop 51)").  No Qt here.
"""

from __future__ import annotations

__all__ = ["FramePace", "FASTEST_MS", "SLOWEST_MS", "BEHIND", "FAR_BEHIND", "SLOWER_MS", "FASTER_MS",
           "CALM_SECONDS", "BEHIND_SECONDS", "QUICK_CALM", "QUICK_MS", "START_SECONDS"]

#: The frame interval when the simulation keeps up, ms (the frame timer's 60 per second).
FASTEST_MS = 16
#: The longest frame interval, ms: about 33 frames per second, above the 30 the window promises.
SLOWEST_MS = 30
#: Below this share of the speed asked for, the frames slow down (a second's average) ...
BEHIND = 0.98
#: ... and below this one, they go to the slowest at once.
FAR_BEHIND = 0.9
#: How much slower after a second behind, ms.
SLOWER_MS = 4
#: Calm seconds in a row before the quick way back, and how much faster each calm second after them, ms.
QUICK_CALM = 2
QUICK_MS = 4
#: Below the limit (the interval the run last fell behind at, plus this, ms), a step of this size ...
FASTER_MS = 2
#: ... after this many calm seconds at the limit.
CALM_SECONDS = 8
#: A slow-down in a run's first this many counted seconds is its start: it sets no limit.
START_SECONDS = 10
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
    >>> [pace.update(1.0, 1.0, False) for _ in range(6)]    # a run's start: back quickly to 60 a second
    [30, 26, 22, 18, 16, 16]
    >>> [pace.update(1.0, 1.0, False) for _ in range(START_SECONDS)][-1]
    16
    >>> [pace.update(0.8, 1.0, False) for _ in range(2)]    # past its start: far behind at 16 ms, two seconds
    [16, 30]
    >>> [pace.update(1.0, 1.0, False) for _ in range(6)]    # back to a step above 16 ms, and stays there ...
    [30, 26, 22, 18, 18, 18]
    >>> [pace.update(1.0, 1.0, False) for _ in range(CALM_SECONDS)][-1]  # ... but tries 16 after a calm spell
    16
    >>> pace.update(0.0, 1.0, True), pace.update(0.6, 1.0, False), pace.update(0.6, 1.0, False)
    (16, 16, 16)
    >>> pace.update(0.6, 1.0, False)
    30
    """

    def __init__(self):
        self.interval = FASTEST_MS
        self._calm = 0
        self._behind = 0  # seconds behind in a row
        self._speed = None  # the speed of the last second counted; None: the next second is not counted
        self._limit = FASTEST_MS  # the fastest interval not known to be too fast
        self._counted = 0  # seconds counted since the run began

    def restart(self) -> None:
        """A new run: its first measured second is not counted (the interval stays as it is); its start sets no
        limit, and the last run's limit is forgotten."""
        self._speed = None
        self._counted = 0
        self._limit = FASTEST_MS

    def update(self, factor: float, speed: float, halted: bool) -> int:
        """The interval (ms) after a second at real-time ``factor`` for the ``speed`` asked; ``halted``: paused.

        Not counted: a halted second, and the first second of a run, after a pause or at another speed; a second
        behind slows the frames only after :data:`BEHIND_SECONDS` - 1 behind before it.  The way back: module
        docstring."""
        if halted or speed != self._speed:
            self._speed = None if halted else speed
            self._behind = 0
            return self.interval
        self._counted += 1
        if factor < BEHIND * speed:
            self._behind += 1
            self._calm = 0
            if self._behind >= BEHIND_SECONDS:
                if self._counted > START_SECONDS:  # past the run's start: this interval is too fast for it
                    self._limit = min(self.interval + FASTER_MS, SLOWEST_MS)
                slower = SLOWEST_MS if factor < FAR_BEHIND * speed else self.interval + SLOWER_MS
                self.interval = min(slower, SLOWEST_MS)
            return self.interval
        self._behind = 0
        if self.interval > FASTEST_MS:
            self._calm += 1
            if self.interval > self._limit and self._calm >= QUICK_CALM:  # the quick way back, to the limit
                self.interval = max(self.interval - QUICK_MS, self._limit)
                if self.interval == self._limit:
                    self._calm = 0
            elif self.interval <= self._limit and self._calm >= CALM_SECONDS:  # a probe below the limit
                self.interval = max(self.interval - FASTER_MS, FASTEST_MS)
                self._limit = self.interval
                self._calm = 0
        return self.interval
