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

import numpy as np

from sim.core.angles import from_cayley_entries, to_body
from sim.core.ops import COLUMN
from sim.core.quaternion import cayley, conjugate, product

__all__ = ["product", "conjugate", "cayley", "from_cayley", "from_rotation_vector", "rotation_vector",
           "cross_matrix", "rotate"]

def _parts(q) -> tuple:
    """The four components of a stack of quaternions ``(..., 4)`` as arrays (the kernels' tuples)."""
    q = np.asarray(q, dtype=float)
    return (q[..., 0], q[..., 1], q[..., 2], q[..., 3])


#: Below this rotation angle (rad) the half-angle sinc and its inverse are taken from their series.
_SMALL = 1e-4


def rotate(q, v) -> np.ndarray:
    """``C(Q) v``: inertial vectors ``v`` (``(..., 3)``) in body axes (:func:`sim.core.angles.to_body` on the stacks)."""
    v = np.asarray(v, dtype=float)
    return np.stack(np.broadcast_arrays(*to_body(_parts(q), (v[..., 0], v[..., 1], v[..., 2]))), axis=-1)

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
