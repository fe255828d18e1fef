"""A formula's library only linked into its kernel (sim/core/jit_codegen.py, issue 42's compile time).

The hook skips a formula's own module pipeline and machine code; the kernel optimises it once with the rest.
It must be active for the numba this project runs on, leave any other numba alone, be part of the disk cache's
key, and change no number (the compiled kernels against their Python: here, and in every test of a kernel).
"""

import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from sim.core import jit, jit_codegen

ROOT = Path(__file__).resolve().parents[3]

needs_jit = pytest.mark.skipif(jit.DISABLED, reason="the JIT is off: nothing is compiled")


@jit.jitable
def _inner(x, y):
    return x * y + np.sqrt(x) / (y + 1.0)


@jit.jitable
def _outer(v):
    total = 0.0
    for i in range(v.shape[0]):
        total += _inner(v[i], total)
    return total


def _entry(v):
    return _outer(v) - _inner(v[0], 0.5)


@jit.jitable
def _deep(x):
    return np.sin(x) * 3.0 + 0.25


@jit.jitable
def _middle(x):
    return _deep(x) / (x + 2.0)


def _both(v):
    return _middle(v[0]) * _outer(v) + _inner(v[1], _middle(v[2])) - _deep(v[3])


def _chain(v):
    total = 0.0
    for i in range(v.shape[0]):
        total += _middle(v[i])
    return total


@needs_jit
def test_the_hook_is_active_for_the_numba_installed_and_links_the_formulas_only():
    numba = jit.numba_module()
    if numba.__version__ not in jit_codegen.TESTED:  # a newer numba: the hook stays off (slower compiles, same kernels)
        pytest.skip(f"numba {numba.__version__}: read its codegen (jit_codegen's docstring), then add it to TESTED")
    assert jit_codegen.ACTIVE
    fresh = numba.njit(_entry)  # compiled here, never from the disk cache (a Kernel would load it from there)
    before = jit_codegen.LINKED
    v = np.random.default_rng(7).uniform(0.1, 3.0, 50)
    compiled, python = fresh(v), _entry(v)
    assert jit_codegen.LINKED - before >= 2  # _inner and _outer (each signature): only linked, no machine code
    assert type(compiled) is float and np.float64(compiled).view(np.int64) == np.float64(python).view(np.int64)


@needs_jit
def test_a_formula_s_callees_reach_the_kernel_once_not_copied_into_each_caller():
    numba = jit.numba_module()
    if not jit_codegen.ACTIVE:
        pytest.skip(f"numba {numba.__version__}: the hook is off")
    fresh = numba.njit(_chain)
    v = np.random.default_rng(3).uniform(-2.0, 2.0, 40)
    compiled, python = fresh(v), _chain(v)
    assert np.float64(compiled).view(np.int64) == np.float64(python).view(np.int64)
    kernel = fresh.overloads[fresh.signatures[0]].library
    formulas = {lib.name: lib for lib in kernel._linking_libraries if getattr(lib, "_sim_link_only", False)}
    assert {"_middle", "_deep"} <= set(formulas)  # _deep, called by _middle only, linked by the kernel itself
    middle = [f.name for f in formulas["_middle"]._final_module.functions if not f.is_declaration]
    assert middle and not any("_deep" in name for name in middle)  # declared there, defined once, in the kernel


@needs_jit
def test_an_overload_s_implementation_is_found_again_in_the_memo_the_same_bits():
    numba = jit.numba_module()
    if not jit_codegen.ACTIVE:
        pytest.skip(f"numba {numba.__version__}: the hook is off")
    before = jit_codegen.IMPLS_FOUND
    fresh = numba.njit(_both)  # a new function: typed here, its formulas' calls again
    v = np.random.default_rng(5).uniform(0.1, 3.0, 30)
    assert np.float64(fresh(v)).view(np.int64) == np.float64(_both(v)).view(np.int64)
    assert jit_codegen.IMPLS_FOUND > before  # the operators' and formulas' templates asked again during propagation


def test_another_numba_or_the_switch_leaves_numba_as_it_is(monkeypatch):
    other = types.SimpleNamespace(__version__="0.0.1")
    assert not jit_codegen.applies("0.0.1")
    monkeypatch.setattr(jit_codegen, "ACTIVE", False)
    assert jit_codegen.install(other) is False and not jit_codegen.ACTIVE
    monkeypatch.setenv("ATTITUDE_SIM_FULL_CODEGEN", "1")
    assert not jit_codegen.applies(jit_codegen.TESTED[0])
    monkeypatch.delenv("ATTITUDE_SIM_FULL_CODEGEN")
    assert jit_codegen.applies(jit_codegen.TESTED[0])


@needs_jit
def test_the_cache_key_knows_whether_the_hook_applies(monkeypatch):
    with_hook = jit.source_key()
    monkeypatch.setenv("ATTITUDE_SIM_FULL_CODEGEN", "1")
    assert jit.source_key() != with_hook  # machine code of one never loaded for the other


CHILD = """
import sys
import numpy as np
from sim.core import jit, jit_codegen
sys.path.insert(0, sys.argv[1])
import test_jit_codegen as t
k = jit.Kernel(t._entry)
v = np.random.default_rng(7).uniform(0.1, 3.0, 50)
k.wait(v, stream=False)
print(jit_codegen.ACTIVE, jit_codegen.LINKED, np.float64(k(v)).view(np.int64), np.float64(t._entry(v)).view(np.int64))
"""


@needs_jit
def test_turned_off_numba_compiles_as_it_always_did_to_the_same_bits(tmp_path):
    env = dict(os.environ, ATTITUDE_SIM_FULL_CODEGEN="1", ATTITUDE_SIM_CACHE=str(tmp_path),
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    out = subprocess.run([sys.executable, "-c", CHILD, str(Path(__file__).parent)], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[:2] == ["False", "0"] and out[2] == out[3]


def test_a_numba_whose_code_generation_lacks_what_the_hook_wraps_is_left_as_it_is(monkeypatch):
    # A numba of a tested version whose CPUCodeLibrary has none of the methods the hook wraps (a patched or
    # rebuilt numba): install() says no and patches nothing, so the kernels compile as numba's own.
    from numba.core import codegen, cpu

    numba = types.SimpleNamespace(__version__=jit_codegen.TESTED[0])
    monkeypatch.delenv("ATTITUDE_SIM_FULL_CODEGEN", raising=False)
    monkeypatch.setattr(jit_codegen, "ACTIVE", False)
    monkeypatch.setattr(codegen, "CPUCodeLibrary", type("CPUCodeLibrary", (), {}))
    executable = cpu.CPUContext.get_executable
    assert jit_codegen.install(numba) is False and not jit_codegen.ACTIVE
    assert cpu.CPUContext.get_executable is executable
