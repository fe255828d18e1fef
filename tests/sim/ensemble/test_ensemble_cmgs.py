"""CMG clusters in an ensemble (issue 45): each body bit for bit with its own run.

Each body's gimbal angles are a row of :class:`sim.ensemble.cmg_bodies.CmgColumns`, stepped by the
``cmg_rk4_step`` a single body's run steps (:func:`sim.ensemble.cmg_bodies.cmg_bodies`), the torque law and the
environment on the ensemble's columns.  So ``Simulation(ens.body_settings(j))`` flies column ``j`` (attitude,
rates, gimbal angles) to the bit, for bodies that differ in attitude, rates and inertia, under four steering
laws, on an orbit pointing at the Sun, through a change of the law between steps and a reset.  Without torque
each body's angular momentum with its cluster's, ``C(Q)^T (J w + h0 sum s_i)``, is conserved in inertial axes
(Wie ch. 7), computed here from the cluster's geometry with numpy and scipy's rotations.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.ensemble import Ensemble, EnsembleSpec
from sim.core import jit
from sim.ensemble import cmg_bodies
from sim.model import cmg_step
from sim.model.settings import Settings
from sim.model.simulation import Simulation
from sim.run.scenario import load

SPEC = EnsembleSpec(bodies=4, seed=7, rate_spread=0.02, inertia_spread=10.0)


def _bits(values):
    return np.asarray(values, dtype=float).view(np.uint64)


def _same_as_runs(ens, runs):
    """Each body's attitude, rates and gimbal angles against its run's, to the bit (and not all alike)."""
    for j, sim in enumerate(runs):
        got = (*ens.q[:, j], *ens.w[:, j], *ens.cmgs.delta[j])
        assert np.array_equal(_bits(got), _bits((*sim.q, *sim._w, *sim._cmg.delta))), j
    assert len({tuple(row) for row in ens.cmgs.delta.tolist()}) == ens.n  # each body its own gimbals


def _sun_pointing():
    """The sun_pointing scenario (an orbit, the Sun, the quaternion controller) flown on a pyramid of CMGs."""
    return load("sun_pointing").settings.replace(wheels="none", cmg="pyramid", cmg_h0=2.0, cmg_law="gsr")


@pytest.mark.parametrize("settings", [
    load("cmg_singularity").settings,                              # SR, a SLERP through the singularity
    load("cmg_fast_slew").settings.replace(cmg_law="mp"),           # Moore-Penrose
    load("cmg_fast_slew").settings.replace(cmg_law="null"),         # null motion up the gradient of m
    _sun_pointing(),                                                # generalized SR on an orbit (a world)
], ids=["sr", "mp", "null", "gsr_orbit"])
@pytest.mark.parametrize("run_kernel", [False, True], ids=["runs_in_python", "runs_compiled"])
def test_each_body_flies_its_run(settings, run_kernel):
    ens = Ensemble(settings, SPEC)
    runs = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    if run_kernel:  # each run's many-step kernel loaded (cmg_run: where no world or SLERP acts), else its Python step
        cmg_step.cmg_run.wait(*runs[0]._cmg._sample())
    for chunk in (1, 49, 250):
        ens.step(chunk)
        for sim in runs:
            sim.step(chunk)
        _same_as_runs(ens, runs)
    assert not ens.faulted.any()


def test_a_change_of_the_steering_law_and_a_reset():
    """A new steering law between steps keeps the gimbal angles (as a run's CmgStep does); reset puts them back."""
    ens = Ensemble(load("cmg_fast_slew").settings, SPEC)
    runs = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    for target in (ens, *runs):
        target.step(100)
        target.update({"cmg_law": "gsr", "cmg_rate_limit": 0.5})
        target.step(100)
    _same_as_runs(ens, runs)
    ens.reset()
    delta0 = np.radians(np.zeros(4))
    assert np.array_equal(ens.cmgs.delta, np.repeat(delta0[None, :], ens.n, axis=0))
    runs = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    for target in (ens, *runs):
        target.step(150)
    _same_as_runs(ens, runs)


def test_the_body_loop_compiled_and_as_python_alike(monkeypatch):
    """cmg_bodies compiled and run as Python: one text, the same bits."""
    def run():
        ens = Ensemble(load("cmg_singularity").settings, SPEC)
        ens.step(200)
        return np.concatenate((ens.q.ravel(), ens.w.ravel(), ens.cmgs.delta.ravel(), ens.cmgs.least))

    kernel = cmg_bodies.cmg_bodies
    kernel.wait()  # (its sample's types: those the ensemble calls it with)
    assert kernel.ready or jit.DISABLED
    compiled = run()
    calls = []

    def python(*args):
        calls.append(1)
        return kernel.py_func(*args)

    python.prepare = lambda n: False  # (the warm-up rule's question, asked before each step: not loaded)
    monkeypatch.setattr(cmg_bodies, "cmg_bodies", python)
    assert np.array_equal(_bits(compiled), _bits(run()))
    assert calls  # the Python text ran


def _inertial_momentum(ens):
    """Each body's ``C(Q)^T (J w + h)`` (3, n): J from the ensemble's inertia with Hoffmann's signs, the cluster's
    ``h = h0 sum (cos d s0_i + sin d (g_i x s0_i))`` (Wie ch. 7); Hoffmann's ``C(Q)`` is scipy's ``as_matrix()`` of
    the scalar-last Q, transposed."""
    cluster = ens.settings.cmg_set
    jxx, jyy, jzz, jxy, jxz, jyz = ens.initial()["inertia"]
    out = np.empty((3, ens.n))
    for b in range(ens.n):
        j = np.array([[jxx[b], -jxy[b], -jxz[b]], [-jxy[b], jyy[b], -jyz[b]], [-jxz[b], -jyz[b], jzz[b]]])
        d = ens.cmgs.delta[b][:, None]
        h = cluster.h0 * (np.cos(d) * cluster.s0 + np.sin(d) * np.cross(cluster.g, cluster.s0)).sum(axis=0)
        q = ens.q[:, b] / np.linalg.norm(ens.q[:, b])
        out[:, b] = Rotation.from_quat(q).as_matrix().T @ (j @ ens.w[:, b] + h)  # C(Q)^T: NOTES.md
    return out


@pytest.mark.parametrize("law", ["sr", "null"])
def test_each_bodys_momentum_with_its_cluster_is_conserved_without_torque(law):
    """No external torque (the torque law's is made by the cluster, inside the craft): the gimbals turn, the body
    tumbles, and ``H`` stays put in inertial axes to the integrator's order (rk4, dt 0.01 s, 20 s)."""
    settings = Settings(integrator="rk4", cmg="pyramid", cmg_h0=3.0, cmg_law=law, torque=(0.2, -0.1, 0.15), dt=0.01,
                        inertia=(40.0, 50.0, 60.0, 2.0, -1.0, 3.0), cmg_angles=(20.0, -10.0, 5.0, 30.0))
    ens = Ensemble(settings, EnsembleSpec(bodies=3, seed=3, rate_spread=0.1, inertia_spread=20.0))
    h_start = _inertial_momentum(ens)
    start = ens.cmgs.delta.copy()
    ens.step(2000)
    h_end = _inertial_momentum(ens)
    assert np.abs(ens.cmgs.delta - start).max() > 0.01  # the gimbals moved
    size = np.linalg.norm(h_start, axis=0)
    assert (size > 1.0).all()
    np.testing.assert_array_less(np.linalg.norm(h_end - h_start, axis=0) / size, 1e-9)


def test_a_body_that_faults_is_frozen_with_its_gimbals_and_the_others_fly_on():
    """A body whose state overflows faults at its last good state, gimbals too (its run raises SimulationFault
    there); the others fly on, each as its run."""
    ens = Ensemble(load("cmg_fast_slew").settings, SPEC)
    runs = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    for target in (ens, *runs):
        target.step(30)
    ens.w[:, 1] = 1e300  # body 1 tumbles beyond floats
    kept = (ens.q[:, 1].copy(), ens.cmgs.delta[1].copy(), ens.t)
    ens.step(20)
    for sim in runs:
        sim.step(20)
    assert ens.faulted.tolist() == [False, True, False, False] and ens.fault_t[1] == kept[2]
    assert np.array_equal(ens.q[:, 1], kept[0]) and np.array_equal(ens.cmgs.delta[1], kept[1])
    for j in (0, 2, 3):
        got = (*ens.q[:, j], *ens.w[:, j], *ens.cmgs.delta[j])
        assert np.array_equal(_bits(got), _bits((*runs[j].q, *runs[j]._w, *runs[j]._cmg.delta))), j


def test_a_sweep_reports_each_bodys_cmg_columns_as_its_run():
    """The sweep's chunk (sim.sweep.chunk): each body's final ``cmg_delta1..4`` and ``cmg_m`` are its run's last row's
    (the run's own columns, to the bit), ``cmg_m_min`` the least ``cmg_m`` of the run's rows, every step's."""
    from sim.sweep.chunk import columns, run_chunk

    settings = load("cmg_singularity").settings
    got = run_chunk(settings, SPEC, (), 300, 1, 3)
    names = columns(cmg=4)
    assert tuple(got)[:len(names)] == names and names[-6:] == (
        "cmg_delta1", "cmg_delta2", "cmg_delta3", "cmg_delta4", "cmg_m", "cmg_m_min")
    ens = Ensemble(settings, SPEC, start=1, count=3)
    for j in range(3):
        sim = Simulation(ens.body_settings(j))
        cols = sim.columns()
        least = sim.row()[cols.index("cmg_m")]
        for _ in range(300):
            sim.step(1)
            least = min(least, sim.row()[cols.index("cmg_m")])
        row = sim.row()
        for name in names[-6:-1]:
            assert got[name][j] == row[cols.index(name)], name
        assert got["cmg_m_min"][j] == least
    assert (got["cmg_m_min"] < 0.2 * 32 / 27).any()  # (32/27 at rest: bodies went near a singular set and out again)
    assert "cmg_m" not in columns(wheels=3)


def test_an_ensemble_of_warm_bodies_or_more_waits_for_the_body_loop(monkeypatch):
    """The one warm-up rule (sim.core.jit.Kernel.prepare): a step of WARM_BODIES bodies or more loads cmg_bodies
    before it runs (a sweep's estimate then times the compiled loop); fewer run its Python text meanwhile."""
    kernel = cmg_bodies.cmg_bodies
    fresh = jit.Kernel(kernel.py_func).warms(kernel.sample, 3)  # not loaded yet, its rule at 3 bodies
    monkeypatch.setattr(cmg_bodies, "cmg_bodies", fresh)
    settings = load("cmg_fast_slew").settings
    Ensemble(settings, EnsembleSpec(bodies=2, seed=1)).step(2)
    assert not fresh.ready  # 2 bodies: its Python text (a few ms of it: no load started either)
    Ensemble(settings, EnsembleSpec(bodies=3, seed=1)).step(1)
    assert fresh.ready or jit.DISABLED
