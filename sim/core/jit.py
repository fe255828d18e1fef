"""The one place the per-step kernels are compiled: numba's options, its disk cache and its key.

Every compiled kernel of :mod:`sim` is a plain Python function decorated here, as hapsira's
``core/jit.py`` does for poliastro's kernels, so that the options and the cache are set once:

* :func:`jitable`: a formula (the small algebra, a derivative, a control law, a world model).
  An ordinary Python function for Python callers, bit for bit, compiled into any kernel that calls it (numba's
  ``register_jitable``; ``inline=True``: inlined at numba's IR level). One source: Python and compiled paths alike.
* :func:`kernel`: an entry point called from Python (an ``advance`` that runs many steps in one
  call, a body loop over an ensemble).  ``parallel=True`` lets its ``numba.prange`` loops use
  every core.

Kernels take and return floats and arrays of fixed size, never objects; errors come back as a
status the Python side turns into a message (hapsira's rule).  Division follows numpy's error
model (``inf``/``nan``, no exception), so a fault is found by the finiteness check after a step,
as on the ensemble's numpy columns.

``NUMBA_DISABLE_JIT=1`` runs every kernel as Python (debugging, coverage, mutation testing).

Loading without blocking: one warm-up rule
------------------------------------------
numba itself is imported only when a kernel is first needed, not by ``import sim`` (about 0.2 s of every
start-up, scipy's import with it): :func:`jitable` records each formula and registers it when numba is imported;
:func:`kernel` returns a :class:`Kernel`, which makes numba's dispatcher on first need.  Every kernel warms up by
the same rule, :class:`Kernel`'s: until it is ready its calls run its Python source (the same formula, the same
numbers), so a simulation thread never waits for numba; it starts loading in a thread of its own after its
:attr:`~Kernel.warm_after` steps in Python (:meth:`Kernel.wanted`) or :data:`WARM_SECONDS` of its calls; a
first compile (5-30 s, once) runs in a child process, then the thread loads it from the disk cache (about
0.3 s).  A caller that wants the compiled code now (a long run of the command line, a test, a bench) waits with
:meth:`Kernel.wait` or :meth:`Kernel.prepare`, told "compiling ... once"; :func:`load_all` loads every kernel
with its progress; :func:`wait_all` waits for every load started.

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
import functools
import hashlib
import importlib
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from sim.core import jit_borrow, jit_codegen
from sim.core.collector import collector_held
from sim.core.interrupts import interrupts_held, progress, say as _say

__all__ = ["jitable", "kernel", "Kernel", "boxed", "source_key", "DISABLED", "prange",
           "numba_module", "wait_all", "load_all", "KERNELS", "WARM_SECONDS", "PROGRESS_EVERY"]


def _disabled() -> bool:
    """numba's own reading of ``NUMBA_DISABLE_JIT`` (an integer, 0 when unset), without importing numba."""
    try:
        return bool(int(os.environ.get("NUMBA_DISABLE_JIT", "0") or 0))
    except ValueError:
        return False


#: True when ``NUMBA_DISABLE_JIT`` is set: every kernel runs as the Python it is written in.
DISABLED = _disabled()

_SIM = Path(__file__).resolve().parent.parent
_MARK = "sim.core.jit"

#: Held while numba is imported and while the formulas are registered with it (any thread).
#: numba's error messages in colour go through colorama's init()/deinit(), which set sys.stdout and sys.stderr
#: back to what they were at init(): done by a kernel's loader thread while the main thread's output was
#: redirected (pytest's capsys; any redirect_stdout), the main thread's prints went to the old stream.  Plain
#: messages touch neither (read by numba when numba.core.errors is imported, so set before numba is).
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

_lock = threading.RLock()
_numba = None
#: The formulas :func:`jitable` recorded before numba was imported, each with its ``inline``.
_pending: list = []
_cache_dir: Path | None = None


def numba_module():
    """numba, imported on first need (in whichever thread asks first): its cache pointed at :data:`cache_dir`
    and every formula recorded by :func:`jitable` so far registered with it."""
    global _numba
    if _numba is not None:
        return _numba
    with _lock, collector_held():  # numba's import: long-lived objects, frozen (sim.core.collector)
        if _numba is None:
            import numba
            from numba.extending import register_jitable
            jit_codegen.install(numba)  # a formula's library only linked, optimised once in its kernel's
            jit_borrow.install(numba)  # borrowed(): arrays passed down a call chain without reference counts
            numba.config.CACHE_DIR = str(_choose_cache_dir())  # read by numba's cache locator per dispatcher
            for fn, how in _pending:
                register_jitable(inline=how, **jit_codegen.FORMULA_OPTIONS)(fn)
            _pending.clear()
            _numba = numba
    return _numba


def source_key() -> str:
    """16 hex digits of a hash of every kernel file's text (the modules of :mod:`sim` that name this one), numba's
    version and optimisation level (``NUMBA_OPT``, not in numba's own key), whether :mod:`~sim.core.jit_codegen`'s
    hook applies, and Python's: a change of any changes it."""
    digest = hashlib.sha256()
    import numba  # its version is part of the key (imported once, by numba_module or here)

    digest.update(f"numba {numba.__version__} opt {int(numba.config.OPT)} python {sys.version_info[:3]} "
                  f"linked {jit_codegen.applies(numba.__version__)}".encode())
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
        (probe := folder / f".probe-{os.getpid()}").write_bytes(b"")
        probe.unlink()
        return True
    except OSError:
        return False


def _choose_cache_dir() -> Path:
    global _cache_dir
    with _lock:
        if _cache_dir is not None:
            return _cache_dir
        base = os.environ.get("ATTITUDE_SIM_CACHE")
        if base:
            root = Path(base)
        else:
            xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
            root = Path(xdg) / "attitude-sim"
        folder = root / f"kernels-{source_key()}"
        if not _writable(folder):
            uid = os.getuid() if hasattr(os, "getuid") else 0
            folder = Path(tempfile.gettempdir()) / f"attitude-sim-{uid}" / folder.name
            folder.mkdir(parents=True, exist_ok=True)
        _cache_dir = folder
        return folder


def __getattr__(name):
    """``cache_dir``, numba's cache folder (keyed by :func:`source_key`), found on first use (it imports numba)."""
    if name == "cache_dir":
        numba_module()
        return _choose_cache_dir()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def prange(*args):
    """numba's parallel range in a :func:`kernel` (``from sim.core.jit import prange``): ``range`` as Python; numba's
    ``prange`` replaces it in the kernel's module when its dispatcher is made (numba knows it by identity)."""
    return range(*args)


def _cached(kernel) -> bool:
    """True when the disk cache holds numba's index of ``kernel``'s file (a folder a source folder: another tree's
    copy of the same kernel, in the same keyed folder, is not it; numba would compile here, holding the GIL)."""
    return os.path.exists(kernel.dispatcher._cache._cache_file._index_path)


#: Seconds a :class:`Kernel`'s calls spend in its Python source before one starts loading it: about what loading
#: it from the disk cache costs (0.2-0.5 s, numba's import included): a short run never pays for numba.
WARM_SECONDS = 0.25

#: Seconds between two lines of a first compile's progress on stderr (:meth:`Kernel.wait`).
PROGRESS_EVERY = 5.0
#: What a child process runs to compile a kernel into the disk cache: ``(kernel, numba's types)`` on its stdin.
_CHILD = "import pickle, sys; k, t = pickle.load(sys.stdin.buffer); k.compile(types=t, stream=False)"
#: Compiling children at once: one a core, two at most (each takes a core and 0.2-0.5 GB while numba compiles):
#: the kernels a run's loader threads start together (a window's craft step and world) compile side by side.
_children = threading.BoundedSemaphore(max(1, min(2, os.cpu_count() or 1)))


def boxed(value):
    """``value`` as numba returns a kernel's result to Python: numpy scalars as Python's ``float``, ``int`` and
    ``bool`` (also inside tuples), arrays as they are.  The Python source of a kernel reads its arrays' elements
    as numpy scalars; returned as they are, they would carry on into the state and the rows (a CSV cell
    read ``np.float64(2.6e-05)``) where the compiled kernel gives floats."""
    if isinstance(value, tuple):
        return tuple(boxed(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


class Kernel:
    """A compiled entry point (:func:`kernel`): numba's dispatcher, made on first need, and the one warm-up rule
    (the module's docstring).  Calls run the compiled code when it is :attr:`ready`, :attr:`py_func` before.  A
    caller that steps asks :meth:`wanted` (its steps counted against :attr:`warm_after`, set by :meth:`warms` with
    the sample arguments that give the types); a kernel called directly starts loading, for the types of that
    call, after :data:`WARM_SECONDS` of its calls.  The loading thread has a child process compile it when the
    disk cache holds nothing of it (:meth:`_in_child`: neither the GIL nor numba's compiler lock held here for
    those seconds; a window's run froze behind the world's compile), then loads it from the cache.  A load that
    fails leaves it in Python (:meth:`wait` raises why).  With the JIT off calls run :attr:`py_func`.  It pickles
    by name (its module's global), as numba's dispatcher does.

    Attributes
    ----------
    py_func : function
        The Python source (numba's name for it).
    warm_after : int or None
        Steps in Python before :meth:`wanted` starts the load (None: only :data:`WARM_SECONDS` does).
    sample : callable or None
        Arguments of the kernel that give the types it is loaded for (:meth:`warms`).
    python_steps : int
        Steps :meth:`wanted` has counted in Python so far in this process.
    """

    def __init__(self, fn, parallel: bool = False):
        functools.update_wrapper(self, fn)
        self.py_func = fn
        self._options = dict(cache=True, nogil=True, error_model="numpy", parallel=parallel)
        self._dispatcher = None
        self._ready = False
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._guard = threading.Lock()
        self._python_seconds = 0.0  # spent in py_func by calls before it was ready (WARM_SECONDS)
        self._more: set = set()  # numba's types of calls after the load, loaded since (_load_types)
        self.sample = None
        self.warm_after: int | None = None
        self.python_steps = 0
        KERNELS.append(self)

    def warms(self, sample, after: int) -> Kernel:
        """Load it after ``after`` steps in Python (:meth:`wanted`), for the types of ``sample()`` (arguments of
        the kernel; nothing is run with them); itself."""
        self.sample, self.warm_after = sample, after
        return self

    def __reduce__(self):
        return _kernel_named, (self.py_func.__module__, self.py_func.__name__)

    def __repr__(self) -> str:
        return f"<compiled kernel {self.py_func.__module__}.{self.py_func.__name__}>"

    @property
    def dispatcher(self):
        """numba's dispatcher of :attr:`py_func` (imports numba; calling it compiles there and then)."""
        if self._dispatcher is None:
            numba = numba_module()
            with _lock:
                if self._dispatcher is None:
                    names = self.py_func.__globals__
                    for name, value in list(names.items()):
                        if value is prange:
                            names[name] = numba.prange  # the same range when run as Python
                    self._dispatcher = numba.njit(self.py_func, **self._options)
        return self._dispatcher

    def __getattr__(self, name):  # numba's attributes (signatures, stats, overloads, ...)
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.dispatcher, name)

    @property
    def ready(self) -> bool:
        """True when the compiled code is loaded and calls run it (with the JIT off: once :meth:`wait` was called)."""
        return self._ready

    @property
    def loading(self) -> bool:
        """True while a thread of :meth:`start` loads it."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def wanted(self, n: int = 1) -> bool:
        """The warm-up rule for a caller about to take ``n`` steps: True when they are to go through the kernel.

        False, and the ``n`` steps counted in Python, until it is :attr:`ready`; the call that brings the count
        to :attr:`warm_after` starts the load (:meth:`start`); a call of ``warm_after`` steps or more waits for it
        (:meth:`prepare`).  With the JIT off, True only once :meth:`wait` was called."""
        if self._ready:
            return True
        if DISABLED or self.warm_after is None:
            return False
        if self.prepare(n):
            return True
        self.python_steps += n
        if self.python_steps >= self.warm_after:
            self.start()
        return False

    def prepare(self, n: int, stream=None) -> bool:
        """``n`` steps to come: when they are :attr:`warm_after` or more, load it now (:meth:`wait`, saying so on
        ``stream`` when it compiles); True when it is :attr:`ready` (never with the JIT off before :meth:`wait`)."""
        if not (self._ready or DISABLED or self.warm_after is None or n < self.warm_after):
            self.wait(stream=stream)
        return self._ready

    def __call__(self, *args):
        if self._ready and not DISABLED:
            try:
                return self._dispatcher(*args)
            except (TypeError, RuntimeError) as exc:  # numba's "No matching definition", "compilation disabled"
                types = tuple(self._dispatcher.typeof_pyval(a) for a in args)
                if types not in self._dispatcher.overloads:  # Python meanwhile (an ensemble stood still 12-60 s)
                    self._load_types(types)
                elif str(exc) == "compilation disabled":  # loaded meanwhile (_load_types): the kernel did not run
                    return self._dispatcher(*args)
                else:
                    raise
        elif DISABLED:
            return boxed(self.py_func(*args))
        if self._python_seconds >= WARM_SECONDS and self._thread is None:
            self.start(*args)
        start = time.perf_counter()
        try:
            return boxed(self.py_func(*args))
        finally:
            self._python_seconds += time.perf_counter() - start

    def _args(self, args) -> tuple:
        return args if args or self.sample is None else self.sample()

    def compile(self, *args, stream=None, types=None) -> float:
        """Load it from the disk cache or compile it for numba's ``types`` or those of ``args`` (default: its sample)
        here (Ctrl-C held till done on the main thread), saying so on ``stream`` (default stderr; False: silent) when it
        compiles; the seconds it took.  Calls run it from then on (other types: Python, :meth:`_load_types`)."""
        dispatcher = self.dispatcher
        types = types or tuple(dispatcher.typeof_pyval(a) for a in self._args(args))
        loud = not _cached(self)
        if loud:
            _say(stream, f"attitude-sim: compiling the simulation kernels, once ({self.py_func.__name__}: about "
                         f"5-30 s on an idle machine; later runs load them from {_choose_cache_dir()}) ...")
        start = time.perf_counter()
        with interrupts_held(), progress(stream if loud else False, PROGRESS_EVERY), \
                contextlib.nullcontext() if loud else collector_held():  # a load: frozen after (sim.core.collector)
            dispatcher.disable_compile(False)  # numba would compile at a call of new types: only a load does
            dispatcher.compile(types)
            dispatcher.disable_compile()
        seconds = time.perf_counter() - start
        if loud:
            _say(stream, f"attitude-sim: kernels compiled in {seconds:.1f} s")
        self._ready = True
        return seconds

    def _in_child(self, types, missing=False) -> None:
        """A child Python (:data:`_CHILD`, one a core) compiles it for ``types`` (``missing``: even if cached); raises."""
        try:
            if _kernel_named(*self.__reduce__()[1]) is not self:
                return
            data = pickle.dumps((self, types))
        except Exception:
            return
        here = str(_SIM.parent)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p),
                   ATTITUDE_SIM_CACHE=str(_choose_cache_dir().parent))  # this process's sim and cache folder
        env.pop("MUTANT_UNDER_TEST", None)
        with _children:
            if _cached(self) and not missing:  # compiled while this one waited (another process, a thread before)
                return
            proc = subprocess.run([sys.executable, "-c", _CHILD], input=data, env=env, cwd=here, capture_output=True)
        if proc.returncode != 0:
            lines = proc.stderr.decode(errors="replace").strip().splitlines() or [f"exit {proc.returncode}"]
            raise RuntimeError(f"compiling {self!r} in a child process failed: {lines[-1]}")

    def _background(self, args, types=None) -> None:
        try:
            missing, types = types is not None, types or tuple(self.dispatcher.typeof_pyval(a) for a in args)
            if missing or not _cached(self):
                self._in_child(types, missing)  # a first compile: not in this process (the GIL, numba's lock)
            self.compile(types=types, stream=False)
        except BaseException as exc:  # kept for wait(); the callers step in Python meanwhile
            self._error = exc

    def start(self, *args) -> None:
        """Load it for the types of ``args`` (default: its sample) in a thread of its own (once; nothing when it is
        ready or loading, or the JIT is off); calls run Python until it is ready."""
        if self._ready or self._thread is not None or DISABLED:
            return
        args = self._args(args)
        with self._guard:
            if self._thread is None:
                self._thread = threading.Thread(target=self._background, args=(args,), daemon=True,
                                                name=f"attitude-sim loads {self.py_func.__name__}")
                self._thread.start()

    def _load_types(self, types) -> None:
        """A call of numba's ``types``, not loaded: a thread loads them (once), a child compiling them.

        A call of those types made while the thread loads them waits for numba's compiler lock, which the load
        holds, then finds compiling disabled again (numba checks that before its overloads): the kernel did not
        run, and :meth:`__call__` calls it again, now loaded.  Seen once in ``make test`` (an MEKF's update called
        with read-only arrays while a thread loaded them)."""
        with self._guard:
            if types not in self._more and not self._more.add(types):  # once
                threading.Thread(target=self._background, args=((), types), daemon=True, name="attitude-sim "
                                 f"loads {self.py_func.__name__} for other types").start()

    def wait(self, *args, stream=None) -> float:
        """Load it now for the types of ``args`` (default: its sample): in this thread, saying so on ``stream``
        (default stderr; False: silent) when it compiles, or by waiting for the thread of :meth:`start`.  The
        seconds it took (0.0 when it was ready, or the JIT is off: calls then run the kernel's path as Python).
        Raises what the compile raised (numba's typing error, an unwritable cache)."""
        if self._ready:
            return 0.0
        if DISABLED:
            self._ready = True
            return 0.0
        start = time.perf_counter()
        with self._guard:
            thread = self._thread
        if thread is None:
            return self.compile(*args, stream=stream)
        thread.join()
        if self._error is not None:
            raise self._error
        return time.perf_counter() - start


def _kernel_named(module: str, name: str) -> Kernel:
    """The kernel ``name`` of ``module`` (:meth:`Kernel.__reduce__`: a pickled kernel is found again by name)."""
    return getattr(importlib.import_module(module), name)


#: Every :class:`Kernel` made in this process (:func:`wait_all`, :func:`load_all`).
KERNELS: list = []


def wait_all() -> float:
    """Wait for every load started (:meth:`Kernel.start`; a bench's warm-up run, so that what it times next runs
    compiled; a load that failed leaves its kernel in Python); the seconds it waited."""
    start = time.perf_counter()
    for k in list(KERNELS):
        thread = k._thread
        if thread is not None:
            thread.join()
    return time.perf_counter() - start


def load_all(stream=None) -> dict:
    """Load now, in this thread, every kernel that knows its sample arguments (:meth:`Kernel.warms`), saying on
    ``stream`` (default stderr; False: silent) what it does, kernel by kernel with its seconds; those seconds."""
    todo = [k for k in KERNELS if k.sample is not None and not k.ready and not DISABLED]
    if not todo:
        return {}
    _say(stream, f"attitude-sim: loading the simulation kernels ({len(todo)}; the first time they are compiled, "
                 f"once, into {_choose_cache_dir()}) ...")
    seconds = {}  # in this process, one after another: the formulas two kernels share are compiled once
    for i, k in enumerate(todo, 1):  # (in children at once: 13 s more CPU and slower at load 4, PERFORMANCE.md)
        seconds[k] = k.wait(stream=False)
        _say(stream, f"attitude-sim: [{i}/{len(todo)}] {k.py_func.__module__}.{k.py_func.__name__}: "
                     f"{seconds[k]:.1f} s")
    return seconds


def jitable(fn=None, *, inline: bool = False):
    """A formula: plain Python for Python callers, compiled into the kernels that call it (``register_jitable``);
    ``inline=True``: inlined into each caller at numba's IR level (a step's hot dispatch only: PERFORMANCE.md)."""
    def wrap(f, how="always" if inline else "never"):
        if DISABLED:
            return f
        jit_codegen.link_only(f)
        with _lock:
            if _numba is None:
                _pending.append((f, how))
                return f
        from numba.extending import register_jitable
        return register_jitable(inline=how, **jit_codegen.FORMULA_OPTIONS)(f)
    return wrap if fn is None else wrap(fn)


def kernel(fn=None, *, parallel: bool = False):
    """An entry point from Python (:class:`Kernel`): nopython, no GIL held, numpy's error model; ``parallel=True``
    lets its ``prange`` loops run on every core (an ensemble's body loop)."""
    def wrap(f):
        return Kernel(f, parallel=parallel)
    return wrap if fn is None else wrap(fn)
