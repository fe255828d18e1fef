"""The environment's torques: gravity gradient on a circular orbit, a disturbance torque, the orbit frame.

Conventions (README, "Conventions"; docs/PHYSICS.md, "Gravity gradient")
-------------------------------------------------------------------------
* A circular orbit about the Earth: ``mu = 3.986004418e14 m^3/s^2``, radius
  ``r = 6,378.137 km + altitude``, orbit rate ``n = sqrt(mu / r^3)``.
* The orbit frame: z to nadir, x along the velocity, ``y = z x x``, opposite
  to the orbit normal.  At ``t = 0`` it coincides with the inertial axes;
  the nadir direction in inertial axes is then ``(-sin nt, 0, cos nt)``, the
  velocity ``(cos nt, 0, sin nt)``, and a body held in the orbit frame has
  body rates ``(0, -n, 0)``.  The orbit frame is the inertial frame turned
  about inertial y by ``-nt``: in Hoffmann's convention (2.1) its quaternion
  is ``Q_o = (0, sin(nt/2), 0, cos(nt/2))`` (inertial -> orbit).
* The gravity-gradient torque is ``T = 3 n^2 c x (J c)`` with ``c`` the unit
  nadir direction in body axes and ``J`` the whole craft's inertia.

Every formula is arithmetic over the state, written once for one body and
for the ensemble's columns (:mod:`sim.core.ops`): the time ``t`` is the same for
all bodies, so its sine and cosine are taken once, with ``math``, on both
paths, and the two agree bit for bit.
"""

from __future__ import annotations

import math

from sim.core.algebra import cross_VV, matvec_MV
from sim.core.angles import to_body
from sim.core.jit import jitable
from sim.core.ops import FLOAT, sqrt_of

__all__ = ["MU_EARTH", "EARTH_RADIUS_KM", "orbit_rate", "nadir", "gravity_gradient_torque",
           "disturbance_torque", "gravity_gradient_at", "orbit_quaternion", "to_orbit_frame", "DISTURBANCE_AXES"]

#: The Earth's gravitational parameter, m^3/s^2.
MU_EARTH = 3.986004418e14
#: The Earth's equatorial radius, km.
EARTH_RADIUS_KM = 6378.137
#: The axes a disturbance torque is given in.
DISTURBANCE_AXES = ("body", "inertial")


def orbit_rate(altitude_km: float) -> float:
    """``n = sqrt(mu / r^3)``, rad/s, of a circular orbit at ``altitude_km`` (r = 6,378.137 km + altitude).

    >>> round(2 * math.pi / orbit_rate(500.0) / 60, 2)   # minutes
    94.62
    """
    r = (EARTH_RADIUS_KM + altitude_km) * 1e3
    return math.sqrt(MU_EARTH / (r * r * r))


@jitable
def nadir(t: float, n: float) -> tuple:
    """The nadir direction in inertial axes at time ``t``: ``(-sin nt, 0, cos nt)``."""
    return (-math.sin(n * t), 0.0, math.cos(n * t))


@jitable
def gravity_gradient_torque(q, t: float, n: float, jr):
    """``T = 3 n^2 c x (J c)``, ``c`` the nadir in body axes at time ``t`` (the module docstring).

    ``q`` the attitude (scalar last, inertial -> body), ``n`` the orbit rate,
    ``jr`` the craft's inertia ``J`` row major (locked wheels).
    """
    cx, cy, cz = to_body(q, nadir(t, n))
    c = (cx, cy, cz)
    gx, gy, gz = cross_VV(c, matvec_MV(jr, c))
    k = 3.0 * n * n
    return (k * gx, k * gy, k * gz)


@jitable
def gravity_gradient_at(q, r_km, jr, ops=FLOAT):
    """``T = 3 mu/|r|^3 c x (J c)`` at the ECI position ``r_km`` (km): ``c`` the unit nadir ``-r/|r|`` in body axes.

    The same torque as :func:`gravity_gradient_torque` (Hughes, *Spacecraft
    Attitude Dynamics* (1986), 8.1, (17)) on any orbit: on the circular orbit
    ``r = R (sin nt, 0, -cos nt)`` it is that function's torque.  ``r_km`` is floats, or an
    ensemble's rows (one orbit per body) with ``ops`` = :data:`sim.core.ops.COLUMN`.
    """
    x, y, z = r_km
    rr = x * x + y * y + z * z
    rn = sqrt_of(rr, ops)
    cx, cy, cz = to_body(q, (-x / rn, -y / rn, -z / rn))
    jx = jr[0] * cx + jr[1] * cy + jr[2] * cz
    jy = jr[3] * cx + jr[4] * cy + jr[5] * cz
    jz = jr[6] * cx + jr[7] * cy + jr[8] * cz
    k = 3.0 * (MU_EARTH * 1e-9) / (rr * rn)
    return (k * (cy * jz - cz * jy), k * (cz * jx - cx * jz), k * (cx * jy - cy * jx))


@jitable
def disturbance_torque(q, t: float, amplitude, period: float, inertial: bool):
    """A disturbance torque in body axes: ``D`` (``period`` 0) or ``D sin(2 pi t / period)``.

    ``D`` is given in body axes, or in inertial axes (``inertial``), turned
    into body axes by the attitude ``q``.
    """
    d = amplitude
    if period > 0.0:
        k = math.sin(2.0 * math.pi * t / period)
        d = (k * d[0], k * d[1], k * d[2])
    if inertial:
        return to_body(q, d)
    return d


def orbit_quaternion(t: float, n: float) -> tuple:
    """``Q_o = (0, sin(nt/2), 0, cos(nt/2))``: the orbit frame's attitude (inertial -> orbit), Hoffmann (2.1)."""
    return (0.0, math.sin(0.5 * n * t), 0.0, math.cos(0.5 * n * t))


@jitable
def to_orbit_frame(q, t, n):
    """The attitude relative to the orbit frame: ``Q_r`` with ``C(Q) = C(Q_r) C(Q_o)`` (orbit -> body).

    With Hoffmann's product (1.7) (:func:`sim.core.quaternion.product`) and
    conjugate (1.10), ``Q_r = Q . Q_o'``.  Its aircraft angles are yaw,
    pitch and roll against the local vertical.
    """
    s = math.sin(0.5 * n * t)
    c = math.cos(0.5 * n * t)
    q1, q2, q3, q4 = q
    # (q1, q2, q3, q4) . (0, -s, 0, c)
    return (c * q1 + s * q3, c * q2 - s * q4, c * q3 - s * q1, c * q4 + s * q2)
