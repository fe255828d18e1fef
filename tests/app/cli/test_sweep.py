"""`attitude-sim sweep` and sim.sweep: chunking, Dask, CSV, summary, bad input, [ensemble] tables."""

from __future__ import annotations

import csv
import io
import itertools
import math
import subprocess
import sys
import time
from dataclasses import replace

import distributed
import numpy as np
import pytest

from app.cli import sweep as sweep_cli
from app.cli import main
from sim.ensemble import EnsembleSpec
from sim.run.runner import Runner
from sim.run.scenario import ScenarioError, load, loads
from sim.sweep import Sweep
from sim.sweep.chunk import COLUMNS, chunks, sample_times
from sim.sweep.summary import summary
from sweeps import sweep_fixtures

# Events at times that are not on the step grid, a SLERP, a change of dt, the
# limiter: every path by which a chunk could drift from Runner's timing.
SCENARIO = """
[scenario]
title = "sweep test"
caption = "short"
duration = 0.6

[settings]
dt = 0.01
inertia = [1.0, 1.2, 1.5, 0.0, 0.1, 0.0]
angles_deg = [20.0, -30.0, 40.0]
dampers_on = true
controller = "quaternion"
limiter_on = true
slerp_time = 0.2
command_deg = [0.0, 0.0, 0.0]

[[events]]
at = 0.205
command_deg = [30.0, 20.0, 10.0]

[[events]]
at = 0.4
dt = 0.005

[ensemble]
bodies = 13
seed = 7
rate_spread = 0.3
inertia_spread = 5.0
gains_grid = [[4.0, 6.0], [10.0], [8.0, 12.0]]
"""


scenario, serial = sweep_fixtures(SCENARIO, "sweep_test", traj_every=7)


@pytest.fixture(scope="module")
def dask_client():
    import logging

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        yield client


def _assert_identical(a, b):
    assert list(a.columns) == list(b.columns) == list(COLUMNS)
    for name in COLUMNS:
        assert a.columns[name].dtype == b.columns[name].dtype, name
        # bit for bit: same bytes, NaN included
        assert a.columns[name].tobytes() == b.columns[name].tobytes(), name
    for name in ("t", "q", "w"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None)
        if x is not None:
            assert x.tobytes() == y.tobytes(), name


# ----------------------------------------------------------------- chunking
@pytest.mark.parametrize("bodies,size", [(1, 1), (10, 3), (10, 10), (10, 64), (1000, 7)])
def test_chunks_cover_every_body_once(bodies, size):
    parts = chunks(bodies, size)
    covered = [i for start, count in parts for i in range(start, start + count)]
    assert covered == list(range(bodies))
    assert all(1 <= count <= size for _, count in parts)


def test_sample_times_keep_first_and_last():
    assert sample_times(10, 3).tolist() == [0, 3, 6, 9, 10]
    assert sample_times(9, 3).tolist() == [0, 3, 6, 9]
    assert sample_times(5, 100).tolist() == [0, 5]
    assert sample_times(11, 3).tolist() == [0, 3, 6, 9, 11]  # never a step past the last
    assert sample_times(4, 1).tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("chunk", [1, 4, 13, 100])
def test_results_do_not_depend_on_chunk_size(scenario, serial, chunk):
    _assert_identical(serial, Sweep(scenario, scenario.ensemble, chunk=chunk, traj_every=7).run())


@pytest.mark.subprocess
@pytest.mark.parametrize("chunk", [None, 3])
def test_two_dask_workers_give_bit_identical_results(scenario, serial, dask_client, chunk):
    assert len(dask_client.nthreads()) == 2
    result = Sweep(scenario, scenario.ensemble, chunk=chunk, traj_every=7).run(dask_client)
    _assert_identical(serial, result)


@pytest.mark.subprocess
def test_dask_progress_adds_up_to_the_work(scenario, dask_client):
    sweep = Sweep(scenario, scenario.ensemble, chunk=5)
    done = []
    sweep.run(dask_client, progress=done.append)
    for _ in range(100):  # events reach the client shortly after the results
        if sum(done) == sweep.body_steps:
            break
        time.sleep(0.05)
    assert sum(done) == sweep.body_steps


def test_serial_progress_adds_up_to_the_work(scenario):
    sweep = Sweep(scenario, replace(scenario.ensemble, bodies=5), chunk=2)
    done = []
    sweep.run(progress=done.append)
    assert sum(done) == sweep.body_steps == 5 * 60


def test_columns_are_ordered_by_global_index(serial):
    assert serial.columns["index"].tolist() == list(range(13))


# ------------------------------------------- events at the steps Runner uses
def test_every_body_follows_runner_events_and_samples(scenario):
    """With identical bodies, each must fly exactly what Runner flies for one body."""
    same = EnsembleSpec(bodies=3, attitudes="same")
    every = 7
    result = Sweep(scenario, same, traj_every=every).run()
    rows = np.array(list(Runner(scenario).run(every=every)))
    t, q, w = rows[:, 0], rows[:, 1:5], rows[:, 5:8]
    np.testing.assert_array_equal(result.t, t)  # same sample instants, the dt change included
    for j in range(3):
        # the engine promises agreement with Simulation to a few ulps
        np.testing.assert_allclose(result.q[:, :, j], q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(result.w[:, :, j], w, rtol=0, atol=1e-12)
    final = [result.columns[k] for k in ("q1", "q2", "q3", "q4")]
    np.testing.assert_allclose(np.array(final)[:, 0], q[-1], rtol=0, atol=1e-12)


def test_an_event_one_step_late_would_show(scenario):
    """The agreement above is sharp: moving the command event by one step changes the state."""
    late = replace(scenario, events=(replace(scenario.events[0], at=0.215), scenario.events[1]))
    a = Sweep(scenario, EnsembleSpec(bodies=1, attitudes="same")).run().columns
    b = Sweep(late, EnsembleSpec(bodies=1, attitudes="same")).run().columns
    assert abs(a["q1"][0] - b["q1"][0]) > 1e-6


# ------------------------------------------------------------------ samples
def test_gains_grid_follows_the_cartesian_product(serial):
    combos = list(itertools.product([4.0, 6.0], [10.0], [8.0, 12.0]))
    gains = np.array([serial.columns[k] for k in ("k1", "k2", "k3")]).T
    for i, row in zip(serial.columns["index"], gains):
        assert tuple(row) == combos[i % len(combos)]


def test_initial_quaternion_matches_initial_angles(serial):
    from scipy.spatial.transform import Rotation

    c = serial.columns
    angles = np.array([c["psi0_deg"], c["theta0_deg"], c["phi0_deg"]]).T
    q = np.array([c["q1_0"], c["q2_0"], c["q3_0"], c["q4_0"]]).T
    # Hoffmann's Q is the conjugate of scipy's ZYX rotation (NOTES.md); compare as attitudes
    ref = Rotation.from_euler("ZYX", angles, degrees=True).inv()
    angle = (Rotation.from_quat(q).inv() * ref).magnitude()
    assert np.max(angle) < 1e-9


def test_trajectory_samples_agree_with_the_columns(scenario, serial):
    steps = round(scenario.duration / scenario.settings.dt)
    assert serial.q.shape == (len(sample_times(steps, 7)), 4, 13)
    assert serial.w.shape == (serial.q.shape[0], 3, 13)
    c = serial.columns
    np.testing.assert_array_equal(serial.q[0], np.array([c[k] for k in ("q1_0", "q2_0", "q3_0", "q4_0")]))
    np.testing.assert_array_equal(serial.q[-1], np.array([c[k] for k in ("q1", "q2", "q3", "q4")]))
    np.testing.assert_array_equal(serial.w[-1], np.array([c[k] for k in ("wx", "wy", "wz")]))


# ------------------------------------------------------------------ summary
def _nearest_rank(values, p):
    ordered = sorted(values)
    return ordered[int(round(p / 100 * (len(ordered) - 1)))]


def test_summary_matches_the_columns(serial, scenario):
    s = summary(serial, scenario.ensemble)
    c = serial.columns
    ok = [j for j in range(13) if not c["faulted"][j]]
    settle = [math.inf if math.isnan(c["settling_time"][j]) else c["settling_time"][j] for j in ok]
    error = [c["final_error_deg"][j] for j in ok]
    travelled = [c["travelled_deg"][j] for j in ok]
    for p, got_t, got_e, got_a in zip(s["percentiles"], s["settling_time"], s["final_error_deg"],
                                      s["travelled_deg"]):
        assert got_t == _nearest_rank(settle, p)
        assert got_e == _nearest_rank(error, p)
        assert got_a == _nearest_rank(travelled, p)
    assert s["unwinding"] == sum(x > 180 for x in c["travelled_deg"])
    assert s["faulted"] == sum(c["faulted"])
    assert s["settled"] == sum(math.isfinite(x) for x in settle)
    combos = list(itertools.product([4.0, 6.0], [10.0], [8.0, 12.0]))
    assert [row[0] for row in s["by_gains"]] == combos
    for gains, n, settled, p50, top in s["by_gains"]:
        mine = [settle[i] for i, j in enumerate(ok) if (c["k1"][j], c["k2"][j], c["k3"][j]) == gains]
        assert (n, settled, p50, top) == (len(mine), sum(map(math.isfinite, mine)), _nearest_rank(mine, 50),
                                          max(mine))
    # the worst body: never settled with the largest error, else the slowest to settle
    worst = max(ok, key=lambda j: (settle[ok.index(j)], error[ok.index(j)]))
    assert s["worst"][0] == c["index"][worst]


def test_summary_counts_faults():
    """With norm handling 'none' the fast spinners' norm runs away (a fault), the slow ones' not."""
    scenario = replace(load("default"), duration=2.0)
    scenario = replace(scenario, settings=scenario.settings.replace(norm="none", dt=0.01, dampers_on=False))
    spec = EnsembleSpec(bodies=40, seed=1, rate_spread=0.5)
    result = Sweep(scenario, spec).run()
    s = summary(result, spec)
    faulted = result.columns["faulted"]
    assert 0 < s["faulted"] == faulted.sum() < 40
    assert s["flying"] == 40 - s["faulted"]
    assert all(faulted[s["worst"][: s["faulted"]]])  # faulted bodies are listed first
    assert np.isfinite(result.columns["fault_t"][faulted]).all()
    assert np.isnan(result.columns["fault_t"][~faulted]).all()
    speed = np.sqrt(sum(result.columns[k] ** 2 for k in ("wx0", "wy0", "wz0")))
    assert speed[faulted].min() > speed[~faulted].max() * 0.5  # Half-Quat's norm error grows with |w| dt


# ---------------------------------------------------------- command line
@pytest.fixture()
def scenario_file(tmp_path):
    path = tmp_path / "sweep_test.toml"
    path.write_text(SCENARIO)
    return str(path)


def _read_csv(path):
    try:
        import pandas
    except ImportError:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        return list(rows[0].keys()), {k: np.array([float(r[k]) for r in rows]) for k in rows[0]}
    frame = pandas.read_csv(path)
    return list(frame.columns), {k: frame[k].to_numpy(dtype=float) for k in frame.columns}


def test_cli_csv_has_one_row_per_body_and_exact_values(scenario_file, scenario, serial, tmp_path, capsys):
    out = tmp_path / "summary.csv"
    assert main(["sweep", "--scenario", scenario_file, "--workers", "0", "--out", str(out)]) == 0
    header, columns = _read_csv(out)
    assert header == list(COLUMNS)
    for name in COLUMNS:
        # repr round-trips floats exactly; NaN (never settled, no fault) is read back as NaN
        np.testing.assert_array_equal(columns[name], serial.columns[name].astype(float), err_msg=name)
    text = capsys.readouterr().out
    assert "13 bodies" in text and "worst bodies:" in text


def test_cli_summary_lines_match_the_csv(scenario_file, tmp_path, capsys):
    out = tmp_path / "s.csv"
    assert main(["sweep", "--scenario", scenario_file, "--workers", "0", "--out", str(out),
                 "--settle-deg", "2"]) == 0
    text = capsys.readouterr().out
    _, c = _read_csv(out)
    assert f"unwinding (travelled > 180 deg): {int((c['travelled_deg'] > 180).sum())}" in text
    assert f"faulted: {int(c['faulted'].sum())}" in text
    settled = int(np.isfinite(c["settling_time"]).sum())
    assert f"settled within 2 deg: {settled} of 13" in text
    worst_line = text.split("worst bodies:")[1].splitlines()[2]
    order = sorted(range(13), key=lambda j: (-np.nan_to_num(c["settling_time"][j], nan=np.inf),
                                             -c["final_error_deg"][j]))
    assert worst_line.split()[0] == str(order[0])


def test_cli_csv_to_stdout_moves_the_summary_to_stderr(scenario_file, capsys):
    assert main(["sweep", "--scenario", scenario_file, "--workers", "0", "--bodies", "4", "--out", "-"]) == 0
    captured = capsys.readouterr()
    rows = list(csv.reader(io.StringIO(captured.out)))
    assert rows[0] == list(COLUMNS) and len(rows) == 5
    assert "worst bodies:" in captured.err


def test_cli_flags_override_the_scenario_ensemble(scenario_file, tmp_path, capsys):
    out = tmp_path / "s.csv"
    assert main(["sweep", "--scenario", scenario_file, "--workers", "0", "--bodies", "5", "--seed", "3",
                 "--gains-grid", "1..3/3,5,7", "--out", str(out)]) == 0
    _, c = _read_csv(out)
    assert c["index"].tolist() == [0, 1, 2, 3, 4]
    assert c["k1"].tolist() == [1.0, 2.0, 3.0, 1.0, 2.0] and set(c["k3"]) == {7.0}


def test_cli_trajectories_file(scenario_file, serial, tmp_path, capsys):
    path = tmp_path / "traj.npz"
    assert main(["sweep", "--scenario", scenario_file, "--workers", "0", "--trajectories", str(path),
                 "--traj-every", "7"]) == 0
    with np.load(path) as data:
        assert data["q"].tobytes() == serial.q.tobytes()
        assert data["w"].tobytes() == serial.w.tobytes()
        assert data["t"].tobytes() == serial.t.tobytes()
        assert data["index"].tolist() == list(range(13))


@pytest.mark.subprocess
def test_cli_on_a_dask_cluster_writes_the_same_csv(scenario_file, dask_client, tmp_path, capsys):
    here, there = tmp_path / "here.csv", tmp_path / "there.csv"
    assert main(["sweep", "--scenario", scenario_file, "--workers", "0", "--out", str(here)]) == 0
    assert main(["sweep", "--scenario", scenario_file, "--scheduler", dask_client.cluster.scheduler_address,
                 "--chunk", "4", "--out", str(there)]) == 0
    assert here.read_bytes() == there.read_bytes()
    assert "Dask cluster" in capsys.readouterr().out


@pytest.mark.subprocess
def test_cli_local_cluster_writes_the_same_csv(scenario_file, tmp_path, capsys):
    here, there = tmp_path / "here.csv", tmp_path / "there.csv"
    assert main(["sweep", "--scenario", scenario_file, "--workers", "0", "--out", str(here)]) == 0
    assert main(["sweep", "--scenario", scenario_file, "--workers", "1", "--out", str(there)]) == 0
    assert here.read_bytes() == there.read_bytes()
    assert "Dask local cluster of 1 worker process" in capsys.readouterr().out


@pytest.mark.parametrize("gains_grid, expected", [
    ("6,10,12", ((6.0,), (10.0,), (12.0,))),
    ("2:6:10,10,12", ((2.0, 6.0, 10.0), (10.0,), (12.0,))),
    ("2..10/5, 0..1/2 ,12", ((2.0, 4.0, 6.0, 8.0, 10.0), (0.0, 1.0), (12.0,))),
])
def test_gains_grid_syntax(gains_grid, expected):
    assert sweep_cli.parse_gains_grid(gains_grid) == expected


BAD = [
    (["--bodies", "0"], "--bodies"),
    (["--bodies", "-5"], "--bodies"),
    (["--bodies", "2.5"], "--bodies"),
    (["--bodies", "100000000"], "--bodies"),
    (["--seed", "-1"], "--seed"),
    (["--seed", "x"], "--seed"),
    (["--attitudes", "spiral"], "--attitudes"),
    (["--rate-spread", "-0.1"], "--rate-spread"),
    (["--rate-spread", "inf"], "--rate-spread"),
    (["--inertia-spread", "-1"], "--inertia-spread"),
    (["--inertia-spread", "1000"], "--inertia-spread"),
    (["--inertia-spread", "nan"], "--inertia-spread"),
    (["--gains-grid", "1,2"], "three axes"),
    (["--gains-grid", "1:x,2,3"], "axis 1"),
    (["--gains-grid", "1..5,2,3"], "needs a count"),
    (["--gains-grid", "5..1/3,2,3"], "below LOW"),
    (["--gains-grid", "1..5/0,2,3"], "count"),
    (["--gains-grid", "1,2,3,4"], "three axes"),
    (["--gains-grid", "1:,2,3"], "axis 1"),
    (["--settle-deg", "0"], "--settle-deg"),
    (["--settle-deg", "181"], "--settle-deg"),
    (["--out", "/nonexistent/dir/s.csv"], "cannot write"),
    (["--trajectories", "/nonexistent/dir/t.npz"], "cannot write"),
    (["--traj-every", "5"], "needs --trajectories"),
    (["--trajectories", "{tmp}/t.npz", "--traj-every", "0"], "--traj-every"),
    (["--workers", "-1"], "--workers"),
    (["--workers", "two"], "--workers"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "exclude each other"),
    (["--chunk", "0"], "--chunk"),
    (["--scheduler", "nonsense"], "--scheduler nonsense: cannot connect"),
    (["--scheduler", "tcp://127.0.0.1:9"], "cannot connect"),
    (["--dt", "abc"], "--dt"),
    (["--duration", "-1"], "--duration"),
    (["--duration", "1e-6"], "shorter than one step"),
    (["--controller", "pid"], "--controller"),
    (["--scenario", "nope"], "unknown scenario"),
    (["--bodies", "10000000", "--duration", "2000"], "body-steps"),
    (["--bodies", "1000000", "--duration", "10", "--trajectories", "{tmp}/t.npz", "--traj-every", "1"], "GiB"),
]


@pytest.mark.parametrize("argv, fragment", BAD, ids=lambda x: " ".join(x) if isinstance(x, list) else None)
def test_bad_input_exits_2_with_one_line(argv, fragment, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sweep_cli, "CONNECT_TIMEOUT", 0.5)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(["sweep", "--duration", "0.05", *argv] if "--duration" not in argv else ["sweep", *argv]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("attitude-sim: error: ") and fragment in lines[0], lines[0]
    assert captured.out == ""


def test_a_scheduler_without_workers_is_refused(monkeypatch, capsys):
    import logging

    monkeypatch.setattr(sweep_cli, "CONNECT_TIMEOUT", 0.5)
    with distributed.LocalCluster(n_workers=0, dashboard_address=":0", silence_logs=logging.ERROR) as cluster:
        assert main(["sweep", "--duration", "0.05", "--scheduler", cluster.scheduler_address]) == 2
    assert "no worker" in capsys.readouterr().err


@pytest.mark.subprocess
def test_bad_input_in_a_real_process_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "app.cli", "sweep", "--bodies", "0"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "attitude-sim: error: --bodies: must be an integer in [1, 10,000,000], got '0'"]


# ------------------------------------------------- scenario [ensemble] table
def test_ensemble_table_is_parsed(scenario):
    assert scenario.ensemble == EnsembleSpec(bodies=13, seed=7, rate_spread=0.3, inertia_spread=5.0,
                                             gains_grid=((4.0, 6.0), (10.0,), (8.0, 12.0)))


def test_no_ensemble_table_gives_none():
    assert load("default").ensemble is None


def test_builtin_ensemble_scenarios_differ_only_in_shortest_path():
    short, long_way = load("ensemble_controller"), load("ensemble_long_way")
    assert short.ensemble == long_way.ensemble == EnsembleSpec(bodies=1000, seed=0, attitudes="random",
                                                               settle_deg=1.0)
    assert short.settings.shortest_path and not long_way.settings.shortest_path
    assert short.settings == long_way.settings.replace(shortest_path=True)
    preset = load("hoffmann_controller").settings
    for key in ("inertia", "dampers_on", "dampers", "controller", "gains", "limiter_on", "limits"):
        assert getattr(short.settings, key) == getattr(preset, key), key


def test_builtin_captions_hold():
    """What the two captions say, on 300 of their bodies."""
    spec = EnsembleSpec(bodies=300, seed=0)
    short = Sweep(load("ensemble_controller"), spec).run().columns
    long_way = Sweep(load("ensemble_long_way"), spec).run().columns
    assert not short["faulted"].any() and not long_way["faulted"].any()
    # shortest path on: every body settles within 1 deg in under 5 s, the short way
    assert (short["final_error_deg"] < 1.0).all() and np.nanmax(short["settling_time"]) < 5.0
    assert (short["travelled_deg"] <= 180.0).all()
    # shortest path off: about half turn the long way, and the slowest settles later
    assert 0.35 < (long_way["travelled_deg"] > 180.0).mean() < 0.65
    assert (long_way["final_error_deg"] < 1.0).all()
    assert np.nanmax(long_way["settling_time"]) > np.nanmax(short["settling_time"]) + 1.0
    # the long way is the complement of the short turn (360 deg minus it) for those bodies, up to
    # the final errors (a few thousandths of a degree after 10 s)
    unwound = long_way["travelled_deg"] > 180.0
    assert (short["final_error_deg"] + long_way["final_error_deg"]).max() < 0.01
    np.testing.assert_allclose(long_way["travelled_deg"][unwound], 360.0 - short["travelled_deg"][unwound],
                               atol=0.01)


BAD_TABLES = [
    ("bodies = 0", "bodies", 2),
    ("bodies = 'many'", "bodies", 2),
    ("bodies = 1.5", "bodies", 2),
    ("seed = -1", "seed", 2),
    ("attitudes = 'spiral'", "attitudes", 2),
    ("rate_spread = -1.0", "rate_spread", 2),
    ("inertia_spread = 1000.0", "inertia_spread", 2),
    ("settle_deg = 0.0", "settle_deg", 2),
    ("gains_grid = [1, 2, 3]", "gains_grid", 2),
    ("gains_grid = [[1], [2]]", "gains_grid", 2),
    ("gains_grid = [[1], [], [3]]", "gains_grid", 2),
    ("gains_grid = [[1], [-2], [3]]", "gains_grid", 2),
    ("colour = 'red'", "unknown key 'colour'", 2),
]


@pytest.mark.parametrize("line, fragment, lineno", BAD_TABLES, ids=[b[0] for b in BAD_TABLES])
def test_bad_ensemble_table_names_file_line_and_key(line, fragment, lineno):
    text = f"[ensemble]\n{line}\n"
    with pytest.raises(ScenarioError) as info:
        loads(text, source="bad.toml")
    message = str(info.value)
    assert message.startswith(f"bad.toml, line {lineno}: [ensemble]"), message
    assert fragment in message and "\n" not in message


def test_ensemble_must_be_a_table():
    with pytest.raises(ScenarioError, match=r"bad.toml, line 1: \[ensemble\] must be a table"):
        loads("ensemble = 3\n", source="bad.toml")


def test_cli_sweeps_another_body_with_the_scenarios_time_constants(tmp_path, capsys):
    """--body carries the tuning as in run and the window; the sweep's bodies take the phone's inertia."""
    out = tmp_path / "phone.csv"
    assert main(["sweep", "--body", "phone", "--bodies", "6", "--duration", "8", "--workers", "0",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "--body phone" in err and "scaled to its moments of inertia" in err and "too stiff" not in err
    _, c = _read_csv(out)
    assert np.all(np.isfinite(c["settling_time"])) and not c["faulted"].any()
    assert main(["sweep", "--body", "phone", "--dampers", "3,4,6", "--bodies", "2", "--duration", "0.01",
                 "--workers", "0"]) in (0, 1)
    assert "dampers are too stiff" in capsys.readouterr().err


def test_cli_says_the_comparison_bodies_are_not_swept(capsys):
    assert main(["sweep", "--scenario", "gimbal_lock", "--bodies", "2", "--duration", "0.01", "--workers", "0"]) == 0
    assert "comparison bodies (euler controller) are not swept" in capsys.readouterr().err
