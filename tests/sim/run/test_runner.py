"""The runner: inputs take effect at the next step, events by time, faults stop a batch."""

import threading

import numpy as np
import pytest

from sim.core import advance as compiled
from sim.core import jit
from sim.run.runner import ENSEMBLE, RESET, Runner
from sim.run.scenario import load, loads
from sim.model.settings import SettingsError
from sim.model.rows import HISTORY_COLUMNS

COL = {name: i for i, name in enumerate(HISTORY_COLUMNS)}


def test_input_takes_effect_on_next_step():
    runner = Runner(load("default"))
    runner.advance(10)
    runner.submit("torque", (4.0, 0.0, 0.0))
    batch = runner.advance(3)
    assert batch.applied == [(10, "torque", (4.0, 0.0, 0.0))]
    assert batch.rows[0, COL["wx"]] > 0.0           # the very first step used it


def test_submit_validates_in_callers_thread():
    runner = Runner(load("default"))
    with pytest.raises(SettingsError, match="dt"):
        runner.submit("dt", float("nan"))


def test_inputs_submitted_together_take_effect_at_one_step_even_while_it_steps():
    """A body and its carried tuning, sent together from another thread while the runner steps, land on one step."""
    runner = Runner(load("default"))
    together = [("body", "t_handle"), ("mass", None), ("dampers", (0.001, 0.001, 0.001)), ("gains", (1.0, 1.0, 1.0)),
                ("limits", (0.01, 0.01, 0.01))]
    sender = threading.Thread(target=lambda: [runner.send(together) for _ in range(50)])
    sender.start()
    applied = []
    while sender.is_alive() or not applied or len(applied) < 50 * len(together):
        applied += runner.advance(1).applied
    sender.join()
    steps = [step for step, _, _ in applied]
    assert len(applied) == 50 * len(together)
    assert all(len(set(steps[i:i + len(together)])) == 1 for i in range(0, len(steps), len(together)))
    assert [key for _, key, _ in applied[:len(together)]] == [key for key, _ in together]   # in order


def test_inputs_submitted_together_are_refused_together():
    runner = Runner(load("default"))
    with pytest.raises(SettingsError, match="dt"):
        runner.send([("torque", (1.0, 0.0, 0.0)), ("dt", -1.0)])
    assert runner.advance(1).applied == []


def test_submit_from_many_threads_loses_nothing():
    runner = Runner(load("default"))
    threads = [threading.Thread(target=lambda: [runner.submit("slerp_time", 1.0) for _ in range(100)])
               for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(runner.advance(1).applied) == 400


def test_events_fire_at_their_time_and_reset_rewinds_them():
    scenario = loads("""
[settings]
dt = 0.01
[[events]]
at = 0.05
torque = [0, 0, 3]
""")
    runner = Runner(scenario)
    rows = runner.advance(10).rows
    tz = rows[:, COL["tz"]]
    # row k is the state after step k+1 (t = (k+1) dt) with the torque acting from then on
    assert np.all(tz[:4] == 0.0) and np.all(tz[4:] == 3.0)
    runner.submit(RESET)
    runner.submit("torque", (0.0, 0.0, 0.0))
    rows = runner.advance(10).rows
    assert rows[0, COL["t"]] == pytest.approx(0.01)       # back to t = 0, then one step
    tz = rows[:, COL["tz"]]
    assert np.all(tz[:4] == 0.0) and np.all(tz[4:] == 3.0)  # the event fires again


def test_fault_stops_batch_and_keeps_last_good_state():
    runner = Runner(load("default"))
    runner.submit("norm", "none")
    runner.submit("dampers_on", False)
    runner.submit("rates", (60.0, 50.0, 40.0))
    runner.submit("dt", 0.05)
    runner.submit(RESET)
    batch = runner.advance(1000)
    assert batch.fault is not None and "norm error" in batch.fault
    assert len(batch.rows) < 1000
    assert np.all(np.isfinite(batch.rows))
    assert all(np.isfinite(batch.last.q)) and abs(batch.last.norm) <= 1e-3
    if len(batch.rows):
        assert batch.last.t == batch.rows[-1, COL["t"]]
    runner.submit("norm", "hoffmann")
    runner.submit("rates", (0.0, 0.0, 0.0))
    runner.submit("dt", 0.001)
    runner.submit(RESET)
    assert runner.advance(100).fault is None


def test_run_generator_matches_advance():
    scenario = load("shortest_path")
    rows_run = np.array(list(Runner(scenario).run(duration=3.0)))
    rows_adv = Runner(scenario).advance(3000).rows
    assert np.array_equal(rows_run[1:], rows_adv)


def test_compare_rows_measure_against_rk4_reference():
    from sim.core.quaternion import rotation_angle
    from sim.run.runner import COMPARE_COLUMNS, MAIN

    runner = Runner(load("integrators"))
    assert runner.reference == "rk4"
    batch = runner.advance(200)
    assert set(batch.compare_rows) == {MAIN, *runner.compare}
    error = COMPARE_COLUMNS.index("error_deg")
    assert np.all(batch.compare_rows["rk4"][:, error] == 0.0)
    expected = np.degrees(rotation_angle(runner.sim.q, runner.compare["rk4"].q))
    assert batch.compare_rows[MAIN][-1, error] == pytest.approx(expected, rel=1e-9)
    energy = COMPARE_COLUMNS.index("energy")
    assert batch.compare_rows["full-quat raw"][-1, energy] == pytest.approx(
        runner.compare["full-quat raw"].snapshot().energy)
    assert batch.compare_rows[MAIN].shape == (200, len(COMPARE_COLUMNS))
    dt = runner.sim.settings.dt
    for label, rows in batch.compare_rows.items():
        np.testing.assert_allclose(rows[:, COMPARE_COLUMNS.index("t")], np.arange(1, 201) * dt, rtol=1e-12)
        q = runner.sim.q if label == MAIN else runner.compare[label].q
        assert rows[-1, COMPARE_COLUMNS.index("norm")] == pytest.approx(np.linalg.norm(q) - 1.0, abs=1e-15)


def test_run_applies_an_input_queued_before_it_and_events_one_step_apart_each_at_its_step():
    scenario = loads("""
[settings]
dt = 0.01
[[events]]
at = 0.05
torque = [0, 0, 3]
[[events]]
at = 0.06
torque = [0, 2, 0]
""")
    runner = Runner(scenario)
    runner.submit("torque", (1.0, 0.0, 0.0))  # takes effect at the first step of the run
    rows = np.array(list(runner.run(duration=0.1)))
    assert np.allclose(rows[:, COL["t"]], np.arange(11) * 0.01, rtol=0, atol=1e-12)
    # each row shows the torque in force after its step (an event at t is applied at t)
    expected = [(0, 0, 0)] + [(1, 0, 0)] * 4 + [(0, 0, 3)] + [(0, 2, 0)] * 5
    assert rows[:, [COL["tx"], COL["ty"], COL["tz"]]].tolist() == [list(map(float, e)) for e in expected]
    # rows every 5 steps are the same states: the steps between rows stop at each event
    runner = Runner(scenario)
    runner.submit("torque", (1.0, 0.0, 0.0))
    assert np.array_equal(np.array(list(runner.run(duration=0.1, every=5))), rows[::5])


def test_run_flies_a_submitted_ensemble_step_for_step_with_the_body():
    from sim.ensemble import Ensemble, EnsembleSpec

    scenario = loads("""
[settings]
dt = 0.01
torque = [0.5, -0.2, 0.1]
""")
    spec = EnsembleSpec(bodies=4, seed=3, rate_spread=0.2)
    runner = Runner(scenario)
    runner.submit(ENSEMBLE, spec)
    rows = list(runner.run(duration=0.3, every=7))
    assert len(rows) == 1 + 5 and runner.total_steps == 30
    alone = Ensemble(scenario.settings, spec)
    alone.step(30)
    assert runner.ensemble.t == pytest.approx(0.3) and np.array_equal(runner.ensemble.q, alone.q)


def test_scheduled_lists_one_inputs_pending_steps_in_order():
    runner = Runner(load("default"))
    runner.schedule(30, "torque", (0.0, 1.0, 0.0))
    runner.schedule(10, "torque", (1.0, 0.0, 0.0))
    runner.schedule(20, "dampers_on", True)
    assert runner.scheduled("torque") == [(10, (1.0, 0.0, 0.0)), (30, (0.0, 1.0, 0.0))]
    assert runner.scheduled("dampers_on") == [(20, True)]
    assert runner.scheduled("rates") == []


def test_no_compare_rows_without_comparison_bodies():
    assert Runner(load("default")).advance(5).compare_rows == {}


def test_fault_in_a_comparison_body_names_it():
    scenario = loads("""
[settings]
dt = 0.01
rates = [20.0, 10.0, 5.0]
[[compare]]
label = "drifter"
norm = "none"
""")
    batch = Runner(scenario).advance(5000)
    assert batch.fault is not None
    assert "comparison body 'drifter'" in batch.fault and "norm error" in batch.fault


def _one_step_at_a_time(settings, n, inputs=()):
    """The rows of before issue 42's batches: one step, then the row, with ``inputs`` ``{step: (key, value)}``
    set before the step that follows that global step."""
    from sim.model.simulation import Simulation
    sim = Simulation(settings)
    rows = []
    for k in range(n):
        if k in inputs:
            sim.set(*inputs[k])
        sim.step(1)
        rows.append(sim.row())
    return np.array(rows)


def test_a_batch_steps_to_each_scheduled_input_and_applies_it_at_its_step():
    """Runner.advance takes its steps up to the next input in one call (the compiled rows where it covers the
    body); the input lands just after global step 500, as one step at a time put it, and the rows are the same
    bits."""
    compiled.advance.wait()  # the batches' rows from the compiled loop (else Python, before WARM_AFTER steps)
    scenario = load("default")
    runner = Runner(scenario)
    assert runner.sim._packed(10**6) is not None
    runner.schedule(500, "torque", (50.0, -20.0, 0.0))
    runner.schedule(1700, "torque", (0.0, 0.0, 0.0))
    batch = runner.advance(2000)
    assert batch.fault is None
    assert [step for step, _, _ in batch.applied] == [500, 1700]
    tx = batch.rows[:, COL["tx"]]
    assert np.all(tx[:500] == 0.0) and tx[500] > 49.0 and tx[1700] < 0.0   # the dampers, alone after step 1700
    reference = _one_step_at_a_time(scenario.settings, 2000, {500: ("torque", (50.0, -20.0, 0.0)),
                                                               1700: ("torque", (0.0, 0.0, 0.0))})
    assert np.array_equal(batch.rows.view(np.uint64), reference.view(np.uint64))


def test_a_row_at_an_event_shows_the_event_as_before():
    """An event due after a step is applied before that step's row is written (the torque column of the row
    shows it), whether the batch stepped to it in one call or one step at a time."""
    scenario = loads("""
[settings]
dt = 0.01
rates = [0.2, 0.1, -0.3]
[[events]]
at = 0.5
torque = [0, 0, 3]
""")
    compiled.advance.wait()
    rows = Runner(scenario).advance(100).rows
    tz = rows[:, COL["tz"]]
    assert np.all(tz[:49] == 0.0) and np.all(tz[49:] == 3.0)
    reference = _one_step_at_a_time(scenario.settings, 49)
    assert np.array_equal(rows[:49], reference)


def test_run_every_step_is_advance_and_the_api_collects_its_blocks():
    """Runner.run with every = 1 (blocks of rows up to each event) gives advance's rows; sim.api.run's
    columns, collected block by block, are the rows of its stream (row by row)."""
    from sim import api
    scenario = load("hoffmann_controller")
    rows_run = np.array(list(Runner(scenario).run(duration=3.0)))
    assert np.array_equal(rows_run[1:], Runner(scenario).advance(round(3.0 / scenario.settings.dt)).rows)
    columns = api.run("hoffmann_controller", duration=3.0)
    streamed = np.array(list(api.stream(scenario, duration=3.0)))
    assert np.array_equal(np.column_stack(list(columns.values())), streamed)


@pytest.mark.skipif(jit.DISABLED, reason="the JIT is off: no kernel loads, a batch never asks for one")
def test_a_batch_never_waits_for_the_kernel_to_load(monkeypatch):
    """The window's thread steps in Python while the kernel loads: a batch of more steps than WARM_AFTER asks
    it for fewer at a time, never for a number that makes it wait (sim.core.jit.Kernel.wanted)."""
    kernel = compiled.advance
    asked = []

    def prepare(n, stream=None):
        asked.append(n)
        assert n < kernel.warm_after, "a call this long waits for the load"
        return False

    monkeypatch.setattr(kernel, "_ready", False)
    monkeypatch.setattr(kernel, "prepare", prepare)
    monkeypatch.setattr(kernel, "start", lambda *args, **kwargs: None)
    batch = Runner(load("default")).advance(kernel.warm_after + 500)
    assert batch.fault is None and len(batch.rows) == kernel.warm_after + 500 and len(asked) >= 2
