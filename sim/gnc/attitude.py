"""Quaternion helpers over stacks of attitudes, for the sensors and the estimators.

Hoffmann's convention (README "Conventions"): ``Q = (q1, q2, q3, q4)`` scalar
last, the coordinate transformation inertial -> body, ``x_B = C(Q) x_I``.
Each function takes arrays with any leading axes (one attitude ``(4,)``, or
``N`` of them ``(N, 4)``) and works row by row, so a body's result does not
depend on how many bodies are computed beside it.  The product, the conjugate
and the Cayley matrix are :mod:`sim.core.quaternion`'s (one quaternion module:
they take stacks too), offered here beside the rest; the others are the same
kernels (:mod:`sim.core.algebra`, :mod:`sim.core.angles`) on stacks.

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

import math

import numpy as np

from sim.core.algebra import product_QQ
from sim.core.angles import from_cayley_entries, to_body
from sim.core.jit import jitable, kernel
from sim.core.ops import COLUMN
from sim.core.quaternion import cayley, conjugate, parts, product

# sim.core's formulas that the compiled kernels of sim.gnc call (the quaternion product, C(Q) v): compiled
# inline into them, unchanged for Python callers (sim.core.jit.jitable returns the function itself).
jitable(product_QQ)
jitable(to_body)

__all__ = ["product", "conjugate", "cayley", "from_cayley", "from_rotation_vector", "rotation_vector",
           "cross_matrix", "rotate", "delta_q", "rotation_vector_of"]

#: Below this rotation angle (rad) the half-angle sinc and its inverse are taken from their series.
_SMALL = 1e-4


def rotate(q, v) -> np.ndarray:
    """``C(Q) v``: inertial vectors ``v`` (``(..., 3)``) in body axes (:func:`sim.core.angles.to_body` on the stacks)."""
    v = np.asarray(v, dtype=float)
    return np.stack(np.broadcast_arrays(*to_body(parts(q), (v[..., 0], v[..., 1], v[..., 2]))), axis=-1)

def from_cayley(c) -> np.ndarray:
    """The unit quaternion ``Q`` (scalar last, ``q4 >= 0``) whose Cayley matrix is ``c`` (``(..., 3, 3)``).

    Shepperd's method, :func:`sim.core.angles.from_cayley_entries` on the
    stacks, normalised and turned to ``q4 >= 0``.
    """
    c = np.asarray(c, dtype=float)
    entries = tuple(c[..., i, j] for i in range(3) for j in range(3))
    q = np.stack(np.broadcast_arrays(*from_cayley_entries(entries, COLUMN)), axis=-1)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., 3:] < 0.0, -q, q)


@jitable
def delta_q(ax, ay, az):
    """``δQ(a)``: Hoffmann's coordinate rotation (2.1) by ``|a|`` about ``a``, ``(-sin(|a|/2) a/|a|, cos(|a|/2))``.

    ``C(δQ(a)) = exp(-[a×])``; exact for any angle, the half-angle sinc
    ``sin(|a|/2) / |a|`` from its series ``1/2 - |a|^2 / 48`` below ``_SMALL``.
    """
    angle = math.sqrt(ax * ax + ay * ay + az * az)
    half_sinc = 0.5 - angle * angle / 48.0 if angle < _SMALL else math.sin(0.5 * angle) / angle
    return (-half_sinc * ax, -half_sinc * ay, -half_sinc * az, math.cos(0.5 * angle))


@jitable
def rotation_vector_of(q1, q2, q3, q4):
    """The rotation vector ``a`` with ``δQ(a) = ±Q / |Q|`` (:func:`delta_q`), ``|a| <= pi``.

    ``|a| = 2 atan2(|q|, q4)`` taken with ``q4 >= 0``; ``a = -|a| q / |q|``,
    the ratio ``|a| / |q|`` from its series ``2 / q4 (1 - |q|^2 / (3 q4^2))``
    below ``_SMALL`` (``2 atan(x) / x``, ``x = |q| / q4``).
    """
    if q4 < 0.0:
        q1, q2, q3, q4 = -q1, -q2, -q3, -q4
    s = math.sqrt(q1 * q1 + q2 * q2 + q3 * q3)
    angle = 2.0 * math.atan2(s, q4)
    ratio = 2.0 / q4 * (1.0 - s * s / (3.0 * q4 * q4 + 1e-300)) if angle < _SMALL else angle / s
    return (-ratio * q1, -ratio * q2, -ratio * q3)


@kernel
def _delta_q_rows(a):
    out = np.empty((a.shape[0], 4))
    for j in range(a.shape[0]):
        out[j, 0], out[j, 1], out[j, 2], out[j, 3] = delta_q(a[j, 0], a[j, 1], a[j, 2])
    return out


@kernel
def _rotation_vector_rows(q):
    out = np.empty((q.shape[0], 3))
    for j in range(q.shape[0]):
        out[j, 0], out[j, 1], out[j, 2] = rotation_vector_of(q[j, 0], q[j, 1], q[j, 2], q[j, 3])
    return out


def from_rotation_vector(a) -> np.ndarray:
    """:func:`delta_q` of rotation vectors ``a`` (``(..., 3)``, rad): quaternions ``(..., 4)``."""
    a = np.asarray(a, dtype=float)
    return _delta_q_rows(np.ascontiguousarray(a.reshape(-1, 3))).reshape(a.shape[:-1] + (4,))


def rotation_vector(q) -> np.ndarray:
    """:func:`rotation_vector_of` of quaternions ``q`` (``(..., 4)``): rotation vectors ``(..., 3)``, rad."""
    q = np.asarray(q, dtype=float)
    return _rotation_vector_rows(np.ascontiguousarray(q.reshape(-1, 4))).reshape(q.shape[:-1] + (3,))


def cross_matrix(v) -> np.ndarray:
    """``[v×]``, shape ``(..., 3, 3)``: ``[v×] x = v x x``."""
    v = np.asarray(v, dtype=float)
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    o = np.zeros_like(x)
    return np.stack([np.stack([o, -z, y], axis=-1), np.stack([z, o, -x], axis=-1),
                     np.stack([-y, x, o], axis=-1)], axis=-2)
