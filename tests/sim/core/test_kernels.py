"""The ensemble's hand-fused kernels (sim/ensemble/kernels.py) bit for bit against the single-source formulas.

:func:`torque_into` against :class:`sim.core.control.TorqueModel` on columns, and
:func:`half_quat_into` against :func:`sim.core.integrators.half_quat` followed by
a norm mode of :mod:`sim.core.norm`, on random states for several N, through
every branch: dampers on and off, the quaternion controller with and
without the shortest path, each axis flag, the limiter on and off, shared
and per-body gains, commands and inertia (with zero and non-zero products
of inertia), each norm mode, a zero torque.  Bit for bit means the float64
bit patterns are equal (signed zeros included).
"""

import itertools

import numpy as np
import pytest

from sim.core.body import Body
from sim.core.control import TorqueModel
from sim.ensemble import kernels
from sim.core.integrators import half_quat
from sim.core.norm import NORM_MODES
from sim.core.ops import COLUMN

AIRCRAFT = Body()                                   # Hoffmann's aircraft: Jxy = Jyz = 0
GENERAL = Body((1.2, 1.7, 2.1, 0.15, -0.25, 0.1))  # every product non-zero


def assert_bits(a, b):
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    assert np.array_equal(a.view(np.uint64), b.view(np.uint64)), np.abs(a - b).max()


def _state(n, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(4, n))
    q = q / np.linalg.norm(q, axis=0) * (1.0 + 1e-4 * rng.uniform(-1.0, 1.0, n))
    return rng, q, rng.normal(size=(3, n))


def _reference_torque(model, q, w):
    t = model(tuple(q), tuple(w))
    return np.array(np.broadcast_arrays(*t, np.zeros(q.shape[1]))[:3])


@pytest.mark.parametrize("n", [1, 7, 1000])
@pytest.mark.parametrize("controller", ["none", "quaternion"])
@pytest.mark.parametrize("dampers_on", [False, True])
@pytest.mark.parametrize("limiter_on", [False, True])
@pytest.mark.parametrize("shortest_path", [True, False])
def test_torque_into_is_the_torque_model_bit_for_bit(n, controller, dampers_on, limiter_on, shortest_path):
    rng, q, w = _state(n, seed=n)
    for axes, shared in itertools.product(itertools.product((True, False), repeat=3), (True, False)):
        model = TorqueModel(COLUMN)
        model.command = tuple(rng.normal(size=3))
        model.dampers_on, model.dampers = dampers_on, tuple(rng.uniform(0.5, 6.0, 3))
        model.controller, model.axes, model.shortest_path = controller, axes, shortest_path
        model.limiter_on, model.limits = limiter_on, tuple(rng.uniform(0.2, 2.0, 3))
        if shared:  # one command and one set of gains for all bodies
            qc = rng.normal(size=(4, 1))
            model.qc, model.gains = tuple(float(x) for x in qc[:, 0]), tuple(rng.uniform(1.0, 12.0, 3))
        else:       # one each (SLERP from each body's own command; a gains grid)
            qc = rng.normal(size=(4, n))
            qc[:, 0], q[:, 0] = (0.0, 0.0, 0.0, 1.0), (1.0, 0.0, 0.0, 0.0)  # a tie: |Qc - Q| = |-Qc - Q|
            model.qc, model.gains = tuple(qc), tuple(rng.uniform(1.0, 12.0, (3, n)))
        g2 = 2.0 * np.array(model.gains, dtype=float).reshape(3, -1)
        tq = np.full((3, n), np.nan)
        kernels.torque_into(tq, q, w, model, g2, qc, -qc, kernels.Scratch(n))
        assert_bits(tq, _reference_torque(model, q, w))


@pytest.mark.parametrize("n", [1, 7, 1000])
@pytest.mark.parametrize("norm", kernels.NORMS)  # the modes the fused step implements; covers() sends others to the single source
@pytest.mark.parametrize("torque", ["zero", "shared", "per-body"])
@pytest.mark.parametrize("inertia", ["aircraft", "general", "per-body"])
def test_half_quat_into_is_half_quat_and_the_norm_mode_bit_for_bit(n, norm, torque, inertia):
    rng, q, w = _state(n, seed=3 * n + 1)
    dt = 0.01
    if inertia == "per-body":  # dispersed inertia: a row per entry, as the ensemble holds it
        bodies = [Body(tuple(np.array(GENERAL.components) * (1.0 + 0.1 * rng.uniform(-1.0, 1.0, 6))))
                  for _ in range(n)]
        jr = tuple(np.array([b.j_rows for b in bodies]).T)
        jir = tuple(np.array([b.j_inv_rows for b in bodies]).T)
    else:
        body = AIRCRAFT if inertia == "aircraft" else GENERAL
        jr, jir = body.j_rows, body.j_inv_rows
    tq = {"zero": np.zeros((3, n)), "shared": np.repeat(rng.normal(size=(3, 1)), n, axis=1),
          "per-body": rng.normal(size=(3, n))}[torque]

    x0, xn = np.empty((8, n)), np.full((8, n), np.nan)
    x0[0:4], x0[4:7], x0[7] = q, w, 0.0
    kernels.half_quat_into(x0, xn, tq, dt, kernels.inertia_terms(jr), kernels.inertia_terms(jir), norm,
                           torque == "zero", kernels.Scratch(n))

    class Rows:
        j_rows, j_inv_rows = jr, jir

    q1, w1, _ = half_quat(tuple(q), tuple(w), None, dt, lambda q, w: tuple(tq), Rows)
    q1, correction = NORM_MODES[norm](q1, COLUMN)
    assert_bits(xn[0:4], np.array(q1))
    assert_bits(xn[4:7], np.array(w1))
    assert_bits(xn[7], np.broadcast_to(correction, (n,)))


def test_the_kernels_know_every_field_of_the_torque_model():
    # A new torque term (a field of TorqueModel) must be taught to kernels.torque_into, or the
    # settings that use it excluded by kernels.covers(): otherwise the fused step would leave it out.
    assert set(TorqueModel.__slots__) == kernels.TORQUE_FIELDS


def test_settings_outside_the_kernels_step_through_the_single_source():
    from sim.model.settings import Settings

    assert kernels.covers(Settings()) and kernels.covers(Settings(controller="quaternion", norm="none"))
    for changes in ({"integrator": "rk4"}, {"integrator": "full-quat"}, {"controller": "euler"},
                    {"integrator": "rkmk4"}, {"integrator": "splitting"}, {"norm": "elimination"},
                    {"norm": "elimination", "controller": "quaternion"}):
        assert not kernels.covers(Settings(**changes))


def test_inertia_terms_skip_exactly_the_zero_entries():
    terms = kernels.inertia_terms(AIRCRAFT.j_rows)  # Hoffmann's aircraft: 5 non-zeros of 9
    assert [[k for k, _ in row] for row in terms] == [[0, 2], [1], [0, 2]]
    assert [len(row) for row in kernels.inertia_terms(GENERAL.j_rows)] == [3, 3, 3]


# ------------------------------------------------------- a whole run, fused or not
CASES = {
    "torque-free": dict(rates=(0.3, -0.2, 0.5)),
    "constant torque, limited": dict(torque=(0.5, -3.0, 1.0), limiter_on=True, limits=(1.0, 2.0, 0.7)),
    "controller, SLERP, dampers, limiter": dict(dampers_on=True, controller="quaternion",
                                                 command_deg=(30.0, -20.0, 150.0), slerp_time=0.5,
                                                 limiter_on=True, limits=(1.0, 0.5, 0.8)),
    "long way, renormalize": dict(controller="quaternion", command_deg=(170.0, 10.0, 0.0), slerp_time=0.0,
                                  shortest_path=False, norm="renormalize"),
    "norm none": dict(norm="none", dt=0.003, rates=(2.0, 1.0, -1.0)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_fused_run_equals_the_single_source_run_bit_for_bit(case):
    from sim.ensemble import Ensemble, EnsembleSpec
    from sim.model.settings import Settings

    settings = Settings(**{"dt": 0.01, **CASES[case]})
    spec = EnsembleSpec(bodies=40, seed=5, rate_spread=0.8, inertia_spread=15.0,
                        gains_grid=((4.0, 6.0), (10.0,), (8.0, 12.0)))
    fused, plain = Ensemble(settings, spec), Ensemble(settings, spec, fused=False)
    for ens in (fused, plain):
        ens.step(150)
        ens.set("axes", (True, False, True))
        ens.step(150)
    assert_bits(fused.q, plain.q)
    assert_bits(fused.w, plain.w)
    assert np.array_equal(fused.faulted, plain.faulted)
    for key, value in fused.metrics().items():
        assert np.array_equal(value, plain.metrics()[key], equal_nan=True), key
