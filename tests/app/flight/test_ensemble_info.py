"""No live object crosses threads: an ensemble frame holds read-only copies that later changes never touch.

The runner publishes each ensemble state as an :class:`~sim.ensemble.info.EnsembleFrame`
whose :class:`~sim.ensemble.info.EnsembleInfo` records what the ensemble is
(spec, indices, initial samples, settings).  The window reads only those.
These tests change the ensemble after a frame was published (new settings,
a new nominal body, a reset, another ensemble), in the runner's thread and
in the simulation worker's thread, and check that the frame still answers
as it did; and that the single-body settings the window flies for body
``j`` are what :meth:`sim.ensemble.Ensemble.body_settings` gives.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

from app.worker import SimulationWorker
from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble.info import EnsembleInfo, frozen_copy
from sim.run.runner import ENSEMBLE, RESET, Runner
from sim.run.scenario import Scenario, load
from sim.model.settings import Settings
from sim.model.simulation import Simulation

ARRAYS = ("q", "nose", "error_deg", "travelled_deg", "faulted")
INFO_ARRAYS = ("index", "q0", "angles_deg0", "rates0", "inertia", "gains")
CONTROLLED = Settings(dt=0.01, dampers_on=True, controller="quaternion", command_deg=(30.0, 0.0, 0.0),
                      slerp_time=0.0)
SPEC = EnsembleSpec(bodies=12, seed=5, rate_spread=0.4, inertia_spread=20.0,
                    gains_grid=((1.0, 2.0), (3.0,), (4.0, 5.0)))


def copied(frame):
    """Independent copies of everything a frame answers, to compare with later."""
    info = frame.info
    return ({name: np.array(getattr(frame, name)) for name in ARRAYS},
            {name: np.array(getattr(info, name)) for name in INFO_ARRAYS},
            (frame.t, info.spec, info.settings, [info.body_settings(j) for j in range(info.n)]))


def assert_answers_as_before(frame, before):
    arrays, info_arrays, (t, spec, settings, bodies) = before
    info = frame.info
    for name, value in arrays.items():
        assert np.array_equal(getattr(frame, name), value), name
        assert not getattr(frame, name).flags.writeable, name
    for name, value in info_arrays.items():
        assert np.array_equal(getattr(info, name), value), name
        assert not getattr(info, name).flags.writeable, name
    assert frame.t == t and info.spec == spec and info.settings == settings
    assert [info.body_settings(j) for j in range(info.n)] == bodies


def change_everything(runner):
    """Inputs that rewrite the ensemble's samples, settings and state, then a reset."""
    for key, value in (("angles_deg", (10.0, 20.0, 30.0)), ("rates", (0.5, 0.0, -0.5)),
                       ("body", "satellite"), ("mass", None), ("inertia", None), ("gains", (7.0, 8.0, 9.0)),
                       ("command_deg", (0.0, 45.0, 0.0)), ("torque", (1.0, 2.0, 3.0))):
        runner.submit(key, value)
    runner.submit(RESET)


def test_a_published_frame_keeps_its_answers_through_changes_resets_and_a_new_ensemble():
    runner = Runner(Scenario(name="test", settings=CONTROLLED))
    runner.submit(ENSEMBLE, SPEC)
    frame = runner.advance(50).ensemble
    before = copied(frame)
    change_everything(runner)
    batch = runner.advance(30)
    changed = batch.ensemble
    assert batch.fault is None and changed.t == pytest.approx(0.3)
    assert not np.array_equal(changed.info.inertia, frame.info.inertia)   # the ensemble did change
    assert changed.info.settings.torque == (1.0, 2.0, 3.0) != frame.info.settings.torque
    runner.submit(ENSEMBLE, EnsembleSpec(bodies=3, seed=1))
    runner.submit(RESET)
    assert runner.advance(10).ensemble.n == 3
    assert_answers_as_before(frame, before)


def test_frame_arrays_cannot_be_written():
    runner = Runner(Scenario(name="test", settings=CONTROLLED))
    runner.submit(ENSEMBLE, SPEC)
    frame = runner.advance(5).ensemble
    for array in [getattr(frame, name) for name in ARRAYS] + [getattr(frame.info, name) for name in INFO_ARRAYS]:
        with pytest.raises(ValueError, match="read-only"):
            array[..., 0] = 0


def test_the_info_is_remade_only_when_the_ensemble_changed():
    runner = Runner(Scenario(name="test", settings=CONTROLLED))
    runner.submit(ENSEMBLE, SPEC)
    first = runner.advance(5).ensemble.info
    assert runner.advance(5).ensemble.info is first is runner.ensemble_info
    runner.submit("torque", (0.0, 1.0, 0.0))
    second = runner.advance(5).ensemble.info
    assert second is not first and second.settings.torque == (0.0, 1.0, 0.0)


@pytest.mark.parametrize("spec", [SPEC, EnsembleSpec(bodies=7, seed=2, attitudes="grid", rate_spread=0.1),
                                  EnsembleSpec(bodies=4, attitudes="same")])
def test_body_settings_are_the_ensembles_own(spec):
    """What "Load worst" flies for body j: exactly Ensemble.body_settings(j) of the ensemble it came from."""
    ens = Ensemble(load("default").settings.replace(gains=(0.5, 0.6, 0.7)), spec)
    ens.step(3)
    info = EnsembleInfo.of(ens)
    assert info.n == ens.n and info.spec is spec and info.settings == ens.settings
    for j in range(ens.n):
        assert info.body_settings(j) == ens.body_settings(j)
        assert info.body_settings(np.int64(j)) == ens.body_settings(j)
    for j in (-1, ens.n):
        with pytest.raises(IndexError):
            info.body_settings(j)


def test_a_body_flown_from_its_info_flies_its_column():
    runner = Runner(Scenario(name="test", settings=CONTROLLED))
    runner.submit(ENSEMBLE, SPEC)
    info = runner.advance(0).ensemble.info
    frame = runner.advance(120).ensemble
    for j in (0, 5, 11):
        sim = Simulation(info.body_settings(j))
        sim.step(120)
        assert np.max(np.abs(np.array(sim.q) - frame.q[:, j])) <= 1e-12


def test_frozen_copy_is_a_copy():
    a = np.arange(4.0)
    b = frozen_copy(a)
    a[0] = 9.0
    assert b[0] == 0.0 and not b.flags.writeable and a.flags.writeable


def test_frames_taken_from_the_worker_thread_keep_their_answers():
    """The real hand-over: frames drained from the simulation thread while it resets and replaces the ensemble."""
    runner = Runner(Scenario(name="test", settings=CONTROLLED))
    runner.submit(ENSEMBLE, SPEC)
    worker = SimulationWorker(runner, speed=10.0)
    worker.start()
    try:
        def next_frame(condition, timeout=5.0):
            end = time.perf_counter() + timeout
            while time.perf_counter() < end:
                for batch in worker.drain():
                    if batch.ensemble is not None and condition(batch.ensemble):
                        return batch.ensemble
                time.sleep(0.005)
            raise AssertionError("timed out")

        frame = next_frame(lambda f: f.t > 0.2)
        before = copied(frame)
        change_everything(worker)
        next_frame(lambda f: f.info.settings.torque == (1.0, 2.0, 3.0) and f.t > 0.1)
        worker.submit(ENSEMBLE, dataclasses.replace(SPEC, bodies=5))
        worker.submit(RESET)
        next_frame(lambda f: f.n == 5 and f.t > 0.1)
    finally:
        assert worker.stop(2.0)
    assert_answers_as_before(frame, before)


def test_derived_arrays_read_after_the_ensemble_changed_answer_as_at_publication():
    """A frame computes its nose directions and angles when first read: from its own copies, never the live ensemble.

    Two runners fly the same inputs; one frame is read at once, its twin only after its ensemble was changed,
    reset and stepped on. Both answer the same, and as the ensemble reported when the frame was published.
    """
    frames, reported = [], None
    for late in (False, True):
        runner = Runner(Scenario(name="test", settings=CONTROLLED.replace(slerp_time=0.5)))
        runner.submit(ENSEMBLE, SPEC)
        runner.advance(30)
        runner.submit("command_deg", (-60.0, 20.0, 10.0))  # a SLERP from each body's own command: one per body
        frame = runner.advance(20).ensemble
        assert frame.qc.shape == (4, SPEC.bodies)
        if not late:
            metrics = runner.ensemble.metrics()
            reported = {"nose": runner.ensemble.nose(), "error_deg": metrics["final_error_deg"],
                        "travelled_deg": metrics["travelled_deg"], "faulted": metrics["faulted"]}
            frames.append({name: np.array(getattr(frame, name)) for name in reported})
        else:
            change_everything(runner)
            runner.advance(40)
            frames.append({name: np.array(getattr(frame, name)) for name in reported})
    for name, value in reported.items():
        assert np.array_equal(frames[0][name], value), name   # the ensemble's own formulas, bit for bit
        assert np.array_equal(frames[1][name], value), name


def test_a_shared_command_is_published_as_one_column():
    runner = Runner(Scenario(name="test", settings=CONTROLLED))
    runner.submit(ENSEMBLE, SPEC)
    frame = runner.advance(3).ensemble
    assert frame.qc.shape == (4, 1) and frame.n == SPEC.bodies
    assert np.allclose(np.degrees(2 * np.arccos(np.clip(np.abs(frame.qc.T @ frame.q)[0], 0, 1))),
                       frame.error_deg, atol=1e-6)
