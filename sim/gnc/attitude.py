"""Quaternion helpers over stacks of attitudes, for the sensors and the estimators.

Hoffmann's convention (README "Conventions"): ``Q = (q1, q2, q3, q4)`` scalar
last, the coordinate transformation inertial -> body, ``x_B = C(Q) x_I``.
Each function takes arrays with any leading axes (one attitude ``(4,)``, or
``N`` of them ``(N, 4)``) and works row by row, so a body's result does not
depend on how many bodies are computed beside it.  They are the stacked forms
of :func:`sim.core.quaternion.product` and :func:`sim.core.quaternion.cayley`
(checked against them in tests/test_attitude_determination.py).

The product composes like the Cayley matrices, ``C(Q . S) = C(Q) C(S)``: the
same order as Markley & Crassidis's ``⊗`` (2014, ch. 2: "Shuster's"
product, ``A(q ⊗ p) = A(q) A(p)``).  Their attitude matrix is Hoffmann's of
the conjugate, ``A(q) = C(q')``: Markley & Crassidis's ``q`` for an attitude
is Hoffmann's ``Q'``, and ``q ⊗ p`` corresponds to ``(Q . P)'``.

Small rotations: the error angle ``a`` (body axes, rad) of an attitude
``Q`` against an estimate ``Q̂`` is defined by ``Q = δQ(a) . Q̂``, with
``C(δQ(a)) = I - [a×] + O(a²)``, so ``δQ(a) = (-a/2, 1)`` to first order:
Hoffmann's coordinate rotation (2.1) by ``|a|`` about ``a``.  It is Markley
& Crassidis's ``δϑ`` of ``q = δq(δϑ) ⊗ q̂`` (their multiplicative error, ch. 6).
"""

from __future__ import annotations

import numpy as np

__all__ = ["product", "conjugate", "cayley", "from_cayley", "from_rotation_vector", "rotation_vector",
           "cross_matrix", "rotate"]

#: Below this rotation angle (rad) the half-angle sinc and its inverse are taken from their series.
_SMALL = 1e-4


def product(q, s) -> np.ndarray:
    """Hoffmann's product ``Q . S`` (1.7), (1.9): ``(q4 s + s4 q + q x s, q4 s4 - q.s)``, row by row."""
    q = np.asarray(q, dtype=float)
    s = np.asarray(s, dtype=float)
    q1, q2, q3, q4 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    s1, s2, s3, s4 = s[..., 0], s[..., 1], s[..., 2], s[..., 3]
    # q x s written out (numpy's cross costs tens of microseconds of overhead on one row)
    return np.stack([q4 * s1 + s4 * q1 + (q2 * s3 - q3 * s2), q4 * s2 + s4 * q2 + (q3 * s1 - q1 * s3),
                     q4 * s3 + s4 * q3 + (q1 * s2 - q2 * s1), q4 * s4 - (q1 * s1 + q2 * s2 + q3 * s3)], axis=-1)


def conjugate(q) -> np.ndarray:
    """``Q' = (-q1, -q2, -q3, q4)``, Hoffmann (1.10)."""
    q = np.asarray(q, dtype=float)
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def cayley(q) -> np.ndarray:
    """Cayley matrices ``C(Q)``, Hoffmann (2.12), shape ``(..., 3, 3)``: ``x_B = C x_I``."""
    q = np.asarray(q, dtype=float)
    q1, q2, q3, q4 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    s1, s2, s3, s4 = q1 * q1, q2 * q2, q3 * q3, q4 * q4
    rows = [[s1 - s2 - s3 + s4, 2.0 * (q1 * q2 - q3 * q4), 2.0 * (q1 * q3 + q2 * q4)],
            [2.0 * (q1 * q2 + q3 * q4), -s1 + s2 - s3 + s4, 2.0 * (q2 * q3 - q1 * q4)],
            [2.0 * (q1 * q3 - q2 * q4), 2.0 * (q1 * q4 + q2 * q3), -s1 - s2 + s3 + s4]]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def rotate(q, v) -> np.ndarray:
    """``C(Q) v``: inertial vectors ``v`` (``(..., 3)``) in body axes."""
    # C v = (q4^2 - |q|^2) v + 2 (q . v) q + 2 q4 (q x v), Hoffmann (2.12) written out (no 3x3 stacks)
    q = np.asarray(q, dtype=float)
    v = np.asarray(v, dtype=float)
    q1, q2, q3, q4 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    a = q4 * q4 - (q1 * q1 + q2 * q2 + q3 * q3)
    d = 2.0 * (q1 * x + q2 * y + q3 * z)
    return np.stack([a * x + d * q1 + 2.0 * q4 * (q2 * z - q3 * y), a * y + d * q2 + 2.0 * q4 * (q3 * x - q1 * z),
                     a * z + d * q3 + 2.0 * q4 * (q1 * y - q2 * x)], axis=-1)


def from_cayley(c) -> np.ndarray:
    """The unit quaternion ``Q`` (scalar last, ``q4 >= 0``) whose Cayley matrix is ``c``: Shepperd's method.

    Shepperd (1978), J. Guidance and Control 1(3), 223-224 (also Markley &
    Crassidis 2014, ch. 2): of the four candidate formulas the one with the largest divisor,
    chosen row by row.  Written for Hoffmann's (2.12): ``c12 - c21 = -4 q3 q4``
    and its cyclic twins.
    """
    c = np.asarray(c, dtype=float)
    c11, c12, c13 = c[..., 0, 0], c[..., 0, 1], c[..., 0, 2]
    c21, c22, c23 = c[..., 1, 0], c[..., 1, 1], c[..., 1, 2]
    c31, c32, c33 = c[..., 2, 0], c[..., 2, 1], c[..., 2, 2]
    trace = c11 + c22 + c33
    # 4 q_i q_j from the matrix: the diagonal gives 4 q_i^2, the off-diagonal sums and differences the products
    candidates = np.stack([
        np.stack([1.0 + 2.0 * c11 - trace, c12 + c21, c13 + c31, c32 - c23], axis=-1),
        np.stack([c12 + c21, 1.0 + 2.0 * c22 - trace, c23 + c32, c13 - c31], axis=-1),
        np.stack([c13 + c31, c23 + c32, 1.0 + 2.0 * c33 - trace, c21 - c12], axis=-1),
        np.stack([c32 - c23, c13 - c31, c21 - c12, 1.0 + trace], axis=-1),
    ], axis=-2)   # row k is 4 q_k Q
    k = np.argmax(np.stack([c11, c22, c33, trace], axis=-1), axis=-1)
    row = np.take_along_axis(candidates, k[..., None, None], axis=-2)[..., 0, :]
    q = row / np.linalg.norm(row, axis=-1, keepdims=True)
    return np.where(q[..., 3:] < 0.0, -q, q)


def from_rotation_vector(a) -> np.ndarray:
    """``δQ(a)``: Hoffmann's coordinate rotation (2.1) by ``|a|`` about ``a``, ``(-sin(|a|/2) a/|a|, cos(|a|/2))``.

    ``C(δQ(a)) = exp(-[a×])``; exact for any angle, the half-angle sinc from
    its series below ``_SMALL``.
    """
    a = np.asarray(a, dtype=float)
    angle = np.linalg.norm(a, axis=-1, keepdims=True)
    small = angle < _SMALL
    safe = np.where(small, 1.0, angle)
    half_sinc = np.where(small, 0.5 - angle * angle / 48.0, np.sin(0.5 * safe) / safe)
    return np.concatenate([-half_sinc * a, np.cos(0.5 * angle)], axis=-1)


def rotation_vector(q) -> np.ndarray:
    """The rotation vector ``a`` with ``δQ(a) = ±Q / |Q|`` (:func:`from_rotation_vector`), ``|a| <= pi``."""
    q = np.asarray(q, dtype=float)
    q = np.where(q[..., 3:] < 0.0, -q, q)
    s = np.linalg.norm(q[..., :3], axis=-1, keepdims=True)
    c = q[..., 3:]
    angle = 2.0 * np.arctan2(s, c)
    small = angle < _SMALL
    # angle / s = 2 atan(x) / s = 2 / c (1 - x^2 / 3 + ...), x = s / c -> 0
    ratio = np.where(small, 2.0 / np.where(small, c, 1.0) * (1.0 - s * s / (3.0 * c * c + 1e-300)),
                     angle / np.where(small, 1.0, s))
    return -ratio * q[..., :3]


def cross_matrix(v) -> np.ndarray:
    """``[v×]``, shape ``(..., 3, 3)``: ``[v×] x = v x x``."""
    v = np.asarray(v, dtype=float)
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    o = np.zeros_like(x)
    return np.stack([np.stack([o, -z, y], axis=-1), np.stack([z, o, -x], axis=-1),
                     np.stack([-y, x, o], axis=-1)], axis=-2)
