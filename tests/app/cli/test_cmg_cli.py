"""Control moment gyros at the command line and in files (issue 45): the flags, the CSV/npz columns, bad values
refused in one line (exit 2, no file made), a scenario file's keys, record and replay, and a sweep's columns."""

import math

import numpy as np
import pytest

from app.cli import main
from sim import api
from sim.model.rows import columns
from sim.model.settings import Settings
from sim.model.simulation import Simulation
from sim.run.scenario import ScenarioError, loads

CMG = ["--cmg", "pyramid", "--integrator", "rk4"]
CMG_COLUMNS = ["cmg_delta1", "cmg_delta2", "cmg_delta3", "cmg_delta4", "cmg_rate1", "cmg_rate2", "cmg_rate3",
               "cmg_rate4", "cmg_m", "cmg_tc_x", "cmg_tc_y", "cmg_tc_z", "cmg_t_x", "cmg_t_y", "cmg_t_z"]


def test_cli_columns_csv_and_npz_with_cmgs(capsys, tmp_path):
    argv = ["run", *CMG, "--cmg-law", "mp", "--cmg-h0", "2", "--torque", "0.5,0,0", "--duration", "0.05",
            "--dt", "0.01"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split(",")
    assert header == list(columns()) + CMG_COLUMNS
    first = dict(zip(header, np.array(lines[1].split(","), dtype=float)))
    # at rest at zero angles (Wie's closed form): the x row of A is h0 c (-1, 0, 1, 0), m / h0^6 = 32/27, and
    # Moore-Penrose's rates for dh/dt = -T x are A^T (A A^T)^-1 (-T x) = T / (2 h0 c) (1, 0, -1, 0)
    assert first["cmg_m"] == pytest.approx(32 / 27, rel=1e-14)
    assert first["cmg_rate1"] == pytest.approx(0.5 / (2 * 2.0 * math.sqrt(1 / 3)), rel=1e-12)
    assert first["cmg_rate3"] == pytest.approx(-first["cmg_rate1"], rel=1e-12)
    assert first["cmg_rate2"] == first["cmg_rate4"] == 0.0
    assert first["cmg_t_x"] == pytest.approx(0.5, rel=1e-12) and first["cmg_tc_x"] == 0.5
    assert first["tx"] == pytest.approx(0.5, rel=1e-12)
    out = tmp_path / "c.npz"
    assert main([*argv, "--out", str(out)]) == 0
    with np.load(out) as data:
        assert list(data.files) == header
        assert data["cmg_delta2"][-1] > 0.0


@pytest.mark.parametrize("flags, says", [
    (["--cmg", "pyramid"], "--cmg pyramid: a CMG cluster steps by rk4"),
    (["--cmg", "hexagon"], "--cmg hexagon: unknown value"),
    ([*CMG, "--cmg-h0", "0"], "--cmg-h0 0: 0 must be > 0 N m s"),
    ([*CMG, "--cmg-h0", "abc"], "expected a number"),
    ([*CMG, "--cmg-law", "pinv"], "--cmg-law pinv: unknown value 'pinv' (choose from mp, sr, null, gsr)"),
    ([*CMG, "--cmg-skew", "90"], "--cmg-skew 90"),
    ([*CMG, "--cmg-rate-limit", "0"], "--cmg-rate-limit 0"),
    ([*CMG, "--cmg-dither", "0.5"], "--cmg-dither 0.5"),
    ([*CMG, "--cmg-angles", "1,2"], "2 values for 4"),
    ([*CMG, "--cmg-angles", "90,0,-90,0"], "singular at its design angles"),
    ([*CMG, "--wheels", "pyramid"], "both reaction wheels and CMGs"),
    ([*CMG, "--thrusters", "cube"], "thruster_unloading: with CMGs the thrusters unload them"),
    ([*CMG, "--thrusters", "cube", "--thruster-unloading", "0.2", "--thruster-modulation", "deadband"],
     "deadband holds the attitude itself; with CMGs"),
])
def test_bad_cmg_values_are_refused_with_one_line(flags, says, capsys, tmp_path):
    out = tmp_path / "never.csv"
    assert main(["run", "--duration", "0.01", *flags, "--out", str(out)]) == 2
    stdout, err = capsys.readouterr()
    assert stdout == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err
    assert not out.exists()


def test_a_sweep_writes_the_cmg_columns(tmp_path):
    """``attitude-sim sweep --cmg pyramid``: after the index, state and metrics, each body's final gimbal angles
    ``cmg_delta1..4`` (deg) and ``cmg_m`` (``m / h0^6``, the run's column), and ``cmg_m_min``, the least seen
    (their values against each body's run: tests/sim/ensemble/test_ensemble_cmgs.py)."""
    from sim.sweep.chunk import COLUMNS

    out = tmp_path / "s.csv"
    flags = [*CMG, "--cmg-law", "gsr", "--command", "0,60,0", "--dt", "0.05"]
    assert main(["sweep", *flags, "--bodies", "3", "--seed", "4", "--duration", "3", "--out", str(out)]) == 0
    header = out.read_text().splitlines()[0].split(",")
    assert header == [*COLUMNS, "cmg_delta1", "cmg_delta2", "cmg_delta3", "cmg_delta4", "cmg_m", "cmg_m_min"]
    got = np.genfromtxt(out, delimiter=",", names=True)
    assert (np.abs(got["cmg_delta1"]) > 0.1).all()  # the gimbals turned
    assert (got["cmg_m_min"] <= got["cmg_m"]).all() and (got["cmg_m_min"] <= 32 / 27).all()  # (32/27 at rest)


def test_cmgs_with_thrusters_unloading_them_write_both_columns(capsys):
    """The CMG columns, then the thrusters' (levels, force, fuel), named as each alone has them."""
    from sim.model.thruster_drive import thruster_columns

    assert main(["run", *CMG, "--thrusters", "cube", "--thruster-force", "0.1", "--thruster-unloading", "0.2",
                 "--cmg-angles", "40,-20,10,30", "--duration", "2", "--dt", "0.02", "--every", "50"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines[0].split(",")
    assert header == list(columns()) + CMG_COLUMNS + list(thruster_columns(12))
    last = dict(zip(header, np.array(lines[-1].split(","), dtype=float)))
    assert last["fuel_kg"] > 0.0  # they fired on -k h (0.2 x 0.91 N m s: 0.9 of a couple's 0.2 N m, above U_on)


def test_scenario_file_keys():
    sc = loads('[settings]\nintegrator = "rk4"\ncmg = "pyramid"\ncmg_h0 = 3.0\ncmg_law = "gsr"\n'
               "cmg_angles = [10.0, 0.0, -10.0, 0.0]\ncmg_rate_limit = 0.7\n")
    assert sc.settings.cmg_set.h0 == 3.0 and sc.settings.cmg_law == "gsr"
    with pytest.raises(ScenarioError, match="cmg_law"):
        loads('[settings]\nintegrator = "rk4"\ncmg = "pyramid"\ncmg_law = "fast"\n')


def test_api_run_takes_the_cmg_settings():
    r = api.run(Settings(integrator="rk4", dt=0.01), duration=0.1, cmg="pyramid", cmg_h0=2.0, cmg_lambda0=0.05,
                torque=(0.0, 0.1, 0.0))
    # the SR inverse at rest (Wie ch. 7): made = (A A^T) (A A^T + lam I)^-1 asked, A A^T_yy = 2 h0^2 cos^2(beta) = 8/3,
    # lam = lambda0 h0^2 exp(-mu m / h0^6) (the settings' scaling), m / h0^6 = 32/27, mu = 10 (the default)
    lam = 0.05 * 4.0 * math.exp(-10 * 32 / 27)
    assert "cmg_delta1" in r and r["cmg_t_y"][0] == pytest.approx(0.1 * (8 / 3) / (8 / 3 + lam), rel=1e-13)


def test_record_and_replay_carry_the_cmgs_bit_for_bit(tmp_path):
    settings = Settings(integrator="rk4", cmg="pyramid", dt=0.01, controller="quaternion", dampers_on=True)
    path = tmp_path / "c.jsonl"
    api.record(settings, path, duration=2.0, inputs=[(0.3, "command_deg", (40.0, 10.0, 0.0)),
                                                     (1.0, "cmg_law", "mp")])
    replayed = api.replay(path)
    sim = Simulation(settings)
    sim.step(30)
    sim.set("command_deg", (40.0, 10.0, 0.0))
    sim.step(70)
    sim.set("cmg_law", "mp")
    sim.step(100)
    assert replayed["cmg_delta1"][-1] == sim.snapshot().cmg[0]
    assert replayed["q1"][-1] == sim.snapshot().q[0]
