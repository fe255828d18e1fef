"""Frames: ECI (J2000), ECEF, geodetic coordinates (WGS-84) and LVLH.

Approximations (docs/PHYSICS.md, "Time and frames"):

* ECI is the J2000 frame (EME2000; the GCRS to within 0.02 arcsec): its axes never move.
* ECEF is ECI turned about its z axis by Greenwich mean sidereal time (IAU 1982,
  :func:`sim.world.time.gmst`) after the mean pole and equinox of date are taken
  from J2000 by the IAU 1976 precession (:func:`precession`):
  ``r_ECEF = R3(GMST) P r_ECI``.  Nutation (< 20 arcsec), the equation of the
  equinoxes (< 1.2 s of time) and polar motion (< 0.5 arcsec) are neglected:
  a point on the ground is placed to about 0.6 km.
* LVLH as in Markley & Crassidis, *Fundamentals of Spacecraft Attitude
  Determination and Control* (2014), (2.77): ``o3 = -r/|r|`` (nadir),
  ``o2 = -(r x v)/|r x v|`` (minus the orbit normal), ``o1 = o2 x o3`` (along
  the velocity on a circular orbit).

Vectors are 3-tuples of floats, or of numpy rows (one value per body), through
:mod:`sim.core.ops`; matrices 9-tuples, row major.
"""

from __future__ import annotations

import math

from sim.core.algebra import cross_VV, matvec_MtV, matvec_MV, unit_V
from sim.core.jit import jitable
from sim.core.ops import FLOAT, atan2_of, cos_of, sin_of, sqrt_of

__all__ = ["WGS84_A_KM", "WGS84_F", "precession", "eci_to_ecef", "ecef_to_eci",
           "geodetic_to_ecef", "ecef_to_geodetic", "lvlh"]

#: WGS-84 semi-major axis, km, and flattening (NIMA TR8350.2).
WGS84_A_KM = 6378.137
WGS84_F = 1.0 / 298.257223563
_E2 = WGS84_F * (2.0 - WGS84_F)
_ARCSEC = math.pi / (180.0 * 3600.0)


@jitable
def precession(t_tt, ops=FLOAT):
    """The IAU 1976 precession matrix ``P`` (J2000 -> mean equator and equinox of date), row major.

    Lieske et al. (1977); Montenbruck & Gill, *Satellite Orbits* (2000), (5.45)
    and (5.46): ``P = R3(-z) R2(theta) R3(-zeta)`` with, in arcsec and Julian
    centuries ``T`` of TT from J2000, ``zeta = 2306.2181 T + 0.30188 T^2
    + 0.017998 T^3``, ``theta = 2004.3109 T - 0.42665 T^2 - 0.041833 T^3``,
    ``z = 2306.2181 T + 1.09468 T^2 + 0.018203 T^3``.
    """
    t = t_tt
    zeta = ((0.017998 * t + 0.30188) * t + 2306.2181) * t * _ARCSEC
    theta = ((-0.041833 * t - 0.42665) * t + 2004.3109) * t * _ARCSEC
    z = ((0.018203 * t + 1.09468) * t + 2306.2181) * t * _ARCSEC
    cz, sz = cos_of(zeta, ops), sin_of(zeta, ops)
    ct, st = cos_of(theta, ops), sin_of(theta, ops)
    cZ, sZ = cos_of(z, ops), sin_of(z, ops)
    return (cZ * ct * cz - sZ * sz, -cZ * ct * sz - sZ * cz, -cZ * st,
            sZ * ct * cz + cZ * sz, -sZ * ct * sz + cZ * cz, -sZ * st,
            st * cz, -st * sz, ct)


@jitable
def eci_to_ecef(r, theta, p):
    """``R3(theta) P r``: an ECI vector in ECEF axes; ``theta`` GMST's cosine and sine ``(c, s)``, ``p`` :func:`precession`."""
    x, y, z = matvec_MV(p, r)
    c, s = theta
    return (c * x + s * y, -s * x + c * y, z)


@jitable
def ecef_to_eci(r, theta, p):
    """``P^T R3(-theta) r``: the inverse of :func:`eci_to_ecef`."""
    c, s = theta
    x, y, z = r
    return matvec_MtV(p, (c * x - s * y, s * x + c * y, z))


@jitable
def geodetic_to_ecef(lat, lon, alt_km, ops=FLOAT):
    """ECEF position, km, of geodetic latitude, longitude (rad) and height over the WGS-84 ellipsoid (km).

    Montenbruck & Gill (5.83): ``N = a / sqrt(1 - e^2 sin^2 lat)``,
    ``r = ((N + h) cos lat cos lon, (N + h) cos lat sin lon, ((1 - e^2) N + h) sin lat)``.
    """
    sl, cl = sin_of(lat, ops), cos_of(lat, ops)
    n = WGS84_A_KM / sqrt_of(1.0 - _E2 * sl * sl, ops)
    return ((n + alt_km) * cl * cos_of(lon, ops), (n + alt_km) * cl * sin_of(lon, ops), ((1.0 - _E2) * n + alt_km) * sl)


@jitable
def ecef_to_geodetic(r, ops=FLOAT):
    """``(lat, lon, alt_km)`` (rad, rad, km over WGS-84) of an ECEF position in km.

    Bowring's iteration (Montenbruck & Gill 5.5): ``dz`` from
    ``dz = e^2 N sin lat`` starting at ``e^2 z``, six passes (converged to
    well under a millimetre for any height above the Earth's centre region).
    """
    x, y, z = r
    rho2 = x * x + y * y
    dz = _E2 * z
    n = WGS84_A_KM + 0.0 * z
    for _ in range(6):
        zdz = z + dz
        s = zdz / sqrt_of(rho2 + zdz * zdz, ops)
        n = WGS84_A_KM / sqrt_of(1.0 - _E2 * s * s, ops)
        dz = n * _E2 * s
    zdz = z + dz
    return (atan2_of(zdz, sqrt_of(rho2, ops), ops), atan2_of(y, x, ops), sqrt_of(rho2 + zdz * zdz, ops) - n)


@jitable
def lvlh(r, v, ops=FLOAT):
    """The LVLH triad ``(o1, o2, o3)`` in ECI, Markley & Crassidis (2.77) (module docstring)."""
    o3 = unit_V((-r[0], -r[1], -r[2]), ops)
    h = cross_VV(r, v)
    o2 = unit_V((-h[0], -h[1], -h[2]), ops)
    return cross_VV(o2, o3), o2, o3
