"""The ensemble's per-body results (sim.ensemble.metrics.Results): the nose, the energy drift, the tracked
metrics with and without tracking, and the sunlit fraction.

References: scipy's Rotation (tests/oracle.scipy_rotation) (the nose is the body x axis in inertial axes), energy conservation of a
torque-free rigid body (RK4 at a small step), each body's own Simulation (the sunlit fraction).
"""

from __future__ import annotations

import math

import numpy as np

from oracle import scipy_rotation
from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings
from sim.model.simulation import Simulation


def _free():
    return Settings(body="cubesat_3u", integrator="rk4", dt=0.05, rates=(0.05, 0.2, -0.1))


def test_the_nose_is_each_bodys_x_axis_in_inertial_axes():
    ens = Ensemble(_free(), EnsembleSpec(bodies=4, seed=3, rate_spread=0.5))
    ens.step(10)
    nose = ens.nose()
    assert nose.shape == (3, 4)
    for j in range(4):
        # the body's attitude (body -> inertial) applied to the body x axis
        np.testing.assert_allclose(nose[:, j], scipy_rotation(ens.q[:, j]).apply([1.0, 0.0, 0.0]), atol=1e-12)


def test_a_torque_free_run_keeps_its_energy_and_reports_every_tracked_metric():
    ens = Ensemble(_free(), EnsembleSpec(bodies=3, seed=2, rate_spread=0.5))
    ens.step(40)
    m = ens.metrics()
    assert np.all(np.isfinite(m["energy_drift"]))
    assert np.abs(m["energy_drift"]).max() < 1e-8  # T is conserved torque-free
    assert {"settling_time", "peak_torque", "peak_rate", "path_deg", "detumble_time"} <= set(m)
    assert np.all(m["peak_rate"] >= np.linalg.norm(ens.w, axis=0) * (1 - 1e-12))  # the peak of |w|, now included


def test_without_tracking_the_tracked_metrics_are_nan_for_every_body():
    ens = Ensemble(_free(), EnsembleSpec(bodies=3, seed=2), track=False)
    ens.step(5)
    m = ens.metrics()
    for key in ("settling_time", "peak_torque", "peak_rate", "path_deg", "detumble_time"):
        assert m[key].shape == (3,) and np.all(np.isnan(m[key])), key
    assert np.all(np.isfinite(m["energy_drift"]))


def test_the_sunlit_fraction_per_body_is_its_runs():
    settings = Settings(body="cubesat_3u", dt=0.5, epoch="2025-03-20T00:00:00Z",
                        orbit=(450.0, 0.0, 51.6, 30.0, 0.0, 0.0))
    ens = Ensemble(settings, EnsembleSpec(bodies=2, seed=1))
    ens.step(3)
    sunlit = ens.metrics()["sunlit"]
    assert sunlit.shape == (2,)
    for j in range(2):
        sim = Simulation(ens.body_settings(j))
        sim.step(3)
        assert sunlit[j] == sim.world.sunlit
        assert 0.0 <= sunlit[j] <= 1.0 and not math.isnan(sunlit[j])
