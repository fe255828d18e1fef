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
makes much cyclic garbage, for seconds).  No numba and no Qt here.
"""

from __future__ import annotations

import contextlib
import gc
import threading

__all__ = ["collector_held"]

_lock = threading.Lock()
_holds = 0  # loads holding the collector off now (two loader threads may overlap)
_enabled_before = False  # whether the collector was enabled when the first of them began


@contextlib.contextmanager
def collector_held():
    """No automatic garbage collection inside (any thread); on leaving the last hold, ``gc.freeze()`` and the
    collector enabled again if it was when the first hold began (the module's docstring)."""
    global _holds, _enabled_before
    with _lock:
        if _holds == 0:
            _enabled_before = gc.isenabled()
            gc.disable()
        _holds += 1
    try:
        yield
    finally:
        with _lock:
            _holds -= 1
            if _holds == 0:
                gc.freeze()
                if _enabled_before:
                    gc.enable()
