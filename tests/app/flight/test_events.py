"""Scenario events in time: one cursor for the runner and the sweep, one rule for a time reached.

The oracle is exact arithmetic: the times a scenario means are decimals
(``at = 0.33``, ``dt = 0.03``), and the run's time after ``k`` steps is
``t0 + (k - k0) dt`` with ``(t0, k0)`` where ``dt`` last changed, summed
in :class:`fractions.Fraction`.  An event is due at the first step whose
exact time is at or past ``at``.  Every way of running a scenario (the
runner one step at a time, the runner's multi-step ``run``, its lockstep
ensemble, the sweep's chunks) must apply each event at that step, although
in floating point ``11 * 0.03`` is 0.32999999999999996, below 0.33.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_waits import came_round
from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.events import TIME_TOLERANCE, EventCursor, reached, steps_until
from sim.run.runner import ENSEMBLE, Runner
from sim.run.scenario import Event, loads
from sim.model.simulation import Simulation
from sim.sweep import Sweep
from sim.sweep.chunk import run_chunk

# dt = 0.03, then 0.007 from t = 0.6; 40 steps (duration / the first dt) end at t = 0.74.
SCENARIO = """
[scenario]
duration = 1.2

[settings]
dt = 0.03

[[events]]            # at t = 0: before the first step
at = 0.0
torque = [1.0, 0.0, 0.0]

[[events]]            # between steps 6 and 7
at = 0.205
torque = [2.0, 0.0, 0.0]

[[events]]            # step 11, whose time in floating point is 0.32999999999999996
at = 0.33
torque = [3.0, 0.0, 0.0]

[[events]]            # two events at one time, step 15 (0.44999999999999996): in file order
at = 0.45
torque = [4.0, 0.0, 0.0]

[[events]]
at = 0.45
torque = [5.0, 0.0, 0.0]

[[events]]            # a change of step at step 20
at = 0.6
dt = 0.007

[[events]]            # on the new grid: step 30, 0.6699999999999999 in floating point
at = 0.67
torque = [6.0, 0.0, 0.0]

[[events]]            # off the new grid: step 35 (t = 0.705)
at = 0.7
torque = [7.0, 0.0, 0.0]

[[events]]            # at the last step, 40
at = 0.74
torque = [8.0, 0.0, 0.0]

[[events]]            # after the end: never
at = 2.0
torque = [9.0, 0.0, 0.0]
"""
STEPS = 40


@pytest.fixture(scope="module")
def scenario():
    return loads(SCENARIO, name="events_test")


def exact_due_steps(scenario, steps):
    """``[(step, key, value), ...]`` in application order, from exact decimal times (the oracle)."""
    events = sorted(scenario.events, key=lambda e: e.at)   # stable: file order at equal times

    def exact(x):
        return Fraction(repr(x))   # the decimal the file wrote

    dt, t0, k0 = exact(scenario.settings.dt), Fraction(0), 0
    due, i = [], 0
    for k in range(steps + 1):
        t = t0 + (k - k0) * dt
        while i < len(events) and exact(events[i].at) <= t:
            for key, value in events[i].changes.items():
                due.append((k, key, value))
                if key == "dt":
                    t0, k0, dt = t, k, exact(value)
            i += 1
    return due


@pytest.fixture
def record(monkeypatch):
    """Every ``set`` or ``control`` (a torque, command or wheel torques: issue 29) of a Simulation or an
    Ensemble as ``(kind, steps taken, key, value)``."""
    calls = []

    def recording(kind, original):
        def set_(self, key, value):
            calls.append((kind, self.steps, key, value))
            return original(self, key, value)
        return set_

    monkeypatch.setattr(Simulation, "set", recording("body", Simulation.set))
    monkeypatch.setattr(Ensemble, "set", recording("ensemble", Ensemble.set))
    monkeypatch.setattr(Simulation, "control", recording("body", Simulation.control))
    monkeypatch.setattr(Ensemble, "control", recording("ensemble", Ensemble.control))
    return calls


def of(calls, kind):
    return [(k, key, value) for who, k, key, value in calls if who == kind]


def test_the_oracle_sees_what_the_scenario_comments_say(scenario):
    due = exact_due_steps(scenario, STEPS)
    assert [k for k, _, _ in due] == [0, 7, 11, 15, 15, 20, 30, 35, 40]
    assert [v for _, key, v in due if key == "torque"][3:5] == [(4.0, 0.0, 0.0), (5.0, 0.0, 0.0)]
    # sharp: in floating point these steps end just short of their event's time
    assert 11 * 0.03 < 0.33 and 15 * 0.03 < 0.45 and 0.6 + 10 * 0.007 < 0.67


def test_the_runner_one_step_at_a_time_applies_each_event_at_its_step(scenario, record):
    runner = Runner(scenario)
    for _ in range(STEPS):
        runner.advance(1)
    assert of(record, "body") == exact_due_steps(scenario, STEPS)


@pytest.mark.parametrize("every", [1, 4, 7, 40])
def test_the_runners_multi_step_run_applies_them_at_the_same_steps(scenario, record, every):
    rows = list(Runner(scenario).run(every=every))
    assert of(record, "body") == exact_due_steps(scenario, STEPS)
    assert rows[-1][0] == pytest.approx(0.74)


def test_the_runners_ensemble_gets_them_at_the_same_steps_as_the_main_body(scenario, record):
    runner = Runner(scenario)
    runner.submit(ENSEMBLE, EnsembleSpec(bodies=3, attitudes="same"))
    for _ in range(STEPS):
        runner.advance(1)
    assert of(record, "ensemble") == of(record, "body") == exact_due_steps(scenario, STEPS)


@pytest.mark.parametrize("traj_every", [0, 1, 6])
def test_the_sweep_applies_them_at_the_same_steps_as_the_runner(scenario, record, traj_every):
    spec = EnsembleSpec(bodies=2, attitudes="same")
    run_chunk(scenario.settings, spec, scenario.events, STEPS, 0, 2, traj_every)
    assert of(record, "ensemble") == exact_due_steps(scenario, STEPS)


def test_the_sweep_and_the_runner_fly_the_same_states(scenario):
    """The steps above matter: a torque event one step off would change the attitude at 1e-4."""
    result = Sweep(scenario, EnsembleSpec(bodies=2, attitudes="same"), traj_every=1).run()
    rows = np.array(list(Runner(scenario).run()))
    np.testing.assert_array_equal(result.t, rows[:, 0])
    for j in range(2):
        np.testing.assert_allclose(result.q[:, :, j], rows[:, 1:5], rtol=0, atol=1e-12)


def test_a_rewound_cursor_applies_the_events_again():
    changes = []
    cursor = EventCursor([Event(0.2, {"a": 2}), Event(0.1, {"b": 1})], lambda k, v: changes.append(k))
    assert cursor.next_at == 0.1                      # in time order, whatever the order given
    assert cursor.apply(0.25) == 2 and changes == ["b", "a"] and cursor.next_at == math.inf
    assert cursor.steps_to_next(0.25, 0.01) == math.inf
    cursor.rewind()
    assert cursor.apply(0.0) == 0 and cursor.steps_to_next(0.0, 0.01) == 10
    assert cursor.apply(0.1) == 1 and changes == ["b", "a", "b"]


def test_reached_counts_a_time_within_the_tolerance():
    assert reached(1.0, 1.0) and reached(1.0 - 0.5 * TIME_TOLERANCE, 1.0) and reached(2.0, 1.0)
    assert not reached(1.0 - 2.0 * TIME_TOLERANCE, 1.0)
    assert reached(11 * 0.03, 0.33) and 11 * 0.03 < 0.33


@settings(max_examples=300, deadline=None)
@given(t0=st.integers(0, 2000), dt=st.sampled_from(["0.001", "0.003", "0.007", "0.01", "0.03", "0.1", "0.3"]),
       ahead=st.integers(0, 400), offset=st.sampled_from([0.0, 0.25, 0.5, 1e-7, -1e-7, 1 - 1e-7]))
def test_steps_until_is_never_a_step_too_many(t0, dt, ahead, offset):
    """Counted against stepping one step at a time, with ``t`` computed as the engines compute it."""
    step, start = float(dt), t0 * float(dt) / 7.0
    at = start + (ahead + offset) * step
    first = next(k for k in range(ahead + 3) if reached(start + k * step, at))  # the step that reaches it
    count = steps_until(start, at, step)
    assert count in (first, first - 1)
    assert count == first or not reached(start + count * step, at)


def test_the_window_pauses_at_the_end_on_the_step_the_events_use():
    """The worker's pause at a scenario's end follows the same rule: 0.33 s is reached after 11 steps of 0.03 s."""
    import time

    from app.worker import SimulationWorker

    worker = SimulationWorker(Runner(loads("[settings]\ndt = 0.03\n")), speed=10.0)
    worker.pause_at(0.33)
    worker.start()
    try:
        end = time.perf_counter() + 5.0
        while not worker.at_end:
            assert time.perf_counter() < end, "timed out"
            time.sleep(0.005)

        def wait(condition):
            while not condition():
                assert time.perf_counter() < end, "timed out"
                time.sleep(0.005)
        came_round(worker, wait)  # and it stays there
        assert worker.steps_taken == 11 and worker.drain()[-1].last.t == 11 * 0.03 < 0.33
    finally:
        assert worker.stop(2.0)
