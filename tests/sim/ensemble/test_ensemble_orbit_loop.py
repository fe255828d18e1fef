"""The ensemble's compiled body loop on an orbit (sim/ensemble/orbit_loop.py) against each body's Simulation and
the numpy path.

An :class:`Ensemble` with ``compiled=True`` on an orbit steps through
:func:`sim.ensemble.orbit_loop.advance_orbit_bodies`: each body's world and spacecraft step in a prange loop.  The
references are independent of that loop: each body's own :class:`Simulation` stepped in Python
(``_step_python``: the integrators, the loads and the world's numbers called from Python), which is bit for bit
also where the bodies' orbits and epochs differ; and, with one orbit shared by every body (where the numpy
columns are Simulation's bit for bit too), the numpy ensemble for the per-step metrics, the faults, the command
and the world it reports.  Every float is compared to the bit.
"""

import threading

import numba
import numpy as np
import pytest

from sim.core import jit
from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble import orbit_loop
from sim.model.settings import Settings
from sim.model.simulation import Simulation, SimulationFault

SPREAD = dict(orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0), epoch_spread=86400.0)
SHARED = EnsembleSpec(bodies=12, seed=5, rate_spread=0.05, inertia_spread=10.0, settle_deg=5.0,
                      gains_grid=((0.8, 1.0), (1.2,), (0.4, 0.5, 0.6)), detumble_deg_s=1.0)
OWN = EnsembleSpec(bodies=8, seed=6, rate_spread=0.05, inertia_spread=10.0, settle_deg=5.0, **SPREAD)
SAT = dict(body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), dampers_on=True, dampers=(14.0, 17.0, 7.0),
           controller="quaternion", gains=(1.0, 1.2, 0.5), orbit=(500.0, 0.01, 97.4, 0.0, 20.0, 0.0),
           epoch="2024-03-20T03:06:00Z")

# Every mode (the command and its rate feed-forward read from the world), each integrator the loop runs, the
# norm modes, the gravity gradient on the orbit at the stages' times, J2, drag in the exponential atmosphere,
# the disturbance torque, the limiter, the long way round.
CASES = {
    "sun-half-quat-gg": dict(pointing="sun", gravity_gradient=True, dt=0.1),
    "nadir-rk4-j2-gg": dict(pointing="nadir", gravity_gradient=True, j2=True, integrator="rk4", dt=0.5),
    "target-rkmk4-drag": dict(pointing="target", target=(30.0, -60.0, 0.1), integrator="rkmk4", norm="none",
                              drag=True, gravity_gradient=True, dt=0.25),
    "velocity-renormalize-limiter": dict(pointing="velocity", norm="renormalize", limiter_on=True,
                                         limits=(0.01, 0.02, 0.01), dt=0.2),
    "inertial-gg-disturbance": dict(command_deg=(20.0, -10.0, 45.0), slerp_time=0.0, gravity_gradient=True,
                                    disturbance=(1e-4, -2e-4, 5e-5), disturbance_period=60.0, norm="elimination",
                                    dt=0.1),
    "constant-torque-no-controller": dict(controller="none", dampers_on=False, torque=(1e-3, -2e-3, 5e-4), dt=0.5),
    "inertial-drag": dict(command_deg=(0.0, 30.0, 0.0), slerp_time=0.0, drag=True, dt=0.1),
    "inertial-rk4-long-way": dict(command_deg=(170.0, 0.0, 0.0), slerp_time=0.0, shortest_path=False,
                                  gravity_gradient=True, integrator="rk4", dt=0.5),
    # issue 42, every ensemble on an orbit: reaction wheels (the gyrostat's equations, the motor torques within
    # their limits, direct motor torques), the field with the torquers (B-dot on IGRF's samples every 10 s taken
    # by each body on its own orbit and epoch, and on the dipole; momentum dumping of the wheels), solar
    # radiation pressure on the facets
    "sun-wheels-rk4-gg": dict(pointing="sun", wheels="pyramid", wheel_speeds=(30.0, -20.0, 10.0, 5.0),
                              integrator="rk4", gravity_gradient=True, dt=0.2),
    "inertial-wheels-direct-limited": dict(command_deg=(40.0, -20.0, 10.0), slerp_time=0.0, wheels="orthogonal",
                                           wheel_torques=(1e-3, 0.0, -2e-3), wheel_torque_limit=0.01,
                                           norm="renormalize", dt=0.1),
    "bdot-igrf-rk4": dict(body="cubesat_3u", inertia=None, controller="none", dampers_on=False,
                          magnetic_field="igrf", magnetorquers=0.2, bdot_law="proportional", bdot_gain=2.4e4,
                          bdot_period=1.0, integrator="rk4", dt=0.1),
    "bdot-bang-bang-dipole-elimination": dict(body="cubesat_3u", inertia=None, controller="none", dampers_on=False,
                                              magnetic_field="dipole", magnetorquers=0.2, bdot_law="bang-bang",
                                              bdot_period=0.5, norm="elimination", residual_dipole=(0.01, 0.0, 0.02),
                                              dt=0.1),
    "nadir-dumping-igrf-wheels": dict(pointing="nadir", wheels="pyramid", wheel_speeds=(60.0, -40.0, 20.0, 50.0),
                                      magnetic_field="igrf", magnetorquers=5.0, residual_dipole=(0.2, 0.0, 0.1),
                                      dumping_gain=0.05, gravity_gradient=True, integrator="rk4", dt=0.25),
    "sun-srp-drag-rkmk4": dict(pointing="sun", srp=True, drag=True, integrator="rkmk4", dt=0.25),
    # full-quat (Hoffmann's, and the raw form), its P carried per body, with wheels and elimination
    "sun-full-quat-gg": dict(pointing="sun", integrator="full-quat", gravity_gradient=True, dt=0.05),
    "inertial-full-quat-raw-wheels-elimination": dict(command_deg=(20.0, 10.0, -30.0), slerp_time=0.0,
                                                      integrator="full-quat", full_quat_form="raw",
                                                      wheels="orthogonal", norm="elimination", dt=0.05),
}


@pytest.fixture(autouse=True, scope="module")
def _loaded():
    orbit_loop.advance_orbit_bodies.wait()  # (an ensemble with one orbit per body waits for it at its first step)


def _bits(a):
    return np.asarray(a, dtype=float).view(np.uint64)


def _settings(case):
    return Settings(**{k: v for k, v in {**SAT, **CASES[case]}.items() if v is not None})  # None: the body's own


def _pair(settings, spec=SHARED, track=True):
    new = Ensemble(settings, spec, compiled=True, track=track)
    old = Ensemble(settings, spec, compiled=False, track=track)
    assert new._packed_bodies(1) is not None, "these settings should step through the compiled orbit loop"
    assert old._packed_bodies(1) is None
    return new, old


def _same_results(new, old):
    assert np.array_equal(_bits(new._x), _bits(old._x))
    assert new.t == old.t and new.steps == old.steps
    assert np.array_equal(_bits(new.qc), _bits(old.qc))
    assert new.world == old.world
    m_new, m_old = new.metrics(), old.metrics()
    assert m_new.keys() == m_old.keys()
    for key in m_old:
        assert np.array_equal(m_new[key], m_old[key], equal_nan=True), key


@pytest.mark.parametrize("case", list(CASES))
def test_every_body_on_its_own_orbit_is_bit_for_bit_its_simulation_stepped_in_python(case):
    ens = Ensemble(_settings(case), OWN, compiled=True)
    assert ens._packed_bodies(1) is not None
    ens.step(3)
    ens.step(147)  # two calls: the command and the time carried from one to the next
    assert len({tuple(ens.initial()["orbit"][:, j]) for j in range(ens.n)}) == ens.n  # one orbit each
    for j in range(ens.n):
        sim = Simulation(ens.body_settings(j))
        try:
            sim._step_python(150)  # the Python step and world, never a compiled advance
        except SimulationFault as fault:
            assert ens.faulted[j] and ens.fault_t[j] == fault.t
        else:
            assert not ens.faulted[j]
        assert np.array_equal(_bits(ens.q[:, j]), _bits(sim.q)), j
        assert np.array_equal(_bits(ens.w[:, j]), _bits(sim.snapshot().w)), j
        assert np.array_equal(_bits(ens.wheel_speeds[:, j]), _bits(sim._w[3:])), j
        bdot = sim._magnetic.bdot
        if bdot is not None:  # B-dot's samples (dB/dt) and the rods held
            assert np.array_equal(_bits([np.broadcast_to(x, ens.n)[j] for x in ens._magnetic.bdot.state]),
                                  _bits(bdot.state)), j
            assert np.array_equal(_bits([u[j] for u in ens._magnetic.bdot.u]), _bits(bdot.u)), j
        if sim.world.qc is not None:  # the command flown, its sign followed from step to step
            assert np.array_equal(_bits(ens._cmd.qc[:, j]), _bits(sim._cmd.qc))


@pytest.mark.parametrize("case", list(CASES))
def test_on_one_shared_orbit_state_metrics_command_and_world_match_the_numpy_path(case):
    settings = _settings(case)
    new, old = _pair(settings)
    for ens in (new, old):
        ens.step(1)
        ens.step(80)
        ens.set("dt", settings.dt / 2)  # a new time base: times of later steps
        ens.step(79)
    _same_results(new, old)


def test_faulted_bodies_stay_frozen_and_their_metrics_match_the_numpy_path():
    settings = Settings(**{**SAT, **CASES["sun-half-quat-gg"]}, norm="none")
    new, old = _pair(settings)
    for ens in (new, old):
        ens.w[:, 3] = (1e200, 0.0, -1e200)
        ens.w[1, 7] = np.nan
        ens.w[:, 9] = (1.0, -0.8, 0.6)  # norm handling none: the norm runs away at dt 0.1 s at once
        ens.step(5)
        ens.step(95)
    assert 3 < new.faulted.sum() < new.n and new.faulted[3] and new.faulted[7] and new.faulted[9]
    assert new.fault_t[3] == 0.0 and len(set(new.fault_t[new.faulted])) > 2  # some fault later, on their own
    _same_results(new, old)


def test_a_slerp_on_an_orbit_steps_in_numpy_and_then_compiled_alike():
    new, old = _pair(_settings("inertial-gg-disturbance"))
    for ens in (new, old):
        ens.set("slerp_time", 2.0)
        ens.set("command_deg", (0.0, 45.0, 0.0))  # 20 steps in numpy, then compiled
        ens.step(100)
    assert new._cmd.path is None
    _same_results(new, old)


def test_without_tracking_the_state_is_the_same():
    new, old = _pair(_settings("sun-half-quat-gg"), track=False)
    for ens in (new, old):
        ens.step(60)
    _same_results(new, old)
    assert np.isnan(new.metrics()["settling_time"]).all()


class _Ranges:
    """:func:`sim.ensemble.orbit_loop.advance_orbit_bodies` that notes each call's bodies and thread."""

    def __init__(self, kernel):
        self.kernel, self.ready, self.calls = kernel, kernel.ready, []

    def __call__(self, *args):
        self.calls.append((threading.get_ident(), args[-2], args[-1]))
        return self.kernel(*args)

    def __getattr__(self, name):
        return getattr(self.kernel, name)


@pytest.mark.skipif(jit.DISABLED, reason="the JIT is off: the kernel runs as Python, on one thread (run_bodies)")
def test_one_core_and_two_give_the_same_bits(monkeypatch):
    """numba's thread count splits the bodies into that many ranges, each on a thread of its own (run_bodies),
    and the bits do not depend on it."""
    threads = numba.get_num_threads()
    runs = []
    try:
        for count in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(count)
            spy = _Ranges(orbit_loop.advance_orbit_bodies)
            monkeypatch.setattr(orbit_loop, "advance_orbit_bodies", spy)
            ens = Ensemble(_settings("sun-half-quat-gg"), EnsembleSpec(bodies=101, seed=3, rate_spread=0.05, **SPREAD),
                           compiled=True)
            ens.step(40)
            monkeypatch.undo()
            runs.append((ens._x.copy(), ens.metrics()))
            calls = spy.calls[-count:]
            assert sorted((lo, hi) for _, lo, hi in calls) == [(101 * i // count, 101 * (i + 1) // count)
                                                              for i in range(count)]
            assert len({thread for thread, _, _ in calls}) == count
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(_bits(runs[0][0]), _bits(runs[1][0]))
    for key in runs[0][1]:
        assert np.array_equal(runs[0][1][key], runs[1][1][key], equal_nan=True), key


def test_what_the_orbit_loop_does_not_hold_steps_in_numpy():
    base = CASES["sun-half-quat-gg"]
    for changes in (dict(integrator="full-quat", full_quat_form="kane"), dict(drag=True, atmosphere="msis"),
                    dict(magnetic_field="igrf", magnetorquers=1.0, drag=True, atmosphere="msis")):
        settings = Settings(**{**SAT, **base, **changes})
        assert not orbit_loop.covers(settings), changes
        ens = Ensemble(settings, SHARED, compiled=True)
        assert ens._packed_bodies(1) is None, changes


def test_unless_told_one_orbit_per_body_steps_compiled_and_a_shared_orbit_in_numpy():
    # sim.ensemble.orbit_loop: a shared orbit's world is made once for all by the numpy columns (Simulation's
    # bits, and faster on one core); one orbit per body is Simulation's bit for bit only through the loop
    settings = _settings("sun-half-quat-gg")
    assert Ensemble(settings, SHARED)._packed_bodies(1) is None
    assert Ensemble(settings, OWN)._packed_bodies(1) is not None


def test_bodies_split_into_chunks_fly_the_same_bits_as_together():
    # a sweep's chunks (start, count) on any worker: each body's orbit, epoch and numbers depend on its index only
    settings = _settings("nadir-rk4-j2-gg")
    whole = Ensemble(settings, OWN)
    parts = [Ensemble(settings, OWN, start=0, count=3), Ensemble(settings, OWN, start=3, count=5)]
    for ens in (whole, *parts):
        assert ens._packed_bodies(1) is not None
        ens.step(40)
    assert np.array_equal(_bits(whole._x), _bits(np.hstack([p._x for p in parts])))
    for key, value in whole.metrics().items():
        assert np.array_equal(value, np.concatenate([p.metrics()[key] for p in parts]), equal_nan=True), key


def test_b_dot_after_a_reset_and_a_change_of_gain_matches_the_numpy_path():
    # B-dot's sample state is each body's, carried between calls and Python's worlds: a reset forgets it, a new
    # gain starts the torquers afresh, a SLERP's steps in numpy hand it on to the loop
    new, old = _pair(_settings("bdot-igrf-rk4"))
    for ens in (new, old):
        ens.step(25)
        ens.reset()
        ens.step(37)
        ens.set("bdot_gain", 1.2e4)
        ens.step(41)
        ens.set("slerp_time", 1.0)
        ens.set("command_deg", (10.0, 0.0, 0.0))
        ens.step(30)
    _same_results(new, old)
    for a, b in zip(new._magnetic.bdot.state + new._magnetic.bdot.u, old._magnetic.bdot.state + old._magnetic.bdot.u):
        assert np.array_equal(_bits(np.broadcast_to(a, new.n)), _bits(np.broadcast_to(b, new.n)))


def test_a_reset_flies_the_bodies_on_their_own_orbits_again_to_the_bit():
    settings = _settings("nadir-dumping-igrf-wheels")
    once, again = Ensemble(settings, OWN, compiled=True), Ensemble(settings, OWN, compiled=True)
    again.step(33)
    again.reset()
    for ens in (once, again):
        ens.step(60)
    assert np.array_equal(_bits(once._x), _bits(again._x))


def test_with_j2_each_body_s_node_regresses_at_its_own_orbit_s_j2_rate():
    """J2 on spread orbits: each body's orbit in the loop drifts its node at the first-order secular rate
    ``dRAAN/dt = -3/2 n J2 (R/p)^2 cos i`` of its own elements (Vallado 2013, eq. 9-41; EGM's J2, WGS-84's R), and
    its attitude is its Simulation's stepped in Python to the bit."""
    settings = _settings("nadir-rk4-j2-gg")
    ens = Ensemble(settings, EnsembleSpec(bodies=2, seed=6, rate_spread=0.05, orbit_spread=(300.0, 0.005, 30.0, 0.0,
                                                                                             0.0, 0.0)),
                   compiled=True)
    el = ens.initial()["orbit"]
    rows = orbit_loop.pack_orbits(ens)[3]
    for j in range(ens.n):
        a, e, i = 6378.137 + el[0, j], el[1, j], np.radians(el[2, j])
        n, p = np.sqrt(398600.4418 / a**3), a * (1.0 - e * e)
        assert rows[j, 6] == pytest.approx(-1.5 * n * 1.08262668e-3 * (6378.137 / p) ** 2 * np.cos(i), rel=1e-8)
    ens.step(10)
    for j in range(ens.n):
        sim = Simulation(ens.body_settings(j))
        sim._step_python(10)
        assert np.array_equal(_bits(ens.q[:, j]), _bits(sim.q)), j


def test_drag_in_the_exponential_atmosphere_a_few_steps_each_body_on_its_own_orbit_is_its_simulation():
    """Drag (the exponential atmosphere: the density at each body's geodetic altitude) on three bodies of their own
    orbits for a few steps: each its own Simulation stepped in Python, to the bit, and the drag felt (the rates
    differ with drag off).  Small, so that a mutation run's budget of a mutant's fastest tests reaches the world
    made with the air (the cases above take seconds each with the JIT off)."""
    spec = EnsembleSpec(bodies=3, seed=6, rate_spread=0.05, **SPREAD)
    runs = {}
    for drag in (True, False):
        settings = _settings("inertial-drag").replace(drag=drag, dt=1.0)
        assert settings.atmosphere == "exponential"
        ens = runs[drag] = Ensemble(settings, spec, compiled=True)
        assert ens._packed_bodies(1) is not None
        ens.step(4)
    ens = runs[True]
    for j in range(ens.n):
        sim = Simulation(ens.body_settings(j))
        sim._step_python(4)
        assert np.array_equal(_bits(ens.q[:, j]), _bits(sim.q)), j
        assert np.array_equal(_bits(ens.w[:, j]), _bits(sim.snapshot().w)), j
    assert not np.array_equal(runs[True].w, runs[False].w)
