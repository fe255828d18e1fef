"""Ensembles with sensors and an estimator (issue 33): each body flies what its single run flies, bit for bit,
and a Monte Carlo of MEKFs is consistent.

References: the single-body Simulation of each body's own settings with that body's sensors
(``Simulation(ens.body_settings(j), sensor_body=index[j])``), itself checked against the discrete Riccati
equation and closed forms in tests/app/cli/test_navigation.py; `attitude-sim run`'s CSV for body 0 of a sweep; for
the NEES band, scipy.stats.chi2 (the oracle; sim computes the band by Wilson and Hilferty's approximation).
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from scipy.stats import chi2

from app.cli import main
from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble.metrics import chi2_quantile, nees_band
from sim.model.simulation import Simulation
from sim.run.scenario import load

MEKF = load("mekf").settings
CASES = {
    "mekf-rk4-watching": MEKF,
    "mekf-half-quat-fused-path": MEKF.replace(integrator="half-quat", controller="quaternion"),
    "mekf-flown-on-with-a-slew": MEKF.replace(fly_on="estimate", controller="quaternion", command_deg=(10, 20, 30)),
    "fly_on_estimate-orbit-wheels-nadir": load("fly_on_estimate").settings,
    "triad-sun-sensors-magnetometer": load("sun_mag_triad").settings,
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_body_is_its_single_run_bit_for_bit(case):
    # bodies 2..4 of 6 (a chunk): their sensors are drawn by global index, as a sweep's chunk draws them
    ens = Ensemble(CASES[case], EnsembleSpec(bodies=6, seed=3, rate_spread=0.01), start=2, count=3)
    sims = [Simulation(ens.body_settings(j), sensor_body=int(ens.index[j])) for j in range(ens.n)]
    ens.step(250)
    for sim in sims:
        sim.step(250)
    values = ens.navigation.values(ens.attitude.T)
    for j, sim in enumerate(sims):
        assert tuple(ens.q[:, j]) == sim.q, j
        assert tuple(ens.w[:, j]) == sim.w, j
        assert np.array_equal(ens.navigation.q[j], sim.navigation.q[0]), j          # qe
        assert np.array_equal(values[j], np.array(sim.snapshot().estimate), equal_nan=True), j  # err, 3 sigma, nees
    m = ens.metrics()
    assert m["nees"][1] == sims[1].snapshot().estimate[-1]
    assert len({float(x) for x in ens.navigation.q[:, 0]}) == 3  # each body its own draws


def test_body_j_draws_as_its_global_index_whatever_the_chunk():
    s = MEKF
    whole = Ensemble(s, EnsembleSpec(bodies=5, seed=1))
    part = Ensemble(s, EnsembleSpec(bodies=5, seed=1), start=3, count=2)
    whole.step(40)
    part.step(40)
    assert np.array_equal(whole.navigation.q[3:], part.navigation.q)
    assert np.array_equal(whole.metrics()["est_rms_deg"][3:], part.metrics()["est_rms_deg"])


def test_an_ensemble_neither_ignores_nor_refuses_the_estimator():
    ens = Ensemble(MEKF, EnsembleSpec(bodies=3))
    assert ens.navigation is not None and ens.navigation.bodies == [0, 1, 2]
    ens.step(20)
    assert set(ens.metrics()) >= {"qe1", "est_err_deg", "est_rms_deg", "nees", "nees_mean"}
    assert "nees" not in Ensemble(MEKF.replace(estimator="truth"), EnsembleSpec(bodies=3)).metrics()


def test_the_window_metrics_are_the_rms_and_mean_of_the_steps_since_it_started():
    ens = Ensemble(MEKF, EnsembleSpec(bodies=4, seed=2))
    ens.step(30)
    ens.start_estimate_window()
    errs, scores = [], []
    for _ in range(20):
        ens.step(1)
        m = ens.metrics()
        errs.append(m["est_err_deg"])
        scores.append(m["nees"])
    m = ens.metrics()
    assert np.allclose(m["est_rms_deg"], np.sqrt(np.mean(np.square(errs), axis=0)), rtol=1e-12)
    assert np.allclose(m["nees_mean"], np.mean(scores, axis=0), rtol=1e-12)


def test_the_wilson_hilferty_band_against_scipys_chi_square():
    for dof, bodies in ((3, 200), (6, 200), (6, 1000)):
        low, high = nees_band(dof, bodies)
        assert low == pytest.approx(chi2.ppf(0.025, dof * bodies) / bodies, rel=1e-5)
        assert high == pytest.approx(chi2.ppf(0.975, dof * bodies) / bodies, rel=1e-5)
    assert chi2_quantile(0.5, 18) == pytest.approx(chi2.ppf(0.5, 18), rel=1e-3)


@pytest.mark.jit_speed  # 200 filters: about a minute as Python
def test_the_average_nees_of_200_mekfs_lies_in_the_95_percent_band():
    ens = Ensemble(MEKF, EnsembleSpec(bodies=200, seed=0, rate_spread=0.005))
    ens.step(1200)  # 120 s: the bias has converged (tests/app/cli/test_navigation.py)
    mean = float(ens.metrics()["nees"].mean())
    low, high = chi2.ppf([0.025, 0.975], 6 * 200) / 200
    assert low <= mean <= high, (mean, low, high)


def test_the_sweep_writes_the_estimation_columns_and_body_0_is_the_run(tmp_path, capsys):
    flags = ["--scenario", "mekf", "--duration", "20"]
    out = tmp_path / "sweep.csv"
    assert main(["sweep", *flags, "--workers", "0", "--bodies", "3", "--seed", "4", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "estimate error (deg)" in text and "NEES consistency (mekf, 6 dof)" in text
    rows = list(csv.DictReader(out.open()))
    for name in ("qe1", "qe2", "qe3", "qe4", "est_err_deg", "est_rms_deg", "nees", "nees_mean"):
        assert name in rows[0]
    row = rows[0]
    angles = ",".join(repr(float(row[k])) for k in ("psi0_deg", "theta0_deg", "phi0_deg"))
    rates = ",".join(repr(float(row[k])) for k in ("wx0", "wy0", "wz0"))
    run = tmp_path / "run.csv"
    assert main(["run", *flags, "--angles", angles, "--rates", rates, "--out", str(run)]) == 0
    last = list(csv.DictReader(run.open()))[-1]
    for name in ("qe1", "qe2", "qe3", "qe4", "nees"):
        assert float(row[name]) == float(last[name]), name
    err = math.sqrt(sum(float(last[f"err_{a}_deg"]) ** 2 for a in "xyz"))
    assert float(row["est_err_deg"]) == pytest.approx(err, rel=1e-12)


@pytest.mark.parametrize("flags, message", [
    (["--scenario", "mekf", "--orbit", "500,0,97,0,0,0", "--orbit-spread", "50,0,0,0,0,0"],
     "--orbit-spread: an ensemble flies an estimator (mekf) only on one shared orbit"),
    (["--scenario", "mekf", "--orbit", "500,0,97,0,0,0", "--epoch-spread", "60"],
     "--epoch-spread: an ensemble flies an estimator (mekf) only on one shared orbit"),
    (["--scenario", "ensemble_controller", "--estimator", "mekf"], "mekf needs a gyro"),
    (["--scenario", "ensemble_controller", "--fly-on", "estimate"], "--fly-on estimate: estimate needs an estimator"),
])
def test_bad_combinations_one_line_exit_2(flags, message, capsys):
    try:
        code = main(["sweep", *flags, "--workers", "0", "--bodies", "2", "--duration", "1"])
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_the_sweeps_window_is_the_second_half_of_the_run():
    from sim.sweep.chunk import run_chunk

    spec = EnsembleSpec(bodies=3, seed=6)
    cols = run_chunk(MEKF, spec, (), 21, 0, 3)
    ens = Ensemble(MEKF, spec)
    ens.step(10)
    ens.start_estimate_window()
    ens.step(11)
    m = ens.metrics()
    for name in ("est_rms_deg", "nees_mean", "est_err_deg", "nees", "qe4"):
        assert np.array_equal(cols[name], m[name]), name
