"""An ensemble told a new orbit or new wheel inertia between steps flies what each body's own run flies when told
the same (sim.ensemble.engine.Ensemble.set/update, as Simulation.set).  Reference: the single-body Simulation of each
body's settings (Ensemble.body_settings), itself checked against closed forms in tests/sim/world/test_orbit.py and
tests/app/cli/test_wheels.py."""

import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.io.limits import SettingsError
from sim.model.simulation import Simulation
from sim.run.scenario import load

SPEC = EnsembleSpec(bodies=4, seed=3, rate_spread=0.02, inertia_spread=10.0)


@pytest.mark.parametrize("change", [
    {"orbit": (800.0, 0.05, 45.0, 10.0, 30.0, 60.0)},
    {"wheel_inertia": 0.05},
], ids=["orbit", "wheel_inertia"])
def test_a_change_between_steps_is_each_bodys_run_with_that_change(change):
    settings = load("sun_pointing").settings.replace(orbit=(500.0, 0.01, 97.4, 0.0, 20.0, 0.0),
                                                     gravity_gradient=True, j2=True)
    ens = Ensemble(settings, SPEC)
    sims = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    ens.step(10)
    for sim in sims:
        sim.step(10)
    ens.update(change)
    for sim in sims:
        sim.update(change)
    ens.step(30)
    for sim in sims:
        sim.step(30)
    mine = np.vstack([ens.q, ens.w, ens.wheel_speeds])
    theirs = np.array([(*sim.q, *sim.w, *sim.wheel_speeds) for sim in sims]).T
    np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-13)


def test_a_new_nominal_orbit_moves_every_spread_orbit_with_it():
    # docs (EnsembleSpec.orbit_spread): body i's element k is orbit[k] + orbit_spread[k] (2 u - 1), u fixed by
    # (seed, i, 112 + k); so a new nominal orbit shifts every body's elements by the change of the nominal
    old, new = (500.0, 0.01, 50.0, 100.0, 20.0, 30.0), (650.0, 0.02, 60.0, 120.0, 40.0, 50.0)
    settings = load("sun_pointing").settings.replace(orbit=old)
    spec = EnsembleSpec(bodies=4, seed=5, orbit_spread=(40.0, 0.005, 2.0, 5.0, 5.0, 5.0))
    ens = Ensemble(settings, spec)
    before = ens.initial()["orbit"]
    ens.update({"orbit": new})
    after = ens.initial()["orbit"]
    shift = np.array(new) - np.array(old)
    np.testing.assert_allclose(after - before, np.repeat(shift[:, None], 4, axis=1), rtol=0, atol=1e-9)


def test_cmgs_with_thrusters_told_between_steps_are_refused_and_change_nothing():
    """CMG clusters fly in an ensemble (test_ensemble_cmgs), with thrusters one body at a time (sim.model.one_body):
    told to an ensemble between steps, with another change beside them, refused in one line before anything
    takes effect."""
    from sim.model.controls import SettingChange
    from sim.model.settings import SettingsError

    settings = load("detumble").settings.replace(integrator="rk4")
    ens = Ensemble(settings, SPEC)
    ens.step(5)
    before = ens.settings
    with pytest.raises(SettingsError, match="an ensemble flies no CMG clusters with thrusters") as info:
        ens.apply(SettingChange("dt", before.dt / 2), SettingChange("cmg", "pyramid"),
                  SettingChange("thrusters", "cube"))
    assert "\n" not in str(info.value)
    assert ens.settings is before and ens.settings.cmg == ens.settings.thrusters == "none"


def test_an_estimator_asked_of_bodies_on_spread_orbits_is_refused_and_changes_nothing():
    """An ensemble flies an estimator only on one shared orbit: asked mid-run on spread orbits it refuses in one line
    naming the key asked for, and a refusal changes nothing (Simulation.apply): the bodies fly on as a twin never
    asked, on the orbits drawn at the start."""
    settings = load("mekf").settings.replace(orbit=(500.0, 0.001, 97.4, 10.0, 20.0, 30.0), estimator="truth",
                                             epoch="2024-06-01T00:00:00Z")
    spec = EnsembleSpec(bodies=2, seed=1, orbit_spread=(10.0, 0.0, 0.0, 0.0, 0.0, 0.0), rate_spread=0.02)
    asked, twin = Ensemble(settings, spec), Ensemble(settings, spec)
    for ens in (asked, twin):
        ens.step(2)
    with pytest.raises(SettingsError, match=r"^estimator: an ensemble flies an estimator \(mekf\) only on one shared orbit") as info:
        asked.set("estimator", "mekf")
    assert "\n" not in str(info.value)
    assert asked.settings.estimator == "truth" and asked.navigation is None
    for ens in (asked, twin):
        ens.step(3)
    assert np.array_equal(asked.q, twin.q) and np.array_equal(asked.w, twin.w)
    assert np.array_equal(asked.initial()["orbit"], twin.initial()["orbit"])
