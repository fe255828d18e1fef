"""Ctrl-C held while numba compiles or loads a kernel (:mod:`sim.core.jit`'s :meth:`~sim.core.jit.Kernel.compile`)."""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["interrupts_held"]


@contextlib.contextmanager
def interrupts_held():
    """Ctrl-C during a compile or a load from the cache is held and delivered right after it, to the handler in
    force (a KeyboardInterrupt raised inside numba's compiler or cache was seen to end the process by the signal,
    exit -2, after the program had handled it: ``attitude-sim run`` interrupted as its kernel loads)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
    if held:
        if callable(old):
            old(signal.SIGINT, None)
        elif old == signal.SIG_DFL:
            raise KeyboardInterrupt
