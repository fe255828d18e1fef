"""The compiled kernels' disk cache (sim/core/jit.py): keyed on every kernel file, never stale (issue 42).

numba invalidates a cached function when its own file changes, not when a callee in another file does
(its "Notes on Caching").  Here a copy of the package in ``tmp_path``, run in child processes with a
cache of its own: the first run compiles (and says so on stderr), the second loads from the cache
(silently), and after an edit of a callee in another file (:func:`sim.core.algebra.vtmul_QV`, called
by half-quat's kernel in sim/core/integrators.py, called by sim/core/advance.py) the key changes, the
kernel is compiled again and its result follows the edit.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import json, sys
from sim.core import advance, jit
from sim.model.simulation import Simulation
sim = Simulation(rates=(1.0, 0.2, -0.5))
{load}
sim.step(100)
stats = advance.advance.stats
print(json.dumps({"key": jit.source_key(), "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "q": list(sim.q), "dir": str(jit.cache_dir)}))
"""


#: The kernel loaded now, in this thread: compiled here when the cache holds nothing of it (its progress said
#: every 0.2 s here, every 5 s by default).
WAIT = "jit.PROGRESS_EVERY = 0.2\nadvance.advance.wait()"
#: The one warm-up rule (sim.core.jit.Kernel.wanted): the step that brings the Python steps to WARM_AFTER starts
#: the load in a thread, which has a child process compile the kernel first when the cache holds nothing of it.
RULE = ("advance.advance.python_steps = advance.WARM_AFTER - 1\nsim.step(1)\n"
        "assert advance.advance.loading or advance.advance.ready\njit.wait_all()\nassert advance.advance.ready")


def _run(tree, cache, load=WAIT):
    env = dict(os.environ, PYTHONPATH=str(tree), ATTITUDE_SIM_CACHE=str(cache))
    env.pop("NUMBA_DISABLE_JIT", None)
    env.pop("MUTANT_UNDER_TEST", None)
    proc = subprocess.run([sys.executable, "-c", CHILD.replace("{load}", load)], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr


SHORT = """
from sim.core import advance
from sim.model.simulation import Simulation
sim = Simulation()
for _ in range(1000):
    sim.step()
sim.step(1000)
assert not advance.advance.ready and not advance.advance.loading  # a short run stays in Python: no cache to load
sim.step(advance.WARM_AFTER)                # a long call loads it at once
assert advance.advance.ready and sim._packed() is not None
print("ok")
"""


@pytest.mark.subprocess
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="the JIT is off: nothing is compiled")
def test_a_short_run_never_loads_the_kernel_a_long_one_does():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MUTANT_UNDER_TEST", None)
    proc = subprocess.run([sys.executable, "-c", SHORT], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


@pytest.mark.subprocess
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="the JIT is off: nothing is compiled")
def test_an_edited_callee_in_another_file_is_recompiled(tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "sim", tree / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"

    first, err = _run(tree, cache)
    assert first["misses"] == 1 and first["hits"] == 0
    assert "compiling the simulation kernels, once" in err and "kernels compiled in" in err
    assert "attitude-sim: ... 0 s" in err             # its progress

    second, err = _run(tree, cache)
    assert second["key"] == first["key"] and second["hits"] == 1 and second["misses"] == 0
    assert second["q"] == first["q"]
    assert "compiling" not in err                     # loaded from the cache: nothing to say

    algebra = tree / "sim" / "core" / "algebra.py"
    text = algebra.read_text()
    edited = text.replace("q1 * x + q2 * y + q3 * z)\n", "q1 * x + q2 * y + q3 * z + 1e-3)\n", 1)
    assert edited != text                             # the fourth row of V(Q)^T [w; 0] (vtmul_QV) moved
    algebra.write_text(edited)

    third, err = _run(tree, cache)
    assert third["key"] != first["key"] and third["dir"] != first["dir"]
    assert third["misses"] == 1 and third["hits"] == 0
    assert third["q"] != first["q"]                   # the edit is in the machine code that ran
    assert "compiling the simulation kernels, once" in err


@pytest.mark.subprocess
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="the JIT is off: nothing is compiled")
def test_the_warm_up_rule_compiles_in_a_child_and_an_edited_callee_is_compiled_again(tmp_path):
    """The rule's path (a thread, a child process for a first compile, then the thread loads from the cache): the
    process that runs never compiles (no cache miss: the child did), and after an edit of a callee in another file
    the child compiles the edited source, whose numbers the process then runs."""
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "sim", tree / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"

    first, err = _run(tree, cache, RULE)
    assert first["misses"] == 0 and first["hits"] == 1  # compiled by the child, loaded here from the cache
    assert "compiling" not in err                     # a window's thread: nothing said on stderr

    algebra = tree / "sim" / "core" / "algebra.py"
    text = algebra.read_text()
    algebra.write_text(text.replace("q1 * x + q2 * y + q3 * z)\n", "q1 * x + q2 * y + q3 * z + 1e-3)\n", 1))

    second, err = _run(tree, cache, RULE)
    assert second["dir"] != first["dir"] and second["misses"] == 0 and second["hits"] == 1
    assert second["q"] != first["q"]                  # the edit is in the machine code that ran
