"""What a compile does at the terminal (:mod:`sim.core.jit`'s :meth:`~sim.core.jit.Kernel.compile`): Ctrl-C held
while numba compiles or loads a kernel, and the compile's progress said every few seconds."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time

__all__ = ["interrupts_held", "progress", "say"]


def say(stream, text):
    """``text`` as a line on ``stream`` (None: stderr; False: nothing)."""
    if stream is not False:
        print(text, file=sys.stderr if stream is None else stream, flush=True)


@contextlib.contextmanager
def progress(stream, every):
    """Say on ``stream`` (False: silent) every ``every`` seconds how long the compile inside has run."""
    done, start = threading.Event(), time.perf_counter()

    def tick():
        while not done.wait(every):
            say(stream, f"attitude-sim: ... {time.perf_counter() - start:.0f} s")
    if stream is not False:
        threading.Thread(target=tick, daemon=True, name="attitude-sim compile progress").start()
    try:
        yield
    finally:
        done.set()


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
