"""The ensemble's compiled body loop (sim/ensemble/compiled.py) against each body's Simulation and the numpy path.

An :class:`Ensemble` with ``compiled=True`` steps the bodies :func:`sim.core.advance.covers` through
:func:`sim.ensemble.compiled.advance_bodies` (a prange loop over bodies, each taking the single body's
compiled step); ``compiled=False`` steps them through the numpy kernels of before, which
tests/sim/ensemble/test_ensemble.py checks against Simulation.  The references here are independent of the compiled
loop: each body's own :class:`Simulation` stepped in Python (the integrators, the torque model and the
norm modes called from Python), and the numpy ensemble for the per-step metrics and the faults.  Every
float is compared to the bit.
"""

import numba
import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble import compiled as body_loop
from sim.model.settings import Settings
from sim.model.simulation import Simulation, SimulationFault

SPEC = EnsembleSpec(bodies=23, seed=11, rate_spread=0.7, inertia_spread=15.0,
                    gains_grid=((4.0, 6.0), (10.0,), (8.0, 12.0, 14.0)), detumble_deg_s=20.0, settle_deg=5.0)
CONTROL = dict(dampers_on=True, controller="quaternion", command_deg=(30.0, -20.0, 150.0), slerp_time=0.0)

# Every branch of the compiled step: both integrators, every norm mode, dampers, the controller with and
# without the shortest path and each axis, the limiter, a command torque; per-body gains and inertia.
CASES = {
    "half-quat-free": dict(),
    "half-quat-torque": dict(torque=(0.2, -0.1, 0.05)),
    "half-quat-renormalize": dict(norm="renormalize", dampers_on=True),
    "half-quat-none": dict(norm="none", dt=0.005),
    "half-quat-elimination": dict(CONTROL, norm="elimination"),
    "half-quat-control-limiter": dict(CONTROL, limiter_on=True, limits=(1.0, 0.5, 0.8)),
    "half-quat-long-way-axes": dict(CONTROL, shortest_path=False, axes=(True, False, True)),
    "rk4-free": dict(integrator="rk4"),
    "rk4-control": dict(CONTROL, integrator="rk4", torque=(0.0, 0.3, 0.0)),
    "rk4-none": dict(integrator="rk4", norm="none", dt=0.005, dampers_on=True),
}


@pytest.fixture(autouse=True, scope="module")
def _loaded():
    body_loop.advance_bodies.wait()  # else a process loads it after sim.ensemble.compiled.WARM_AFTER body-steps


def _bits(a):
    return np.asarray(a, dtype=float).view(np.uint64)


def _pair(settings, spec=SPEC, track=True):
    new = Ensemble(settings, spec, compiled=True, track=track)
    old = Ensemble(settings, spec, compiled=False, track=track)
    assert new._packed_bodies(1) is not None, "these settings should step through the compiled body loop"
    assert old._packed_bodies(1) is None
    return new, old


def _same_results(new, old):
    assert np.array_equal(_bits(new._x), _bits(old._x))
    assert new.t == old.t and new.steps == old.steps
    m_new, m_old = new.metrics(), old.metrics()
    assert m_new.keys() == m_old.keys()
    for key in m_old:
        assert np.array_equal(m_new[key], m_old[key], equal_nan=True), key


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_every_body_is_bit_for_bit_its_simulation_stepped_in_python(case):
    new, _ = _pair(Settings(**{"dt": 0.01, **CASES[case]}))
    new.step(400)
    for j in range(new.n):
        sim = Simulation(new.body_settings(j))
        try:
            sim._step_python(400)  # the Python step, never the compiled advance
        except SimulationFault as fault:
            assert new.faulted[j] and new.fault_t[j] == fault.t
        else:
            assert not new.faulted[j]
        assert np.array_equal(_bits(new.q[:, j]), _bits(sim.q))
        assert np.array_equal(_bits(new.w[:, j]), _bits(sim.snapshot().w))


@pytest.mark.parametrize("case", list(CASES))
def test_state_and_every_metric_match_the_numpy_path(case):
    settings = Settings(**{"dt": 0.01, **CASES[case]})
    new, old = _pair(settings)
    for ens in (new, old):
        ens.step(1)
        ens.step(150)
        ens.set("dt", settings.dt / 2)  # a new time base: times of later steps
        ens.step(149)
    _same_results(new, old)


def test_metrics_while_faulted_bodies_stay_frozen_match_the_numpy_path():
    # Bodies that fault at once (an absurd rate, a nan) or on their own later (dt too big for the fast ones):
    # frozen at the last good state, fault time, and the metrics of the frozen ones (no path, no torque).
    spec = EnsembleSpec(bodies=40, seed=2, rate_spread=2.0)
    new, old = _pair(Settings(dt=0.1, dampers_on=True, dampers=(0.1, 0.1, 0.1)), spec)
    for ens in (new, old):
        ens.w[:, 3] = (1e200, 0.0, -1e200)
        ens.w[1, 17] = np.nan
        ens.step(7)
        ens.step(193)
    assert 2 < new.faulted.sum() < new.n and new.faulted[3] and new.faulted[17]
    assert new.fault_t[3] == 0.0 and len(set(new.fault_t[new.faulted])) > 2
    _same_results(new, old)
    m = new.metrics()  # body 3's frozen |w| is inf: it adds nothing to the path or the peak torque (not inf * 0)
    assert np.isfinite(m["path_deg"]).all() and np.isfinite(m["peak_torque"]).all()


def test_a_torque_the_same_for_every_body_counts_once_changed():
    new, old = _pair(Settings(dt=0.01, torque=(0.2, -0.1, 0.05)))
    for ens in (new, old):
        ens.step(50)
        ens.control("torque", (0.5, 0.5, -0.5))  # |T| = sqrt(0.75) from now on
        ens.step(50)
        ens.control("torque", (0.0, 0.1, 0.0))
        ens.step(50)
    _same_results(new, old)
    assert np.array_equal(new.metrics()["peak_torque"], np.full(new.n, 0.75 ** 0.5))


def test_a_slerp_steps_in_numpy_and_then_compiled_alike():
    new, old = _pair(Settings(dt=0.01, **CONTROL))
    for ens in (new, old):
        ens.set("command_deg", (0.0, 45.0, 0.0))
        ens.set("slerp_time", 0.5)
        ens.set("command_deg", (10.0, -45.0, 20.0))  # a SLERP of 0.5 s: 50 steps in numpy, then compiled
        ens.step(300)
    _same_results(new, old)


def test_without_tracking_the_state_is_the_same_and_tracked_metrics_are_nan():
    new, old = _pair(Settings(dt=0.01, **CONTROL), track=False)
    for ens in (new, old):
        ens.step(200)
    _same_results(new, old)
    assert np.isnan(new.metrics()["settling_time"]).all()


def test_one_core_and_two_give_the_same_bits():
    settings = Settings(dt=0.01, **CONTROL)
    threads = numba.get_num_threads()
    runs = []
    try:
        for count in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(count)
            ens = Ensemble(settings, EnsembleSpec(bodies=501, seed=3, rate_spread=0.5), compiled=True)
            ens.step(100)
            runs.append((ens._x.copy(), ens.metrics()))
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(_bits(runs[0][0]), _bits(runs[1][0]))
    for key in runs[0][1]:
        assert np.array_equal(runs[0][1][key], runs[1][1][key], equal_nan=True), key


def test_what_the_compiled_step_does_not_hold_steps_in_numpy():
    for changes in (dict(integrator="full-quat"), dict(integrator="rkmk4", norm="none"), dict(wheels="pyramid"),
                    dict(CONTROL, controller="euler"), dict(gravity_gradient=True)):
        ens = Ensemble(Settings(dt=0.01, **changes), SPEC, compiled=True)
        assert ens._packed_bodies(1) is None, changes
    ens = Ensemble(Settings(dt=0.01, **dict(CONTROL, slerp_time=1.0)), SPEC, compiled=True)
    assert ens._packed_bodies(1) is None  # a SLERP in progress
    ens.step(101)
    assert ens._packed_bodies(1) is not None  # and after it


def test_unless_told_only_rk4_steps_compiled():
    # sim.ensemble.compiled.AUTO: half-quat stays on the fused numpy kernels, which are faster on one core
    assert Ensemble(Settings(dt=0.01, **CONTROL), SPEC)._packed_bodies(1) is None
    assert Ensemble(Settings(dt=0.01, integrator="rk4", **CONTROL), SPEC)._packed_bodies(1) is not None


def test_the_body_loops_warm_up_sample_has_numbas_types_of_a_real_call(monkeypatch):
    """The warm-up sample (``compiled._sample``: what the loop is compiled for before its first call) has,
    argument by argument, numba's type of the arguments an ensemble's steps hand :func:`advance_bodies`, tracking
    on and off: the loaded kernel serves them, no second compile."""
    real, seen = body_loop.advance_bodies, []

    class Spy:
        def __call__(self, *args):
            seen.append(tuple(numba.typeof(a) for a in args))
            return real.py_func(*args)

        def __getattr__(self, name):  # wanted, wait: the kernel's own
            return getattr(real, name)

    monkeypatch.setattr(body_loop, "advance_bodies", Spy())
    for track in (True, False):
        ens = Ensemble(Settings(**CASES["rk4-control"]), EnsembleSpec(bodies=3, seed=2, rate_spread=0.3),
                       compiled=True, track=track)
        ens.step(2)
    sample = tuple(numba.typeof(a) for a in body_loop._sample())
    assert len(seen) >= 2 and all(types == sample for types in seen)
