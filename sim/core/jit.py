"""The one place the per-step kernels are compiled: numba's options, its disk cache and its key.

Every compiled kernel of :mod:`sim` is a plain Python function decorated here, as hapsira's
``core/jit.py`` does for poliastro's kernels, so that the options and the cache are set once:

* :func:`jitable`: a formula (the small algebra, a derivative, a control law, a world model).
  It stays an ordinary Python function for Python callers, bit for bit what it was, and is
  compiled inline into any compiled kernel that calls it (numba's ``register_jitable``).
  One source per formula: the Python path and the compiled path run the same text.
* :func:`kernel`: an entry point called from Python (an ``advance`` that runs many steps in one
  call, a body loop over an ensemble).  ``parallel=True`` lets its ``numba.prange`` loops use
  every core.

Kernels take and return floats and arrays of fixed size, never objects; errors come back as a
status the Python side turns into a message (hapsira's rule).  Division follows numpy's error
model (``inf``/``nan``, no exception), so a fault is found by the finiteness check after a step,
as on the ensemble's numpy columns.

``NUMBA_DISABLE_JIT=1`` runs every kernel as Python (debugging, coverage, mutation testing).

The disk cache
--------------
numba's own cache is invalidated when a compiled function's file changes, but not when a callee
in another file changes, and it freezes globals as constants (numba's developer notes, "Notes on
Caching").  So the cache lives in a folder named by a hash of the text of every module of
:mod:`sim` that uses this module, of numba's version and of Python's: any edit of any kernel
file, or an upgrade, gives a new folder and a fresh compile.  The folder is under
``$ATTITUDE_SIM_CACHE`` if set, else ``$XDG_CACHE_HOME/attitude-sim`` (``~/.cache/attitude-sim``),
falling back to the temporary folder when that cannot be written (a read-only home); the
package's own folder is never written, so a wheel installed by pip works as well.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import numba
from numba.extending import register_jitable

__all__ = ["jitable", "kernel", "cache_dir", "source_key", "DISABLED", "prange", "compile_once"]

#: True when ``NUMBA_DISABLE_JIT`` is set: every kernel runs as the Python it is written in.
DISABLED = bool(numba.config.DISABLE_JIT)

#: numba's parallel range (``range`` when the JIT is off).
prange = numba.prange

_SIM = Path(__file__).resolve().parent.parent
_MARK = "sim.core.jit"


def source_key() -> str:
    """A hash of every kernel file's text (the modules of :mod:`sim` that import this one), numba's and Python's version.

    Returns
    -------
    str
        16 hex digits; a change of any kernel file, of numba or of Python changes it.
    """
    digest = hashlib.sha256()
    digest.update(f"numba {numba.__version__} python {sys.version_info[:3]}".encode())
    for path in sorted(_SIM.rglob("*.py")):
        text = path.read_bytes()
        if path.name == "jit.py" and path.parent.name == "core" or _MARK.encode() in text:
            digest.update(str(path.relative_to(_SIM)).encode())
            digest.update(b"\0")
            digest.update(text)
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return True
    except OSError:
        return False


def _choose_cache_dir() -> Path:
    base = os.environ.get("ATTITUDE_SIM_CACHE")
    if base:
        root = Path(base)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = Path(xdg) / "attitude-sim"
    folder = root / f"kernels-{source_key()}"
    if not _writable(folder):
        folder = Path(tempfile.gettempdir()) / f"attitude-sim-{os.getuid() if hasattr(os, 'getuid') else 0}" / folder.name
        folder.mkdir(parents=True, exist_ok=True)
    return folder


#: The folder numba's cache writes to (keyed by :func:`source_key`).
cache_dir = _choose_cache_dir()
numba.config.CACHE_DIR = str(cache_dir)  # read by numba's cache locator when a kernel is decorated


def _cached(dispatcher) -> bool:
    """True when the disk cache holds an index of ``dispatcher`` (numba's ``<module>.<name>-<line>.pyXY.nbi``)."""
    name = f"{dispatcher.py_func.__module__.rsplit('.', 1)[-1]}.{dispatcher.py_func.__name__}-"
    return any(p.name.startswith(name) for p in cache_dir.rglob("*.nbi"))


@contextlib.contextmanager
def _interrupts_held():
    """Ctrl-C during a compile or a load from the cache is held and delivered right after it, to the handler
    that was in force (a KeyboardInterrupt raised inside numba's compiler or cache was seen to end the process
    by the signal, exit -2, after the program had handled it; measured with ``attitude-sim run`` interrupted
    at the moment its kernel loads)."""
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


def compile_once(dispatcher, *args, stream=None) -> float:
    """Compile ``dispatcher`` (a :func:`kernel`) for the types of ``args`` by calling it with them, or load it
    from the disk cache; when it is not cached yet, say so on ``stream`` (default stderr) first and how long it
    took after ("compiling the simulation kernels, once").  ``args`` must make the call do nothing (no steps).

    Returns the seconds it took (0.0 when it was compiled or loaded before in this process, or the JIT is off).
    """
    if DISABLED or dispatcher.signatures:
        return 0.0
    stream = sys.stderr if stream is None else stream
    loud = not _cached(dispatcher)
    if loud:
        print(f"attitude-sim: compiling the simulation kernels, once (about 5-20 s; later runs load them from "
              f"{cache_dir}) ...", file=stream, flush=True)
    start = time.perf_counter()
    with _interrupts_held():
        dispatcher(*args)
    seconds = time.perf_counter() - start
    if loud:
        print(f"attitude-sim: kernels compiled in {seconds:.1f} s", file=stream, flush=True)
    return seconds


def jitable(fn):
    """A formula: plain Python for Python callers, compiled inline into the kernels that call it."""
    return register_jitable(fn)


def kernel(fn=None, *, parallel: bool = False):
    """An entry point from Python: compiled on first call (or loaded from the disk cache), nopython, no GIL held.

    Parameters
    ----------
    parallel : bool
        Let its ``prange`` loops run on every core (an ensemble's body loop).
    """
    def wrap(f):
        return numba.njit(f, cache=True, nogil=True, error_model="numpy", parallel=parallel)
    return wrap if fn is None else wrap(fn)
