"""The first run after an install: every compiled kernel compiled from an empty disk cache (issue 42: 30 s at most).

``python -m bench.kernels [--scenarios NAME ...]`` runs a child Python with an empty cache (``ATTITUDE_SIM_CACHE``
a new temporary folder) that compiles every kernel in turn, in its own thread, and times each: first the kernels
that know their sample arguments (:func:`sim.core.jit.load_all`), then every other kernel at its first call in a
short run (2 s simulated) of each built-in scenario (``--called --scenarios NAME``: only the kernels a 60 s run of
NAME calls, all of them past their warm-up: what a scenario's first run compiles) (``WARM_SECONDS`` = 0, and
:meth:`sim.core.jit.Kernel.start` replaced by a timed :meth:`~sim.core.jit.Kernel.wait`).  Then a second child does the same from the cache the
first filled: what every later start pays when it loads them all.  Wall time of the compiles (one thread each);
the machine is shared, so the load average is printed beside.  ``--before DIR [--repeats N]`` does the compiles in
an older tree too, the trees in turns, and prints each kernel's CPU seconds old beside new (medians).

``--first [--before DIR]`` times the first run of each kind after an install (:data:`FIRST_RUNS`: the command
line waiting for its kernel, which it compiles, saying so; every kernel at once, compiled side by side in
children), each from an empty cache: wall and CPU, the compiling children's included.

``--passes KERNEL [--opt N]`` compiles one kernel from an empty cache and prints where its CPU time goes, by
numba pass (type inference, lowering: LLVM and machine code) and by function (numba's ``numba:run_pass`` events),
then LLVM's part of the lowering by numba's code-generation step (IR parsed and linked, function passes, module
pipelines, machine code, modules cloned and linked).

Every child inherits the environment: ``ATTITUDE_SIM_FULL_CODEGEN=1 python -m bench.kernels ...`` times the same
tree with :mod:`sim.core.jit_codegen`'s hook off (numba's own code generation: each formula's library optimised
and compiled to machine code on its own), the way to measure the hook alone.

``--startup [--before DIR]`` times the starts instead, each in a fresh process, with an empty cache and with the
cache filled, for this tree and (``--before``, e.g. ``git archive 06c9771 | tar -x -C DIR``) the tree before,
interleaved, median of ``--repeats``: ``attitude-sim run --duration 1`` (default and ``fly_on_estimate``: the
process's whole life; goal 1 s) and the window's launch to its first drawn frame (``default`` and
``sun_pointing``; goal 2 s; needs a display).  The figures are in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from bench.cli_run import start_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHILD = r"""
import json, sys, time
from sim.core import jit
import sim.model.advance_craft, sim.model.world, sim.ensemble.compiled, sim.model.thruster_drive
from sim import api
from sim.run.scenario import builtin_dir

seconds, cpu_seconds = {}, {}


wait = jit.Kernel.wait


def timed(kernel, *args, stream=None):  # every load, in this thread, timed
    name = f"{kernel.py_func.__module__}.{kernel.py_func.__name__}"
    if kernel.ready or name in seconds:
        return wait(kernel, *args, stream=stream)
    start, cpu = time.perf_counter(), time.thread_time()
    wait(kernel, *args, stream=False)
    seconds[name] = time.perf_counter() - start
    cpu_seconds[name] = time.thread_time() - cpu
    return seconds[name]


def first(kernel, *args):  # a kernel's first want: loaded now, in this thread
    kernel.wait(*args)


begin = time.perf_counter()
jit.WARM_SECONDS = 0.0
jit.Kernel.start = first
jit.Kernel.wait = timed
called, names = sys.argv[1] == "called", sys.argv[2:]
for kernel in [k for k in jit.KERNELS if k.sample is not None]:
    if called:
        kernel.warm_after = 1  # wanted at a run's first step, as after its warm-up
    else:
        first(kernel)
for name in names or sorted(p.stem for p in builtin_dir().glob("*.toml")):
    api.run(name, duration=60.0 if called else 2.0, every=10**9, force=True)
print(json.dumps({"wall": time.perf_counter() - begin, "kernels": seconds, "cpu": cpu_seconds}))
"""


def measure(cache: str, names=(), called: bool = False, tree: str = ROOT) -> dict:
    """``{"wall": s, "kernels": {name: s}, "cpu": {name: s}}`` of a child of ``tree`` compiling (or loading) every
    kernel into ``cache`` (``called``: only those that runs of 60 s of ``names`` call, past their warm-up)."""
    env = dict(os.environ, PYTHONPATH=tree, ATTITUDE_SIM_CACHE=cache)
    env.pop("NUMBA_DISABLE_JIT", None)
    out = subprocess.run([sys.executable, "-c", CHILD, "called" if called else "all", *names], cwd=tree, env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


#: The window's launch to its first drawn frame (bench/gui.py's child, the scenario given on the command line).
WINDOW = r"""
import sys
from app.window import application, open_window
from sim.run.scenario import load
app = application()
window = open_window(load(sys.argv[1]), remember_geometry=False)
def first():
    print("FIRST_FRAME", flush=True)
    window.close()
    app.quit()
window.viewer.frameSwapped.connect(first)
app.exec()
"""

#: (label, command line after ``python``) of the starts timed by ``--startup``.
STARTS = (("attitude-sim run --duration 1", ["-m", "app.cli", "run", "--duration", "1"]),
          ("... --scenario fly_on_estimate", ["-m", "app.cli", "run", "--scenario", "fly_on_estimate", "--duration", "1"]),
          ("window: launch -> first frame, default", ["-c", WINDOW, "default"]),
          ("window: launch -> first frame, sun_pointing", ["-c", WINDOW, "sun_pointing"]))


def start_seconds(tree: str, command: list, cache: str) -> tuple:
    """Wall seconds of one start of ``command`` in ``tree`` with the disk cache ``cache`` (to the first frame for
    the window, the whole process for the command line) and the CPU seconds of its whole process."""
    env = dict(start_env(tree), ATTITUDE_SIM_CACHE=cache)  # bytecode written and read, as an install has it
    env.pop("NUMBA_DISABLE_JIT", None)
    with tempfile.TemporaryDirectory() as out:
        extra = ["--out", os.path.join(out, "run.csv")] if command[0] == "-m" else []
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, *command, *extra], cwd=tree, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True)
        for line in proc.stdout:
            if line.startswith("FIRST_FRAME"):
                break
        seconds = time.perf_counter() - start
        proc.stdout.close()
        code = proc.wait(timeout=120)
        if code != 0 and command[0] == "-m":  # the window's child may die at its exit, after its first frame
            raise RuntimeError(f"{command} failed in {tree}")  # (-11 in the tree before this change too)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


#: Fills a cache with the kernels a long run loads: this tree's rule, or the modules' load() of a tree before it.
FILL = """
try:
    from sim.core.jit import load_all
    import sim.model.advance_craft, sim.model.world
    load_all(stream=False)
except ImportError:
    from sim.core import advance
    from sim.model import advance_craft, world
    advance.load(); advance_craft.load(); world.load()
"""


def startup(trees: dict, repeats: int, starts=STARTS) -> None:
    """Print the median start of each of :data:`STARTS` in each tree, empty cache and filled, interleaved."""
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    with tempfile.TemporaryDirectory() as filled:
        for tree in trees.values():
            env = dict(os.environ, PYTHONPATH=tree, ATTITUDE_SIM_CACHE=filled)
            subprocess.run([sys.executable, "-c", FILL], cwd=tree, env=env, check=True, capture_output=True)
        for label, command in starts:
            times = {(name, cold): [] for name in trees for cold in (True, False)}
            for _ in range(repeats):
                for name, tree in trees.items():
                    for cold in (True, False):
                        with tempfile.TemporaryDirectory() as empty:
                            times[name, cold].append(start_seconds(tree, command, empty if cold else filled))
            cells = "  ".join(f"{name} {'empty' if cold else 'filled'} {statistics.median(w for w, _ in t):.2f} s "
                              f"(CPU {statistics.median(c for _, c in t):.2f})" for (name, cold), t in times.items())
            print(f"{label:45s} {cells}", flush=True)


#: (label, command line after ``python``) of the first runs after an install timed by ``--first``: each waits for
#: the kernel of its run, compiled from an empty cache (issue 42: at most 30 s wall on the idle machine, saying so).
FIRST_RUNS = (("run --duration 60 (default: the plain advance)", ["-m", "app.cli", "run", "--duration", "60"]),
              ("run --scenario sun_pointing --duration 3600", ["-m", "app.cli", "run", "--scenario", "sun_pointing",
                                                              "--duration", "3600"]),
              ("run --scenario fly_on_estimate --duration 3600", ["-m", "app.cli", "run", "--scenario",
                                                                 "fly_on_estimate", "--duration", "3600"]),
              ("every kernel at once (jit.load_all)", ["-c", FILL]))


def first_runs(trees: dict, repeats: int) -> None:
    """Print each of :data:`FIRST_RUNS` from an empty cache in each tree (wall and CPU of the process and its
    compiling children; the trees in turns, median of ``repeats``)."""
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    for label, command in FIRST_RUNS:
        times = {name: [] for name in trees}
        for _ in range(repeats):
            for name, tree in trees.items():
                with tempfile.TemporaryDirectory() as empty:
                    times[name].append(start_seconds(tree, command, empty))
        cells = "  ".join(f"{name} {statistics.median(w for w, _ in t):6.1f} s (CPU {statistics.median(c for _, c in t):.1f})"
                          for name, t in times.items())
        print(f"{label:50s} {cells}   (goal: 30 s wall, idle)", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


#: One kernel compiled from an empty cache in this child, each numba pass's thread CPU time (``numba:run_pass``
#: events; a callee's nested compile taken out of its caller's pass) and LLVM's part (numba's code-generation
#: methods, each call's thread CPU: within ``native_lowering``), printed as JSON.  numba is imported by
#: ``sim.core.jit`` first, as in a run (its error messages plain: imported before, numba formats every typing
#: failure it tries in colour, 4 % of a compile).
PASSES = r"""
import collections, functools, importlib, json, sys, time
from sim.core import jit
jit.numba_module()
from numba.core import codegen, event
import llvmlite.binding as ll
stack, spent, llvm, calls = [], collections.Counter(), collections.Counter(), collections.Counter()
class Passes(event.Listener):
    def on_start(self, ev):
        stack.append([ev.data["name"], time.thread_time(), 0.0])
    def on_end(self, ev):
        name, start, inner = stack.pop()
        took = time.thread_time() - start
        spent[name] += took - inner
        if stack:
            stack[-1][2] += took
def timed(cls, method, label):
    wrapped = getattr(cls, method)
    @functools.wraps(wrapped)
    def timer(*args, **kwargs):
        start = time.thread_time()
        try:
            return wrapped(*args, **kwargs)
        finally:
            llvm[label] += time.thread_time() - start
            calls[label] += 1
    setattr(cls, method, timer)
for cls, method, label in ((codegen.CPUCodeLibrary, "add_ir_module", "IR added (parsed, verified, linked)"),
                           (codegen.CPUCodeLibrary, "_optimize_functions", "of it function passes"),
                           (codegen.CPUCodeLibrary, "finalize", "libraries finalised"),
                           (codegen.CPUCodeLibrary, "_optimize_final_module", "of it module pipelines"),
                           (codegen.JITCodeLibrary, "_finalize_specific", "of it machine code"),
                           (codegen.CPUCodeLibrary, "_get_module_for_linking", "modules cloned for linking"),
                           (ll.ModuleRef, "link_in", "modules linked")):
    llvm[label], calls[label] = 0.0, 0  # printed in this order
    timed(cls, method, label)
module, name = sys.argv[1].rsplit(".", 1)
kernel = getattr(importlib.import_module(module), name, None)
if not isinstance(kernel, jit.Kernel) or kernel.sample is None:
    sys.exit(f"no kernel {sys.argv[1]} that knows its sample arguments")
start = time.thread_time()
with event.install_listener("numba:run_pass", Passes()):
    kernel.compile(stream=False)
print(json.dumps({"cpu": time.thread_time() - start, "passes": spent, "llvm": llvm, "calls": calls}))
"""


def passes(kernel: str, opt=None) -> None:
    """Print where ``kernel``'s compile from an empty cache goes (numba's optimisation level ``opt``, default
    numba's): each pass's CPU seconds over all the formulas it compiled, then the functions that cost most."""
    env = dict(os.environ, PYTHONPATH=ROOT, **({"NUMBA_OPT": str(opt)} if opt is not None else {}))
    env.pop("NUMBA_DISABLE_JIT", None)
    with tempfile.TemporaryDirectory() as cache:
        out = subprocess.run([sys.executable, "-c", PASSES, kernel], cwd=ROOT, capture_output=True, text=True,
                             env=dict(env, ATTITUDE_SIM_CACHE=cache))
    if out.returncode != 0:
        raise SystemExit(f"--passes {kernel}: {(out.stderr.strip().splitlines() or ['failed'])[-1]}")
    data = json.loads(out.stdout.strip().splitlines()[-1])
    by_pass, by_function = {}, {}
    for name, seconds in data["passes"].items():  # "pass [function]"
        step, function = name.split(" [", 1)
        by_pass[step] = by_pass.get(step, 0.0) + seconds
        by_function[function.rstrip("]")] = by_function.get(function.rstrip("]"), 0.0) + seconds
    print(f"{kernel}: {data['cpu']:.1f} s of CPU, {len(by_function)} functions compiled, NUMBA_OPT "
          f"{opt if opt is not None else 'default'}, load average {os.getloadavg()[0]:.1f}")
    for label, table in (("pass", by_pass), ("function", by_function)):
        for name, seconds in sorted(table.items(), key=lambda kv: -kv[1])[:12]:
            print(f"  {label} {name:45s} {seconds:7.2f} s")
    for name, seconds in data["llvm"].items():  # LLVM's part (C++ behind llvmlite) of native_lowering
        print(f"  llvm {name:45s} {seconds:7.2f} s  ({data['calls'][name]} calls)")


def compiles(trees: dict, names, called: bool, repeats: int) -> None:
    """Print each kernel's CPU seconds compiled from an empty cache in each tree (the median of ``repeats``
    children, the trees in turns), and the sum: old beside new."""
    print(f"load average {os.getloadavg()[0]:.1f} at the start")
    cpu = {name: [] for name in trees}
    for _ in range(repeats):
        for name, tree in trees.items():
            with tempfile.TemporaryDirectory() as cache:
                cpu[name].append(measure(cache, names, called, tree)["cpu"])
    kernels = sorted({k for runs in cpu.values() for run in runs for k in run})
    print(f"{'kernel (CPU s, median of ' + str(repeats) + ')':50s} " + " ".join(f"{n:>8s}" for n in trees))
    for k in kernels:
        print(f"{k:50s} " + " ".join(f"{statistics.median(r.get(k, 0.0) for r in cpu[n]):8.2f}" for n in trees))
    sums = {n: statistics.median(sum(r.values()) for r in cpu[n]) for n in trees}
    print(f"{'all (goal: 30 s)':50s} " + " ".join(f"{sums[n]:8.1f}" for n in trees))
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", nargs="*", default=(), help="built-in scenarios to run (default: all)")
    parser.add_argument("--called", action="store_true",
                        help="only the kernels that 60 s runs of the scenarios call: what one scenario's first run compiles")
    parser.add_argument("--startup", action="store_true", help="time the starts instead")
    parser.add_argument("--before", help="a checkout of the code before the change, timed alongside (--startup; "
                        "or the compiles: old and new in turns, --repeats of each, the CPU seconds of each kernel)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=("cli", "window"), help="with --startup: those rows only")
    parser.add_argument("--first", action="store_true", help="time the first runs after an install instead "
                        "(FIRST_RUNS, each from an empty cache; with --before: old and new in turns)")
    parser.add_argument("--passes", metavar="KERNEL", help="where one kernel's compile goes (module.name, e.g. "
                        "sim.model.advance_craft.advance_craft): CPU seconds by numba pass and by function")
    parser.add_argument("--opt", type=int, choices=(0, 1, 2, 3), help="with --passes: numba's optimisation level")
    args = parser.parse_args(argv)
    if args.passes:
        passes(args.passes, args.opt)
        return 0
    if args.first:
        first_runs({"new": ROOT, **({"old": os.path.abspath(args.before)} if args.before else {})}, args.repeats)
        return 0
    if args.startup:
        trees = {"new": ROOT, **({"old": os.path.abspath(args.before)} if args.before else {})}
        startup(trees, args.repeats, {"cli": STARTS[:2], "window": STARTS[2:], None: STARTS}[args.only])
        return 0
    if args.before:
        compiles({"old": os.path.abspath(args.before), "new": ROOT}, args.scenarios, args.called, args.repeats)
        return 0
    with tempfile.TemporaryDirectory() as cache:
        load = os.getloadavg()[0]
        cold = measure(cache, args.scenarios, args.called)
        warm = measure(cache, args.scenarios, args.called)
    print(f"load average {load:.1f} at the start")
    print(f"{'kernel':50s} {'compiled: wall':>14s} {'CPU':>7s} {'loaded: wall':>13s} {'CPU':>6s}")
    for name, s in sorted(cold["kernels"].items(), key=lambda kv: -kv[1]):
        print(f"{name:50s} {s:13.2f}s {cold['cpu'][name]:6.2f}s {warm['kernels'].get(name, float('nan')):12.2f}s "
              f"{warm['cpu'].get(name, float('nan')):5.2f}s")
    total = [sum(x.values()) for x in (cold["kernels"], cold["cpu"], warm["kernels"], warm["cpu"])]
    print(f"{'all ' + str(len(cold['kernels'])) + ' kernels':50s} {total[0]:13.1f}s {total[1]:6.1f}s "
          f"{total[2]:12.2f}s {total[3]:5.2f}s   (goal: 30 s)")
    print(f"{'the whole child (with the scenarios run as Python)':55s} {cold['wall']:8.1f}s {warm['wall']:7.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
