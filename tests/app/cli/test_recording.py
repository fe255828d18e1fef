"""Record and replay reproduce states bit for bit; a killed recording still loads."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from app.cli import main
from sim.run.recording import Recorder, RecordingError, load_recording, replay
from sim.ensemble import EnsembleSpec
from sim.run.runner import ENSEMBLE, RESET, Runner
from sim.run.scenario import load


def _record(path, scenario_name="default"):
    scenario = load(scenario_name)
    recorder = Recorder(path, scenario)
    runner = Runner(scenario, recorder=recorder)
    rows = [runner.advance(250).rows]
    for key, value in [("torque", (2.0, -1.0, 0.5)), ("integrator", "full-quat"),
                       ("controller", "quaternion"), ("command_deg", (20.0, 40.0, -30.0)),
                       ("norm", "renormalize"), ("dt", 0.0005), ("torque", (0.0, 0.0, 0.0)),
                       ("integrator", "rk4"), (RESET, None), ("full_quat_form", "lagrange"),
                       ("integrator", "full-quat")]:
        runner.submit(key, value)
        rows.append(runner.advance(173).rows)
    recorder.close(runner.total_steps)
    return np.vstack(rows), runner.total_steps


def test_replay_reproduces_states_bit_for_bit(tmp_path):
    path = tmp_path / "run.jsonl"
    recorded, steps = _record(path)
    runner, last = replay(path)
    assert last == steps
    replayed = runner.advance(last).rows
    assert replayed.shape == recorded.shape
    assert np.array_equal(replayed, recorded)          # bit for bit, not approximately


def test_replay_of_comparison_scenario(tmp_path):
    path = tmp_path / "gimbal.jsonl"
    recorded, steps = _record(path, "gimbal_lock")
    runner, last = replay(path)
    assert np.array_equal(runner.advance(last).rows, recorded)


def test_replay_command_writes_csv(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    recorded, steps = _record(path)
    out = tmp_path / "states.csv"
    assert main(["replay", str(path), "--out", str(out)]) == 0
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    assert data.shape[0] == steps + 1
    assert np.array_equal(data[1:, :24], recorded[:, :24])


@pytest.mark.parametrize("content, fragment", [
    ("", "empty file"),
    ("{not json\n", "not a recording header"),
    ('{"format": "something else"}\n', "not an attitude-sim recording"),
])
def test_bad_recording_is_refused(tmp_path, content, fragment):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RecordingError, match=fragment):
        load_recording(path)


def test_bad_input_line_names_the_line(tmp_path):
    path = tmp_path / "run.jsonl"
    _record(path)
    lines = path.read_text().splitlines()
    lines.insert(2, json.dumps({"step": 3, "key": "dt", "value": -1}))
    lines.insert(3, "{}")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordingError, match=r"line 3: dt: -1 must be > 0"):
        load_recording(path)


def test_an_ensemble_started_and_stopped_mid_run_replays_bit_for_bit(tmp_path):
    """The ensemble input is recorded with its spec; the replay builds it from the same settings at the
    same step, so every body's state matches, and it is gone where it was removed."""
    path = tmp_path / "ensemble.jsonl"
    scenario = load("default")
    recorder = Recorder(path, scenario)
    runner = Runner(scenario, recorder=recorder)
    runner.advance(120)
    runner.submit("controller", "quaternion")
    runner.submit("command_deg", (30.0, 20.0, -40.0))
    runner.submit(ENSEMBLE, EnsembleSpec(bodies=40, seed=7, rate_spread=0.2, inertia_spread=5.0,
                                         gains_grid=((4.0, 6.0), (10.0,), (12.0, 14.0))))
    runner.advance(200)
    runner.submit("torque", (0.5, 0.0, -0.5))
    recorded = runner.advance(150).ensemble
    runner.submit(ENSEMBLE, None)
    assert runner.advance(30).ensemble is None
    recorder.close(runner.total_steps)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["value"] is None for line in lines if line.get("key") == ENSEMBLE] == [False, True]
    runner2, last = replay(path)
    assert last == 500
    replayed = runner2.advance(470).ensemble
    assert replayed.info.spec == recorded.info.spec
    assert replayed.t == recorded.t
    assert np.array_equal(replayed.q, recorded.q) and np.array_equal(replayed.travelled_deg, recorded.travelled_deg)
    assert runner2.advance(30).ensemble is None


def test_a_scenarios_ensemble_table_is_kept_in_the_header(tmp_path):
    path = tmp_path / "scenario.jsonl"
    scenario = load("ensemble_controller")
    assert scenario.ensemble is not None
    Recorder(path, scenario).close(0)
    assert load_recording(path)[0].ensemble == scenario.ensemble


@pytest.mark.parametrize("value, fragment", [
    ({"bodies": 0}, "bodies"),
    ({"bodies": 10, "colour": "red"}, "unknown field 'colour' "
     r"\(known: attitudes, bodies, detumble_deg_s, epoch_spread, gains_grid, inertia_spread, orbit_spread, rate_spread, seed, "
     r"settle_deg\)"),
    ([1, 2, 3], "expected the fields of an ensemble"),
])
def test_a_bad_ensemble_input_names_the_line(tmp_path, value, fragment):
    path = tmp_path / "run.jsonl"
    _record(path)
    lines = path.read_text().splitlines()
    lines.insert(1, json.dumps({"step": 3, "key": "ensemble", "value": value}))
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordingError, match=rf"line 2: .*{fragment}"):
        load_recording(path)


_CHILD = textwrap.dedent("""
    import sys, time
    from sim.run.recording import Recorder
    from sim.run.runner import Runner
    from sim.run.scenario import load
    scenario = load("default")
    runner = Runner(scenario, recorder=Recorder(sys.argv[1], scenario))
    k = 0
    while True:
        k += 1
        runner.submit("torque", (float(k % 7), 0.0, -1.0))
        runner.advance(100)
        print(k, runner.total_steps, flush=True)
        time.sleep(0.05)
""")


@pytest.mark.subprocess
def test_sigkill_during_recording_leaves_a_loadable_file(tmp_path):
    path = tmp_path / "killed.jsonl"
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path)], stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    sent = []
    started = time.monotonic()
    while time.monotonic() - started < 3.0:
        line = child.stdout.readline()
        if not line:
            break
        sent.append((time.monotonic(), *map(int, line.split())))
    killed_at = time.monotonic()
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    assert len(sent) > 10, "the recording child did not run"
    scenario, inputs, last = load_recording(path)
    assert scenario.name == "default"
    # every input sent more than one second before the kill is in the file
    recorded = len(inputs)
    due = sum(1 for wall, k, steps in sent if wall < killed_at - 1.0)
    assert recorded >= due
    # and the file replays to the step it reached
    runner, steps = replay(path)
    assert steps >= max(s for wall, k, s in sent if wall < killed_at - 1.0) - 100
    runner.advance(steps)


def test_inputs_from_the_live_link_replay_bit_for_bit(tmp_path):
    """Inputs decoded from link messages (sim.io.link) and submitted as the link submits them (one send
    of the newest value of each key), between batches of uneven length, as the simulation thread takes them."""
    from sim.io.link import decode_input, encode_input

    path = tmp_path / "linked.jsonl"
    scenario = load("default")
    recorder = Recorder(path, scenario)
    runner = Runner(scenario, recorder=recorder)
    rng = np.random.default_rng(34)
    rows = [runner.advance(7).rows]
    for k in range(60):
        message = encode_input(k, torque=tuple(rng.normal(0.0, 0.3, 3)),
                               **({"command_deg": tuple(rng.uniform(-90, 90, 3))} if k % 10 == 0 else {}))
        _, inputs = decode_input(message)
        runner.send(tuple(inputs.items()))
        rows.append(runner.advance(int(rng.integers(1, 9))).rows)
    recorder.close(runner.total_steps)
    recorded = np.vstack(rows)
    replayed, last = replay(path)
    assert last == runner.total_steps
    assert np.array_equal(replayed.advance(last).rows, recorded)   # bit for bit
