"""Controls are not model changes (issue 29): a torque, command angles or wheel torques flown from the panel
are validated once, applied at one step boundary without rebuilding the settings, the body or the models, and
recorded and replayed bit for bit; the reference is the old path (the model rebuilt from settings with the
value in), which must give the same states."""

from __future__ import annotations

import numpy as np
import pytest

import sim.model.controls
import sim.model.settings
import sim.model.stepping
from sim.ensemble import EnsembleSpec
from sim.model.controls import CONTROLS, Control
from sim.model.settings import SettingsError
from sim.model.simulation import Simulation
from sim.run.recording import Recorder, load_recording, replay
from sim.run.runner import ENSEMBLE, RESET, Runner
from sim.run.scenario import load


def _models(sim):
    return sim._settings, sim.body, sim._rigid, sim._torque, sim._load, sim._integrate


@pytest.mark.parametrize("key, value", [("torque", (1.0, -2.0, 0.5)), ("command_deg", (30.0, -10.0, 45.0))])
def test_a_control_rebuilds_nothing(key, value):
    runner = Runner(load("default"))
    runner.advance(10)
    before = _models(runner.sim)
    runner.send((Control(key, value),))
    batch = runner.advance(1)
    assert batch.applied == [(10, key, value)]
    after = _models(runner.sim)
    assert all(a is b for a, b in zip(before, after))        # the same objects: nothing was rebuilt
    assert getattr(runner.sim.settings, key) == value          # and the settings shown hold it
    # a model change, by contrast, rebuilds the body and the settings record
    runner.submit("dampers_on", True)
    runner.advance(1)
    assert runner.sim._settings is not before[0] and runner.sim.body is not before[1]
    assert runner.sim.settings.dampers_on and getattr(runner.sim.settings, key) == value   # the control kept


def test_wheel_torques_are_a_control_too():
    runner = Runner(load("reaction_wheels"))
    count = runner.sim.wheel_count
    before = _models(runner.sim)
    runner.send((("wheel_torques", (0.01,) * count),))
    runner.advance(1)
    assert all(a is b for a, b in zip(before, _models(runner.sim)))
    assert runner.sim._load.direct == (0.01,) * count
    with pytest.raises(SettingsError, match="wheel_torques"):    # one per wheel, in the caller's thread
        runner.send((Control("wheel_torques", (0.01,) * (count + 1)),))


def test_a_control_is_validated_once(monkeypatch):
    calls = []
    for module in (sim.model.controls, sim.model.settings):
        real = module.validate
        monkeypatch.setattr(module, "validate", lambda k, v, real=real: calls.append(k) or real(k, v))
    runner = Runner(load("tennis_racket"))   # three bodies
    calls.clear()
    runner.send((Control("torque", (0.5, 0.0, 0.0)),))
    runner.advance(1)
    assert calls == ["torque"]


def test_a_control_outside_its_range_or_not_a_control_is_refused():
    with pytest.raises(SettingsError, match="torque"):
        Control("torque", (1e9, 0.0, 0.0))
    with pytest.raises(SettingsError, match="not a control"):
        Control("dt", 0.01)
    assert CONTROLS == {"torque", "command_deg", "wheel_torques"}


def _rebuilt(sim, key, value):
    """The path before issue 29: the settings record replaced and the model rebuilt from it."""
    sim._settings = sim.settings.replace(**{key: value})
    sim._controls = None
    if key == "command_deg":
        sim._start_command()
    else:
        sim._configure()


@pytest.mark.parametrize("scenario, key, value", [
    ("default", "torque", (2.0, -1.0, 0.5)),
    ("shortest_path", "command_deg", (20.0, 40.0, -30.0)),
    ("reaction_wheels", "wheel_torques", (0.02, -0.01, 0.005)),
])
def test_a_control_gives_the_states_the_rebuilt_model_gave(scenario, key, value):
    settings = load(scenario).settings
    if key == "wheel_torques":
        value = value[:settings.wheel_count] + (0.0,) * (settings.wheel_count - len(value))
    a, b = Simulation(settings), Simulation(settings)
    a.step(100)
    b.step(100)
    a.control(key, Control(key, value).value)
    _rebuilt(b, key, value)
    rows_a, rows_b = [], []
    for _ in range(300):
        a.step()
        b.step()
        rows_a.append(a.row())
        rows_b.append(b.row())
    assert np.array_equal(np.array(rows_a), np.array(rows_b))   # bit for bit


def test_controls_are_recorded_at_their_step_and_replay_bit_for_bit(tmp_path):
    path = tmp_path / "flown.jsonl"
    scenario = load("reaction_wheels")
    n = scenario.settings.wheel_count
    runner = Runner(scenario, recorder=Recorder(path, scenario))
    runner.submit(ENSEMBLE, EnsembleSpec(bodies=20, seed=3))
    rows = [runner.advance(50).rows]
    entries = [(Control("torque", (0.1, -0.2, 0.05)),),
               (Control("wheel_torques", (0.01,) * n), Control("command_deg", (10.0, 20.0, -5.0))),
               (("dampers_on", True), Control("torque", (0.0, 0.0, 0.0))),
               (("angles_deg", (5.0, 0.0, 0.0)), (RESET, None)),
               (Control("command_deg", (-30.0, 0.0, 15.0)),)]
    for entry in entries:
        runner.send(entry)
        rows.append(runner.advance(37).rows)
    frame = runner.ensemble_frame()
    runner.recorder.close(runner.total_steps)
    _, inputs, last = load_recording(path)
    recorded = [(step, key) for step, key, _ in inputs if key in CONTROLS]
    assert recorded == [(50, "torque"), (87, "wheel_torques"), (87, "command_deg"), (124, "torque"),
                        (198, "command_deg")]
    replayed, steps = replay(path)
    assert steps == last == runner.total_steps
    again = replayed.advance(steps)
    assert np.array_equal(again.rows, np.vstack(rows))              # the main body, bit for bit
    assert np.array_equal(replayed.ensemble_frame().q, frame.q)      # and the ensemble that got the controls
