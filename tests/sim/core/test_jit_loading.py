"""Loading the compiled kernels without blocking (sim/core/jit.py, issue 42).

A :class:`sim.core.jit.Kernel` called before it is loaded runs its Python source and starts loading in a thread
of its own; once loaded, calls run the compiled code.  The switch must not change a number: the compiled code
is bit for bit the Python source (numba's math is libm, as Python's ``math``).  And ``import sim`` must not
import numba (0.2 s of every start-up, scipy with it): only the first kernel needed does.
"""

import os
import threading
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sim.model.settings import Settings
from sim.model.simulation import Simulation

from sim.core import advance, jit, jit_codegen
from sim.gnc import kalman

ROOT = Path(__file__).resolve().parents[3]

needs_jit = pytest.mark.skipif(jit.DISABLED, reason="the JIT is off: nothing is compiled")


def _filters(seed, n=5):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1)[:, None]
    a = rng.normal(size=(n, 6, 6))
    p = np.einsum("nij,nkj->nik", a, a) * 1e-4              # symmetric positive definite covariances
    qd = np.diag(rng.uniform(1e-9, 1e-7, 6))
    return q, rng.normal(size=(n, 3)) * 1e-3, p, rng.normal(size=(n, 3)) * 0.3, 0.05, qd


@needs_jit
def test_a_kernel_runs_its_python_source_until_loaded_then_the_same_bits_compiled(monkeypatch):
    fresh = jit.Kernel(kalman.mekf_propagate.py_func)     # a kernel of its own: not loaded in this process
    assert not fresh.ready and not fresh.loading
    python, before, compiled = _filters(1), _filters(1), _filters(1)
    for _ in range(20):
        kalman.mekf_propagate.py_func(*python)
    fresh(*before)
    assert not fresh.loading and not fresh.ready           # a short while in Python: no load (WARM_SECONDS)
    monkeypatch.setattr(jit, "WARM_SECONDS", 0.0)
    for _ in range(19):                                    # called before it is ready: Python, a load started
        fresh(*before)
    assert fresh.loading or fresh.ready
    fresh.wait(*before)
    assert fresh.ready and not fresh.loading and fresh.signatures
    for _ in range(20):
        fresh.dispatcher(*compiled)                        # numba's, compiled
    for a, b, c in zip(python[:3], before[:3], compiled[:3]):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))
        assert np.array_equal(a.view(np.int64), c.view(np.int64))
    assert not np.array_equal(python[2], _filters(1)[2])  # the filters did move


@needs_jit
def test_the_compiled_advance_is_the_python_source_bit_for_bit():
    rng = np.random.default_rng(7)
    for integrator in advance.INTEGRATORS:
        for norm in advance.NORMS:
            par, flags = advance.pack(_Torque(rng), (20.0, 0.5, 0.0, 0.5, 30.0, 0.0, 0.0, 0.0, 40.0),
                                      tuple(np.linalg.inv([[20.0, 0.5, 0.0], [0.5, 30.0, 0.0], [0.0, 0.0, 40.0]]).ravel()),
                                      0.01, integrator, norm)
            q = rng.normal(size=4)
            state = np.concatenate([q / np.linalg.norm(q), rng.normal(size=3), [0.0]])
            one, two = state.copy(), state.copy()
            head = np.concatenate([[0.5, 7.0], q / np.linalg.norm(q), [10.0, -20.0, 30.0]])  # issue 42's rows too
            rows_one, rows_two = np.full((300, 33), np.nan), np.full((300, 33), np.nan)
            advance.advance.wait()
            assert (advance.advance.py_func(one, par, flags, 300, (rows_one, head))
                    == advance.advance.dispatcher(two, par, flags, 300, (rows_two, head)))
            assert np.array_equal(one.view(np.int64), two.view(np.int64)), (integrator, norm)
            assert np.array_equal(rows_one.view(np.int64), rows_two.view(np.int64)), (integrator, norm)
            assert not np.isnan(rows_one).any()


class _Torque:
    """What :func:`sim.core.advance.pack` reads of a torque model: the controller with dampers and a limiter."""

    def __init__(self, rng):
        self.command = tuple(rng.normal(size=3) * 0.1)
        self.dampers = (0.5, 0.4, 0.3)
        q = rng.normal(size=4)
        self.qc = tuple(q / np.linalg.norm(q))
        self.gains = (2.0, 1.5, 1.0)
        self.limits = (0.5, 0.5, 0.5)
        self.dampers_on, self.controller, self.axes = True, "quaternion", (True, True, True)
        self.shortest_path, self.limiter_on = True, True


@needs_jit
def test_wait_all_waits_for_every_load_a_call_started(monkeypatch):
    monkeypatch.setattr(jit, "WARM_SECONDS", 0.0)
    fresh = jit.Kernel(kalman.mekf_propagate.py_func)
    idle = jit.Kernel(kalman.mekf_propagate.py_func)     # never called: nothing to wait for
    fresh(*_filters(2))
    jit.wait_all()
    assert fresh.ready and not fresh.loading
    assert not idle.ready and not idle.loading


def test_a_kernel_pickles_by_name_as_numbas_dispatcher_does():
    import pickle

    assert pickle.loads(pickle.dumps(kalman.mekf_propagate)) is kalman.mekf_propagate
    assert pickle.loads(pickle.dumps(advance.advance)) is advance.advance


@needs_jit
def test_a_load_that_fails_is_raised_by_wait_and_calls_stay_python():
    def untyped(x):
        return x.no_such_attribute                       # numba cannot type it

    fresh = jit.Kernel(untyped)
    fresh.start(np.zeros(2))
    with pytest.raises(Exception, match="no_such_attribute"):
        fresh.wait(np.zeros(2))
    assert not fresh.ready
    with pytest.raises(AttributeError):                  # Python's own error, from the Python source
        fresh(np.zeros(2))


@needs_jit
def test_a_loaded_kernel_called_with_other_types_runs_python_while_a_thread_loads_them(monkeypatch):
    """The window's ensemble of MEKFs stood still 12-60 s (no frame in 8 s): its kernel, loaded for its sample's
    types, was called with an F-ordered array and numba compiled that call in the stepping threads, holding the
    interpreter and compiler locks.  Now such a call runs the Python source (the same bits) and a thread of its
    own loads the new types; numba never compiles in the caller's thread."""
    import threading

    fresh = jit.Kernel(kalman.mekf_propagate.py_func)     # a kernel of its own, loaded for C-ordered arrays
    fresh.wait(*_filters(3))
    compiled_in = []
    compile_for = fresh.dispatcher.compile
    monkeypatch.setattr(fresh.dispatcher, "compile",
                        lambda sig: compiled_in.append(threading.current_thread()) or compile_for(sig))
    python, other = _filters(4), _filters(4)
    other = (other[0], other[1], np.asfortranarray(other[2]), *other[3:])   # covariances F-ordered: other types
    kalman.mekf_propagate.py_func(*python)
    fresh(*other)
    for thread in [t for t in threading.enumerate() if t.name.endswith("for other types")]:
        thread.join()
    assert compiled_in and threading.current_thread() not in compiled_in
    for a, b in zip(python[:3], other[:3]):
        assert np.array_equal(a.view(np.int64), b.view(np.int64))  # the Python source's numbers, bit for bit
    assert len(fresh.signatures) == 2                    # the F-ordered types loaded since
    fresh(*other)                                        # and run compiled: the same bits again
    kalman.mekf_propagate.py_func(*python)
    assert np.array_equal(python[2], other[2]) and len(compiled_in) == 1


@needs_jit
def test_a_call_that_finds_compiling_disabled_after_a_load_added_its_types_runs_them():
    """The race of a call with types a thread is loading: numba's dispatch misses them, the call waits for the
    compiler lock the load holds, then numba refuses to compile ("compilation disabled") although the load has
    just added them (``make test``, stop 53: an MEKF's update failed so).  The call runs the loaded code."""
    fresh = jit.Kernel(kalman.mekf_propagate.py_func)
    fresh.wait(*_filters(3))
    other = _filters(5)
    other = (other[0], other[1], np.asfortranarray(other[2]), *other[3:])   # other types ...
    fresh.compile(*other, stream=False)                                     # ... loaded, as by the thread

    class Racing:
        """The dispatcher as the racing call met it: refusing once, then dispatching."""

        def __init__(self, real):
            self.real, self.refused = real, False

        def __call__(self, *args):
            if not self.refused:
                self.refused = True
                raise RuntimeError("compilation disabled")
            return self.real(*args)

        def __getattr__(self, name):
            return getattr(self.real, name)

    fresh._dispatcher = racing = Racing(fresh._dispatcher)
    python = _filters(5)
    kalman.mekf_propagate.py_func(*python)
    fresh(*other)
    assert racing.refused
    assert np.array_equal(python[2], other[2])                  # run, the same bits as the Python source
    assert not [t for t in threading.enumerate() if t.name.endswith("for other types") and t.is_alive()]


CHILD = """
import sys
import sim
from sim import api
{body}
print(sorted(m for m in ("numba", "scipy", "llvmlite", "astropy", "PySide6", "pyqtgraph") if m in sys.modules))
"""


def _imported(body, **env):
    environ = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    environ.pop("MUTANT_UNDER_TEST", None)
    proc = subprocess.run([sys.executable, "-c", CHILD.format(body=body)], cwd=ROOT, env=environ,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.subprocess
def test_import_sim_and_a_short_run_import_neither_numba_nor_scipy():
    assert _imported("") == "[]"
    assert _imported("api.run('default', duration=1.0, every=10)") == "[]"


@pytest.mark.subprocess
def test_with_the_jit_off_no_kernel_imports_numba():
    body = ("from sim.core import advance\nadvance.advance.wait()\nimport numpy as np\n"
            "s = np.zeros(8); s[3] = 1.0; s[4] = 0.1\n"
            "par, flags = np.zeros(35), np.zeros(9, dtype=np.int64)\npar[16] = par[20] = par[24] = 1.0\n"
            "par[25] = par[29] = par[33] = 1.0\npar[34] = 0.01\n"
            "assert advance.advance(s, par, flags, 10, advance.NO_ROWS) == (0, 10) and advance.advance.ready")
    assert _imported(body, NUMBA_DISABLE_JIT="1") == "[]"


LONG_RUN = """
from sim import api
from sim.core import advance
rows = api.stream(api.as_scenario("default"), duration=1.0, every=10)
next(rows), next(rows)
assert not advance.advance.ready             # a short headless run: nothing loaded
rows = api.stream(api.as_scenario("default"), duration=25.0, every=10)
next(rows)                                   # the first row (t = 0) comes before any wait
next(rows)
assert advance.advance.ready                 # a long one (25,000 steps in calls of 10) waits at its start
print("ok")
"""


@pytest.mark.subprocess
@needs_jit
def test_a_long_headless_run_waits_for_the_compiled_advance_at_its_start():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MUTANT_UNDER_TEST", None)
    proc = subprocess.run([sys.executable, "-c", LONG_RUN], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_a_kernel_run_as_python_returns_what_the_compiled_kernel_returns():
    """Before it is loaded (or with the JIT off) a kernel runs its Python source, which reads its arrays'
    elements as numpy scalars; the caller gets Python floats, ints and bools as from numba, in tuples too (a
    run's CSV read ``np.float64(2.6e-05)`` when they leaked into the state)."""
    from sim.core.jit import boxed

    got = boxed((np.float64(2.5), (np.int64(3), np.bool_(True)), np.zeros(2), 1.0))
    assert type(got[0]) is float and type(got[1][0]) is int and type(got[1][1]) is bool
    assert isinstance(got[2], np.ndarray) and got[3] == 1.0
    sim = Simulation(Settings(orbit=(500.0, 0.0, 51.6, 0.0, 0.0, 0.0), srp=True))
    sim.step(2)  # the SRP facet sums, run as Python before their kernel loads
    assert all(type(x) is float for x in (*sim.q, *sim.w)) and all(type(x) is float for x in sim.row()), sim.row()


def test_numba_formats_its_messages_without_touching_the_output_streams():
    """numba's coloured messages go through colorama's init()/deinit(), which set sys.stdout and sys.stderr back
    to what they were at init(): from a kernel's loader thread, the main thread's redirected output (pytest's
    capsys) went to the old stream, and tests of the command line read nothing.  sim.core.jit turns the
    colours off before numba is imported."""
    from sim.core import jit

    jit.numba_module()
    from numba.core import errors

    assert type(errors.termcolor()).__name__ == "NOPColorScheme"


@needs_jit
def test_the_warm_up_rule_counts_python_steps_then_loads_in_a_thread_and_a_long_call_waits():
    """sim.core.jit.Kernel.wanted, the one rule every stepping caller asks: False while the steps are counted in
    Python; the call that brings them to warm_after starts the load in a thread and still steps in Python; a call
    of warm_after steps or more waits for the kernel."""
    counted = jit.Kernel(advance.advance.py_func).warms(advance.advance.sample, 10)
    assert [counted.wanted(3) for _ in range(3)] == [False] * 3
    assert counted.python_steps == 9 and not counted.loading and not counted.ready
    assert not counted.wanted(1)                        # the tenth step: a thread loads it, this one is Python
    assert counted.loading or counted.ready
    counted.wait()
    assert counted.wanted(1) and counted.python_steps == 10
    long = jit.Kernel(advance.advance.py_func).warms(advance.advance.sample, 10)
    assert long.wanted(10) and long.ready and long.python_steps == 0   # one long call: loaded now
    short = jit.Kernel(advance.advance.py_func).warms(advance.advance.sample, 10)
    assert not short.prepare(9) and not short.ready and not short.loading  # fewer steps to come: no wait
    assert short.prepare(10) and short.ready


def test_with_the_jit_off_the_rule_switches_only_when_asked(monkeypatch):
    monkeypatch.setattr(jit, "DISABLED", True)
    off = jit.Kernel(advance.advance.py_func).warms(advance.advance.sample, 10)
    assert not off.wanted(100) and not off.prepare(100) and not off.loading
    assert off.wait() == 0.0 and off.wanted(1)          # asked: the kernel's path runs as Python
    state = np.zeros(8)
    state[3] = 1.0
    par = np.zeros(35)
    par[[16, 20, 24, 25, 29, 33]] = 1.0
    par[34] = 0.01
    assert off(state, par, np.zeros(9, dtype=np.int64), 5, advance.NO_ROWS) == (0, 5)


@needs_jit
def test_load_all_says_what_it_does_kernel_by_kernel(capsys):
    from sim.model import world_kernel

    fresh = jit.Kernel(world_kernel.world_kernel.py_func).warms(world_kernel.world_kernel.sample, 1)
    seconds = jit.load_all()
    err = capsys.readouterr().err
    assert fresh in seconds and fresh.ready and all(k.ready for k in seconds)
    assert "loading the simulation kernels" in err and f"[{len(seconds)}/{len(seconds)}]" in err
    assert "sim.model.world_kernel.world_kernel" in err


@needs_jit
def test_only_the_step_dispatch_is_inlined_into_its_callers():
    """``@jitable(inline=True)`` reaches numba as ``inline="always"`` (the body's step 70 ns to 36 ns,
    docs/PERFORMANCE.md, issue 42); a plain ``@jitable`` stays a call (inlining every formula made the compiles
    minutes long), and both stay the plain Python function for Python callers."""
    from numba.core.registry import cpu_target

    jit.numba_module()
    typing = cpu_target.typing_context
    typing.refresh()

    def how(fn):
        return {t._inline.value for t in typing.resolve_value_type(fn).templates}

    assert how(advance.checked_step) == how(advance._step) == {"always"}
    assert how(advance.normed) == how(advance.step_torque) == {"never"}
    assert advance.checked_step.__module__ == "sim.core.advance" and not hasattr(advance.checked_step, "py_func")


@pytest.mark.parametrize(("value", "off"), [(None, False), ("", False), ("0", False), ("1", True), ("2", True),
                                            (" 1 ", True), ("yes", False), ("1.5", False)])
def test_the_switch_reads_numba_disable_jit_as_numba_does(monkeypatch, value, off):
    """``jit.DISABLED`` is made at import, before a test can change the environment: the rule that makes it is
    called here.  numba's reading (numba.core.config, ``_readenv(name, int, 0)``): unset or empty is 0, an
    integer is read with ``int`` (spaces allowed), anything else falls back to 0 (numba warns); non-zero is off."""
    if value is None:
        monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    else:
        monkeypatch.setenv("NUMBA_DISABLE_JIT", value)
    assert jit._disabled() is off


def test_the_decorators_keep_a_formula_callable_from_python_and_make_an_entry_point_a_kernel(monkeypatch):
    """``@jitable`` and ``@kernel`` are applied at import, before mutmut switches a mutant on: called here.  A
    formula stays the Python function for Python callers (with the JIT off it is the function itself); an entry
    point becomes a :class:`jit.Kernel` around it, numba's ``parallel`` option as asked, listed in ``KERNELS``.
    With the JIT off nothing is handed on to numba (no formula queued for it, none recorded for linking)."""
    monkeypatch.setattr(jit, "KERNELS", [])
    monkeypatch.setattr(jit, "_pending", [])
    monkeypatch.setattr(jit_codegen, "FORMULAS", set())

    def double(x):
        return 2.0 * x

    formula, inlined = jit.jitable(double), jit.jitable(inline=True)(double)
    assert formula(1.5) == inlined(1.5) == 3.0
    if jit.DISABLED:
        assert formula is double and inlined is double and jit._pending == [] and jit_codegen.FORMULAS == set()
    entry, many = jit.kernel(double), jit.kernel(parallel=True)(double)
    assert isinstance(entry, jit.Kernel) and isinstance(many, jit.Kernel)
    assert entry.py_func is double and many.py_func is double and entry.__name__ == "double"
    assert entry._options["parallel"] is False and many._options["parallel"] is True
    assert jit.KERNELS == [entry, many]


def test_a_kernel_asks_numba_for_nopython_no_gil_numpys_errors_and_the_disk_cache(monkeypatch):
    """What :func:`jit.kernel` and :class:`jit.Kernel` promise (their docstrings): numba's ``njit`` (nopython), the GIL
    released, numpy's error model (a division by zero gives inf, as the Python path's numpy does), the disk cache
    (a second process loads instead of compiling), ``parallel`` only when asked.  numba is a recorder here, so the
    request is read with the JIT off too."""
    asked = []

    def njit(fn, **options):
        asked.append((fn, options))
        return fn

    monkeypatch.setattr(jit, "KERNELS", [])
    monkeypatch.setattr(jit, "_numba", type("FakeNumba", (), {"njit": staticmethod(njit), "prange": range}))

    def double(x):
        return 2.0 * x

    assert jit.kernel(double).dispatcher is double and jit.kernel(parallel=True)(double).dispatcher is double
    promised = dict(cache=True, nogil=True, error_model="numpy")
    assert asked == [(double, {**promised, "parallel": False}), (double, {**promised, "parallel": True})]


def test_start_loads_for_the_calls_arguments_in_one_thread_of_its_own_once(monkeypatch):
    """:meth:`jit.Kernel.start` hands the arguments of the call (or the sample's) to one loading thread, named for
    the kernel, and a second start while it loads starts none.  The load itself is a recorder here, so this runs
    with the JIT off too (where a real start does nothing)."""
    monkeypatch.setattr(jit, "KERNELS", [])
    monkeypatch.setattr(jit, "DISABLED", False)

    def double(x):
        return 2.0 * x

    k = jit.Kernel(double).warms(lambda: (3.0,), 1)
    loads, release = [], threading.Event()

    def load(args, types=None):
        loads.append((args, types, threading.current_thread().name))
        release.wait(10)

    monkeypatch.setattr(k, "_background", load)
    k.start(1.5)
    k.start(2.5)  # loading already: nothing more
    thread = k._thread
    release.set()
    thread.join(10)
    assert loads == [((1.5,), None, "attitude-sim loads double")]
    fresh = jit.Kernel(double).warms(lambda: (3.0,), 1)
    monkeypatch.setattr(fresh, "_background", load)
    fresh.start()  # no arguments: the sample's
    fresh._thread.join(10)
    assert loads[1] == ((3.0,), None, "attitude-sim loads double")
