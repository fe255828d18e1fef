"""Issue 35, class 5: an input wrong only in its context is refused where it is loaded, naming its file and line.

The mechanism is :func:`sim.run.context.check_inputs`: the runner's rules
(which bodies a setting reaches, the main body's wheels kept, events at the
step their time is reached, rewound by a reset) replayed through Settings
without a step.  Its reference here is the real runner: for random
recordings it refuses exactly those whose replay (with the check switched
off) stops on a settings fault, and for the same reason.  The command line,
the window's flight and the API each refuse such inputs before anything is
written (the real processes are in tests/hostile_cases.py, class R5).
"""

import json
import random

import pytest

import sim.run.runner as runner_module
from app.flight import Flight, FlightError
from sim import api
from sim.ensemble import EnsembleSpec
from sim.model.settings import Settings, SettingsError
from sim.run.context import ENSEMBLE, RESET, check_inputs
from sim.run.recording import RecordingError, load_recording
from sim.run.runner import Runner
from sim.run.scenario import Event, Scenario, ScenarioError, load, loads
from sim.sweep import Sweep

PYRAMID = 'wheels = "pyramid"\n'
#: An event that fits the main body's four wheels, not the comparison body's three.
COMPARE_MISFIT = f"""[scenario]
duration = 0.05

[settings]
{PYRAMID}
[[events]]
at = 0.02
wheel_torques = [0.01, 0, 0, 0]

[[compare]]
label = "three"
wheels = "orthogonal"
"""


def header(settings=None, events=(), compare=()) -> dict:
    return {"format": "attitude-sim recording", "version": 1, "name": "r", "duration": 0.05,
            "settings": settings or {"wheels": "pyramid"}, "events": list(events), "compare": list(compare)}


def write_recording(path, head, inputs, end=50):
    lines = [json.dumps(head)] + [json.dumps({"step": s, "key": k, "value": v}) for s, k, v in inputs]
    path.write_text("\n".join([*lines, json.dumps({"end": end})]) + "\n")
    return path


# ------------------------------------------------------------------ the mechanism
def test_an_event_that_misfits_a_comparison_body_is_refused_at_load_naming_its_line():
    with pytest.raises(ScenarioError) as err:
        loads(COMPARE_MISFIT, source="s.toml")
    assert str(err.value) == ("s.toml, line 7: [[events]] #1: comparison body 'three': "
                              "wheel_torques: 4 values for 3 wheels (give one per wheel)")
    scenario = loads(COMPARE_MISFIT.replace('wheels = "orthogonal"', 'controller = "euler"'))  # fits both
    assert scenario.events[0].where.endswith("line 7: [[events]] #1")


def test_events_are_tried_in_the_order_of_the_run_not_of_the_file():
    # speeds 100 rad/s, then a speed limit of 50: the later event (in time) is the one refused
    text = f"""[settings]
{PYRAMID}
[[events]]
at = 2.0
wheel_speed_limit = 50.0

[[events]]
at = 1.0
wheel_speeds = [100.0, 0, 0, 0]
"""
    with pytest.raises(ScenarioError, match=r"^s.toml, line 4: \[\[events\]\] #1: wheel_speeds\[0\]: 100 rad/s is "
                                            r"beyond the wheel's speed limit 50"):
        loads(text, source="s.toml")
    swapped = text.replace("at = 2.0", "at = 0.5")  # the limit first: now the speeds are refused
    with pytest.raises(ScenarioError, match=r"line 8: \[\[events\]\] #2: wheel_speeds\[0\]: 100 rad/s"):
        loads(swapped, source="s.toml")


def test_recorded_inputs_meet_the_events_at_the_step_their_time_is_reached(tmp_path):
    limit = {"at": 0.01, "wheel_speed_limit": 50.0}  # dt 1 ms: before step 10
    speeds = [100.0, 0.0, 0.0, 0.0]
    early = write_recording(tmp_path / "a.jsonl", header(events=[limit]), [(5, "wheel_speeds", speeds)])
    with pytest.raises(RecordingError, match=r"a.jsonl, line 1: the header's event #1 \(at 0.01 s\): wheel_speeds"):
        load_recording(early)
    late = write_recording(tmp_path / "b.jsonl", header(events=[limit]), [(15, "wheel_speeds", speeds)])
    with pytest.raises(RecordingError, match=r"b.jsonl, line 2: input 'wheel_speeds' before step 15: wheel_speeds"):
        load_recording(late)
    # the same step: the runner applies the events due after a step before the inputs scheduled for the next
    same = write_recording(tmp_path / "s.jsonl", header(events=[limit]), [(10, "wheel_speeds", speeds)])
    with pytest.raises(RecordingError, match=r"s.jsonl, line 2: input 'wheel_speeds' before step 10: wheel_speeds"):
        load_recording(same)
    # dt 10 ms from step 0: the event's time comes at step 1, before the input at step 5
    coarse = write_recording(tmp_path / "c.jsonl", header(events=[limit]),
                             [(0, "dt", 0.01), (5, "wheel_speeds", speeds)])
    with pytest.raises(RecordingError, match=r"c.jsonl, line 3: input 'wheel_speeds' before step 5"):
        load_recording(coarse)


def test_a_reset_replays_the_events_against_the_settings_then(tmp_path):
    inputs = [(20, "wheel_speed_limit", 600.0), (21, "wheel_speeds", [100.0, 0.0, 0.0, 0.0])]
    head = header(events=[{"at": 0.01, "wheel_speed_limit": 50.0}])
    load_recording(write_recording(tmp_path / "ok.jsonl", head, inputs))  # the event came before the speeds
    with pytest.raises(RecordingError, match=r"line 1: the header's event #1 \(at 0.01 s\): wheel_speeds\[0\]"):
        load_recording(write_recording(tmp_path / "reset.jsonl", head, [*inputs, (22, RESET, None)]))


def test_the_ensembles_bodies_keep_the_settings_they_were_built_with(tmp_path):
    # the main body's speeds go to 0 (not an ensemble input), the ensemble's stay at 500: a limit of 100 misfits them
    settings = {"wheels": "pyramid", "wheel_speeds": [500.0, 0.0, 0.0, 0.0]}
    inputs = [(1, "wheel_speeds", [0.0] * 4), (2, "wheel_speed_limit", 100.0)]
    load_recording(write_recording(tmp_path / "ok.jsonl", header(settings), inputs))
    with pytest.raises(RecordingError, match=r"line 4: input 'wheel_speed_limit' before step 2: the ensemble's "
                                             r"bodies: wheel_speeds\[0\]: 500 rad/s"):
        load_recording(write_recording(tmp_path / "e.jsonl", header(settings),
                                       [(0, ENSEMBLE, {"bodies": 4}), *inputs[:1], (2, "wheel_speed_limit", 100.0)]))


@pytest.mark.parametrize("inputs, says", [
    ([(10, "wheel_torques", [0.1, 0.0, 0.0])], "line 2: input 'wheel_torques' before step 10: wheel_torques: "
                                                "3 values for 4 wheels"),
    ([(3, "torque", [0.0, 0.0, 0.0]), (10, "integrator", "splitting")],
     "line 3: input 'integrator' before step 10: integrator: splitting is for a body without reaction wheels"),
    ([(10, "wheels", "orthogonal")], "line 2: input 'wheels' before step 10: wheels: a run keeps its 4 wheels"),
])
def test_a_recorded_input_wrong_in_its_context_is_refused_naming_its_line(tmp_path, inputs, says):
    with pytest.raises(RecordingError, match=says):
        load_recording(write_recording(tmp_path / "r.jsonl", header(), inputs))


def test_a_header_event_that_changes_the_wheel_count_is_refused(tmp_path):
    head = header({"wheels": "none"}, events=[{"at": 0.01, "wheels": "pyramid"}])
    with pytest.raises(RecordingError, match=r"line 1: the header's event #1 \(at 0.01 s\): wheels: a run keeps its "
                                             "0 wheels"):
        load_recording(write_recording(tmp_path / "h.jsonl", head, []))


def _replays_without_fault(scenario, inputs, steps, monkeypatch) -> str | None:
    """The reference: the real runner, its load-time check switched off, stepped through; its fault or None."""
    with monkeypatch.context() as m:
        m.setattr(runner_module, "check_inputs", lambda *a, **k: None)
        runner = Runner(scenario, ensembles=lambda s, spec: runner_module.Ensemble(s, spec, track=False))
    for step, key, value in inputs:
        runner.schedule(step, key, value)
    return runner.advance(steps).fault


def test_the_check_refuses_exactly_what_the_runner_would_stop_on(monkeypatch):
    rng = random.Random(35)
    base = Settings(wheels="pyramid", dt=0.01, wheel_speed_limit=400.0)
    refused = 0
    for _ in range(60):
        def change():
            return rng.choice([("wheel_speeds", tuple(rng.uniform(0, 300) for _ in range(4))),
                               ("wheel_speed_limit", rng.uniform(100, 400)), ("dt", rng.choice([0.01, 0.02]))])
        events = tuple(Event(rng.uniform(0, 0.15), dict([change()])) for _ in range(rng.randint(0, 3)))
        compare = (("slow", {"wheel_speed_limit": 250.0}),) if rng.random() < 0.5 else ()
        inputs = []
        for step in sorted(rng.sample(range(20), rng.randint(0, 5))):
            roll = rng.random()
            inputs.append((step, RESET, None) if roll < 0.15 else
                          (step, ENSEMBLE, EnsembleSpec(bodies=3)) if roll < 0.3 else (step, *change()))
        scenario = Scenario(name="x", settings=base, events=events, compare=compare)
        try:
            check_inputs(scenario, inputs)
            verdict = None
        except SettingsError as exc:
            verdict = str(exc)
        fault = _replays_without_fault(scenario, inputs, 40, monkeypatch)
        assert (verdict is None) == (fault is None), (scenario, inputs, verdict, fault)
        if fault is not None:
            refused += 1
            assert verdict.endswith(fault), (verdict, fault)
    assert 10 <= refused <= 50, "the cases try both verdicts"


# ------------------------------------------------------------------ where it is used
def test_runner_sweep_and_api_refuse_before_a_step(tmp_path):
    scenario = loads(COMPARE_MISFIT.replace('wheels = "orthogonal"', 'controller = "euler"'))
    misfit = Scenario(name="x", settings=scenario.settings.replace(wheels="orthogonal"), events=scenario.events)
    for build in (lambda: Runner(misfit), lambda: Sweep(misfit, EnsembleSpec(bodies=2)),
                  lambda: api.run(scenario, wheels="orthogonal")):
        with pytest.raises(SettingsError, match="line 7: \\[\\[events\\]\\] #1: wheel_torques: 4 values for 3 wheels"):
            build()
    out = tmp_path / "r.jsonl"
    with pytest.raises(SettingsError, match=r"inputs\[1\] \('wheel_torques' at t=0.01 s\): wheel_torques: 3 values"):
        api.record(Settings(wheels="pyramid"), out, 0.05, [(0.0, "torque", (0, 0, 0)), (0.01, "wheel_torques", (1, 0, 0))])
    assert not out.exists(), "nothing recorded"


@pytest.fixture
def flight():
    made = Flight(load("default"), 1.0)
    made.worker.pause(True)
    made.start()
    yield made
    assert made.stop()


def test_the_windows_open_says_where_and_keeps_the_run(flight, tmp_path):
    runner = flight.worker.runner
    bad = tmp_path / "bad.toml"
    bad.write_text(COMPARE_MISFIT)
    rec = write_recording(tmp_path / "bad.jsonl", header(), [(10, "wheel_torques", [0.1, 0.0, 0.0])])
    for open_, says in ((flight.open_scenario, "bad.toml, line 7: [[events]] #1: comparison body 'three'"),
                        (flight.replay, "bad.jsonl, line 2: input 'wheel_torques' before step 10")):
        with pytest.raises(FlightError) as err:
            open_(bad if open_ == flight.open_scenario else rec)
        assert says in str(err.value)
    assert flight.worker.runner is runner and flight.scenario.name == "default"
