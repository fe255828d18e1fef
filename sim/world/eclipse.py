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

from sim.core.jit import jitable
from sim.core.ops import FLOAT, atan2_of, clip_of, select_of, sqrt_of

__all__ = ["R_SUN_KM", "sunlit_fraction", "beta_angle"]

#: The Sun's radius, km (Montenbruck & Gill, Table 3.2).
R_SUN_KM = 696000.0
_R_EARTH_KM = 6378.137


@jitable
def asin_by_atan2(x, ops):
    """``asin x = atan2(x, sqrt(1 - x^2))`` (accurate near +-1, and the same ``atan2`` on floats and rows)."""
    return atan2_of(x, sqrt_of(1.0 - x * x, ops), ops)


@jitable
def acos_by_atan2(x, ops):
    """``acos x = atan2(sqrt(1 - x^2), x)``."""
    return atan2_of(sqrt_of(1.0 - x * x, ops), x, ops)


@jitable
def sunlit_fraction(r, s, ops=FLOAT):
    """The visible fraction (0..1) of the solar disc from ECI position ``r`` with the Sun at ``s`` (both km).

    Montenbruck & Gill (3.85)-(3.87) (module docstring).
    """
    dx, dy, dz = s[0] - r[0], s[1] - r[1], s[2] - r[2]
    d = sqrt_of(dx * dx + dy * dy + dz * dz, ops)
    rn = sqrt_of(r[0] * r[0] + r[1] * r[1] + r[2] * r[2], ops)
    a = asin_by_atan2(R_SUN_KM / d, ops)
    b = asin_by_atan2(_R_EARTH_KM / rn, ops)
    cosc = clip_of(-(r[0] * dx + r[1] * dy + r[2] * dz) / (rn * d), -1.0, 1.0, ops)
    c = acos_by_atan2(cosc, ops)
    # the penumbra's overlap, with arguments kept in range where it is not used
    cc = select_of(c > 0.0, c, 1.0, ops)
    x = (cc * cc + a * a - b * b) / (2.0 * cc)
    xa = clip_of(x / a, -1.0, 1.0, ops)
    xb = clip_of((cc - x) / b, -1.0, 1.0, ops)
    y = sqrt_of(clip_of(a * a - x * x, 0.0, math.inf, ops), ops)
    area = a * a * acos_by_atan2(xa, ops) + b * b * acos_by_atan2(xb, ops) - cc * y
    partial = clip_of(1.0 - area / (math.pi * a * a), 0.0, 1.0, ops)
    annular = 1.0 - (b * b) / (a * a)
    return select_of(c >= a + b, 1.0, select_of(c <= b - a, 0.0, select_of(c <= a - b, annular, partial, ops), ops),
                     ops)


@jitable
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
    return asin_by_atan2(clip_of((sun[0] * hx + sun[1] * hy + sun[2] * hz) / sqrt_of(hx * hx + hy * hy + hz * hz, ops),
                                 -1.0, 1.0, ops), ops)
