"""The garbage collector held off while a compiled kernel loads, and what the load made frozen after it.

Loading a kernel from numba's disk cache (numba's import with it) makes about 100,000 long-lived Python objects
(functions, tuples, dicts, weak references: numba's types and registries) in a few tenths of a second.  Left to the
collector, they set off young collections of 2-4 ms during the load and then, once they reach the oldest
generation, a full collection of 37-72 ms: in the window about 5-10 s after it opened, the frame loop stopped for
that long, the collection holding the interpreter lock whichever thread ran it (docs/PERFORMANCE.md, "The window's
frame rates (issue 42, stop 51)" and "... (issue 42, stop 52)").  The window's own objects are moved out of the
collector's sight when it opens (``gc.freeze`` in ``app.window.launch.open_window``); the kernels' come later,
from a loader thread, so the loader does the same for what it makes (Python's documentation of ``gc.freeze``:
disable the collector early, freeze, so that the frozen objects are never scanned again).

:func:`collector_held` is that rule: while any load holds it the collector makes no automatic collection (a
``gc.collect()`` asked for still runs); when the last hold ends, everything the process has then is frozen
(``gc.freeze``) and the collector is enabled again if it was when the first hold began.  What is frozen is kept
for good: cyclic garbage that exists at that moment is never freed, nor is a frozen object that later becomes
cyclic garbage (it is freed by reference counting like any other once nothing refers to it).  The hold never
collects itself: a collection in the loader thread destroys whatever Qt objects are garbage then, from a thread
that is not the GUI's; tried at stop 53 (a full collection as the first hold began, to free the garbage instead
of freezing it), it deadlocked a window under `make stress` (`QObject::~QObject` in the loader waiting for the
interpreter lock) and was reverted.  Only a load from
the disk cache holds it (a few tenths of a second); a compile runs with the collector as it is (numba's compiler
makes much cyclic garbage, for seconds).

One thread collects (:func:`own_collection`): a process with a window needs every collection made in its GUI
thread, because whatever a collection finds unreachable is destroyed in the thread that runs it, Qt objects
included, and a ``QObject`` destroyed off its thread can deadlock (the stop-53 deadlock above) or crash.  Left
automatic, a collection runs in whichever thread allocates: in a window of ``fly_on_estimate`` the simulation
thread made 13 young and 1 middle collection in 20 s (stop 54, ``gc.callbacks``), and found garbage each time.
While an owner holds it, the collector makes no automatic collection; the owner's thread calls
:func:`collect_due` often (the window: once a frame), which makes the collection the automatic collector would
have made by then, by the same counts and thresholds (``gc.get_count``, ``gc.get_threshold``), and none while a
load holds the collector.  When the last owner releases it and no load holds it, the collector is enabled again
if it was before.  No numba and no Qt here.
"""

from __future__ import annotations

import contextlib
import gc
import threading

__all__ = ["collector_held", "own_collection", "release_collection", "collect_due"]

_lock = threading.Lock()
_holds = 0  # loads holding the collector off now (two loader threads may overlap)
_owners = 0  # owners collecting in their own thread now (open windows)
_enabled_before = False  # whether the collector was enabled when the first hold or owner began


def _take() -> None:
    """A hold or an owner begins (under ``_lock``): the first of them turns the automatic collector off."""
    global _enabled_before
    if _holds == 0 and _owners == 0:
        _enabled_before = gc.isenabled()
        gc.disable()


def _give() -> None:
    """A hold or an owner ended (under ``_lock``): after the last, the collector as it was before the first."""
    if _holds == 0 and _owners == 0 and _enabled_before:
        gc.enable()


@contextlib.contextmanager
def collector_held():
    """No automatic garbage collection inside (any thread); on leaving the last hold, ``gc.freeze()`` and the
    collector enabled again if it was when the first hold began (the module's docstring)."""
    global _holds
    with _lock:
        _take()
        _holds += 1
    try:
        yield
    finally:
        with _lock:
            _holds -= 1
            if _holds == 0:
                gc.freeze()
            _give()


def own_collection() -> None:
    """From now on the calling thread collects (:func:`collect_due`), no automatic collection in any thread, until
    as many :func:`release_collection` calls (the module's docstring)."""
    global _owners
    with _lock:
        _take()
        _owners += 1


def release_collection() -> None:
    """One owner less (:func:`own_collection`); after the last, automatic collection as before the first."""
    global _owners
    with _lock:
        if _owners == 0:
            raise RuntimeError("release_collection without own_collection")
        _owners -= 1
        _give()


def collect_due() -> int:
    """The collection the automatic collector would have made by now, made here; the generation collected, or -1.

    As CPython's ``gc_collect_generations``: due when the young generation's count exceeds its threshold; then the
    oldest generation whose count exceeds its threshold is collected (the full collection's extra condition on
    long-lived objects, pending under a quarter of the total, is not visible from Python: a full collection runs
    whenever its count is due, about every 121st collection; after the window's ``gc.freeze`` one costs 0.03-3 ms,
    stop 54).  Nothing without an owner, or while a load holds the collector.
    """
    if _owners == 0 or _holds:
        return -1
    counts, thresholds = gc.get_count(), gc.get_threshold()
    if thresholds[0] == 0 or counts[0] <= thresholds[0]:
        return -1
    generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
    gc.collect(generation)
    return generation
