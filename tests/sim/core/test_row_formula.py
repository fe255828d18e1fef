"""The history row's readout of one state, :func:`sim.core.row_formula.body_readout`, against references of its own.

The state is taken off the unit sphere and with a rate that has a part along ``Q`` (``Q . P != 0``), as
full-quat carries it under norm handling ``elimination``: the readout is then that of the attitude ``Q / |Q|``
and its rate (Joshi (25), (27)).  References: scipy's rotations (Hoffmann's ``C(Q)`` is the transpose of
``Rotation.from_quat(conj Q).as_matrix()``, docs and /work/shared/NOTES.md), the body rates of that attitude by
a central difference of ``C(t) = C(Q(t) / |Q(t)|)`` along ``Q(t) = Q + t P`` (``[w x] = -dC/dt C^T``), and for a
unit attitude Sherif's multiplier (30) equal to ``4 T = 2 w . J w`` (``2 |Q|^2 w . J w`` for ``Q`` as it is).  Run as Python and compiled alike (the
kernels inline it).
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core.row_formula import DEG, body_readout

J = np.array([[1.2, -0.15, 0.25], [-0.15, 1.7, -0.1], [0.25, -0.1, 2.1]])   # every product of inertia non-zero
JR = tuple(J.ravel())
#: States off the unit sphere whose rate has a part along Q (r = Q.P / |Q|^2 far from 0), and one on it.
STATES = {
    "stretched, rate outward": ((0.3, -0.5, 0.2, 1.1), (0.4, 0.1, -0.3, 0.7)),
    "shrunk, rate inward": ((-0.2, 0.4, 0.6, 0.3), (0.5, -0.6, -0.2, -0.4)),
    "unit, tangential rate": ((0.1, 0.2, -0.3, 0.9), (0.3, -0.2, 0.5, 0.1)),   # made so below
}
_U = np.array(STATES["unit, tangential rate"][0]) / np.linalg.norm(STATES["unit, tangential rate"][0])
_T = np.array(STATES["unit, tangential rate"][1])
STATES["unit, tangential rate"] = (tuple(_U), tuple(_T - (_T @ _U) * _U))


def _cayley(q):
    """Hoffmann's C(Q) of the attitude Q / |Q|, from scipy: the transpose of the rotation of conj(Q)."""
    q = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return Rotation.from_quat([-q[0], -q[1], -q[2], q[3]]).as_matrix().T


def _rates(q, p, h=1e-6):
    """Body rates of the attitude Q(t) / |Q(t)|, Q(t) = Q + t P, at t = 0: [w x] = -dC/dt C^T."""
    q, p = np.asarray(q, dtype=float), np.asarray(p, dtype=float)
    dc = (_cayley(q + h * p) - _cayley(q - h * p)) / (2 * h)
    skew = -dc @ _cayley(q).T
    return np.array([skew[2, 1], skew[0, 2], skew[1, 0]])


@pytest.mark.parametrize("name", STATES)
def test_elimination_reads_the_attitude_and_rate_of_q_over_its_norm(name):
    q, p = STATES[name]
    w = _rates(q, p)
    angles, norm, mult, c, lb, q_dot_p = body_readout(q, tuple(w), p, True, JR)
    psi, theta, phi = Rotation.from_matrix(_cayley(q).T).as_euler("ZYX")
    assert np.allclose(angles, np.array([psi, theta, phi]) * (180.0 / math.pi), rtol=0, atol=1e-12)
    assert DEG == 180.0 / math.pi
    assert norm == pytest.approx(math.sqrt(sum(x * x for x in q)) - 1.0, rel=0, abs=1e-15)
    assert np.allclose(np.reshape(c, (3, 3)), _cayley(q), rtol=0, atol=1e-14)   # the unit attitude's C
    assert np.allclose(lb, J @ w, rtol=0, atol=1e-14)
    assert q_dot_p == pytest.approx(float(np.dot(q, p)), rel=1e-15)
    # Sherif (30) of the unit attitude and its rate: 4 T = 2 w . J w with w its body rates
    assert mult == pytest.approx(2.0 * w @ J @ w, rel=1e-8)


@pytest.mark.parametrize("name", STATES)
def test_without_elimination_the_readout_is_of_q_itself(name):
    q, p = STATES[name]
    w = _rates(q, p)
    qq = sum(x * x for x in q)
    angles, norm, mult, c, lb, q_dot_p = body_readout(q, tuple(w), p, False, JR)
    psi, theta, phi = Rotation.from_matrix(_cayley(q).T).as_euler("ZYX")
    assert np.allclose(angles, np.array([psi, theta, phi]) * (180.0 / math.pi), rtol=0, atol=1e-12)
    assert np.allclose(np.reshape(c, (3, 3)), qq * _cayley(q), rtol=0, atol=1e-14)   # C(Q) = |Q|^2 C(Q/|Q|)
    assert norm == pytest.approx(math.sqrt(qq) - 1.0, rel=0, abs=1e-15)
    assert q_dot_p == pytest.approx(float(np.dot(q, p)), rel=1e-15)
    # Sherif (30) of Q, P as they are: with V(P) Q = -V(Q) P and V(Q) P = |Q|^2 w / 2, 2 |Q|^2 w . J w
    assert mult == pytest.approx(2.0 * qq * (w @ J @ w), rel=1e-8)
