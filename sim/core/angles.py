"""Attitude read off the quaternion: the Cayley matrix, vectors into body axes, the quaternion of a
matrix, and the aircraft angles.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  Each
formula is written once for one body (``ops`` = :data:`sim.core.ops.FLOAT`, the
default; 4-tuples of floats) and for the ensemble's columns
(:data:`sim.core.ops.COLUMN`; 4-tuples of numpy rows, one value per body).
:func:`cayley_entries` is arithmetic only and agrees bit for bit between the
two; the angles go through ``atan2`` and ``hypot``, whose numpy versions may
round differently from ``math``'s in the last place (:mod:`sim.core.ops`).
"""

from __future__ import annotations

import math

from sim.core.algebra import norm2_Q
from sim.core.jit import jitable
from sim.core.ops import FLOAT, any_of, atan2_of, clip_of, hypot_of, select_of, sqrt_of

__all__ = ["SINGULAR", "cayley_entries", "to_body", "from_cayley_entries", "aircraft_angles", "aircraft_angles_of"]

#: Relative size below which an Euler-angle decoding is treated as exactly singular.
SINGULAR = 1e-12


@jitable
def cayley_entries(q) -> tuple:
    """The nine entries ``(c11, c12, c13, c21, ..., c33)`` of the Cayley matrix ``C(Q)``, Hoffmann (2.12).

    Row major; ``x_B = C x_I``.  For ``|Q| != 1``, ``C`` is ``|Q|^2`` times a
    rotation.  Arithmetic only: the same on floats and on rows.
    """
    q1, q2, q3, q4 = q
    s1, s2, s3, s4 = q1 * q1, q2 * q2, q3 * q3, q4 * q4
    p12, p34, p13, p24, p14, p23 = q1 * q2, q3 * q4, q1 * q3, q2 * q4, q1 * q4, q2 * q3
    return (s1 - s2 - s3 + s4, 2.0 * (p12 - p34), 2.0 * (p13 + p24),
            2.0 * (p12 + p34), -s1 + s2 - s3 + s4, 2.0 * (p23 - p14),
            2.0 * (p13 - p24), 2.0 * (p14 + p23), -s1 - s2 + s3 + s4)


@jitable
def to_body(q, v):
    """``C(Q) v / |Q|^2``: an inertial vector ``v`` in body axes, Hoffmann (2.12) (exact for any ``|Q|``).

    ``C(Q) v`` written as ``(q4^2 - |q|^2) v + 2 (q . v) q + 2 q4 (q x v)`` with
    ``q = (q1, q2, q3)``: the entries of (2.12) gathered by the vector
    operations, fewer multiplications than the nine entries (this runs at
    every stage of an integrator, once per torque of the environment).
    Arithmetic only: floats or rows alike.
    """
    q1, q2, q3, q4 = q
    x, y, z = v[0], v[1], v[2]
    qq = q1 * q1 + q2 * q2 + q3 * q3
    a = (q4 * q4 - qq) / (q4 * q4 + qq)
    d = 2.0 * (q1 * x + q2 * y + q3 * z) / (q4 * q4 + qq)
    e = 2.0 * q4 / (q4 * q4 + qq)
    return (a * x + d * q1 + e * (q2 * z - q3 * y),
            a * y + d * q2 + e * (q3 * x - q1 * z),
            a * z + d * q3 + e * (q1 * y - q2 * x))

@jitable
def from_cayley_entries(c, ops=FLOAT) -> tuple:
    """Hoffmann's ``Q`` (scalar last, ``C(Q) = C``) of a rotation matrix ``C`` given as its nine
    entries, row major (the inverse of :func:`cayley_entries`), by Shepperd's method.

    Shepperd (1978); Markley & Crassidis (2.135)-(2.136), for Hoffmann's
    ``C`` (whose quaternion is the conjugate of theirs: its off-diagonal
    differences change sign).  Of the four candidates
    ``4 q_k^2 = 1 + 2 C_kk - tr C`` (``k`` = 1, 2, 3) and ``4 q4^2 = 1 + tr C``
    the largest is taken as the pivot (the first of equals in the order q4, q1, q2, q3);
    ``q4 >= 0`` is chosen where the pivot is ``q4``, otherwise the pivot component is positive.
    Floats, rows, or ``ops=None`` compiled (:mod:`sim.core.ops`).
    """
    c11, c12, c13, c21, c22, c23, c31, c32, c33 = c
    tr = c11 + c22 + c33
    d4, d1, d2, d3 = 1.0 + tr, 1.0 + 2.0 * c11 - tr, 1.0 + 2.0 * c22 - tr, 1.0 + 2.0 * c33 - tr
    e1, e2, e3 = c32 - c23, c13 - c31, c21 - c12   # 4 q4 q_k
    f12, f13, f23 = c12 + c21, c13 + c31, c23 + c32  # 4 q_i q_j
    tiny = 1e-300
    s4 = 2.0 * sqrt_of(clip_of(d4, tiny, math.inf, ops), ops)
    s1 = 2.0 * sqrt_of(clip_of(d1, tiny, math.inf, ops), ops)
    s2 = 2.0 * sqrt_of(clip_of(d2, tiny, math.inf, ops), ops)
    s3 = 2.0 * sqrt_of(clip_of(d3, tiny, math.inf, ops), ops)
    use4 = (d4 >= d1) & (d4 >= d2) & (d4 >= d3)
    use1 = (d1 >= d2) & (d1 >= d3)
    use2 = d2 >= d3
    return (select_of(use4, e1 / s4, select_of(use1, 0.25 * s1, select_of(use2, f12 / s2, f13 / s3, ops), ops), ops),
            select_of(use4, e2 / s4, select_of(use1, f12 / s1, select_of(use2, 0.25 * s2, f23 / s3, ops), ops), ops),
            select_of(use4, e3 / s4, select_of(use1, f13 / s1, select_of(use2, f23 / s2, 0.25 * s3, ops), ops), ops),
            select_of(use4, 0.25 * s4, select_of(use1, e1 / s1, select_of(use2, e2 / s2, e3 / s3, ops), ops), ops))


def aircraft_angles(q, ops=FLOAT) -> tuple:
    """Aircraft angles ``(psi, theta, phi)``, Hoffmann (7.21).

    ``psi = atan2(c12, c11)``, ``phi = atan2(c23, c33)``,
    ``theta = atan2(-c13, sqrt(c11^2 + c12^2))`` with ``c`` the Cayley matrix
    (2.12).  Singular (0/0) at ``theta = +-90 deg``, where only ``phi -+ psi``
    is defined: there (``sqrt(c11^2 + c12^2)`` at rounding level) ``psi = 0``
    is reported and ``phi`` carries the whole angle, so the angles still
    reproduce the attitude.  Near the singularity the angles are correct but
    jump for tiny changes of attitude (gimbal lock).  Radians; psi, phi in
    (-pi, pi], theta in [-pi/2, pi/2].
    """
    return aircraft_angles_of(cayley_entries(q), norm2_Q(q), ops)


@jitable
def aircraft_angles_of(c, qq, ops=FLOAT) -> tuple:
    """:func:`aircraft_angles` from the Cayley entries ``c`` (:func:`cayley_entries`) and ``qq = |Q|^2``.

    For a caller that needs the Cayley matrix as well (the momentum in
    inertial axes of :mod:`sim.core.energy`).  With ``ops=None`` (the history row's formula,
    :mod:`sim.core.row_formula`, compiled or not) ``sqrt(c11^2 + c12^2)`` stands for the hypot
    (:func:`sim.core.ops.hypot_of`).
    """
    c11, c12, c13, c21, c22, c23, c33 = c[0], c[1], c[2], c[3], c[4], c[5], c[8]
    horizontal = hypot_of(c11, c12, ops)
    theta = atan2_of(-c13, horizontal, ops)
    psi = atan2_of(c12, c11, ops)
    phi = atan2_of(c23, c33, ops)
    singular = horizontal <= SINGULAR * qq
    if any_of(singular, ops):
        # theta = +-90 deg exactly: only phi -+ psi is defined; report psi = 0 and
        # phi from c21 = sin(phi -+ psi), c22 = cos(phi -+ psi) of (7.13).
        psi = select_of(singular, 0.0, psi, ops)
        phi = select_of(singular, atan2_of(select_of(c13 < 0.0, c21, -c21, ops), c22, ops), phi, ops)
    return (psi, theta, phi)

