"""Ensembles with issue 32 (the field, the torquers, B-dot and dumping, SRP and drag): each body flies what
`attitude-sim run` flies, and the time to detumble is each run's first crossing.

References: the single-body Simulation of each body's own settings (``Ensemble.body_settings(j)``),
itself checked against closed forms and ppigrf in tests/app/cli/test_magint.py; for the time to detumble, the CSV
that `attitude-sim run` writes for each body, read here and searched for the first ``|w|`` under the
threshold.
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest

from app.cli import main
from oracle import fly_with_own_runs
from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings
from sim.model.simulation import Simulation
from sim.run.scenario import load

DETUMBLE = load("detumble").settings  # a 3U CubeSat, IGRF, three 0.2 A m^2 rods, proportional B-dot at 1 s
SPEC = EnsembleSpec(bodies=6, seed=5, rate_spread=0.2)
CASES = {
    "igrf-bdot-residual": (DETUMBLE.replace(residual_dipole=(0.002, -0.001, 0.0005)), SPEC),
    "dipole-bang-bang-rods-on-slanted-axes": (
        DETUMBLE.replace(magnetic_field="dipole", bdot_law="bang-bang",
                         magnetorquers=0.1,
                         magnetorquer_axes=((1, 0, 0), (0, 1, 0), (0.6, 0, 0.8), (0, 0, 1))), SPEC),
    # the centre of mass 2 cm off the CubeSat's middle: SRP and drag have arms (about the middle they cancel)
    "bdot-srp-drag-inertia-spread": (DETUMBLE.replace(srp=True, drag=True, dt=0.5, center_of_mass=(0.02, 0.0, 0.0)),
                                     EnsembleSpec(bodies=6, seed=2, rate_spread=0.1, inertia_spread=10.0)),
    "dumping-wheels-srp-drag": (Settings(body="cubesat_3u", integrator="rk4", dt=0.5, epoch="2025-03-20T00:00:00Z",
                                         orbit=(450.0, 0.0, 51.6, 30.0, 0.0, 0.0), magnetic_field="igrf",
                                         magnetorquers=0.2, wheels="orthogonal", wheel_inertia=1e-5,
                                         wheel_speeds=(300.0, -200.0, 100.0), dumping_gain=0.01, srp=True,
                                         drag=True), EnsembleSpec(bodies=5, seed=1, rate_spread=0.01)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_on_a_shared_orbit_every_body_is_its_run_bit_for_bit(case):
    settings, spec = CASES[case]
    ens, sims = fly_with_own_runs(settings, spec, 400)
    for j, sim in enumerate(sims):
        assert tuple(ens.q[:, j]) == sim.q, j
        assert tuple(ens.w[:, j]) == sim.w, j
        assert tuple(ens.wheel_speeds[:, j]) == sim.wheel_speeds, j
        assert tuple(ens.b_body[:, j]) == sim.b_body, j
        assert tuple(ens.dipole[:, j]) == sim.dipole, j
    assert np.abs(ens.dipole).max() > 0.0  # the torquers were driven


def test_the_disturbance_torques_per_body_are_the_runs():
    settings, spec = CASES["bdot-srp-drag-inertia-spread"]
    ens, sims = fly_with_own_runs(settings, spec, 200)
    torques = ens.disturbance_torques()
    for j, sim in enumerate(sims):
        snap = sim.snapshot()
        for key, mine in (("gg", snap.t_gg), ("srp", snap.t_srp), ("drag", snap.t_drag), ("mag", snap.t_mag)):
            assert tuple(torques[key][:, j]) == mine, (j, key)
    assert np.abs(torques["srp"]).max() > 1e-12 and np.abs(torques["drag"]).max() > 1e-12  # real torques, not rounding


def test_spread_orbits_fly_each_body_with_its_own_field_and_air():
    settings = DETUMBLE.replace(srp=True, drag=True, dt=0.5)
    spec = EnsembleSpec(bodies=5, seed=4, rate_spread=0.1, orbit_spread=(50.0, 0.0, 5.0, 40.0, 0.0, 180.0))
    ens, sims = fly_with_own_runs(settings, spec, 200)
    for j, sim in enumerate(sims):
        # numpy's sin/cos/atan2 may differ from libm's in the last place (sim.core.ops)
        np.testing.assert_allclose(ens.b_body[:, j], sim.b_body, rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(ens.w[:, j], sim.w, rtol=1e-9, atol=1e-15)
    assert np.ptp(ens.b_body[0]) > 1e-6  # the bodies are in different places of the field


def _first_under(path, threshold_rad_s):
    """The first t of a run's CSV whose |w| is under the threshold (None if none)."""
    with open(path) as f:
        for row in csv.DictReader(f):
            wx, wy, wz = float(row["wx"]), float(row["wy"]), float(row["wz"])
            if math.sqrt(wx * wx + wy * wy + wz * wz) < threshold_rad_s:
                return float(row["t"])
    return None


def test_the_sweeps_time_to_detumble_is_each_runs_first_crossing(tmp_path, capsys):
    # strong rods and gain, so that some bodies detumble within the run and some do not
    flags = ["--scenario", "detumble_sweep", "--magnetorquers", "2", "--bdot", "3e5", "--dt", "0.5",
             "--duration", "300"]
    out = tmp_path / "sweep.csv"
    assert main(["sweep", *flags, "--workers", "0", "--bodies", "6", "--seed", "7", "--rate-spread", "0.15",
                 "--detumble-deg-s", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "time to detumble (s)" in text and "detumbled under 4 deg/s:" in text
    rows = list(csv.DictReader(out.open()))
    assert "detumble_time" in rows[0]
    crossed = 0
    for row in rows:
        run = tmp_path / f"run{row['index']}.csv"
        angles = ",".join(repr(float(row[k])) for k in ("psi0_deg", "theta0_deg", "phi0_deg"))
        rates = ",".join(repr(float(row[k])) for k in ("wx0", "wy0", "wz0"))
        assert main(["run", *flags, "--angles", angles, "--rates", rates, "--out", str(run)]) == 0
        first = _first_under(run, math.radians(4.0))
        got = float(row["detumble_time"])
        if first is None:
            assert math.isnan(got), row["index"]
        else:
            assert got == first, row["index"]
            crossed += 1
    assert 0 < crossed < len(rows)  # both kinds of body were checked


def test_a_body_already_slow_detumbled_at_zero_and_the_threshold_is_checked():
    ens = Ensemble(DETUMBLE, EnsembleSpec(bodies=3, seed=1, rate_spread=0.0, detumble_deg_s=100.0))
    ens.step(2)
    assert list(ens.metrics()["detumble_time"]) == [0.0, 0.0, 0.0]
    with pytest.raises(Exception, match="detumble_deg_s"):
        EnsembleSpec(detumble_deg_s=0.0)


def test_a_sweep_without_a_field_has_no_detumble_column(tmp_path):
    out = tmp_path / "plain.csv"
    assert main(["sweep", "--scenario", "ensemble_controller", "--workers", "0", "--bodies", "2", "--duration", "0.1",
                 "--out", str(out)]) == 0
    assert "detumble_time" not in out.read_text().splitlines()[0]


def test_a_reset_forgets_the_bdot_samples_as_the_run_does():
    ens = Ensemble(DETUMBLE, SPEC)
    ens.step(30)
    ens.reset()
    ens.step(30)
    for j in range(ens.n):
        sim = Simulation(ens.body_settings(j))
        sim.step(30)
        assert tuple(ens.w[:, j]) == sim.w and tuple(ens.dipole[:, j]) == sim.dipole, j
