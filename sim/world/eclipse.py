"""Eclipses: the conical shadow of the Earth and the visible fraction of the solar disc.

Montenbruck & Gill, *Satellite Orbits* (2000), 3.4.2, (3.85)-(3.87).  Seen
from the spacecraft at ``r``, the Sun (radius 696,000 km) subtends the
apparent radius ``a = asin(R_sun / |s - r|)``, the Earth (a sphere of
radius 6,378.137 km) ``b = asin(R_E / |r|)``, and their centres are ``c``
apart, ``cos c = -r . (s - r) / (|r| |s - r|)``.  The visible fraction of
the disc is

* 1 when ``c >= a + b`` (sunlit);
* 0 when ``c <= b - a`` (umbra);
* ``1 - b^2 / a^2`` when ``c <= a - b`` (annular: the Earth inside the Sun's disc; only far from the Earth);
* else (penumbra) ``1 - A / (pi a^2)``, ``A = a^2 acos(x/a) + b^2 acos((c - x)/b) - c y``,
  ``x = (c^2 + a^2 - b^2) / (2c)``, ``y = sqrt(a^2 - x^2)``: the area of the two discs' overlap,
  the discs taken as flat.

The Earth's flattening and atmosphere are neglected (the atmosphere dims the
Sun for a few seconds more at each shadow boundary).  Arithmetic, ``sqrt``
and ``atan2`` through :mod:`sim.core.ops`: floats or numpy rows.
"""

from __future__ import annotations

import math

from sim.core.ops import FLOAT

__all__ = ["R_SUN_KM", "sunlit_fraction", "beta_angle"]

#: The Sun's radius, km (Montenbruck & Gill, Table 3.2).
R_SUN_KM = 696000.0
_R_EARTH_KM = 6378.137


def _asin(x, ops):
    return ops.atan2(x, ops.sqrt(1.0 - x * x))


def _acos(x, ops):
    return ops.atan2(ops.sqrt(1.0 - x * x), x)


def sunlit_fraction(r, s, ops=FLOAT):
    """The visible fraction (0..1) of the solar disc from ECI position ``r`` with the Sun at ``s`` (both km).

    Montenbruck & Gill (3.85)-(3.87) (module docstring).
    """
    dx, dy, dz = s[0] - r[0], s[1] - r[1], s[2] - r[2]
    d = ops.sqrt(dx * dx + dy * dy + dz * dz)
    rn = ops.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
    a = _asin(R_SUN_KM / d, ops)
    b = _asin(_R_EARTH_KM / rn, ops)
    cosc = ops.clip(-(r[0] * dx + r[1] * dy + r[2] * dz) / (rn * d), -1.0, 1.0)
    c = _acos(cosc, ops)
    # the penumbra's overlap, with arguments kept in range where it is not used
    cc = ops.select(c > 0.0, c, 1.0)
    x = (cc * cc + a * a - b * b) / (2.0 * cc)
    xa = ops.clip(x / a, -1.0, 1.0)
    xb = ops.clip((cc - x) / b, -1.0, 1.0)
    y = ops.sqrt(ops.clip(a * a - x * x, 0.0, math.inf))
    area = a * a * _acos(xa, ops) + b * b * _acos(xb, ops) - cc * y
    partial = ops.clip(1.0 - area / (math.pi * a * a), 0.0, 1.0)
    annular = 1.0 - (b * b) / (a * a)
    return ops.select(c >= a + b, 1.0, ops.select(c <= b - a, 0.0, ops.select(c <= a - b, annular, partial)))


def beta_angle(r, v, sun, ops=FLOAT):
    """The beta angle, rad: the Sun's elevation over the orbit plane, positive on the side of the orbit normal.

    ``beta = asin(s . (r x v) / |r x v|)`` with ``s`` the unit vector to the Sun
    (Rickman, *Introduction to Orbital Mechanics and Spacecraft Attitudes for
    Thermal Engineers*, NASA 2014, "beta angle"; for a circular orbit of RAAN
    ``Omega`` and inclination ``i`` with the Sun at ecliptic longitude ``Gamma``
    it is ``asin(cos Gamma sin Omega sin i - sin Gamma cos eps cos Omega sin i
    + sin Gamma sin eps cos i)``).  ``r``, ``v`` ECI (any units), ``sun`` a unit vector.
    """
    hx, hy, hz = r[1] * v[2] - r[2] * v[1], r[2] * v[0] - r[0] * v[2], r[0] * v[1] - r[1] * v[0]
    return _asin(ops.clip((sun[0] * hx + sun[1] * hy + sun[2] * hz) / ops.sqrt(hx * hx + hy * hy + hz * hz),
                          -1.0, 1.0), ops)
