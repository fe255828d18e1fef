"""The checks the navigation ensembles' tests make alike, with and without an orbit
(tests/sim/ensemble/test_ensemble_nav_bodies.py, test_ensemble_nav_orbit.py): each body against its own
:class:`Simulation`, and the compiled path's metrics against the numpy path's, every float to the bit."""

from __future__ import annotations

import numpy as np

from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.simulation import Simulation


def bits(a):
    """``a``'s floats as their 64-bit patterns: equal only when bit for bit equal."""
    return np.asarray(a, dtype=float).view(np.uint64)


def each_body_is_its_single_run(settings, spec, steps: int) -> None:
    """Bodies 2..4 of ``spec`` (a chunk: their sensors drawn by global index, as a sweep's chunk draws them) stepped
    ``steps`` by the compiled ensemble equal, bit for bit, each its own ``Simulation``: the attitude, the rates, the
    wheels, the estimate and its columns (error, 3 sigma, NEES), the sensors' availability, the dipole, the command."""
    ens = Ensemble(settings, spec, start=2, count=3, compiled=True)
    sims = [Simulation(ens.body_settings(j), sensor_body=int(ens.index[j])) for j in range(ens.n)]
    ens.step(steps)
    for sim in sims:
        sim.step(steps)
    values = ens.navigation.values(ens.attitude.T)
    for j, sim in enumerate(sims):
        assert tuple(ens.q[:, j]) == sim.q, j
        assert tuple(ens.w[:, j]) == sim.w, j
        assert tuple(ens.wheel_speeds[:, j]) == tuple(sim.wheel_speeds), j
        assert np.array_equal(ens.navigation.q[j], sim.navigation.q[0]), j
        assert np.array_equal(values[j], np.array(sim.snapshot().estimate), equal_nan=True), j
        assert np.array_equal(ens.navigation.available[j], sim.navigation.available[0], equal_nan=True), j
        if ens.dipole is not None:
            assert tuple(ens.dipole[:, j]) == tuple(sim.dipole), j
        assert tuple(ens.qc[:, j]) == tuple(sim._cmd.qc), j
    assert len({float(x) for x in ens.navigation.q[:, 0]}) == 3


def metrics_are_the_numpy_paths(settings) -> None:
    """Five bodies stepped 137 steps, then 400 in the sweep's estimate window, compiled and on numpy columns: the
    same metrics, attitudes, commands and sensor availability, bit for bit."""
    spec = EnsembleSpec(bodies=5, seed=8, rate_spread=0.02, inertia_spread=5.0, settle_deg=3.0, detumble_deg_s=1.2)
    runs = [Ensemble(settings, spec, compiled=c) for c in (True, False)]
    for ens in runs:
        ens.step(137)
        ens.start_estimate_window()  # the sweep's window: from half-way
        ens.step(400)
    new, old = (ens.metrics() for ens in runs)
    assert set(new) == set(old) >= {"est_rms_deg", "nees_mean", "peak_torque", "path_deg", "settling_time"}
    for name in old:
        assert np.array_equal(bits(new[name]), bits(old[name])), name
    assert np.array_equal(bits(runs[0].q), bits(runs[1].q)) and np.array_equal(bits(runs[0].qc), bits(runs[1].qc))
    assert np.array_equal(runs[0].navigation.available, runs[1].navigation.available, equal_nan=True)
    assert runs[0].t == runs[1].t and runs[0]._nav_steps == runs[1]._nav_steps == 400
