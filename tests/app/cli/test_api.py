"""The Python API (sim.api): columns, comparison bodies, CLI agreement, TOML round trip,
record/replay, refusals, and docs/API.md's examples run as written."""

import csv
import io
import math
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from app.cli import main
from sim import api
from sim.core.body import Body
from sim.run.scenario import Event, Scenario, builtin_names, load, loads
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation, SimulationFault
from sim.model.rows import COLUMNS

DOCS = Path(__file__).resolve().parents[3] / "docs" / "API.md"


def _cli_csv(capsys, *argv):
    assert main(list(argv)) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    return rows[0], np.array(rows[1:], dtype=float)


# ------------------------------------------------------------------ run
def test_run_columns_and_time_grid():
    result = api.run(Settings(dt=0.01), duration=0.5, every=7)
    assert tuple(result) == COLUMNS
    assert all(isinstance(v, np.ndarray) and v.shape == (9,) for v in result.values())
    np.testing.assert_allclose(result["t"], [0, .07, .14, .21, .28, .35, .42, .49, .5], atol=1e-12)


def test_run_matches_cli_csv_bit_for_bit(capsys):
    header, table = _cli_csv(capsys, "run", "--scenario", "integrators", "--duration", "0.5", "--every", "3")
    result = api.run("integrators", duration=0.5, every=3)
    assert header == list(result)
    for k, name in enumerate(header):
        assert np.array_equal(table[:, k], result[name]), name   # repr round-trips floats exactly


def test_run_npz_matches_csv(capsys, tmp_path):
    header, table = _cli_csv(capsys, "run", "--scenario", "hoffmann")
    out = tmp_path / "h.npz"
    assert main(["run", "--scenario", "hoffmann", "--out", str(out)]) == 0   # format from the suffix
    with np.load(out) as data:
        assert list(data.files) == header
        for k, name in enumerate(header):
            assert np.array_equal(data[name], table[:, k])


def test_comparison_bodies_equal_their_own_runs():
    # each "<label>:" column set is the body run alone with its overrides (lockstep, same inputs)
    scenario = load("integrators")
    result = api.run(scenario, duration=1.0, every=10)
    for label, overrides in scenario.compare:
        sim = Simulation(scenario.settings, **overrides)
        for i, t in enumerate(result["t"]):
            if i:
                sim.step(10)
            row = sim.row()
            assert row[0] == pytest.approx(t)
            for k, name in enumerate(COLUMNS[1:], start=1):
                assert result[f"{label}:{name}"][i] == row[k], (label, name)


def test_hoffmann_rk4_body_against_solve_ivp():
    # Hoffmann's experiment (the table in docs/PHYSICS.md): the rk4 comparison body at t = 1 s
    # against an independent solution of Euler's equations and the kinematics.
    result = api.run("hoffmann")
    body = Body()

    def rhs(t, y):
        w = y[:3]
        torque = np.full(3, 5.0) if t < 0.1 else np.zeros(3)
        dw = body.J_inv @ (torque - np.cross(w, body.J @ w))
        r = Rotation.from_matrix(y[3:].reshape(3, 3))        # body -> inertial
        dr = r.as_matrix() @ np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
        return np.r_[dw, dr.ravel()]

    kick = solve_ivp(rhs, (0, 0.1), np.r_[np.zeros(3), np.eye(3).ravel()], rtol=1e-12, atol=1e-12)
    free = solve_ivp(rhs, (0.1, 1.0), kick.y[:, -1], rtol=1e-12, atol=1e-12)
    m = free.y[3:, -1].reshape(3, 3)
    psi, theta, phi = Rotation.from_matrix(m).as_euler("ZYX", degrees=True)
    assert result["rk4:psi_deg"][-1] == pytest.approx(psi, abs=2e-3)
    assert result["rk4:theta_deg"][-1] == pytest.approx(theta, abs=2e-3)
    assert result["rk4:phi_deg"][-1] == pytest.approx(phi, abs=2e-3)


def test_run_changes_are_validated():
    with pytest.raises(SettingsError, match="below the smallest step"):
        api.run("default", dt=1e-320)
    with pytest.raises(SettingsError, match="unknown setting"):
        api.run("default", bogus=1)
    with pytest.raises(SettingsError, match="every"):
        api.run("default", duration=0.01, every=0)
    with pytest.raises(SettingsError, match="duration"):
        api.run("default", duration=math.nan)
    with pytest.raises(TypeError, match="expected a Scenario"):
        api.run(42)


def test_run_too_long_refused_unless_forced(monkeypatch):
    # 10^13 steps: hours even compiled (sim.core.advance, about 60 ns a step here)
    with pytest.raises(api.RunTooLong, match=r"10,000,000,000,000 steps would take about .* force=True"):
        api.run("default", duration=1e7, every=10 ** 9, dt=1e-6)
    with pytest.raises(api.RunTooLong, match="GiB in memory"):
        api.run("default", duration=1e6)
    # force skips the check: with a tiny run and the limit patched to zero
    monkeypatch.setattr(api, "MAX_SECONDS", 0.0)
    monkeypatch.setattr(api, "_CALIBRATE_ABOVE", 0)
    with pytest.raises(api.RunTooLong):
        api.run("default", duration=0.01)
    assert api.run("default", duration=0.01, force=True)["t"][-1] == pytest.approx(0.01)


def test_run_fault_raises_with_time():
    with pytest.raises(SimulationFault, match=r"t=.* norm error"):
        api.run(Settings(norm="none", rates=(50.0, 40.0, 30.0), dt=0.05), duration=5.0)


def test_stream_yields_rows_lazily():
    rows = api.stream(load("default"), 1e6)         # never materialised: 10^9 steps
    first = next(rows)
    assert first[0] == 0.0 and len(first) == len(COLUMNS)
    rows.close()


def test_to_dataframe():
    import pandas  # a test dependency (pyproject.toml): never skipped

    result = api.run("integrators", duration=0.1)
    df = api.to_dataframe(result)
    assert isinstance(df, pandas.DataFrame) and list(df.columns) == list(result)
    assert np.array_equal(df["rk4:q4"].to_numpy(), result["rk4:q4"])


def test_to_dataframe_without_pandas_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        api.to_dataframe({"t": np.zeros(1)})


# ------------------------------------------------------------------ scenarios
@pytest.mark.parametrize("name", builtin_names())
def test_save_load_round_trip_builtins(name, tmp_path):
    scenario = api.load_scenario(name)
    path = tmp_path / f"{name}.toml"
    api.save_scenario(scenario, path)
    again = api.load_scenario(path)
    assert replace(again, name=name) == scenario


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_floats = st.floats(-1e4, 1e4, allow_nan=False)
_vec = st.tuples(_floats, _floats, _floats)


@settings(max_examples=150, deadline=None)
@given(title=_text, caption=_text, label=_text, duration=st.floats(1e-6, 1e7),
       dt=st.floats(1e-9, 1.0), rates=_vec, at=st.floats(0, 1e7), command=_vec,
       slerp=st.floats(0, 1e6), shortest=st.booleans(), gains=st.tuples(*[st.floats(0, 1e6)] * 3))
def test_toml_round_trip_random(title, caption, label, duration, dt, rates, at, command, slerp,
                                shortest, gains):
    scenario = Scenario(name="x", title=title, caption=caption, duration=duration,
                        settings=Settings(dt=dt, rates=rates, slerp_time=slerp, gains=gains),
                        events=(Event(at, {"command_deg": command, "shortest_path": shortest}),),
                        compare=((label, {"integrator": "rk4", "rates": rates}),))
    assert loads(api.scenario_toml(scenario), name="x") == scenario


def test_toml_writer_refuses_what_toml_cannot_hold():
    scenario = Scenario(name="x", events=(Event(1.0, {"command_deg": None}),))
    with pytest.raises(ValueError, match="changes nothing"):
        api.scenario_toml(scenario)


# ------------------------------------------------------------------ record and replay
def test_record_then_replay_equals_a_run_with_the_same_events(tmp_path):
    # inputs at t = k dt act before step k, exactly like events at the same times
    inputs = [(0.25, "torque", (1.0, -2.0, 3.0)), (0.5, "controller", "quaternion"),
              (0.5, "command_deg", (10.0, 20.0, 30.0)), (0.75, "integrator", "full-quat")]
    path = tmp_path / "r.jsonl"
    assert api.record("default", path, duration=1.0, inputs=inputs) == 1000
    replayed = api.replay(path)
    events = tuple(Event(t, {key: value}) for t, key, value in inputs)
    scenario = replace(load("default"), events=events)
    reference = api.run(scenario, duration=1.0)
    assert list(replayed) == list(reference)
    # The row at an input's time shows the torque before the input (it acts from the next
    # step on); an event's row already shows it.  The states agree bit for bit everywhere.
    boundary = [250, 500]
    for name in reference:
        a, b = replayed[name], reference[name]
        if name in ("tx", "ty", "tz"):
            a, b = np.delete(a, boundary), np.delete(b, boundary)
        assert np.array_equal(a, b), name


def test_replay_cli_npz_and_csv_agree(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    api.record("integrators", path, duration=0.2, inputs=[(0.1, "torque", (0.0, 1.0, 0.0))])
    header, table = _cli_csv(capsys, "replay", str(path), "--every", "4")
    result = api.replay(path, every=4)
    assert header == list(result)
    for k, name in enumerate(header):
        assert np.array_equal(table[:, k], result[name]), name
    out = tmp_path / "r.npz"
    assert main(["replay", str(path), "--out", str(out)]) == 0
    with np.load(out) as data:
        assert data["rk4:q1"].shape == (21,)


# ------------------------------------------------------------------ docs/API.md
def _blocks():
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S)


def test_docs_have_examples():
    assert len(_blocks()) >= 6


def test_docs_examples_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for i, code in enumerate(_blocks()):     # every block (pandas is a test dependency)
        exec(compile(code, f"{DOCS.name} block {i + 1}", "exec"), {"__name__": f"api_doc_{i}"})
    out = capsys.readouterr().out
    assert "['t', 'q1', 'q2', 'q3', 'q4']" in out and "201 True" in out and "2000 2001 True" in out
    assert "True\n0.0067\n" in out  # the T-handle: the aircraft's dampers diverge, the carried ones damp
    assert re.search(r"^ +t +theta_deg\n", out, re.M)  # the DataFrame block printed its table
    assert "the rates repeat every 10.6363 s" in out     # the closed form of the torque-free tumble
    errors = {name: float(x) for name, x in re.findall(r"^(rk4|rkmk4|splitting) ([\d.e+-]+) rad$", out, re.M)}
    assert errors["rkmk4"] < 1e-9 and errors["rk4"] < 1e-9 and 1e-6 < errors["splitting"] < 1e-4


def test_replay_with_comparison_bodies_and_a_huge_every(tmp_path):
    # rows are read in bounded chunks, whatever `every` is: first and last rows only
    path = tmp_path / "r.jsonl"
    api.record("integrators", path, duration=1.0)
    result = api.replay(path, every=10 ** 30)
    reference = api.run("integrators", duration=1.0, every=10 ** 30)
    assert list(result) == list(reference) and result["t"].shape == (2,)
    for name in reference:
        assert np.array_equal(result[name], reference[name]), name


def test_a_run_is_long_only_beyond_ten_thousand_steps_and_the_time_given():
    plan = api.Plan(load("default"), 10_000, 1)
    assert not plan.is_long(seconds=0.0)          # 10,000 steps are never worth a progress bar
    plan = api.Plan(load("default"), 10_001, 1)
    assert plan.is_long(seconds=0.0)
    assert not plan.is_long(seconds=plan.seconds)  # more than the time given, not as much
    assert not api.Plan(load("default"), 10, 1).is_long(seconds=0.0)
    assert not api.Plan(load("default"), 10**6, 1).is_long(seconds=1e9)


def test_stream_tells_its_progress_bar_every_step_once():
    class Bar:
        def __init__(self):
            self.updates = []

        def update(self, n):
            self.updates.append(n)

    bar = Bar()
    rows = list(api.stream(load("default"), duration=0.5, every=7, progress=bar))
    steps = round(0.5 / load("default").settings.dt)
    assert len(rows) == 1 + -(-steps // 7)
    assert sum(bar.updates) == steps and all(n > 0 for n in bar.updates)
