"""Conditions the GUI tests wait on (``qtbot.waitUntil``) instead of sleeping: a slow machine fails no test,
a fast one waits for nothing."""

from __future__ import annotations


def caught_up(win) -> bool:
    """The window's run is paused and the window has taken every batch its worker published.

    The worker publishes the last steps (and, pausing an ensemble, its bodies where they are) before it
    reads as paused; the window takes them in its next frame, in the GUI thread, so once nothing is left
    undrained, the history, the readouts' snapshot and the ensemble view's frame are the paused state's.
    """
    worker = win.worker
    return worker.paused and worker.undrained == 0 and win.last_snapshot is not None


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
