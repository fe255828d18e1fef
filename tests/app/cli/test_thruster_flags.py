"""The thrusters at the command line (issue 45): their columns in the CSV and the npz, bad values in one line."""

import numpy as np
import pytest

from app.cli import main
from csv_runs import run_columns, run_refused

G0 = 9.80665


def test_thruster_columns_in_the_csv(capsys):
    table = run_columns(capsys, "--scenario", "thruster_limit_cycle", "--duration", "20", "--every", "100")
    want = [f"thr_on{i}" for i in range(1, 13)] + ["thr_fx", "thr_fy", "thr_fz", "fuel_kg"]
    assert list(table)[-16:] == want
    last = {name: column[-1] for name, column in table.items()}
    # the walls in 20 s: z's at 1 deg / 0.115 deg/s = 8.7 s, x's at 17.5 s (y's at 20.9 s): two pulses, each a
    # couple of 1 N thrusters for 0.1 s at Isp 220 s
    assert last["fuel_kg"] == pytest.approx(2 * (2 * 1.0 * 0.1) / (220.0 * G0), rel=1e-9)
    assert len(table["thr_on1"]) > 1 and all(0.0 <= x <= 1.0 for x in table["thr_on1"])


def test_thruster_columns_in_the_npz(tmp_path):
    path = tmp_path / "run.npz"
    assert main(["run", "--thrusters", "cube", "--torque", "1.5,0,0", "--dampers", "0,0,0", "--controller", "none",
                 "--duration", "1", "--out", str(path)]) == 0
    data = np.load(path)
    assert "fuel_kg" in data and "thr_on12" in data
    # the torque law's 1.5 N m about x, realised by the thrusters through a Schmitt trigger (U_on 0.45 of 2 N m):
    # the +x couple fires, at full thrust, all the time
    assert np.all(data["thr_on1"][1:] == 1.0) and np.all(data["thr_on3"] == 0.0)
    assert data["fuel_kg"][-1] == pytest.approx(2 * 1.0 * 1.0 / (220.0 * G0), rel=1e-9)


@pytest.mark.parametrize("argv, fragment", [
    (["--thrusters", "hexagon"], "--thrusters hexagon: unknown value"),
    (["--thrusters", "cube", "--thruster-force", "0"], "--thruster-force 0: 0 must be > 0 N"),
    (["--thrusters", "cube", "--thruster-isp", "-1"], "--thruster-isp -1: -1 must be > 0 s"),
    (["--thrusters", "cube", "--thruster-impulse-bit", "nan"], "not a finite number"),
    (["--thrusters", "cube", "--thruster-off", "0.5"], "not below thruster_on"),
    (["--thrusters", "cube", "--thruster-period", "0"], "--thruster-period 0: 0 must be > 0 s"),
    (["--thrusters", "cube", "--pwpf-km", "-2"], "--pwpf-km -2"),
    (["--thrusters", "cube", "--thruster-modulation", "pwm"], "invalid choice: 'pwm'"),
    (["--thrusters", "cube", "--wheels", "orthogonal"], "with reaction wheels the thrusters unload them"),
    (["--thruster-unloading", "0.1", "--wheels", "orthogonal"], "--thruster-unloading 0.1: needs thrusters"),
    (["--thrusters", "0,1,0", "--thruster-directions", "0,0,1"], "no firing makes torque about"),
    (["--thrusters", "0,1,0;0,-1,0", "--thruster-directions", "0,0,1"], "1 directions for 2 thrusters"),
])
def test_bad_values_exit_2_with_one_line(capsys, argv, fragment):
    run_refused(capsys, argv, fragment)


def test_an_ensemble_flies_thrusters(capsys, tmp_path):
    """Each body's torque is its thrusters' (without wheels they realise the torque law): the peak torque of every
    body is that of whole couples firing, 2 F arm about one, two or three axes."""
    import csv

    from sim.core.thrusters import torque_matrix
    from sim.run.scenario import load

    path = tmp_path / "e.csv"
    code = main(["sweep", "--scenario", "pwpf_slew", "--bodies", "3", "--duration", "2", "--out", str(path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 3
    t = load("pwpf_slew").settings.thruster_set
    couple = 2.0 * np.abs(torque_matrix(t.pos, t.dirs, t.force, np.zeros(3))).max()
    for row in rows:
        assert float(row["fuel_kg"]) > 0.0
        axes = (float(row["peak_torque"]) / couple) ** 2
        assert axes == pytest.approx(round(axes), abs=1e-9) and round(axes) in (1, 2, 3)
