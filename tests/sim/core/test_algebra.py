"""The small algebra of sim.core.algebra against independent references (numpy, scipy) and its column path."""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core import algebra

RNG = np.random.default_rng(29)
QS = RNG.normal(size=(20, 4))
VS = RNG.normal(size=(20, 3))
MS = RNG.normal(size=(20, 9))


def _hoffmann_product(e, q):
    """(1.9): ``(e4 q4 - e.q) + (e4 q + q4 e + e x q)``, scalar last."""
    e, q = np.asarray(e), np.asarray(q)
    return np.append(e[3] * q[:3] + q[3] * e[:3] + np.cross(e[:3], q[:3]), e[3] * q[3] - e[:3] @ q[:3])


def test_v_kernels_are_hoffmanns_matrix_identities():
    for q, x in zip(QS, QS[::-1]):
        v = np.array([algebra.vmul_QQ(tuple(q), tuple(e)) for e in np.eye(4)]).T    # V(Q), column by column
        np.testing.assert_allclose(v @ v.T, (q @ q) * np.eye(4), atol=1e-13)       # (3.33)
        np.testing.assert_allclose(v @ q, [0.0, 0.0, 0.0, q @ q], atol=1e-13)
        np.testing.assert_allclose(algebra.vtmul_QQ(tuple(q), tuple(x)), v.T @ x, atol=1e-13)
        np.testing.assert_allclose(algebra.vmul3_QQ(tuple(q), tuple(x)), (v @ x)[:3], atol=1e-13)
        np.testing.assert_allclose(algebra.vtmul_QV(tuple(q), tuple(x[:3])), v.T @ np.append(x[:3], 0.0), atol=1e-13)
        # dQ/dt = 1/2 V^T [w; 0] is the product with (-w/2, 0) from the left, Hoffmann (3.26) and (1.7)
        np.testing.assert_allclose(algebra.vtmul_QV(tuple(q), tuple(x[:3])),
                                   _hoffmann_product(np.append(-x[:3], 0.0), q), atol=1e-13)


def test_product_is_hoffmanns_1_9_and_composes_rotations():
    for e, q in zip(QS, QS[::-1]):
        np.testing.assert_allclose(algebra.product_QQ(tuple(e), tuple(q)), _hoffmann_product(e, q), atol=1e-13)
    # coordinate transformations compose: C(E . Q) = C(E) C(Q) (scipy's as_matrix of Hoffmann's Q is C(Q))
    e, q = QS[0] / np.linalg.norm(QS[0]), QS[1] / np.linalg.norm(QS[1])
    c = Rotation.from_quat(algebra.product_QQ(tuple(e), tuple(q))).as_matrix()
    np.testing.assert_allclose(c, Rotation.from_quat(e).as_matrix() @ Rotation.from_quat(q).as_matrix(), atol=1e-14)


def test_matvec_dot_cross_norm_against_numpy():
    for m, x, y, q in zip(MS, VS, VS[::-1], QS):
        np.testing.assert_allclose(algebra.matvec_MV(tuple(m), tuple(x)), m.reshape(3, 3) @ x, atol=1e-13)
        np.testing.assert_allclose(algebra.matvec_MtV(tuple(m), tuple(x)), m.reshape(3, 3).T @ x, atol=1e-13)
        np.testing.assert_allclose(algebra.cross_VV(tuple(x), tuple(y)), np.cross(x, y), atol=1e-13)
        assert algebra.dot_VV(tuple(x), tuple(y)) == pytest.approx(x @ y, abs=1e-13)
        assert algebra.norm2_Q(tuple(q)) == pytest.approx(q @ q, rel=1e-15)
        assert algebra.dot_QQ(tuple(q), tuple(QS[0])) == pytest.approx(q @ QS[0], abs=1e-13)


def test_rotation_angle_is_the_relative_rotation_and_folds_the_sign():
    for p, q in zip(QS, QS[::-1]):
        p, q = p / np.linalg.norm(p), q / np.linalg.norm(q)
        expected = (Rotation.from_quat(p).inv() * Rotation.from_quat(q)).magnitude()
        a = algebra.rotation_angle(tuple(p), tuple(q))
        assert a == pytest.approx(expected, abs=1e-13)
        assert algebra.rotation_angle(tuple(p), tuple(-q)) == a
        # the path angle does not fold: it turns the long way when P.Q < 0
        b = algebra.path_angle(tuple(p), tuple(q))
        assert b == pytest.approx(expected if p @ q >= 0 else 2.0 * math.pi - expected, abs=1e-13)


@pytest.mark.parametrize("name", ["vmul_QQ", "vmul3_QQ", "vtmul_QQ", "product_QQ", "dot_QQ"])
def test_quaternion_kernels_bit_identical_on_columns(name):
    f = getattr(algebra, name)
    cols = np.array(f(tuple(QS.T), tuple(QS[::-1].T)))
    floats = np.array([f(tuple(p), tuple(q)) for p, q in zip(QS, QS[::-1])]).T
    np.testing.assert_array_equal(cols, floats)


def test_vector_kernels_bit_identical_on_columns():
    for f, a, b in ((algebra.matvec_MV, MS, VS), (algebra.matvec_MtV, MS, VS), (algebra.cross_VV, VS, VS[::-1]),
                    (algebra.vtmul_QV, QS, VS)):
        cols = np.array(f(tuple(a.T), tuple(b.T)))
        floats = np.array([f(tuple(x), tuple(y)) for x, y in zip(a, b)]).T
        np.testing.assert_array_equal(cols, floats)
    np.testing.assert_array_equal(algebra.norm2_Q(tuple(QS.T)), [algebra.norm2_Q(tuple(q)) for q in QS])


@pytest.mark.parametrize("bt", [False, True])
def test_matmul_into_is_the_product_summed_in_the_inner_order(bt):
    """A B (or A B^T) against numpy's product, and bit for bit the sum ``((0 + a0 b0) + a1 b1) + ...`` the MEKF's
    loops wrote out before (the bits of the filter's covariance stay)."""
    a = RNG.normal(size=(6, 4))
    b = RNG.normal(size=(5, 4)) if bt else RNG.normal(size=(4, 5))
    out = np.full((6, 5), np.nan)
    algebra.matmul_into(out, a, b, bt)
    np.testing.assert_allclose(out, a @ (b.T if bt else b), rtol=1e-14, atol=1e-14)
    for i in range(6):
        for j in range(5):
            acc = 0.0
            for k in range(4):
                acc += float(a[i, k]) * float(b[j, k] if bt else b[k, j])
            assert out[i, j] == acc
