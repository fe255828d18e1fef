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
from nav_ensembles import bits, each_body_is_its_single_run, metrics_are_the_numpy_paths
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


@pytest.mark.parametrize("case", list(CASES))
def test_each_body_on_the_orbit_is_its_single_run_bit_for_bit(case, calls):
    each_body_is_its_single_run(CASES[case], SPEC, STEPS)
    assert sum(calls) >= STEPS - 40 and len(calls) >= 2, calls  # the kernel took them


@pytest.mark.parametrize("case", list(CASES))
def test_the_metrics_and_the_window_on_the_orbit_are_the_numpy_paths(case, calls):
    metrics_are_the_numpy_paths(CASES[case])
    assert sum(calls) >= 400


def test_what_the_kernel_does_not_cover_on_an_orbit_steps_through_the_numpy_columns(calls):
    ens = Ensemble(TRIAD.replace(integrator="full-quat", dt=0.1), EnsembleSpec(bodies=3, seed=1), compiled=True)
    ens.step(20)
    assert calls == [] and ens.t == pytest.approx(20 * 0.1)


def test_by_default_the_shared_orbit_steps_through_the_numpy_columns_with_the_samebits(calls):
    # compiled=None: the numpy columns (less CPU on one core, docs/PERFORMANCE.md), as for a shared orbit without
    # an estimator; compiled=True the kernel: the same bits
    runs = [Ensemble(CASES["triad-sun-mag-rk4"], EnsembleSpec(bodies=4, seed=2), compiled=c) for c in (None, True)]
    runs[0].step(300)
    assert calls == []
    runs[1].step(300)
    assert sum(calls) >= 260
    assert np.array_equal(bits(runs[0].q), bits(runs[1].q))
    assert np.array_equal(bits(runs[0].navigation.q), bits(runs[1].navigation.q))


def test_solar_pressure_on_the_facets_turns_each_body_as_its_single_run_without_drag():
    """SRP without drag (the world made without the atmosphere's geodetic point) and an MEKF watching: each body
    equals its own Simulation bit for bit, and the pressure is felt (the bodies turn otherwise with srp off)."""
    settings = MEKF_ORBIT.replace(srp=True, dt=0.5)
    each_body_is_its_single_run(settings, SPEC, 12)
    with_srp, without = (Ensemble(s, SPEC, start=2, count=3, compiled=True)
                         for s in (settings, settings.replace(srp=False)))
    for ens in (with_srp, without):
        ens.step(12)
    assert not np.array_equal(with_srp.w, without.w)


def test_a_moving_command_on_the_orbit_a_few_steps_each_body_is_its_single_run():
    """Nadir pointing flown on the MEKF (the command moves with the orbit: each body's command taken with the sign
    continuous with its present one), three bodies for a few steps: each its own Simulation to the bit.  Small, so
    that a mutation run's budget of a mutant's fastest tests reaches a moving command (the cases above take 10 s
    and more with the JIT off)."""
    each_body_is_its_single_run(FLY.replace(dt=0.25), EnsembleSpec(bodies=5, seed=5, rate_spread=0.01), 8)
