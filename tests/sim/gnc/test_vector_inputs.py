"""Vectors given in any units and number types, and batches of mixed attitudes (sim.gnc, sim.core.quaternion).

Directions carry the attitude; their scale and number type must not: a reference vector or a rotation axis may be
given as exact Python integers of any size (e.g. counts, or a catalog's integer units), and the answer must be the
one of the same direction as floats.  scipy's Rotation is the oracle for the attitude.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core.quaternion import cayley, from_axis_angle
from sim.gnc import sensors as S
from sim.gnc.attitude import from_cayley
from sim.gnc.estimation import triad

BIG = 10 ** 20          # beyond int64: numpy keeps such integers as Python objects unless told float


def _big(v):
    return [int(round(x * 1000)) * BIG for x in v]


@pytest.mark.parametrize("which", ["b1", "b2", "r1", "r2"])
def test_triad_of_directions_given_as_big_integers(which):
    truth = Rotation.from_rotvec([0.3, -0.2, 0.5])
    r1, r2 = np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.6, 0.8])
    b1, b2 = truth.apply(r1, inverse=True), truth.apply(r2, inverse=True)   # body = C r, C = R^T
    given = dict(b1=b1, b2=b2, r1=r1, r2=r2)
    given[which] = _big(given[which])
    q = triad(given["b1"], given["b2"], given["r1"], given["r2"])
    assert np.allclose(cayley(q), truth.as_matrix().T, atol=2e-3)   # C = R^T: x_B = C x_I   # the integers round the direction to 1e-3


def test_a_rotation_axis_of_big_integers_is_the_same_rotation():
    q = from_axis_angle([0, 0, 3 * BIG], 0.7)
    assert np.allclose(q, from_axis_angle([0.0, 0.0, 1.0], 0.7), rtol=0, atol=1e-15)


@pytest.mark.parametrize("which", ["currents", "normals"])
def test_coarse_sun_vector_of_integer_counts_of_any_size(which):
    normals = np.vstack([np.eye(3), -np.eye(3)])
    sun = np.array([0.48, 0.6, 0.64])
    currents = np.maximum(normals @ sun, 0.0)       # the cosine law of each cell
    given = dict(currents=currents, normals=normals)
    given[which] = [_big(row) for row in given[which]] if which == "normals" else _big(currents)
    s, valid = S.coarse_sun_vector(given["currents"], given["normals"])
    assert valid and np.allclose(s, sun, atol=1e-12)


def test_from_cayley_of_a_scaled_rotation_is_a_unit_quaternion_of_it():
    rot = Rotation.from_rotvec([0.4, 0.1, -0.9])
    q = from_cayley(1.02 * cayley(rot.as_quat()))    # a matrix 2 % too long (e.g. an unnormalised estimate)
    assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-14)
    assert np.allclose(cayley(q), cayley(rot.as_quat()), atol=2e-2)


@pytest.mark.parametrize("matrix", [[[0, 1, 0], [-1, 0, 0], [0, 0, 1]], [[1, 0, 0], [0, -1, 0], [0, 0, -1]],
                                    [[0, 0, 1], [1, 0, 0], [0, 1, 0]]])
def test_from_cayley_of_exact_integer_quarter_turns(matrix):
    q = from_cayley(matrix)
    assert q.dtype == np.float64 and q[3] >= 0.0 and np.linalg.norm(q) == pytest.approx(1.0, abs=1e-15)
    assert np.allclose(cayley(q), matrix, rtol=0, atol=1e-15)


def test_fine_sun_sensor_measures_a_batch_of_different_attitudes():
    model = S.FineSunModel(boresight=(1, 0, 0), fov_deg=180.0, noise_deg=0.05)
    # the Sun along x and along oblique body directions; the most nearly perpendicular axis differs row by row
    q = np.array([from_axis_angle(axis, 1.0) for axis in ([1.0, 2.0, 3.0], [0.0, 0.0, 1.0], [3.0, -1.0, 0.5],
                                                         [1.0, 0.0, 0.0], [-1.0, 4.0, 1.0])])
    s, valid = S.FineSunSensor(model, seed=3, body=range(len(q))).measure(q, [1.0, 0.0, 0.0])
    truth = np.array([cayley(qk) @ [1.0, 0.0, 0.0] for qk in q])
    assert np.allclose(np.linalg.norm(s, axis=-1), 1.0)
    off = np.degrees(np.arccos(np.clip(np.sum(s * truth, axis=-1), -1.0, 1.0)))
    assert np.all(off < 6 * 0.05)
