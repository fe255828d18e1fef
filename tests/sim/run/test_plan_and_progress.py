"""sim.api's run planning and progress: the refusal messages state the run's real size and time, a
replay's progress bar counts its steps and leaves no line behind, and a recording holds exactly the
steps asked for (also when the run is longer than one 10,000-step batch)."""

import re

import time

import pytest

from sim import api
from sim.run.recording import load_recording
from sim.run.scenario import MAX_DURATION, load


def test_a_refusal_for_memory_names_the_rows_and_their_size(monkeypatch):
    monkeypatch.setattr(api, "MAX_RESULT_BYTES", 1 << 20)  # 1 MiB, so a small run is refused fast
    scenario = load("default")
    steps = 200_000
    plan = api.Plan(scenario, steps, 1)
    width = len(api.columns(scenario))
    with pytest.raises(api.RunTooLong) as caught:
        plan.check(in_memory=True)
    text = str(caught.value)
    assert f"{steps + 1:,} rows of {width} columns" in text
    gib = float(re.search(r"([0-9.]+) GiB in memory", text).group(1))
    assert gib == pytest.approx((steps + 1) * width * 8 / 2**30, abs=0.051)  # 8-byte floats, 1 GiB = 2**30 B


def test_a_duration_beyond_the_cap_states_the_time_it_would_take(monkeypatch):
    step_cost = 1e-3  # s a step, so the estimate is steps * 1 ms (rows cost nothing here)
    monkeypatch.setattr(api, "_measure_costs", lambda scenario, repeats=3: (step_cost, 0.0))
    scenario = load("default")
    duration = 2 * MAX_DURATION
    with pytest.raises(api.RunTooLong) as caught:
        api.plan(scenario, duration)
    steps = duration / scenario.settings.dt
    assert api.duration_text(steps * step_cost) in str(caught.value)


def _recording(tmp_path, duration):
    path = tmp_path / "run.jsonl"
    taken = api.record("default", path, duration=duration)
    assert taken == round(duration / load("default").settings.dt)
    return path


class _Counter:
    def __init__(self):
        self.n = 0

    def update(self, n):
        self.n += n


def test_a_replay_stream_reports_every_step_to_its_progress(tmp_path):
    path = _recording(tmp_path, 0.05)
    counter = _Counter()
    rows = list(api.replay_stream(path, progress=counter))
    assert counter.n == 50 == len(rows) - 1


def test_a_replay_bar_shows_a_share_of_the_steps_and_leaves_no_line(tmp_path, capsys):
    path = _recording(tmp_path, 0.05)
    started = time.monotonic()
    result = api.replay(path, progress=True)
    elapsed = time.monotonic() - started
    assert len(result["t"]) == 51
    err = capsys.readouterr().err
    assert "%" in err and "50" in err  # a share of a known total, 50 steps
    assert "\n" not in err  # the bar is cleared when the replay ends
    # redrawn at most every half second: a replay of a few ms shows only its start (a loaded machine's
    # slower replay may show one more drawing each half second)
    assert 1 <= err.count("%|") <= 1 + elapsed / 0.5


def test_a_recording_longer_than_one_batch_holds_exactly_its_steps(tmp_path):
    steps = 10_001  # one more than a 10,000-step batch
    path = _recording(tmp_path, steps * load("default").settings.dt)
    _, _, last = load_recording(path)
    assert last == steps


def test_the_measured_costs_are_per_step_and_per_row(monkeypatch):
    timed = []

    def least_seconds(work, repeats=3):  # a fixed 1 s a batch: the costs are 1 s over the batch's count
        work()
        timed.append(work)
        return 1.0

    monkeypatch.setattr(api, "least_seconds", least_seconds)
    step_cost, row_cost = api._measure_costs(load("default"))
    assert len(timed) == 2  # one body: its steps, its rows
    assert (step_cost, row_cost) == (pytest.approx(1 / 256), pytest.approx(1 / 32))  # 256 steps, 32 rows a batch
