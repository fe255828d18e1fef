"""The ensemble's bodies with an estimator on an orbit through the compiled navigation (sim/ensemble/nav_bodies.py,
issue 42, stop 50).

An :class:`Ensemble` flying an estimator on the orbit its bodies share steps through
:func:`sim.ensemble.nav_bodies.advance_nav_bodies` with a world: the orbit's world made once a step in the loop
(the Sun, the shadow, the field the sun sensors and the magnetometer read, a moving mode's command), each body's
torquers and wheels, then the navigation over the ensemble's rows of its sensors' noise and each body's spacecraft
step.  The references are independent of that loop: each body's own :class:`Simulation` of its settings and sensors
(``Simulation(ens.body_settings(j), sensor_body=index[j])``: its steps through ``advance_craft``, whose loop makes
its world with :mod:`sim.model.world_kernel` and runs the single body's navigation), and the ensemble's numpy path
(``compiled=False``: the column formulas, the world of :class:`sim.model.world.World` on floats, the navigation
kernel over all bodies once a step) for the per-step metrics, the estimate window, the command and the torquers.
Every float is compared to the bit.
"""

import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble import nav_bodies
from sim.model.simulation import Simulation
from sim.run.scenario import load

TRIAD = load("sun_mag_triad").settings
FLY = load("fly_on_estimate").settings
MEKF_ORBIT = load("mekf").settings.replace(orbit=(500.0, 0.001, 97.4, 10.0, 20.0, 30.0), epoch="2024-06-01T00:00:00Z")
CASES = {
    # TRIAD from the sun sensors and the magnetometer (IGRF of the epoch's year: no field of the run's own)
    "triad-sun-mag-rk4": TRIAD.replace(dt=0.5),
    # in the umbra from the start: the sun sensors dark, TRIAD's last solution held
    "triad-in-the-umbra-half-quat": TRIAD.replace(orbit=(500.0, 0.0, 97.4, 0.0, 0.0, 180.0), integrator="half-quat",
                                                  dt=0.5),
    # QUEST in the field the run flies its B-dot torquers in (the magnetometer reads the world's dipole)
    "quest-bdot-dipole-half-quat": TRIAD.replace(estimator="quest", integrator="half-quat", magnetic_field="dipole",
                                                 magnetorquers=5.0, bdot_law="proportional", bdot_gain=1e5,
                                                 bdot_period=1.0, dt=0.25),
    # nadir pointing flown on the MEKF with wheels and the gravity gradient (a moving command, the law held)
    "fly-on-mekf-nadir-wheels-gg": FLY.replace(dt=0.25),
    # an MEKF watching, sun pointing, IGRF with momentum dumping of the wheels, SRP and drag, rkmk4
    "mekf-sun-igrf-dumping-srp-drag-rkmk4": MEKF_ORBIT.replace(
        integrator="rkmk4", pointing="sun", controller="quaternion", gains=(1.0, 1.2, 0.5), dampers_on=True,
        dampers=(14.0, 17.0, 7.0), wheels="pyramid", wheel_speeds=(30.0, -20.0, 10.0, 5.0), magnetic_field="igrf",
        magnetorquers=5.0, dumping_gain=0.05, srp=True, drag=True, gravity_gradient=True, dt=0.2),
}
SPEC = EnsembleSpec(bodies=6, seed=3, rate_spread=0.01, inertia_spread=5.0, settle_deg=2.0)
STEPS = 600  # past two ends of the gyro's block of 256 samples and many star-tracker and vector samples


@pytest.fixture(autouse=True, scope="module")
def _loaded():
    nav_bodies.advance_nav_bodies.wait()


def _bits(a):
    return np.asarray(a, dtype=float).view(np.uint64)


@pytest.mark.parametrize("case", list(CASES))
def test_each_body_on_the_orbit_is_its_single_run_bit_for_bit(case, calls):
    # bodies 2..4 of 6 (a chunk): their sensors drawn by global index, as a sweep's chunk draws them
    ens = Ensemble(CASES[case], SPEC, start=2, count=3, compiled=True)
    sims = [Simulation(ens.body_settings(j), sensor_body=int(ens.index[j])) for j in range(ens.n)]
    ens.step(STEPS)
    for sim in sims:
        sim.step(STEPS)
    assert sum(calls) >= STEPS - 40 and len(calls) >= 2, calls  # the kernel took them
    values = ens.navigation.values(ens.attitude.T)
    for j, sim in enumerate(sims):
        assert tuple(ens.q[:, j]) == sim.q, j
        assert tuple(ens.w[:, j]) == sim.w, j
        assert tuple(ens.wheel_speeds[:, j]) == tuple(sim.wheel_speeds), j
        assert np.array_equal(ens.navigation.q[j], sim.navigation.q[0]), j
        assert np.array_equal(values[j], np.array(sim.snapshot().estimate), equal_nan=True), j  # err, 3 sigma, nees
        assert np.array_equal(ens.navigation.available[j], sim.navigation.available[0], equal_nan=True), j
        if ens.dipole is not None:
            assert tuple(ens.dipole[:, j]) == tuple(sim.dipole), j
        assert tuple(ens.qc[:, j]) == tuple(sim._cmd.qc), j
    assert len({float(x) for x in ens.navigation.q[:, 0]}) == 3


@pytest.mark.parametrize("case", list(CASES))
def test_the_metrics_and_the_window_on_the_orbit_are_the_numpy_paths(case, calls):
    spec = EnsembleSpec(bodies=5, seed=8, rate_spread=0.02, inertia_spread=5.0, settle_deg=3.0, detumble_deg_s=1.2)
    runs = [Ensemble(CASES[case], spec, compiled=c) for c in (True, False)]
    for ens in runs:
        ens.step(137)
        ens.start_estimate_window()  # the sweep's window: from half-way
        ens.step(400)
    assert sum(calls) >= 400
    new, old = (ens.metrics() for ens in runs)
    assert set(new) == set(old) >= {"est_rms_deg", "nees_mean", "peak_torque", "path_deg", "settling_time"}
    for name in old:
        assert np.array_equal(_bits(new[name]), _bits(old[name]), equal_nan=True), name
    assert np.array_equal(_bits(runs[0].q), _bits(runs[1].q)) and np.array_equal(_bits(runs[0].qc), _bits(runs[1].qc))
    assert runs[0].t == runs[1].t and runs[0]._nav_steps == runs[1]._nav_steps == 400


def test_what_the_kernel_does_not_cover_on_an_orbit_steps_through_the_numpy_columns(calls):
    ens = Ensemble(TRIAD.replace(integrator="full-quat", dt=0.1), EnsembleSpec(bodies=3, seed=1), compiled=True)
    ens.step(20)
    assert calls == [] and ens.t == pytest.approx(20 * 0.1)


def test_by_default_the_shared_orbit_steps_through_the_numpy_columns_with_the_same_bits(calls):
    # compiled=None: the numpy columns (less CPU on one core, docs/PERFORMANCE.md), as for a shared orbit without
    # an estimator; compiled=True the kernel: the same bits
    runs = [Ensemble(CASES["triad-sun-mag-rk4"], EnsembleSpec(bodies=4, seed=2), compiled=c) for c in (None, True)]
    runs[0].step(300)
    assert calls == []
    runs[1].step(300)
    assert sum(calls) >= 260
    assert np.array_equal(_bits(runs[0].q), _bits(runs[1].q))
    assert np.array_equal(_bits(runs[0].navigation.q), _bits(runs[1].navigation.q))
