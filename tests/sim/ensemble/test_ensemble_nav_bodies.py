"""The ensemble's bodies with an estimator through the compiled navigation (sim/ensemble/nav_bodies.py, issue 42).

An :class:`Ensemble` flying an estimator without an orbit steps through
:func:`sim.ensemble.nav_bodies.advance_nav_bodies`: each body's step and, between two steps, the navigation
formulas the single body's loop calls, over the ensemble's rows of its sensors' noise.  The references are
independent of that loop: each body's own :class:`Simulation` of its settings and sensors
(``Simulation(ens.body_settings(j), sensor_body=index[j])``, its steps through ``advance_craft`` and Python's
navigation at the blocks' ends), and the ensemble's numpy path (``compiled=False``: the column formulas, the
navigation kernel over all bodies once a step) for the per-step metrics and the estimate window's sums.  Every
float is compared to the bit.
"""

import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.core import jit
from sim.ensemble import nav_bodies, nav_steps
from nav_ensembles import bits, each_body_is_its_single_run, metrics_are_the_numpy_paths
from sim.run.scenario import load

MEKF = load("mekf").settings
CASES = {
    "mekf-rk4-watching": MEKF,
    "mekf-half-quat-controller-settled": MEKF.replace(integrator="half-quat", controller="quaternion"),
    "mekf-rkmk4-norm-none": MEKF.replace(integrator="rkmk4", norm="none"),
    # the slew's SLERP steps through the numpy columns, the rest through the kernel: the switch is seamless
    "flown-on-the-estimate-after-a-slew": MEKF.replace(fly_on="estimate", controller="quaternion",
                                                       command_deg=(10, 20, 30), slerp_time=3.0),
    "flown-on-the-estimate-dampers-limiter": MEKF.replace(fly_on="estimate", controller="quaternion",
                                                          dampers_on=True, limiter_on=True,
                                                          limits=(0.002, 0.002, 0.002)),
    "monte-carlo-scenario": load("mekf_monte_carlo").settings,
}
SPEC = EnsembleSpec(bodies=6, seed=3, rate_spread=0.01, inertia_spread=5.0, settle_deg=2.0)
STEPS = 600  # past two ends of the gyro's block of 256 samples and five star-tracker samples


@pytest.fixture(autouse=True, scope="module")
def _loaded():
    nav_bodies.advance_nav_bodies.wait()


@pytest.mark.parametrize("case", list(CASES))
def test_each_body_is_its_single_run_bit_for_bit(case, calls):
    each_body_is_its_single_run(CASES[case], SPEC, STEPS)
    assert sum(calls) >= STEPS - 40 and len(calls) >= 3, calls  # the kernel took them, in calls ended by the blocks


@pytest.mark.parametrize("case", list(CASES))
def test_the_metrics_and_the_window_are_the_numpy_paths(case, calls):
    metrics_are_the_numpy_paths(CASES[case])
    assert sum(calls) >= 400


def test_what_the_kernel_does_not_cover_steps_through_the_numpy_columns(calls):
    full = MEKF.replace(integrator="full-quat")  # full-quat's P (on an orbit: tests/sim/ensemble/test_ensemble_nav_orbit.py)
    ens = Ensemble(full, EnsembleSpec(bodies=3, seed=1), compiled=True)
    ens.step(20)
    assert calls == [] and ens.t == pytest.approx(20 * full.dt)


@pytest.mark.skipif(jit.DISABLED, reason="with the JIT off an ensemble runs the kernel as Python only when asked")
def test_a_long_call_of_many_bodies_waits_for_the_kernel_and_flies_it(calls):
    ens = Ensemble(CASES["monte-carlo-scenario"], EnsembleSpec(bodies=nav_bodies.LOAD_AT_ONCE, seed=2))
    ens.step(nav_bodies.WARM_AFTER // nav_bodies.LOAD_AT_ONCE)  # one call of WARM_AFTER body-steps
    assert sum(calls) == nav_bodies.WARM_AFTER // nav_bodies.LOAD_AT_ONCE


def test_the_window_of_many_bodies_sums_in_one_order_on_both_paths():
    # numpy's einsum sums x^2 + y^2 + z^2 in another order for a part of the rows (an ulp apart): both paths now
    # sum x, y, z in turn, so the window's RMS of 64 bodies is the same bits whichever path stepped them
    spec = EnsembleSpec(bodies=64, seed=11, rate_spread=0.01)
    runs = [Ensemble(MEKF, spec, compiled=c) for c in (True, False)]
    for ens in runs:
        ens.step(20)
        ens.start_estimate_window()
        ens.step(60)
    new, old = (ens.metrics() for ens in runs)
    for name in ("est_rms_deg", "nees_mean"):
        assert np.array_equal(bits(new[name]), bits(old[name])), name


def test_faulted_bodies_freeze_and_go_on_being_sensed_as_on_the_numpy_path(calls):
    # half-quat without a norm at these rates: |Q| runs away, body by body at its own step
    s = MEKF.replace(integrator="half-quat", norm="none", rates=(0.15, -0.1, 0.2))
    spec = EnsembleSpec(bodies=6, seed=1, rate_spread=0.1)
    runs = [Ensemble(s, spec, compiled=c) for c in (True, False)]
    for ens in runs:
        ens.step(40)
    assert sum(calls) == 40
    new, old = runs
    assert new.faulted.all() and len(set(new.fault_t.tolist())) >= 4
    assert np.array_equal(bits(new.fault_t), bits(old.fault_t))
    assert np.array_equal(bits(new.q), bits(old.q)) and np.array_equal(bits(new.w), bits(old.w))
    assert np.array_equal(bits(new.navigation.q), bits(old.navigation.q))
    a, b = new.metrics(), old.metrics()
    for name in b:
        assert np.array_equal(bits(a[name]), bits(b[name])), name


@pytest.mark.skipif(jit.DISABLED, reason="the JIT is off: no kernel is loaded")
@pytest.mark.parametrize("case", ["mekf-rk4-watching", "monte-carlo-scenario"])
def test_an_ensemble_calls_the_kernel_with_the_types_it_was_loaded_for(case, monkeypatch):
    # An ensemble's arrays typed otherwise than the kernel's sample (a copy of a broadcast is F-ordered) made its
    # first run compile a second version while 1,000 MEKFs stepped in Python (the window's mekf_monte_carlo, stop 49)
    kernel, seen = nav_bodies.advance_nav_bodies, []
    run = nav_steps.on_threads

    def spy(fn, args, m):
        seen.append(tuple(kernel.dispatcher.typeof_pyval(a) for a in (*args, 0, m)))  # (lo, hi: on_threads')
        run(fn, args, m)

    monkeypatch.setattr(nav_steps, "on_threads", spy)
    ens = Ensemble(CASES[case], EnsembleSpec(bodies=5, seed=3, rate_spread=0.01), compiled=True)
    ens.step(20)
    assert seen and all(types in kernel.dispatcher.overloads for types in seen)
