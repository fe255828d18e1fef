"""Conditions the GUI tests wait on (``qtbot.waitUntil``) instead of sleeping: a slow machine fails no test,
a fast one waits for nothing; and the one deadline of those waits (:func:`floor_waits`)."""

from __future__ import annotations

import functools
import os

#: The shortest deadline of any GUI wait, ms (``GUI_WAIT_FLOOR_MS`` overrides it).  A wait's deadline only
#: keeps a broken test from hanging: it is never what a test checks (a time a user is promised is a test
#: marked ``timing``).  Waits that chose 2 s each failed under the load of a busy machine (a GUI thread held
#: off its core for seconds: stop 52, docs/RELIABILITY.md "One deadline for the GUI waits"); a deadline
#: costs nothing when the condition comes true, so every wait gets at least this one.
FLOOR_MS = int(os.environ.get("GUI_WAIT_FLOOR_MS", "15000"))

#: pytest-qt's waits that fail at their deadline, each given at least :data:`FLOOR_MS`.
FLOORED = ("waitUntil", "waitSignal", "waitSignals", "waitExposed", "waitActive", "waitCallback")


def floor_waits(qtbot_class, floor_ms: int = FLOOR_MS) -> None:
    """Give each of ``qtbot_class``'s failing waits (:data:`FLOORED`) a deadline of at least ``floor_ms``.

    A signal wait told ``raising=False`` is left as it is: it does not fail at its deadline, and a test may
    use that deadline to see that a signal did not come.  Called once, by tests/conftest.py, before the
    first GUI test; calling it again changes nothing.
    """
    for name in FLOORED:
        wait = getattr(qtbot_class, name)
        if getattr(wait, "floor_ms", None) is not None:
            continue

        @functools.wraps(wait)
        def floored(self, *args, _wait=wait, timeout=5000, **kwargs):
            if kwargs.get("raising", True) is not False and timeout is not None and 0 < timeout < floor_ms:
                timeout = floor_ms
            return _wait(self, *args, timeout=timeout, **kwargs)

        floored.floor_ms = floor_ms
        setattr(qtbot_class, name, floored)


def caught_up(win) -> bool:
    """The window's run is paused and the window has taken every batch its worker published.

    The worker publishes the last steps (and, pausing an ensemble, its bodies where they are) before it
    reads as paused; the window takes them in its next frame, in the GUI thread, so once nothing is left
    undrained, the history, the readouts' snapshot and the ensemble view's frame are the paused state's.
    """
    worker = win.worker
    return worker.paused and worker.undrained == 0 and win.last_snapshot is not None


def drawn_as_paused(win) -> bool:
    """:func:`caught_up`, and the 3D view drawn at the paused state: its display clock (``app.window.tween``),
    which runs up to a batch behind the latest state while the run goes on, has reached it."""
    return caught_up(win) and not win.frames.tween.moving and win.frames.tween.shown == win.last_snapshot.t


def advanced_twice(worker):
    """A condition true once ``worker`` has finished two more advances than now: every input sent before
    this call has then been applied and its settings published (the advance under way when it was sent
    may have started before it; the next one starts after, and applies it at its first step)."""
    seen = [worker.steps_taken]

    def done() -> bool:
        if worker.steps_taken != seen[-1]:
            seen.append(worker.steps_taken)
        return len(seen) >= 3

    return done


def came_round(worker, wait) -> None:
    """Return once ``worker``'s loop has come round since the call: how a test sees that something did NOT
    happen (a step while paused, at a scenario's end or after a fault) without sleeping.

    The loop applies the commands queued at the top of each turn and only then decides whether to step.
    Its speed is set away and back twice, each change sent only once ``wait(condition)`` (a bounded wait
    that fails at its deadline) has seen the previous one applied: four commands that are never queued
    together, so the loop has finished at least one turn, step decision included, before this returns.
    """
    speed = worker.speed
    other = speed * 2.0 if speed <= 1.0 else speed / 2.0
    for value in (other, speed, other, speed):
        worker.set_speed(value)
        wait(lambda value=value: worker.speed == value)
