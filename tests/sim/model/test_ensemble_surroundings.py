"""The ensemble's surroundings (sim.ensemble.environment.Surroundings): the world, the field and the
disturbance torques on numpy columns, each body's equal to its own single-body Simulation's.

Reference: ``Simulation(ens.body_settings(j))`` for every body j, itself checked against closed forms and
ppigrf elsewhere (tests/app/cli/test_magint.py, tests/sim/model/test_environment.py). Short flights (a few dozen steps) so
each test stays well under a second.
"""

from __future__ import annotations

import numpy as np

from oracle import fly_with_own_runs
from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings
from sim.model.simulation import Simulation
from sim.run.scenario import load


def _detumble():
    return load("detumble").settings  # a 3U CubeSat, IGRF, three rods, B-dot


def test_each_bodys_four_disturbance_torques_are_its_runs():
    settings = _detumble().replace(srp=True, drag=True, dt=0.5, center_of_mass=(0.02, 0.0, 0.0))
    ens, sims = fly_with_own_runs(settings, EnsembleSpec(bodies=3, seed=7, rate_spread=0.1, inertia_spread=10.0), 30)
    torques = ens.disturbance_torques()
    assert set(torques) == {"gg", "srp", "drag", "mag"}
    for key, t in torques.items():
        assert t.shape == (3, ens.n) and t.dtype == np.float64, key
    for j, sim in enumerate(sims):
        snap = sim.snapshot()
        for key, mine in (("gg", snap.t_gg), ("srp", snap.t_srp), ("drag", snap.t_drag), ("mag", snap.t_mag)):
            assert tuple(torques[key][:, j]) == mine, (j, key)
    for key in ("srp", "drag", "mag"):  # real torques, not rounding (the scenario has no gravity gradient)
        assert np.abs(torques[key]).max() > 1e-12, key


def test_an_orbit_without_field_srp_or_drag_reports_no_disturbance_torques():
    settings = Settings(body="cubesat_3u", dt=0.5, epoch="2025-03-20T00:00:00Z", orbit=(450.0, 0.0, 51.6, 30.0, 0.0, 0.0))
    ens = Ensemble(settings, EnsembleSpec(bodies=2, seed=1))
    ens.step(2)
    assert ens.world is not None  # a world (the orbit), but nothing reported one by one
    assert Simulation(ens.body_settings(0)).snapshot().t_gg is None
    assert ens.disturbance_torques() is None


def test_the_field_and_the_torquers_dipole_per_body_are_the_runs():
    settings = _detumble().replace(residual_dipole=(0.002, -0.001, 0.0005))
    ens, sims = fly_with_own_runs(settings, EnsembleSpec(bodies=3, seed=5, rate_spread=0.2), 25)
    for j, sim in enumerate(sims):
        assert tuple(ens.b_body[:, j]) == sim.b_body, j
        assert tuple(ens.dipole[:, j]) == sim.dipole, j
        assert tuple(ens.w[:, j]) == sim.w, j
    assert np.abs(ens.dipole).max() > 0.0


def test_spread_orbits_build_each_bodys_own_orbit_and_epoch():
    settings = _detumble().replace(dt=0.5)
    spec = EnsembleSpec(bodies=3, seed=4, rate_spread=0.1, orbit_spread=(50.0, 0.0, 5.0, 40.0, 0.0, 180.0),
                        epoch_spread=2.0)
    ens, sims = fly_with_own_runs(settings, spec, 5)
    for j, sim in enumerate(sims):
        np.testing.assert_allclose(ens.b_body[:, j], sim.b_body, rtol=1e-9, atol=1e-15)
    assert not np.allclose(ens.b_body[:, 0], ens.b_body[:, 1])  # each body in its own field


def test_momentum_dumping_reads_each_bodys_own_wheel_speeds():
    # the torquers' dumping command is -k (B x h_wheels): it needs the wheels' speeds of each body
    settings = Settings(body="cubesat_3u", integrator="rk4", dt=0.5, epoch="2025-03-20T00:00:00Z",
                        orbit=(450.0, 0.0, 51.6, 30.0, 0.0, 0.0), magnetic_field="igrf", magnetorquers=0.2,
                        wheels="orthogonal", wheel_inertia=1e-5, wheel_speeds=(300.0, -200.0, 100.0),
                        dumping_gain=0.01)
    ens, sims = fly_with_own_runs(settings, EnsembleSpec(bodies=3, seed=1, rate_spread=0.01), 20)
    for j, sim in enumerate(sims):
        assert tuple(ens.dipole[:, j]) == sim.dipole, j
        assert tuple(ens.wheel_speeds[:, j]) == sim.wheel_speeds, j
    assert np.abs(ens.dipole).max() > 0.0
