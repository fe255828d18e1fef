"""Attitude read off the quaternion: the Cayley matrix and the aircraft angles.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  Each
formula is written once for one body (``ops`` = :data:`sim.core.ops.FLOAT`, the
default; 4-tuples of floats) and for the ensemble's columns
(:data:`sim.core.ops.COLUMN`; 4-tuples of numpy rows, one value per body).
:func:`cayley_entries` is arithmetic only and agrees bit for bit between the
two; the angles go through ``atan2`` and ``hypot``, whose numpy versions may
round differently from ``math``'s in the last place (:mod:`sim.core.ops`).
"""

from __future__ import annotations

from sim.core.algebra import norm2_Q
from sim.core.ops import FLOAT

__all__ = ["SINGULAR", "cayley_entries", "aircraft_angles", "aircraft_angles_of"]

#: Relative size below which an Euler-angle decoding is treated as exactly singular.
SINGULAR = 1e-12


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


def aircraft_angles_of(c, qq, ops=FLOAT) -> tuple:
    """:func:`aircraft_angles` from the Cayley entries ``c`` (:func:`cayley_entries`) and ``qq = |Q|^2``.

    For a caller that needs the Cayley matrix as well (the momentum in
    inertial axes of :mod:`sim.core.energy`).
    """
    c11, c12, c13, c21, c22, c23, _, _, c33 = c
    horizontal = ops.hypot(c11, c12)
    theta = ops.atan2(-c13, horizontal)
    psi = ops.atan2(c12, c11)
    phi = ops.atan2(c23, c33)
    singular = horizontal <= SINGULAR * qq
    if ops.any(singular):
        # theta = +-90 deg exactly: only phi -+ psi is defined; report psi = 0 and
        # phi from c21 = sin(phi -+ psi), c22 = cos(phi -+ psi) of (7.13).
        psi = ops.select(singular, 0.0, psi)
        phi = ops.select(singular, ops.atan2(ops.select(c13 < 0.0, c21, -c21), c22), phi)
    return (psi, theta, phi)

