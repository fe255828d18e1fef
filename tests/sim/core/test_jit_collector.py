"""The garbage collector while a kernel loads (sim/core/collector.py, sim/core/jit.py; issue 42).

A load from the disk cache makes about 100,000 long-lived objects; left to the collector they cost the window
a full collection of 37-72 ms a few seconds after it opened (docs/PERFORMANCE.md, "The window's frame rates
(issue 42, stop 52)").  So a load holds the collector off and freezes what it made.  Each case runs in a child
Python: a freeze is for the whole process, and the pytest process's own objects are not this test's to freeze.
"""

import gc
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sim.core import jit
from sim.core.collector import collector_held

ROOT = Path(__file__).resolve().parents[3]

TINY = textwrap.dedent('''
    from sim.core.jit import kernel

    @kernel
    def twice(x):
        return 2.0 * x

    twice.warms(lambda: (1.5,), 10)
''')

#: Loads ``tiny.twice`` in its loader thread (start, then wait) and says what the collector did meanwhile.
LOAD = textwrap.dedent('''
    import gc, json, sys
    if sys.argv[1] == "disabled":
        gc.disable()
    import tiny
    from sim.core import jit
    seen = []
    gc.callbacks.append(lambda phase, info: phase == "start" and seen.append(info["generation"]))
    before, cached = gc.get_freeze_count(), jit._cached(tiny.twice)
    tiny.twice.start()
    tiny.twice.wait()
    gc.callbacks.clear()
    print(json.dumps({"cached": cached, "ready": tiny.twice.ready, "collections": seen, "enabled": gc.isenabled(),
                      "frozen": gc.get_freeze_count() - before, "value": tiny.twice(1.5)}))
''')


def _child(tmp_path, code, *args):
    env = dict(os.environ, ATTITUDE_SIM_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("NUMBA_DISABLE_JIT", None)
    proc = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.subprocess
@pytest.mark.skipif(jit.DISABLED, reason="the JIT is off: nothing is loaded")
def test_a_load_from_the_cache_makes_no_collection_freezes_what_it_made_and_leaves_the_collector_as_found(tmp_path):
    (tmp_path / "tiny.py").write_text(TINY)
    first = _child(tmp_path, LOAD, "enabled")  # compiles into the cache folder (numba's import held and frozen)
    assert not first["cached"] and first["ready"] and first["enabled"] and first["value"] == 3.0
    loaded = _child(tmp_path, LOAD, "enabled")
    assert loaded["cached"] and loaded["ready"] and loaded["value"] == 3.0
    assert loaded["frozen"] > 10_000          # what they made is out of the collector's sight (numba: ~60,000)
    assert loaded["collections"] == []       # numba's import and the load: no automatic collection at all
    assert loaded["enabled"]                  # and the collector runs again
    disabled = _child(tmp_path, LOAD, "disabled")
    assert disabled["cached"] and disabled["ready"] and not disabled["enabled"]   # off it was, off it stays


@pytest.mark.subprocess
def test_overlapping_holds_freeze_once_the_last_ends_and_an_asked_collection_still_runs():
    code = textwrap.dedent('''
        import gc, json, threading
        from sim.core.collector import collector_held
        states, inside, leave = [], threading.Event(), threading.Event()
        def other():
            with collector_held():
                inside.set()
                leave.wait()
        with collector_held():
            thread = threading.Thread(target=other)
            thread.start()
            inside.wait()
            states.append(gc.isenabled())
            asked = gc.collect(0) is not None
            kept = [[i] for i in range(1000)]
            before = gc.get_freeze_count()
        states.append(gc.isenabled())              # the other load still holds it
        same = gc.get_freeze_count() == before     # nothing frozen yet
        leave.set()
        thread.join()
        states.append(gc.isenabled())
        print(json.dumps({"states": states, "asked": asked, "same": same,
                          "frozen": gc.get_freeze_count() - before}))
    ''')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["states"] == [False, False, True] and out["asked"] and out["same"]
    assert out["frozen"] >= 1000               # the lists made inside, frozen when the last hold ended


def test_a_hold_in_this_process_turns_the_collector_off_then_on_and_freezes():
    """The same rule in the test process (mutants of sim.core.collector run only here); what it froze is thawed
    after, so this process's collector sees its objects again."""
    assert gc.isenabled()
    try:
        with collector_held():
            assert not gc.isenabled()
            kept = [[i] for i in range(1000)]
            before = gc.get_freeze_count()
        assert gc.isenabled() and gc.get_freeze_count() >= before + len(kept)
    finally:
        gc.unfreeze()
        gc.enable()
