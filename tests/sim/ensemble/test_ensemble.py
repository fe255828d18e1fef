"""The vectorised ensemble (sim/ensemble/) against the single-body Simulation and independent references."""

import math

import numpy as np
import pytest
from scipy import stats
from scipy.spatial.transform import Rotation

from sim.core.body import Body
from sim.ensemble import Ensemble, EnsembleSpec
from sim.core.quaternion import rotation_angle
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation, SimulationFault

# Hoffmann's quaternion-controller preset (Appendix A, 9.9) as the hoffmann_controller scenario
# flies it: dt = 0.1 s, dampers 3/4/6, gains 6/10/12, limits 8/2/4 N m, command at once.
HOFFMANN_CONTROLLER = dict(dt=0.1, dampers_on=True, dampers=(3.0, 4.0, 6.0), controller="quaternion",
                           gains=(6.0, 10.0, 12.0), limiter_on=True, limits=(8.0, 2.0, 4.0),
                           slerp_time=0.0, command_deg=(0.0, 0.0, 0.0))

DISPERSED = EnsembleSpec(bodies=50, seed=11, rate_spread=0.7, inertia_spread=15.0,
                         gains_grid=((4.0, 6.0), (10.0,), (8.0, 12.0, 14.0)))
CONTROL = dict(dampers_on=True, controller="quaternion", command_deg=(30.0, -20.0, 150.0), slerp_time=3.0)

# (settings, changes at step 500): every integrator and form, every norm mode, dampers,
# both controllers, shortest path on and off, the limiter, SLERP commands, mid-run changes.
AGREEMENT_CASES = {
    "half-quat": (dict(torque=(0.2, -0.1, 0.05)), {}),
    "half-quat-renormalize": (dict(norm="renormalize"), {}),
    "half-quat-none": (dict(norm="none", dt=0.005), {}),
    "full-quat-hoffmann": (dict(integrator="full-quat"), {}),
    "full-quat-raw": (dict(integrator="full-quat", full_quat_form="raw"), {}),
    "full-quat-lagrange": (dict(integrator="full-quat", full_quat_form="lagrange", norm="renormalize"), {}),
    "rk4": (dict(integrator="rk4", torque=(0.0, 0.3, 0.0)), {}),
    "half-quat-quaternion-slerp-limiter": (dict(CONTROL, limiter_on=True, limits=(1.0, 0.5, 0.8)),
                                           {"command_deg": (-60.0, 10.0, 0.0)}),
    "half-quat-quaternion-long-way": (dict(CONTROL, shortest_path=False), {"dt": 0.005}),
    "rk4-quaternion-dampers": (dict(CONTROL, integrator="rk4", slerp_time=0.0), {"shortest_path": False}),
    "full-quat-quaternion": (dict(CONTROL, integrator="full-quat"), {"integrator": "half-quat"}),
    "half-quat-euler": (dict(CONTROL, controller="euler", command_deg=(20.0, 10.0, -30.0)),
                        {"axes": (True, False, True)}),
    "switch-to-full-quat": (dict(dampers_on=True), {"integrator": "full-quat", "dampers": (1.0, 2.0, 0.5)}),
}


def _fly_both(settings, changes, spec=DISPERSED, steps=1000):
    """Step the ensemble and every body's Simulation alike; return (ensemble, sims, faults)."""
    ens = Ensemble(settings, spec)
    sims = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    faults = {}
    for part in (steps // 2, steps - steps // 2):
        ens.step(part)
        for j, sim in enumerate(sims):
            if j in faults:
                continue
            try:
                sim.step(part)
            except SimulationFault as exc:
                faults[j] = (exc.t, sim)
        if changes and part == steps // 2:
            ens.update(changes)
            for j, sim in enumerate(sims):
                if j not in faults:
                    sim.update(changes)
            changes = None
    return ens, sims, faults


@pytest.mark.slow
@pytest.mark.parametrize("case", list(AGREEMENT_CASES))
def test_every_body_agrees_with_its_single_body_simulation(case):
    extra, changes = AGREEMENT_CASES[case]
    settings = Settings(**{"dt": 0.01, **extra})
    ens, sims, faults = _fly_both(settings, changes)
    q_sim = np.array([sim.q for sim in sims]).T
    w_sim = np.array([sim.snapshot().w for sim in sims]).T
    assert np.abs(ens.q - q_sim).max() <= 1e-12
    assert np.abs(ens.w - w_sim).max() <= 1e-12
    # A body the Simulation stopped on is flagged at the same time, frozen at the same state.
    assert sorted(faults) == sorted(np.flatnonzero(ens.faulted))
    for j, (t, _) in faults.items():
        assert ens.fault_t[j] == t
    if case != "half-quat-euler":  # numpy's arctan2 rounds differently from math.atan2 (a few ulps)
        assert np.array_equal(ens.q, q_sim) and np.array_equal(ens.w, w_sim)


def test_under_elimination_the_published_attitudes_are_unit_and_each_bodys_own():
    # Issue 30, bug 3: with elimination each body's Q drifts off |Q| = 1 (half-quat at 10 ms); what the
    # Ensemble tab draws and the runner compares (attitude, frame().q) is Q/|Q|, each body's single-body
    # Simulation.attitude, never the carried Q.
    spec = EnsembleSpec(bodies=8, seed=5, rate_spread=0.7, inertia_spread=15.0)
    ens, sims, faults = _fly_both(Settings(dt=0.01, norm="elimination"), {}, spec=spec, steps=2000)
    assert not faults
    assert np.abs(np.linalg.norm(ens.q, axis=0) - 1.0).min() > 1e-3          # every body's |Q| drifted
    for published in (ens.attitude, ens.frame().q):
        np.testing.assert_allclose(np.linalg.norm(published, axis=0), 1.0, rtol=0, atol=1e-15)
        np.testing.assert_allclose(published, np.array([sim.attitude for sim in sims]).T, rtol=0, atol=1e-12)


def test_norm_none_runs_away_like_the_single_body_and_is_flagged():
    ens, sims, faults = _fly_both(Settings(dt=0.003, norm="none"), {}, steps=600)
    assert 0 < len(faults) < ens.n  # the case is meaningful: some bodies run away, some do not
    assert sorted(faults) == sorted(np.flatnonzero(ens.faulted))
    for j in faults:
        assert np.array_equal(ens.q[:, j], sims[j].q)


def test_body_settings_fly_the_same_initial_state():
    ens = Ensemble(Settings(), DISPERSED)
    init = ens.initial()
    for j in (0, 7, 49):
        sim = Simulation(ens.body_settings(j))
        assert np.array_equal(sim.q, init["q0"][:, j])
        assert np.array_equal(sim.snapshot().w, init["rates0"][:, j])
        assert sim.body.components == tuple(init["inertia"][:, j])
        assert sim.settings.gains == tuple(init["gains"][:, j])
    assert init["index"].tolist() == list(range(50))


# ------------------------------------------------------------------ chunks
@pytest.mark.parametrize("controller", ["quaternion", "euler"])
def test_any_chunking_gives_bit_identical_bodies_and_results(controller):
    spec = EnsembleSpec(bodies=37, seed=5, rate_spread=0.3, inertia_spread=20.0, gains_grid=((3.0, 6.0), (9.0, 10.0), (12.0,)))
    settings = Settings(dt=0.02, **dict(CONTROL, controller=controller))
    whole = Ensemble(settings, spec)
    chunks = [Ensemble(settings, spec, start=a, count=b - a) for a, b in ((0, 10), (10, 11), (11, 30), (30, 37))]
    for ens in [whole, *chunks]:
        ens.step(150)
        ens.set("command_deg", (0.0, 45.0, 0.0))
        ens.step(100)
    for key, value in whole.initial().items():
        assert np.array_equal(value, np.concatenate([c.initial()[key] for c in chunks], axis=-1)), key
    assert np.array_equal(whole.q, np.concatenate([c.q for c in chunks], axis=1))
    assert np.array_equal(whole.w, np.concatenate([c.w for c in chunks], axis=1))
    m_whole = whole.metrics()
    for key, value in m_whole.items():
        assert np.array_equal(value, np.concatenate([c.metrics()[key] for c in chunks]), equal_nan=True), key


def test_the_seed_changes_the_bodies_and_reset_repeats_the_run():
    a = Ensemble(Settings(), EnsembleSpec(bodies=20, seed=1, rate_spread=0.5))
    b = Ensemble(Settings(), EnsembleSpec(bodies=20, seed=2, rate_spread=0.5))
    assert not np.array_equal(a.q, b.q) and not np.array_equal(a.w, b.w)
    a.step(300)
    q_first = a.q.copy()
    a.reset()
    assert a.t == 0.0 and np.array_equal(a.q, a.initial()["q0"])
    a.step(300)
    assert np.array_equal(a.q, q_first)


# ------------------------------------------------------------ attitudes
def _haar_angle_cdf(theta):
    """CDF of the rotation angle of a uniform rotation: density (1 - cos t)/pi on [0, pi]."""
    return (theta - np.sin(theta)) / np.pi


def _rotations(ens):
    q = ens.q  # Hoffmann's Q is the conjugate of scipy's (x, y, z, w) quaternion
    return Rotation.from_quat(np.column_stack([-q[0], -q[1], -q[2], q[3]]))


_M64 = (1 << 64) - 1


def _splitmix64_finaliser(z: int) -> int:
    """SplitMix64's output function (Steele, Lea and Flood 2014), on Python's integers mod 2^64."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _tensor(comps):
    jxx, jyy, jzz, jxy, jxz, jyz = comps
    return np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])


def _documented_uniform(seed: int, i: int, stream: int) -> float:
    """Body i's uniform of one stream by the rule docs/ENSEMBLES.md and sim.ensemble.sampling state: the top
    53 bits of the finaliser of key(seed) + golden * (i * 128 + stream + 1), key(seed) = finaliser(seed)."""
    z = _splitmix64_finaliser((_splitmix64_finaliser(seed) + 0x9E3779B97F4A7C15 * (i * 128 + stream + 1)) & _M64)
    return (z >> 11) / 2.0**53


def test_each_body_draws_the_documented_samples_of_its_own_index():
    # Issue 30, bug 5: the draws are pinned to (seed, body index, stream), computed here from the stated rule
    # (a draw shifted by one index, or one stream, fails): attitude Shoemake (streams 0-2), rates the settings'
    # plus rate_spread times Box-Muller normals (streams 3+2k, 4+2k), inertia each component times
    # 1 + p (2u - 1) (streams 16-21, first try), so a sweep gives the same bodies from one version to the next.
    assert _splitmix64_finaliser(0x9E3779B97F4A7C15) == 0xE220A8397B1DCDAF   # Vigna's splitmix64.c, seed 0
    settings = Settings(rates=(0.1, -0.2, 0.3))
    spec = EnsembleSpec(bodies=6, seed=2024, rate_spread=0.5, inertia_spread=10.0)
    ens = Ensemble(settings, spec)
    nominal = np.array(settings.mass_properties.inertia)
    tries = []
    for i in range(6):
        mine = ens.body_settings(i)
        a, b, c = (_documented_uniform(2024, i, k) for k in range(3))   # Shoemake, Graphics Gems III
        q = [math.sqrt(1 - a) * math.sin(2 * math.pi * b), math.sqrt(1 - a) * math.cos(2 * math.pi * b),
             math.sqrt(a) * math.sin(2 * math.pi * c), math.sqrt(a) * math.cos(2 * math.pi * c)]
        drawn = Rotation.from_euler("ZYX", mine.angles_deg, degrees=True).inv().as_quat()   # Hoffmann's Q
        assert min(np.abs(drawn - q).max(), np.abs(drawn + q).max()) < 1e-12
        np.testing.assert_allclose(ens.q[:, i] * np.sign(ens.q[3, i] * q[3]), q, rtol=0, atol=1e-12)
        normal = [math.sqrt(-2 * math.log(1 - _documented_uniform(2024, i, 3 + 2 * k)))
                  * math.cos(2 * math.pi * _documented_uniform(2024, i, 4 + 2 * k)) for k in range(3)]
        np.testing.assert_allclose(mine.rates, np.array(settings.rates) + 0.5 * np.array(normal), rtol=1e-15)
        np.testing.assert_allclose(ens.w[:, i], mine.rates, rtol=0, atol=0)
        for attempt in range(16):   # redrawn (streams 16 + 6 attempt + k) until the tensor is physical
            comps = nominal * [1 + 0.1 * (2 * _documented_uniform(2024, i, 16 + 6 * attempt + k) - 1)
                               for k in range(6)]
            principal = np.linalg.eigvalsh(_tensor(comps))
            if principal[0] > 0 and principal[2] <= principal[0] + principal[1]:
                break
        tries.append(attempt)
        np.testing.assert_allclose(mine.mass_properties.inertia, comps, rtol=1e-15)
    assert max(tries) > 0   # a redraw was among them


def test_random_attitudes_are_uniform_on_so3():
    ens = Ensemble(Settings(), EnsembleSpec(bodies=20000, seed=3))
    mine = _rotations(ens)
    assert stats.kstest(mine.magnitude(), _haar_angle_cdf).pvalue > 1e-3
    # Against scipy's uniform rotations (an independent sampler), fixed seed: the nose
    # direction and the rotation angle come from the same distributions.
    ref = Rotation.random(20000, random_state=1234)
    for k in range(3):
        assert stats.ks_2samp(mine.apply([1.0, 0.0, 0.0])[:, k], ref.apply([1.0, 0.0, 0.0])[:, k]).pvalue > 1e-3
    assert stats.ks_2samp(mine.magnitude(), ref.magnitude()).pvalue > 1e-3
    # Uniform rotations have a zero mean rotation matrix.
    assert np.abs(mine.as_matrix().mean(axis=0)).max() < 5.0 / math.sqrt(20000)


def test_grid_attitudes_cover_so3_evenly():
    ens = Ensemble(Settings(), EnsembleSpec(bodies=4096, attitudes="grid"))
    angles = _rotations(ens).magnitude()
    grid_d = stats.kstest(angles, _haar_angle_cdf).statistic
    random_d = stats.kstest(_rotations(Ensemble(Settings(), EnsembleSpec(bodies=4096, seed=9))).magnitude(),
                            _haar_angle_cdf).statistic
    assert grid_d < 0.01 and grid_d < random_d  # a low-discrepancy cover beats random draws
    # Every attitude is near a grid point: 500 random attitudes within 15 deg of the grid.  Not wide: the
    # farthest probe is 14.91 deg from the grid (4096 random draws: 17.96), and no 4096 points can cover
    # SO(3) within 9.5 deg (4096 (r - sin r) / pi >= 1, the angle's distribution above).
    probes = Rotation.random(500, random_state=7)
    q_grid = _rotations(ens).as_quat()
    nearest = np.abs(probes.as_quat() @ q_grid.T).max(axis=1)
    assert np.degrees(2.0 * np.arccos(np.minimum(nearest, 1.0))).max() < 15.0


def test_grid_attitudes_are_roberts_r3_through_shoemakes_map():
    """The grid as EnsembleSpec documents it, written out here: u_k = frac(1/2 + (i+1) / g^k) with g
    the real root > 1 of x^4 = x + 1, and Shoemake's map of (u1, u2, u3) to Q (scalar last)."""
    n = 64
    ens = Ensemble(Settings(), EnsembleSpec(bodies=n, attitudes="grid"))
    g = max(r.real for r in np.roots([1.0, 0.0, 0.0, -1.0, -1.0]) if abs(r.imag) < 1e-9)
    i = np.arange(n)
    u1, u2, u3 = (np.mod(0.5 + (i + 1) / g**k, 1.0) for k in (1, 2, 3))
    q = np.array([np.sqrt(1 - u1) * np.sin(2 * np.pi * u2), np.sqrt(1 - u1) * np.cos(2 * np.pi * u2),
                  np.sqrt(u1) * np.sin(2 * np.pi * u3), np.sqrt(u1) * np.cos(2 * np.pi * u3)])
    # the same attitude (Q or -Q), to the rounding of the aircraft angles it is stored as
    np.testing.assert_allclose(np.abs(np.sum(q * ens.initial()["q0"], axis=0)), 1.0, rtol=0, atol=1e-9)


def test_same_attitudes_and_dispersions_of_rates_and_inertia():
    settings = Settings(angles_deg=(10.0, 20.0, 30.0), rates=(0.1, 0.2, 0.3))
    ens = Ensemble(settings, EnsembleSpec(bodies=4000, attitudes="same", rate_spread=0.5, inertia_spread=10.0))
    init = ens.initial()
    assert np.all(init["angles_deg0"] == np.array([[10.0], [20.0], [30.0]]))
    rates = init["rates0"] - np.array([[0.1], [0.2], [0.3]])
    for k in range(3):  # N(0, 0.5^2) per component
        assert stats.kstest(rates[k] / 0.5, "norm").pvalue > 1e-3
    ratio = init["inertia"][:3] / np.array(settings.mass_properties.inertia[:3])[:, None]
    assert ratio.min() >= 0.9 and ratio.max() <= 1.1 and ratio.std() > 0.05
    for j in range(0, 4000, 97):  # physical: Body accepts every tensor
        Body(tuple(init["inertia"][:, j]))
    grid = Ensemble(Settings(), EnsembleSpec(bodies=7, gains_grid=((1.0, 2.0), (3.0,), (4.0, 5.0))))
    assert grid.initial()["gains"].T.tolist() == [[1, 3, 4], [1, 3, 5], [2, 3, 4], [2, 3, 5], [1, 3, 4],
                                                  [1, 3, 5], [2, 3, 4]]


# ------------------------------------------------------------ controller
@pytest.mark.parametrize("shortest_path", [True, False])
def test_quaternion_controller_brings_10000_random_attitudes_home(shortest_path):
    # Hoffmann's own dt = 0.1 s is stable for this preset; 20 s is 200 steps.
    ens = Ensemble(Settings(**HOFFMANN_CONTROLLER, shortest_path=shortest_path), EnsembleSpec(bodies=10000, seed=7))
    error0 = ens.error_deg()
    ens.step(200)
    m = ens.metrics()
    assert m["final_error_deg"].max() < 1.0 and not m["faulted"].any()
    assert np.all(m["settling_time"] <= 20.0)
    long_way = m["travelled_deg"] > 180.0
    if shortest_path:
        assert not long_way.any()
        np.testing.assert_allclose(m["travelled_deg"], error0, atol=1e-6)
    else:
        assert long_way.sum() > 100  # unwinding: these turned 360 - error0 degrees
        np.testing.assert_allclose(m["travelled_deg"][long_way], 360.0 - error0[long_way], atol=1e-6)


def test_settling_time_matches_a_single_body_reference():
    settings = Settings(**HOFFMANN_CONTROLLER)
    spec = EnsembleSpec(bodies=6, seed=4, settle_deg=5.0)
    ens = Ensemble(settings, spec)
    ens.step(10)
    ens.set("dt", 0.05)  # the time base changes mid-run
    ens.step(130)
    settled = ens.metrics()["settling_time"]
    for j in range(ens.n):
        sim = Simulation(ens.body_settings(j).replace(dt=0.1))
        qc = sim.snapshot().qc
        times, errors = [0.0], [math.degrees(rotation_angle(sim.q, qc))]
        for k in range(140):
            if k == 10:
                sim.set("dt", 0.05)
            sim.step()
            times.append(sim.t)
            errors.append(math.degrees(rotation_angle(sim.q, qc)))
        out = [i for i, e in enumerate(errors) if e > 5.0]
        expected = 0.0 if not out else times[out[-1] + 1]
        assert settled[j] == pytest.approx(expected, abs=1e-12)
    assert np.all(settled > 1.0)  # all settle after the change of dt


def test_settling_time_is_nan_while_outside_the_band():
    ens = Ensemble(Settings(**HOFFMANN_CONTROLLER), EnsembleSpec(bodies=50, seed=4))
    ens.step(3)
    m = ens.metrics()
    assert np.all(np.isnan(m["settling_time"][m["final_error_deg"] > 1.0]))


# ---------------------------------------------------------------- faults
def test_a_diverging_body_is_flagged_and_frozen_while_the_rest_go_on():
    settings = Settings(dt=0.01, **CONTROL)
    clean = Ensemble(settings, DISPERSED)
    broken = Ensemble(settings, DISPERSED)
    broken.w[:, 3] = (1e200, 0.0, -1e200)   # absurd rate: overflows in the first step
    broken.w[1, 17] = np.nan                # a NaN
    frozen = broken.q[:, [3, 17]].copy()
    clean.step(300)
    broken.step(300)
    fine = np.ones(clean.n, dtype=bool)
    fine[[3, 17]] = False
    assert broken.faulted.tolist() == (~fine).tolist()
    assert broken.fault_t[3] == 0.0 and broken.fault_t[17] == 0.0 and np.isnan(broken.fault_t[fine]).all()
    assert np.array_equal(broken.q[:, [3, 17]], frozen)
    assert np.array_equal(broken.q[:, fine], clean.q[:, fine])
    assert np.array_equal(broken.w[:, fine], clean.w[:, fine])
    assert np.isfinite(broken.metrics()["final_error_deg"][fine]).all()


def test_bodies_diverging_on_their_own_fault_when_their_simulation_does():
    # dt = 0.1 s is too big for the faster bodies: half-quat blows up on them, not on the slow ones.
    spec = EnsembleSpec(bodies=50, seed=2, rate_spread=2.0)
    ens, sims, faults = _fly_both(Settings(dt=0.1), {}, spec=spec, steps=200)
    assert 0 < len(faults) < ens.n
    assert sorted(faults) == sorted(np.flatnonzero(ens.faulted))
    for j, (t, sim) in faults.items():
        assert ens.fault_t[j] == t
        assert np.array_equal(ens.q[:, j], sim.q)
    fine = ~ens.faulted
    assert np.array_equal(ens.q[:, fine], np.array([sims[j].q for j in np.flatnonzero(fine)]).T)


# --------------------------------------------------------------- metrics
def test_travelled_angle_rate_and_energy_of_a_spin_about_a_principal_axis():
    # y is a principal axis of Hoffmann's aircraft (Jxy = Jyz = 0): a constant spin at 1.5 rad/s.
    spec = EnsembleSpec(bodies=4, attitudes="same")
    ens = Ensemble(Settings(integrator="rk4", dt=0.01, rates=(0.0, 1.5, 0.0)), spec)
    ens.step(300)  # 3 s: 1.5 * 3 rad = 257.8 deg
    m = ens.metrics()
    np.testing.assert_allclose(m["travelled_deg"], math.degrees(4.5), rtol=1e-10)  # rk4's own error
    np.testing.assert_allclose(m["path_deg"], math.degrees(4.5), rtol=1e-12)
    np.testing.assert_allclose(m["peak_rate"], 1.5, rtol=1e-14)
    assert np.all(m["peak_torque"] == 0.0) and np.all(np.abs(m["energy_drift"]) < 1e-14)
    # the nose turned 4.5 rad about y: scipy's rotation of the x axis
    np.testing.assert_allclose(ens.nose()[:, 0], Rotation.from_rotvec([0.0, 4.5, 0.0]).apply([1.0, 0.0, 0.0]),
                               atol=1e-12)


def test_energy_drift_of_rk4_is_far_below_half_quat():
    spec = EnsembleSpec(bodies=20, seed=8, rate_spread=1.0)
    drift = {}
    for integrator in ("half-quat", "rk4"):
        ens = Ensemble(Settings(integrator=integrator, dt=0.01), spec)
        body_energy = [Body(tuple(ens.initial()["inertia"][:, j])).energy(ens.w[:, j]) for j in range(ens.n)]
        ens.step(500)
        expected = [Body(tuple(ens.initial()["inertia"][:, j])).energy(ens.w[:, j]) / e - 1.0
                    for j, e in enumerate(body_energy)]
        drift[integrator] = ens.metrics()["energy_drift"]
        np.testing.assert_allclose(drift[integrator], expected, rtol=1e-9, atol=1e-15)
    assert np.abs(drift["rk4"]).max() < 1e-6 < np.abs(drift["half-quat"]).max()
    assert np.abs(drift["rk4"]).max() * 1000 < np.abs(drift["half-quat"]).max()


def test_peak_torque_of_the_dampers_is_their_torque_at_the_start():
    ens = Ensemble(Settings(dt=0.01, dampers_on=True, dampers=(3.0, 4.0, 6.0)), EnsembleSpec(bodies=30, seed=3, rate_spread=1.0))
    w0 = ens.initial()["rates0"]
    ens.step(100)
    expected = np.linalg.norm(np.array([[3.0], [4.0], [6.0]]) * w0, axis=0)
    np.testing.assert_allclose(ens.metrics()["peak_torque"], expected, rtol=1e-14)
    np.testing.assert_allclose(ens.metrics()["peak_rate"], np.linalg.norm(w0, axis=0), rtol=1e-14)


def test_error_and_nose_against_scipy():
    ens = Ensemble(Settings(command_deg=(40.0, -30.0, 100.0), slerp_time=0.0), EnsembleSpec(bodies=200, seed=6))
    mine, qc = _rotations(ens), ens.qc[:, 0]
    target = Rotation.from_quat([-qc[0], -qc[1], -qc[2], qc[3]])
    np.testing.assert_allclose(ens.error_deg(), np.degrees((target.inv() * mine).magnitude()), atol=1e-9)
    np.testing.assert_allclose(ens.nose(), mine.apply([1.0, 0.0, 0.0]).T, atol=1e-12)


def test_nose_of_a_quaternion_off_the_unit_sphere_is_still_a_unit_vector():
    """Without norm control |Q| drifts; the nose is the x axis of the rotation Q / |Q| (scipy)."""
    ens = Ensemble(Settings(norm="none", dt=0.02, rates=(1.0, -0.5, 0.5)), EnsembleSpec(bodies=20, seed=2, rate_spread=0.2))
    ens.step(50)
    norms = np.linalg.norm(ens.q, axis=0)
    assert np.all(np.abs(norms - 1.0) > 5e-4)  # off the unit sphere (below the 1e-3 runaway limit)
    q = ens.q / norms
    mine = Rotation.from_quat(np.column_stack([-q[0], -q[1], -q[2], q[3]]))
    np.testing.assert_allclose(ens.nose(), mine.apply([1.0, 0.0, 0.0]).T, atol=1e-12)


def test_without_tracking_the_state_is_the_same_and_tracked_metrics_are_nan():
    a = Ensemble(Settings(dt=0.01, **CONTROL), DISPERSED)
    b = Ensemble(Settings(dt=0.01, **CONTROL), DISPERSED, track=False)
    a.step(50)
    b.step(50)
    assert np.array_equal(a.q, b.q)
    m = b.metrics()
    assert np.isnan(m["settling_time"]).all() and np.isnan(m["peak_torque"]).all()
    assert np.array_equal(m["final_error_deg"], a.metrics()["final_error_deg"])


# ----------------------------------------------------------------- input
@pytest.mark.parametrize("field, value", [
    ("bodies", 0), ("bodies", 2.5), ("seed", -1), ("attitudes", "sphere"), ("rate_spread", -1.0),
    ("rate_spread", float("nan")), ("inertia_spread", 80.0), ("gains_grid", ((1.0,), (2.0,))),
    ("gains_grid", ((1.0,), (), (3.0,))), ("gains_grid", ((1.0,), ("x",), (3.0,))), ("settle_deg", 0.0),
])
def test_bad_spec_values_name_the_field(field, value):
    with pytest.raises(SettingsError, match=field):
        EnsembleSpec(**{field: value})


def test_spec_normalises_lists_from_toml_and_is_hashable():
    spec = EnsembleSpec(bodies=10.0, gains_grid=[[1, 2], 3, [4]], rate_spread=1)
    assert spec.bodies == 10 and spec.gains_grid == ((1.0, 2.0), (3.0,), (4.0,)) and spec.rate_spread == 1.0
    assert hash(spec) == hash(EnsembleSpec(bodies=10, gains_grid=((1.0, 2.0), (3.0,), (4.0,)), rate_spread=1.0))


def test_bad_inputs_raise_like_the_simulation():
    ens = Ensemble(Settings(), EnsembleSpec(bodies=3))
    with pytest.raises(SettingsError, match="dt"):
        ens.set("dt", -1.0)
    with pytest.raises(SettingsError, match="integrator"):
        ens.update({"dampers_on": True, "integrator": "euler"})
    assert ens.settings.dampers_on is False  # nothing applied
    with pytest.raises(SettingsError, match="count"):
        Ensemble(Settings(), EnsembleSpec(bodies=3), start=2, count=2)


@pytest.mark.slow
@pytest.mark.subprocess
def test_keep_temporaries_takes_effect_on_glibc_and_changes_no_result():
    """sim.ensemble.heap: mallopt accepted on glibc (the machines the project runs on); results unchanged."""
    import platform
    import subprocess
    import sys

    from sim.ensemble.heap import keep_temporaries

    if platform.libc_ver()[0] == "glibc":
        assert keep_temporaries() is True
    code = ("import numpy as np; from sim.model.settings import Settings; from sim.ensemble import Ensemble, EnsembleSpec;"
            "e = Ensemble(Settings(integrator='rk4', dampers_on=True), EnsembleSpec(bodies=50, seed=3));"
            "e.step(20); print(np.asarray(e.q).tobytes().hex())")
    env_runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                               env={**__import__("os").environ, **extra}).stdout
                for extra in ({}, {"MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "131072"})]
    assert env_runs[0] and env_runs[0] == env_runs[1]
