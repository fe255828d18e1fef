"""The Sun's direction and distance from the Earth: the Astronomical Almanac's low-precision formula.

*The Astronomical Almanac* (U.S. Naval Observatory / HM Nautical Almanac
Office), section C, "Low precision formulas for the Sun", stated there to
give the Sun's apparent coordinates to 0.01 deg between 1950 and 2050; with
``n`` days of TT from J2000.0 (the almanac's UT differs by a minute: 0.001 deg)::

    L = 280.460 deg + 0.9856474 deg n       mean longitude (aberration included)
    g = 357.528 deg + 0.9856003 deg n       mean anomaly
    lambda = L + 1.915 deg sin g + 0.020 deg sin 2g     ecliptic longitude (beta = 0)
    epsilon = 23.439 deg - 0.0000004 deg n              obliquity
    R = 1.00014 - 0.01671 cos g - 0.00014 cos 2g        distance, AU

The unit vector ``(cos lambda, cos epsilon sin lambda, sin epsilon sin lambda)``
is referred to the equator and equinox of date; it is taken to J2000 (ECI,
:mod:`sim.world.frames`) by the transpose of the IAU 1976 precession
(:func:`sim.world.frames.precession`).  Refused outside 1950-2050 (:mod:`sim.world.time`).
"""

from __future__ import annotations

import math

from sim.core.jit import jitable
from sim.core.ops import FLOAT, cos_of, sin_of
from sim.core.algebra import matvec_MtV
from sim.world.frames import precession

__all__ = ["AU_KM", "sun_position", "sun_direction"]

#: The astronomical unit, km (IAU 2012).
AU_KM = 149597870.7
_RAD = math.pi / 180.0


@jitable
def sun_direction(days_tt, ops=FLOAT):
    """``(s, r_au)``: the unit vector to the Sun in ECI (J2000) and its distance in AU, ``days_tt`` days of TT from J2000.0.

    The Astronomical Almanac's formula (module docstring).
    """
    n = days_tt
    big_l = (280.460 + 0.9856474 * n) * _RAD
    g = (357.528 + 0.9856003 * n) * _RAD
    lam = big_l + (1.915 * _RAD) * sin_of(g, ops) + (0.020 * _RAD) * sin_of(2.0 * g, ops)
    eps = (23.439 - 0.0000004 * n) * _RAD
    r = 1.00014 - 0.01671 * cos_of(g, ops) - 0.00014 * cos_of(2.0 * g, ops)
    cl, sl = cos_of(lam, ops), sin_of(lam, ops)
    of_date = (cl, cos_of(eps, ops) * sl, sin_of(eps, ops) * sl)
    return matvec_MtV(precession(n / 36525.0, ops), of_date), r


@jitable
def sun_position(days_tt, ops=FLOAT):
    """The Sun's position from the Earth's centre, ECI, km (:func:`sun_direction` times its distance)."""
    s, r = sun_direction(days_tt, ops)
    k = r * AU_KM
    return (k * s[0], k * s[1], k * s[2])
