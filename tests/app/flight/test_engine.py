"""The window's ensemble flies in a process of its own (:mod:`app.engine`) exactly as it would in the runner's thread.

What a user relies on: the bodies on the sphere are the bodies the runner
would fly itself (every input, event and reset at the same step boundary,
bit for bit), a setting the ensemble refuses is refused with the same
message, a process that dies becomes a fault the window shows (and the next
ensemble starts a new one), and no process outlives the window.  The
reference is the same runner with its ensemble stepped in its own thread,
itself checked against closed forms in tests/sim/ensemble/test_ensemble.py.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from app.engine import EngineError, EnsembleEngine
from app.worker import SimulationWorker
from sim.ensemble import EnsembleSpec
from sim.run.runner import ENSEMBLE, RESET, Runner
from sim.run.scenario import load
from sim.model.settings import SettingsError

#: Every test here talks to the engine's process (app.engine), where no mutant of sim/ runs.
pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[3]
SPEC = EnsembleSpec(bodies=300, seed=11, rate_spread=0.3, inertia_spread=15.0)
FRAME = ("q", "qc", "faulted")
INFO = ("index", "q0", "angles_deg0", "rates0", "inertia", "gains")


@pytest.fixture(scope="module")
def engine():
    engine = EnsembleEngine()
    yield engine
    engine.close()


def assert_same_frame(mine, theirs):
    """Two frames that answer alike, bit for bit, the engine's read-only as the runner's own."""
    assert mine.t == theirs.t
    for name in FRAME:
        assert np.array_equal(getattr(mine, name), getattr(theirs, name)), name
        assert not getattr(theirs, name).flags.writeable, name
    for name in INFO:
        assert np.array_equal(getattr(mine.info, name), getattr(theirs.info, name)), name
        assert not getattr(theirs.info, name).flags.writeable, name
    assert mine.info.settings == theirs.info.settings and mine.info.spec == theirs.info.spec


# Inputs at batch k (before its steps): each kind of change the ensemble follows, a reset, another ensemble.
INPUTS = {
    2: [("command_deg", (30.0, -20.0, 60.0))],
    4: [("dt", 0.05), ("torque", (0.2, -0.1, 0.3))],
    6: [("integrator", "full-quat"), ("gains", (2.0, 3.0, 4.0))],
    8: [("body", "satellite"), ("integrator", "rk4")],
    10: [(RESET, None)],
    12: [("command_deg", (0.0, 80.0, 0.0))],
    14: [(ENSEMBLE, dataclasses.replace(SPEC, bodies=50, attitudes="grid"))],
}


@pytest.mark.parametrize("name", ["hoffmann_controller", "reaction_wheels"])
def test_the_process_flies_what_the_runner_flies_itself_bit_for_bit(engine, name):
    scenario = load(name)        # hoffmann_controller's command arrives as an event at t = 1 s; wheels in the other
    mine, theirs = Runner(scenario), Runner(scenario, ensembles=engine.ensemble)
    for runner in (mine, theirs):
        runner.submit("controller", "quaternion")
        runner.submit(ENSEMBLE, SPEC)
    infos, previous, behind = set(), None, 0
    for k in range(18):
        for key, value in INPUTS.get(k, ()):
            for runner in (mine, theirs):
                runner.submit(key, value)
        a, b = mine.advance(7), theirs.advance(7)
        assert np.array_equal(a.rows, b.rows) and a.applied == b.applied
        # the process's frame is this batch's, or the last batch's (pipelined), never another
        if b.ensemble.t != a.ensemble.t:
            assert k not in INPUTS and previous is not None and b.ensemble.t == previous.t
            behind += 1
        assert_same_frame(a.ensemble if b.ensemble.t == a.ensemble.t else previous, b.ensemble)
        assert theirs.ensemble_info is b.ensemble.info
        infos.add(id(b.ensemble.info))
        previous = a.ensemble
    assert theirs.ensemble.n == 50 and behind >= 8
    # with no step since (a pause), the frame is the bodies' state now
    assert_same_frame(mine.advance(0).ensemble, theirs.advance(0).ensemble)
    # a new record only after a change: the view tells a new ensemble from a moved one by identity
    assert 4 <= len(infos) <= 10


def test_a_setting_the_ensemble_refuses_is_refused_alike_and_the_bodies_fly_on(engine):
    scenario = load("default")
    mine, theirs = Runner(scenario), Runner(scenario, ensembles=engine.ensemble)
    for runner in (mine, theirs):
        runner.submit(ENSEMBLE, SPEC)
        runner.advance(3)
    with pytest.raises(SettingsError) as own:
        mine.ensemble.set("dt", -1.0)
    with pytest.raises(SettingsError) as remote:
        theirs.ensemble.set("dt", -1.0)
    assert str(remote.value) == str(own.value) and "dt" in str(own.value)
    assert_same_frame(mine.advance(3).ensemble, theirs.advance(3).ensemble)


def test_a_paused_run_shows_its_ensemble_where_its_bodies_are():
    """Paused (by the user, at a replay's end, at the scenario's end), the last frame is not a batch behind."""
    engine = EnsembleEngine()
    worker = SimulationWorker(Runner(load("default"), ensembles=engine.ensemble))
    try:
        worker.submit("controller", "quaternion")
        worker.submit(ENSEMBLE, SPEC)
        worker.start()
        deadline = time.perf_counter() + 30
        while worker.steps_taken < 300 and time.perf_counter() < deadline:
            time.sleep(0.01)
        for pausing in (lambda: worker.pause(True), lambda: worker.pause_at(worker.runner.sim.t + 0.2)):
            running = worker.steps_taken
            worker.pause(False)
            while worker.steps_taken < running + 10 and time.perf_counter() < deadline:  # flying again
                time.sleep(0.01)
            pausing()
            while not worker.paused and time.perf_counter() < deadline:
                time.sleep(0.01)
            # paused at the scenario's time, the worker reads as paused and then publishes the bodies where
            # they are: wait for that batch (a bounded wait; a worker that never publishes it fails below)
            batches = worker.drain()
            while not (batches and batches[-1].ensemble.t == batches[-1].last.t) and time.perf_counter() < deadline:
                time.sleep(0.01)
                batches += worker.drain()
            last = batches[-1]
            assert worker.paused and last.ensemble.t == last.last.t > 0.3
    finally:
        worker.stop()
        engine.close()


def test_a_process_that_dies_is_a_fault_shown_and_the_next_ensemble_starts_a_new_one():
    engine = EnsembleEngine()
    try:
        worker = SimulationWorker(Runner(load("default"), ensembles=engine.ensemble), paced=False)
        worker.submit(ENSEMBLE, SPEC)
        worker.advance_to(0.05)
        assert worker.fault is None and worker.drain()[-1].ensemble.n == SPEC.bodies
        first = engine.pid
        os.kill(first, signal.SIGKILL)
        assert wait_ended(first)  # the signal is delivered asynchronously: a request sent before it lands is answered
        worker.advance_to(0.1)
        assert worker.fault is not None
        assert "ensemble's process ended" in worker.fault.message and "off and on" in worker.fault.message
        assert not engine.running
        # as the window does: the ensemble off and on again, a reset; the run flies on
        worker.submit(ENSEMBLE, None)
        worker.submit(ENSEMBLE, SPEC)
        worker.reset((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        worker.advance_to(0.05)
        assert worker.fault is None and engine.running and engine.pid != first
        worker.pause(True)
        worker.advance_to(0.05)  # carries out the pause: a paused run shows its bodies as they are
        assert worker.drain()[-1].ensemble.t == pytest.approx(0.05, abs=0.011)
    finally:
        engine.close()
    assert not engine.running and engine.pid is None


def ended(pid: int) -> bool:
    """True when process ``pid`` is gone or has exited (a zombie its new parent has not reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def wait_ended(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.perf_counter() + seconds
    while not ended(pid):
        if time.perf_counter() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_the_process_ends_when_the_engine_closes_or_when_its_owner_is_killed(tmp_path):
    engine = EnsembleEngine()
    engine.ensemble(load("default").settings, SPEC)
    pid = engine.pid
    assert engine.close() == 0 and ended(pid)  # asked to close: a clean exit, not killed
    with pytest.raises(EngineError, match="closed"):
        engine.request("frame", 1, 0)
    # the window's process killed (no close, no atexit): its engine's process ends by itself
    owner = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import time
        from app.engine import EnsembleEngine
        from sim.ensemble import EnsembleSpec
        from sim.model.settings import Settings
        engine = EnsembleEngine()
        engine.ensemble(Settings(), EnsembleSpec(bodies=10))
        print(engine.pid, flush=True)
        time.sleep(120)
    """)], stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        pid = int(owner.stdout.readline())
        assert not ended(pid)
        owner.kill()
        assert wait_ended(pid)
    finally:
        owner.kill()
        owner.wait()


def test_a_script_without_a_main_guard_opens_one_engine_not_a_second_script(tmp_path):
    """multiprocessing's spawn would run the user's script again in the engine's process."""
    script = tmp_path / "fly.py"
    script.write_text(textwrap.dedent("""
        from app.engine import EnsembleEngine
        from sim.ensemble import EnsembleSpec
        from sim.model.settings import Settings
        print("script ran", flush=True)
        engine = EnsembleEngine()
        remote = engine.ensemble(Settings(), EnsembleSpec(bodies=10))
        remote.step(5)
        print("t =", remote.frame().t, flush=True)
        engine.close()
    """))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("script ran") == 1
    assert "t = 0.005" in done.stdout  # five steps of the default dt, 1 ms


@pytest.mark.gl
def test_the_window_flies_its_ensemble_in_the_engine_and_ends_it_on_close(qtbot, main_window):
    win = main_window("default")
    view = win.ensemble
    view.set_bodies(200)
    view.set_on(True)
    qtbot.waitUntil(lambda: view.frame is not None and view.frame.n == 200 and view.frame.t > 0.2)
    engine = win.flight.engine
    assert engine.running
    pid = engine.pid
    win.close()
    assert ended(pid) and not engine.running


def test_a_stopped_process_is_a_fault_after_the_deadline_and_the_next_ensemble_starts_a_new_one(monkeypatch):
    """Issue 35, class 7: an engine process stopped with SIGSTOP (or hung) never freezes the flight."""
    import app.engine

    engine = EnsembleEngine()
    try:
        worker = SimulationWorker(Runner(load("default"), ensembles=engine.ensemble), paced=False)
        worker.submit(ENSEMBLE, SPEC)
        worker.advance_to(0.05)
        assert worker.fault is None
        # The short deadline only once the process is up: its start (imports) may take longer on a busy machine.
        monkeypatch.setattr(app.engine, "ANSWER_TIMEOUT", 1.0)
        first = engine.pid
        os.kill(first, signal.SIGSTOP)
        start = time.perf_counter()
        # The frames are pipelined (RemoteEnsemble.frame): the answer to the frame asked before the stop may
        # be in the pipe already, so the wait that ends at the deadline is the next frame's, one batch later
        # or two (how many batches a step takes depends on the machine's load).
        t = 0.05
        while worker.fault is None and time.perf_counter() - start < 5.0:
            t += 0.01
            worker.advance_to(t)
        assert time.perf_counter() - start < 5.0
        assert worker.fault is not None
        assert "did not answer" in worker.fault.message and "off and on" in worker.fault.message
        assert not engine.running and wait_ended(first), "the stopped process was ended, never continued"
        monkeypatch.undo()  # the usual deadline for the next process's start
        worker.submit(ENSEMBLE, None)
        worker.submit(ENSEMBLE, SPEC)
        worker.reset((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        worker.advance_to(0.05)
        assert worker.fault is None and engine.running and engine.pid != first
    finally:
        engine.close()


def test_an_engine_whose_window_gave_up_ends_quietly_when_continued(tmp_path):
    """A process continued after its window closed the pipe: no BrokenPipeError traceback on the terminal."""
    mine, theirs = __import__("socket").socketpair()
    from multiprocessing.connection import Connection

    from app.engine import FrameBuffer

    buffer = FrameBuffer.create()
    proc = subprocess.Popen([sys.executable, "-c", "from app.engine import main; main()", str(theirs.fileno()),
                             str(buffer.fd)], pass_fds=(theirs.fileno(), buffer.fd), stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[3])))
    theirs.close()
    conn = Connection(mine.detach())
    os.kill(proc.pid, signal.SIGSTOP)
    conn.send(("new", 1, 0, *_live_args()))
    conn.close()  # the window gave up waiting
    os.kill(proc.pid, signal.SIGCONT)
    err = proc.communicate(timeout=30)[1]
    buffer.close()
    assert "Traceback" not in err and "BrokenPipeError" not in err


def _live_args():
    from sim.model.settings import Settings

    return Settings(), SPEC
