"""The plots' turns: what a tab redraws is spread over the display frames, a share each frame.

A frame that does more than its share is late, and a frame late by more than the frame timer's interval loses
a tick (Qt's precise timer drops it): docs/PERFORMANCE.md, "The window's frame rates (issue 42, stop 51)".
No Qt here.
"""

from __future__ import annotations

__all__ = ["REFRESH_EVERY", "turn_share"]

#: Display frames between two refreshes of one plot; the visible plots take turns.
REFRESH_EVERY = 3


def turn_share(items, frame: int) -> list:
    """The ``items`` whose turn it is in display frame ``frame``: item ``i`` in the frames with
    ``frame % REFRESH_EVERY == i % REFRESH_EVERY``.

    One rotation for everything a tab redraws (its plots, then its other views: the CMG tab's envelope, the
    Thrusters tab's phase plane), so each frame does at most ``ceil(len(items) / REFRESH_EVERY)`` of them.  A
    view refreshed on a cadence of its own (every third frame, say) lands in the same frame as a plot's turn
    and makes that frame the long one: a frame late by more than a frame interval loses a tick of the frame
    timer (docs/PERFORMANCE.md, "The window's frame rates (issue 42, stop 51)").

    >>> [turn_share(["a", "b", "c", "d", "phase"], frame) for frame in range(3)]
    [['a', 'd'], ['b', 'phase'], ['c']]
    """
    return list(items)[frame % REFRESH_EVERY::REFRESH_EVERY]
