"""Kernels compiled side by side, and the optimisation level in the cache's key (sim/core/jit.py, issue 42).

A run's loader threads compile the kernels the disk cache lacks in child processes; on two cores two of them
compile at once, not one after the other (docs/PERFORMANCE.md, "Compile time and start-up").  And numba's own cache index does not know ``NUMBA_OPT``: the folder's key must.
"""

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sim.core import jit

ROOT = Path(__file__).resolve().parents[3]

needs_jit = pytest.mark.skipif(jit.DISABLED, reason="the JIT is off: nothing is compiled")


def twin_a(x):
    return x + 1.0


def twin_b(x):
    return x * 2.0


@needs_jit
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: one child at a time")
def test_two_kernels_loading_in_threads_compile_in_two_children_at_once(monkeypatch):
    module = sys.modules[__name__]
    monkeypatch.setattr(jit, "KERNELS", [])
    kernels = [jit.Kernel(f).warms(lambda: (1.0,), 1) for f in (twin_a, twin_b)]
    for k in kernels:  # found by name, as a child finds a real kernel (Kernel._in_child)
        monkeypatch.setattr(module, k.py_func.__name__, k)
    monkeypatch.setattr(jit, "_cached", lambda k: k.ready)
    met = threading.Barrier(2, timeout=30)  # both children running at the same time, or a timeout
    children = []

    def child(command, input, **kwargs):  # a child's compile: it waits until the other child runs too
        children.append(input)
        met.wait()
        return subprocess.CompletedProcess(command, 0, b"", b"")

    monkeypatch.setattr(jit.subprocess, "run", child)
    for k in kernels:  # as a run's loader threads do (Kernel.wanted, WARM_SECONDS)
        k.start()
    for k in kernels:
        k.wait()
    assert len(children) == 2 and not met.broken
    assert all(k.ready for k in kernels)
    assert kernels[0](1.5) == 2.5 and kernels[1](1.5) == 3.0


def _key(**env) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"}
    environ.update(PYTHONPATH=str(ROOT), **env)
    out = subprocess.run([sys.executable, "-c", "from sim.core.jit import source_key; print(source_key())"],
                         env=environ, cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_numbas_optimisation_level_is_part_of_the_caches_key():
    assert _key(NUMBA_OPT="1") != _key(NUMBA_OPT="3") == _key()


@needs_jit
def test_a_kernel_compiled_while_it_waited_for_its_child_is_not_compiled_again(monkeypatch):
    """Two processes starting at once (two windows, a window and a run): the one that waits for a compiling slot
    finds the kernel the other compiled in the meantime, and loads it."""
    module = sys.modules[__name__]
    monkeypatch.setattr(jit, "KERNELS", [])
    kernel = jit.Kernel(twin_a)
    monkeypatch.setattr(module, "twin_a", kernel)
    asked, there = threading.Event(), []

    def cached(k):  # not in the cache when the load starts; there once another process has compiled it
        asked.set()
        return bool(there)

    def child(*args, **kwargs):
        raise AssertionError("compiled again in a child")

    monkeypatch.setattr(jit, "_cached", cached)
    monkeypatch.setattr(jit.subprocess, "run", child)
    slot = threading.Lock()
    monkeypatch.setattr(jit, "_children", slot)
    with slot:  # every compiling slot taken
        kernel.start(1.5)
        assert asked.wait(30)
        there.append(True)
    kernel.wait()
    assert kernel.ready and kernel(1.5) == 2.5


def twin_c(x):
    return x - 1.0


@needs_jit
def test_only_this_files_own_index_counts_as_cached():
    """Every tree with the same kernel files (a worktree, an exported old tree) shares the keyed folder, numba
    keeping an index a source folder in it: another tree's index of a kernel of the same name is not this one's.
    Taken for it, the loader thread skipped the child and numba compiled in the window's process (issue 42)."""
    kernel = jit.Kernel(twin_c)
    own = Path(kernel.dispatcher._cache._cache_file._index_path)
    other = jit.cache_dir / f"elsewhere_{os.getpid()}" / own.name  # the same name, another tree's folder
    other.parent.mkdir(parents=True, exist_ok=True)
    other.write_bytes(b"")
    own.unlink(missing_ok=True)  # a test's own kernel: compiled again below
    try:
        assert not jit._cached(kernel)
        kernel.wait(1.5)
        assert own.exists() and jit._cached(kernel)
    finally:
        other.unlink()
        other.parent.rmdir()
