"""Ensembles on an orbit (issue 31): each body flies what `attitude-sim run` flies, and the spreads follow their rule.

References: the single-body Simulation of each body's own settings
(``Ensemble.body_settings(j)``), itself checked against closed forms and
astropy in tests/sim/world/test_orbit.py and tests/sim/world/test_pointing.py; the documented
draw rule (docs/ENSEMBLES.md, "Orbits per body") computed here from a
SplitMix64 written out in plain Python integers; scipy's Kolmogorov-Smirnov
test for the spread's distribution.
"""

from __future__ import annotations

import csv
import math
from datetime import datetime, timedelta

import numpy as np
import pytest
from scipy import stats

from app.cli import main
from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation
from sim.run.scenario import load

# A 100/120/50 kg m^2 satellite on wheels (the sun_pointing scenario) on an eccentric, J2-drifting orbit
# with its gravity gradient: every piece of the world a body's step reads.
SUN = load("sun_pointing").settings.replace(orbit=(500.0, 0.01, 97.4, 0.0, 20.0, 0.0), gravity_gradient=True,
                                            j2=True)
ISS_TLE = ("1 25544U 98067A   24079.54791667  .00016717  00000-0  30057-3 0  9997\n"
           "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.49815311 44296")  # tests/sim/world/test_orbit.py's
SATELLITE = dict(body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), dt=0.5, integrator="rk4",
                 controller="quaternion", gains=(1.0, 1.2, 0.5), dampers_on=True, dampers=(14.0, 17.0, 7.0),
                 epoch="2024-03-20T03:06:00Z")
# (settings, a change at half time): pointing modes, wheels or none, gravity gradient, J2, a TLE
SHARED = {
    "sun-wheels-gravity-gradient-j2": (SUN, {"gains": (0.8, 1.0, 0.4)}),
    "nadir-half-quat": (Settings(**dict(SATELLITE, integrator="half-quat", dt=0.1),
                                 orbit=(700.0, 0.0, 98.0, 40.0, 0.0, 10.0), pointing="nadir"), {}),
    "target": (Settings(**SATELLITE, orbit=(550.0, 0.0, 53.0, 300.0, 0.0, 80.0), pointing="target",
                        target=(48.0, 11.0, 0.5)), {"pointing": "velocity"}),
    "inertial-gravity-gradient": (Settings(**SATELLITE, orbit=(500.0, 0.0, 97.4, 0.0, 0.0, 0.0),
                                           gravity_gradient=True, command_deg=(10.0, 20.0, 30.0)), {}),
    "tle-sun": (Settings(**SATELLITE, tle=ISS_TLE, pointing="sun"), {}),
}
SPEC = EnsembleSpec(bodies=8, seed=3, rate_spread=0.02, inertia_spread=10.0)
SPREAD = EnsembleSpec(bodies=8, seed=3, rate_spread=0.02, orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0),
                      epoch_spread=86400.0)


def _fly_both(settings, spec, changes, steps=200):
    ens = Ensemble(settings, spec)
    sims = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    for part in (steps // 2, steps - steps // 2):
        ens.step(part)
        for sim in sims:
            sim.step(part)
        if changes and part == steps // 2:
            ens.update(changes)
            for sim in sims:
                sim.update(changes)
    return ens, sims


def _states(ens, sims):
    mine = np.vstack([ens.q, ens.w, ens.wheel_speeds])
    theirs = np.array([(*sim.q, *sim.w, *sim.wheel_speeds) for sim in sims]).T
    return mine, theirs


# ------------------------------------------------------------- one orbit for all
@pytest.mark.parametrize("case", list(SHARED))
def test_on_a_shared_orbit_every_body_is_its_run_bit_for_bit(case):
    settings, changes = SHARED[case]
    ens, sims = _fly_both(settings, SPEC, changes)
    mine, theirs = _states(ens, sims)
    assert np.array_equal(mine, theirs)
    ws = ens.world
    for sim in sims:  # the one world every body shares is each run's world
        assert ws.r_km == sim.world.r_km and ws.sun == sim.world.sun and ws.qc == sim.world.qc
    assert ens.settings.has_orbit and ens.steps == 200
    # the pointing readout as run's (numpy's atan2 against libm's: to an ulp's worth)
    point = ens.metrics()["point_err_deg"]
    assert np.allclose(point, [math.degrees(sim.pointing_error()) for sim in sims], rtol=1e-12, atol=1e-12)


def test_the_bodies_fly_to_their_moving_command():
    ens = Ensemble(SUN, EnsembleSpec(bodies=20, seed=1))
    ens.step(400)  # 200 s: the sun_pointing scenario acquires in about 110 s
    m = ens.metrics()
    assert (m["point_err_deg"] < 0.01).all() and (m["settling_time"] < 200).all()
    assert (m["sunlit"] == 1.0).all()


# ------------------------------------------------------------- one orbit per body
def test_spread_orbits_fly_each_run_to_the_ulps_of_numpys_atan2():
    """One world per body on columns: numpy's arctan2 may round an ulp away from libm's (sim.core.ops), so a
    body agrees with its run to about 1e-12 of its state, and its world to a few ulps."""
    ens, sims = _fly_both(SUN, SPREAD, {"gains": (0.8, 1.0, 0.4)})
    mine, theirs = _states(ens, sims)
    scale = np.maximum(np.abs(theirs), 1.0)
    assert np.abs(mine - theirs).max(axis=1).tolist() == pytest.approx([0.0] * len(mine), abs=1e-11)
    assert (np.abs(mine - theirs) / scale).max() < 1e-12
    ws = ens.world
    for j, sim in enumerate(sims):
        for name, ulps in (("r_km", 1e-14), ("v_kms", 1e-14), ("sun", 1e-14), ("qc", 1e-13)):
            mine_j = np.array([x[j] for x in getattr(ws, name)])
            assert np.allclose(mine_j, getattr(sim.world, name), rtol=ulps, atol=ulps), name
    # the bodies really are on different orbits and dates
    assert len({sim.world.r_km for sim in sims}) == len(sims)
    assert len({sim.settings.epoch for sim in sims}) == len(sims)


def test_spread_orbits_do_not_depend_on_how_the_bodies_are_split():
    whole = Ensemble(SUN, SPREAD)
    parts = [Ensemble(SUN, SPREAD, start=0, count=3), Ensemble(SUN, SPREAD, start=3)]
    for ens in (whole, *parts):
        ens.step(60)
    assert np.array_equal(whole.q, np.hstack([p.q for p in parts]))
    assert np.array_equal(whole.wheel_speeds, np.hstack([p.wheel_speeds for p in parts]))


# ----------------------------------------------------------- the rule of the draws
def _splitmix(z: int) -> int:
    mask = (1 << 64) - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def _uniform(seed: int, i: int, stream: int) -> float:
    """docs/ENSEMBLES.md: the top 53 bits of SplitMix64(key(seed) + golden * (i * 128 + stream + 1))."""
    z = _splitmix((_splitmix(seed) + 0x9E3779B97F4A7C15 * (i * 128 + stream + 1)) & ((1 << 64) - 1))
    return (z >> 11) / 2.0**53


def _wrap(x: float) -> float:
    return x - 360.0 if x > 360.0 else (x + 360.0 if x < -360.0 else x)


@pytest.mark.parametrize("j", [0, 5, 1234])
def test_body_j_draws_its_elements_and_epoch_by_the_documented_rule(j):
    nominal = (500.0, 0.01, 97.4, 350.0, 20.0, -300.0)
    spread = (50.0, 0.005, 2.0, 30.0, 10.0, 180.0)
    settings = SUN.replace(orbit=nominal, epoch="2024-03-20T03:06:00Z")
    spec = EnsembleSpec(bodies=2000, seed=77, orbit_spread=spread, epoch_spread=3600.0)
    ens = Ensemble(settings, spec, start=j, count=1)
    body = ens.body_settings(0)
    expected = [nominal[k] + spread[k] * (2.0 * _uniform(77, j, 112 + k) - 1.0) for k in range(6)]
    expected = expected[:2] + [_wrap(x) for x in expected[2:]]
    assert body.orbit == tuple(expected)
    offset = round(3600.0 * (2.0 * _uniform(77, j, 118) - 1.0) * 1e6)
    when = datetime(2024, 3, 20, 3, 6) + timedelta(microseconds=offset)
    assert body.epoch == when.isoformat(timespec="microseconds" if when.microsecond else "seconds") + "Z"
    assert ens.initial()["epoch_us"][0] == offset


def test_the_spread_is_uniform_over_its_box():
    spec = EnsembleSpec(bodies=3000, seed=9, orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0), epoch_spread=600.0)
    ens = Ensemble(SUN, spec)
    init = ens.initial()
    for k, (nominal, half) in enumerate(zip(SUN.orbit, spec.orbit_spread)):
        x = init["orbit"][k]
        assert stats.kstest(x, stats.uniform(nominal - half, 2 * half).cdf).pvalue > 1e-3, k
    assert stats.kstest(init["epoch_us"] * 1e-6, stats.uniform(-600.0, 1200.0).cdf).pvalue > 1e-3


@pytest.mark.parametrize("settings, spec, fragment", [
    (SUN, EnsembleSpec(orbit_spread=(450.0, 0, 0, 0, 0, 0)), "alt_km"),
    (SUN, EnsembleSpec(orbit_spread=(0, 0.02, 0, 0, 0, 0)), "below 0"),
    (SUN.replace(orbit=(200.0, 0.02, 97.4, 0, 0, 0)), EnsembleSpec(orbit_spread=(0, 0.02, 0, 0, 0, 0)), "perigee"),
    (SUN.replace(epoch="2050-12-31T12:00:00Z"), EnsembleSpec(epoch_spread=86400.0 * 2), "1950-2050"),
    (SHARED["tle-sun"][0], EnsembleSpec(epoch_spread=10.0), "not a TLE"),
    (Settings(), EnsembleSpec(epoch_spread=10.0), "Keplerian"),
])
def test_a_spread_without_an_orbit_for_every_body_is_refused(settings, spec, fragment):
    with pytest.raises(SettingsError, match=fragment):
        Ensemble(settings, spec)


def test_spread_fields_are_checked():
    with pytest.raises(SettingsError, match="orbit_spread e"):
        EnsembleSpec(orbit_spread="0,1.5,0,0,0,0")
    with pytest.raises(SettingsError, match="expected 6 numbers"):
        EnsembleSpec(orbit_spread=(1.0, 2.0))
    with pytest.raises(SettingsError, match="epoch_spread"):
        EnsembleSpec(epoch_spread=-1.0)
    assert EnsembleSpec(orbit_spread=[0] * 6).orbit_spread is None  # nothing spread: one orbit for all


# ------------------------------------------------------------- the command line
def test_a_sweep_with_an_orbit_writes_the_runs_values(tmp_path, capsys):
    out = tmp_path / "orbit.csv"
    assert main(["sweep", "--scenario", "sun_pointing", "--workers", "0", "--bodies", "4", "--seed", "2",
                 "--duration", "20", "--orbit-spread", "50,0,2,30,0,180", "--epoch-spread", "3600",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "pointing error (deg)" in text
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 4
    settings = load("sun_pointing").settings
    ens = Ensemble(settings, EnsembleSpec(bodies=4, seed=2, orbit_spread=(50, 0, 2, 30, 0, 180),
                                          epoch_spread=3600.0))
    for j, row in enumerate(rows):
        body = ens.body_settings(j)
        sim = Simulation(body)
        sim.step(40)
        assert (float(row["alt_km"]), float(row["e"]), float(row["i_deg"]), float(row["raan_deg"]),
                float(row["argp_deg"]), float(row["nu_deg"])) == body.orbit
        assert float(row["point_err_deg"]) == pytest.approx(math.degrees(sim.pointing_error()), rel=1e-9)
        assert float(row["sunlit"]) == sim.world.sunlit
        assert float(row["q4"]) == pytest.approx(sim.q[3], abs=1e-12)


@pytest.mark.parametrize("argv, fragment", [
    (["--orbit-spread", "50,0,2"], "--orbit-spread"),
    (["--orbit-spread", "50,0,2,30,0,abc"], "--orbit-spread"),
    (["--orbit-spread", "600,0,0,0,0,0"], "--orbit-spread: alt_km"),
    (["--epoch-spread", "-5"], "--epoch-spread"),
    (["--epoch-spread", "1e9"], "--epoch-spread"),
    (["--scenario", "ensemble_controller", "--epoch-spread", "5"], "--epoch-spread: spreading orbits"),
])
def test_bad_spreads_exit_2_with_one_line(argv, fragment, capsys):
    argv = argv if "--scenario" in argv else ["--scenario", "sun_pointing", *argv]
    assert main(["sweep", "--workers", "0", "--bodies", "3", "--duration", "1", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("attitude-sim: error: ") and fragment in err[0], err


# ------------------------------------------------------------- the window's process
@pytest.mark.subprocess
def test_the_window_ensemble_process_flies_an_orbit_as_the_runner_does():
    """The Ensemble tab's process (app.engine) gets the Settings pickled, orbit, epoch and pointing included."""
    from app.engine import EnsembleEngine
    from sim.run.runner import ENSEMBLE, Runner

    scenario = load("sun_pointing")
    engine = EnsembleEngine()
    try:
        mine, theirs = Runner(scenario), Runner(scenario, ensembles=engine.ensemble)
        for runner in (mine, theirs):
            runner.submit(ENSEMBLE, EnsembleSpec(bodies=30, seed=4))
        for _ in range(4):
            a, b = mine.advance(5), theirs.advance(5)
        a, b = mine.advance(0), theirs.advance(0)
        assert a.ensemble.t == b.ensemble.t > 0
        assert np.array_equal(a.ensemble.q, b.ensemble.q) and np.array_equal(a.ensemble.qc, b.ensemble.qc)
        assert b.ensemble.info.settings.orbit == scenario.settings.orbit
    finally:
        engine.close()
