"""The numpy face of the quaternion algebra, in Hoffmann's convention.

``Q = (q1, q2, q3, q4)``, ``q4`` the scalar part; ``Q`` is the coordinate
transformation inertial -> body, ``x_B = cayley(Q) @ x_I`` (see :mod:`sim`).

Every function takes array-likes of shape (4,) (or angles in radians),
checks the shape, and returns new ``numpy`` arrays; inputs are never
modified.  The formulas are not written here: each function converts its
arguments and calls the one kernel that the simulation steps with
(:mod:`sim.core.algebra`, :mod:`sim.core.angles`), as scipy's ``Rotation`` is
a face over its kernels.  Only the matrices ``R(Q)`` and ``V(Q)`` are spelt
out, as the matrices that those kernels multiply by.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core import algebra
from sim.core.angles import SINGULAR, aircraft_angles, cayley_entries
from sim.core.interpolation import scaled_pair

__all__ = [
    "product",
    "conjugate",
    "norm",
    "normalize",
    "r_matrix",
    "cayley",
    "parts",
    "v_matrix",
    "qdot_from_rates",
    "rates_from_qdot",
    "rates_from_samples",
    "from_axis_angle",
    "from_aircraft_angles",
    "aircraft_angles",
    "as_aircraft_angles",
    "from_euler_zxz",
    "as_euler_zxz",
    "rotation_angle",
]


def _quat(q) -> np.ndarray:
    a = np.asarray(q, dtype=float)
    if a.shape != (4,):
        raise ValueError(f"a quaternion has shape (4,), got {a.shape}")
    return a


def _floats(q) -> tuple:
    """A quaternion as a 4-tuple of floats, the kernels' argument (ValueError for another shape)."""
    return tuple(float(x) for x in _quat(q))


_UNIT = tuple(tuple(1.0 if i == j else 0.0 for i in range(4)) for j in range(4))


def _matrix_of(kernel, q) -> np.ndarray:
    """The 4x4 matrix ``M(Q)`` of a kernel linear in its second argument, ``kernel(Q, x) = M(Q) x``, column by column.

    Each entry is one of ``Q``'s components (or zero): the products with the
    unit vectors' exact 0.0 and 1.0 round nothing.
    """
    q = _floats(q)
    return np.array([kernel(q, e) for e in _UNIT]).T + 0.0


def r_matrix(q) -> np.ndarray:
    """Quaternion matrix ``R(Q)`` with ``Q . S = R(Q) S``, Hoffmann (1.7)-(1.8).

    Parameters
    ----------
    q : array_like, shape (4,)
        Quaternion, scalar last.

    Returns
    -------
    ndarray, shape (4, 4)
    """
    return _matrix_of(algebra.product_QQ, q)


def _stack(q) -> np.ndarray:
    """One quaternion ``(4,)`` or a stack ``(..., 4)`` as floats (ValueError when the last axis is not 4)."""
    a = np.asarray(q, dtype=float)
    if a.ndim == 0 or a.shape[-1] != 4:
        raise ValueError(f"a quaternion has shape (4,) (or a stack of them, (..., 4)), got {a.shape}")
    return a


def parts(q) -> tuple:
    """The four components of one quaternion ``(4,)`` or a stack ``(..., 4)`` as float arrays.

    The kernels' tuple ``(q1, q2, q3, q4)`` (:mod:`sim.core.algebra`, :mod:`sim.core.angles`), row by row;
    ValueError when the last axis is not 4.
    """
    a = _stack(q)
    return (a[..., 0], a[..., 1], a[..., 2], a[..., 3])


def product(q, s) -> np.ndarray:
    """Quaternion product ``Q . S``, Hoffmann (1.7): :func:`sim.core.algebra.product_QQ`.

    Equivalent to (1.9): ``(q4 s4 - q.s) + (q4 s + s4 q + q x s)``.  It
    composes like the Cayley matrices, ``C(Q . S) = C(Q) C(S)``.

    Parameters
    ----------
    q, s : array_like, shape (4,) or (..., 4)
        Quaternions, scalar last; stacks are taken row by row (and broadcast).

    Returns
    -------
    ndarray, shape (4,) or the broadcast stack's
    """
    return np.stack(np.broadcast_arrays(*algebra.product_QQ(parts(q), parts(s))), axis=-1)


def conjugate(q) -> np.ndarray:
    """Conjugate ``Q' = (-q1, -q2, -q3, q4)``, Hoffmann (1.10); one quaternion ``(4,)`` or a stack ``(..., 4)``."""
    q = _stack(q)
    return np.concatenate([-q[..., :3], q[..., 3:]], axis=-1)


def norm(q) -> float:
    """Euclidean norm ``|Q| = sqrt(Q . Q')``, Hoffmann (1.14)."""
    return math.sqrt(algebra.norm2_Q(_floats(q)))


def normalize(q) -> np.ndarray:
    """``Q / |Q|``; raises ValueError for a zero or non-finite quaternion."""
    q = _quat(q)
    n = norm(q)
    if not math.isfinite(n) or n == 0.0:
        raise ValueError(f"cannot normalise quaternion {q.tolist()}: norm is {n}")
    return q / n


def cayley(q) -> np.ndarray:
    """Cayley matrix ``C(Q)``, Hoffmann (2.12): ``x_B = C x_I`` (:func:`sim.core.angles.cayley_entries`).

    For a unit quaternion ``C`` is orthonormal; ``C.T`` maps body to inertial
    coordinates.  For ``|Q| != 1`` it is ``|Q|^2`` times a rotation.

    Parameters
    ----------
    q : array_like, shape (4,) or (..., 4)
        Quaternion, scalar last (coordinate transformation inertial -> body); stacks row by row.

    Returns
    -------
    ndarray, shape (3, 3) or (..., 3, 3)
    """
    c = np.stack(np.broadcast_arrays(*cayley_entries(parts(q))), axis=-1)
    return c.reshape(c.shape[:-1] + (3, 3))


def v_matrix(q) -> np.ndarray:
    """Matrix ``V(Q)`` of Hoffmann (3.26), with ``[w; 0] = 2 V(Q) dQ/dt`` (3.25).

    ``V V^T = |Q|^2 I`` and ``V(Q) Q = (0, 0, 0, |Q|^2)`` (3.33).

    Parameters
    ----------
    q : array_like, shape (4,)

    Returns
    -------
    ndarray, shape (4, 4)
    """
    return _matrix_of(algebra.vmul_QQ, q)


def qdot_from_rates(q, w) -> np.ndarray:
    """Quaternion derivative ``dQ/dt = 1/2 V(Q)^T [w; 0]``, Hoffmann (5.18).

    Parameters
    ----------
    q : array_like, shape (4,)
    w : array_like, shape (3,)
        Body rates in body axes, rad/s.
    """
    w = np.asarray(w, dtype=float)
    if w.shape != (3,):
        raise ValueError(f"body rates have shape (3,), got {w.shape}")
    return 0.5 * np.array(algebra.vtmul_QV(_floats(q), tuple(float(x) for x in w)))


def rates_from_qdot(q, qdot) -> np.ndarray:
    """Body rates ``w = 2 V(Q) dQ/dt`` (first three rows), Hoffmann (3.25)."""
    return 2.0 * np.array(algebra.vmul3_QQ(_floats(q), _floats(qdot)))


def rates_from_samples(t, q) -> np.ndarray:
    """Body rates from sampled attitudes: ``w = 2 V(Q) dQ/dt`` (Hoffmann (3.25)) with ``dQ/dt`` by differences.

    ``dQ/dt`` is numpy's ``gradient`` over the times ``t``: second-order
    central differences inside (exact for a quaternion quadratic in t; on
    uneven spacing the weighted three-point formula), first-order one-sided
    differences at the two ends.  The signs of the samples are made
    continuous first (``Q`` and ``-Q`` are one attitude).

    Parameters
    ----------
    t : array_like, shape (N,)
        Strictly increasing times, s (N >= 2).
    q : array_like, shape (N, 4)
        Quaternions, scalar last (inertial -> body).

    Returns
    -------
    ndarray, shape (N, 3)
        Body rates in body axes, rad/s.
    """
    t = np.asarray(t, dtype=float)
    q = np.array(q, dtype=float)
    if q.ndim != 2 or q.shape[1] != 4 or t.shape != (len(q),) or len(q) < 2:
        raise ValueError(f"need N >= 2 times and quaternions of shape (N, 4), got {t.shape} and {q.shape}")
    flips = np.cumsum(np.einsum("ij,ij->i", q[1:], q[:-1]) < 0.0) % 2
    q[1:][flips == 1] *= -1.0
    qdot = np.gradient(q, t, axis=0)
    return np.array([rates_from_qdot(qi, di) for qi, di in zip(q, qdot)])


def from_axis_angle(axis, angle: float) -> np.ndarray:
    """Coordinate-system rotation by ``angle`` about ``axis``, Hoffmann (2.1).

    ``Q = cos(a/2) - n sin(a/2)``: the body axes are turned by a right-hand
    screw about ``n`` relative to the inertial axes.

    Parameters
    ----------
    axis : array_like, shape (3,)
        Rotation axis (need not be unit length; must be non-zero).
    angle : float
        Angle in radians.
    """
    n = np.asarray(axis, dtype=float)
    length = float(np.linalg.norm(n))
    if n.shape != (3,) or not math.isfinite(length) or length == 0.0:
        raise ValueError(f"rotation axis must be a finite non-zero 3-vector, got {n.tolist()}")
    s = math.sin(0.5 * angle) / length
    return np.array([-n[0] * s, -n[1] * s, -n[2] * s, math.cos(0.5 * angle)])


def from_aircraft_angles(psi: float, theta: float, phi: float) -> np.ndarray:
    """Quaternion for aircraft angles (z-y-x), Hoffmann AngToQuat (9.9), (7.18).

    Parameters
    ----------
    psi, theta, phi : float
        Yaw, pitch, roll in radians.

    Returns
    -------
    ndarray, shape (4,)
        ``Q = Q_phi . Q_theta . Q_psi``, scalar last.
    """
    sps, cps = math.sin(0.5 * psi), math.cos(0.5 * psi)
    sth, cth = math.sin(0.5 * theta), math.cos(0.5 * theta)
    sph, cph = math.sin(0.5 * phi), math.cos(0.5 * phi)
    return np.array(
        [
            sps * sth * cph - cps * cth * sph,
            -cps * sth * cph - sps * cth * sph,
            cps * sth * sph - sps * cth * cph,
            sps * sth * sph + cps * cth * cph,
        ]
    )


def as_aircraft_angles(q) -> np.ndarray:
    """Aircraft angles ``(psi, theta, phi)`` from the Cayley matrix, Hoffmann (7.21).

    See :func:`sim.core.angles.aircraft_angles`.

    Returns
    -------
    ndarray, shape (3,)
        Radians; psi, phi in (-pi, pi], theta in [-pi/2, pi/2].
    """
    return np.array(aircraft_angles(_floats(q)))


def from_euler_zxz(phi: float, theta: float, psi: float) -> np.ndarray:
    """Quaternion for classical Euler angles z-x-z, Hoffmann (6.18).

    Rotation about ``z1`` by ``phi`` (6.3), then about ``x2`` by ``theta`` (6.6),
    then about ``z3`` by ``psi`` (6.9): ``Q = Q3 . Q2 . Q1``.
    """
    q1 = from_axis_angle((0.0, 0.0, 1.0), phi)
    q2 = from_axis_angle((1.0, 0.0, 0.0), theta)
    q3 = from_axis_angle((0.0, 0.0, 1.0), psi)
    return product(product(q3, q2), q1)


def as_euler_zxz(q) -> np.ndarray:
    """Classical Euler angles ``(phi, theta, psi)`` from the Cayley matrix, Hoffmann (6.21).

    ``psi = atan2(c13, c23)``, ``phi = atan2(c31, -c32)``,
    ``theta = atan2(sqrt(c13^2 + c23^2), c33)``.  Singular at ``theta = 0``
    (and pi), where only ``phi +- psi`` is defined: there ``psi = 0`` is
    reported and ``phi`` carries the whole angle.

    Returns
    -------
    ndarray, shape (3,)
        Radians; theta in [0, pi].
    """
    q = _quat(q)
    c = cayley(q)
    sin_theta = math.hypot(c[0, 2], c[1, 2])
    theta = math.atan2(sin_theta, c[2, 2])
    if sin_theta <= SINGULAR * algebra.norm2_Q(_floats(q)):
        # theta = 0 or pi exactly: only phi +- psi is defined; report psi = 0,
        # phi from c11 = cos(phi +- psi), c12 = sin(phi +- psi) of (6.13).
        return np.array([math.atan2(c[0, 1], c[0, 0]), theta, 0.0])
    return np.array([math.atan2(c[2, 0], -c[2, 1]), theta, math.atan2(c[0, 2], c[1, 2])])


def rotation_angle(p, q) -> float:
    """Angle in radians of the rotation between attitudes ``P`` and ``Q``: :func:`sim.core.algebra.rotation_angle`.

    Hoffmann's bivector angle (Appendix C), folded so that ``Q`` and ``-Q``
    (the same attitude) give the same result: ``2 atan2(|P^Q|, |P.Q|)``, in
    [0, pi].  Valid for inputs of any length: they are first divided by their
    largest component, so that squares neither overflow nor underflow.
    """
    p, q, _ = scaled_pair(_floats(p), _floats(q))
    return algebra.rotation_angle(p, q)
