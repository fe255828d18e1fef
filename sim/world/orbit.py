"""Orbits: Keplerian elements and states, two-body, two-body + J2 (secular), and TLEs through SGP4.

Units: km, km/s, rad, s.  Positions and velocities are ECI (J2000, :mod:`sim.world.frames`).

* **Two-body** (:class:`KeplerOrbit` with ``j2=False``): the mean anomaly
  advances as ``M = M0 + n t``, ``n = sqrt(mu / a^3)``; Kepler's equation is
  solved by Newton's method (Vallado, *Fundamentals of Astrodynamics and
  Applications*, 4th ed., Algorithm 2 (KepEqtnE)) and the state follows from the
  eccentric anomaly directly (:func:`anomaly_state`; from elements with a true
  anomaly, Vallado Algorithm 10 (COE2RV)).  Exact at any ``t``: no step.
* **Two-body + J2** (``j2=True``): the given elements are taken as mean
  elements whose node, perigee and mean anomaly drift at the first-order
  secular rates (Vallado (9-41); Brouwer 1959), with ``p = a (1 - e^2)``::

      dRAAN/dt = -3/2 n J2 (R/p)^2 cos i
      dargp/dt =  3/4 n J2 (R/p)^2 (5 cos^2 i - 1)
      dM/dt    =  n (1 + 3/4 J2 (R/p)^2 sqrt(1 - e^2) (3 cos^2 i - 1))

  a, e and i stay constant.  The short-periodic terms (relative size J2, a
  few km in position at low altitude) are left out: this is the scheme of
  choice for attitude work because it is evaluated at any time without a
  step or a carried state (the attitude step runs from 1 ms to 10 s), costs
  what the two-body orbit costs, and runs as written on numpy columns.  Why
  and what it costs: docs/PHYSICS.md, "Orbit".
* **TLE** (:class:`TleOrbit`): the `sgp4` package (Vallado et al. 2006) gives
  the state in TEME; TEME is taken as the mean equator and equinox of date
  (nutation, < 20 arcsec, neglected) and precessed to J2000 by the transpose
  of :func:`sim.world.frames.precession`.
"""

from __future__ import annotations

import math

import numpy as np
from sgp4.api import SGP4_ERRORS, Satrec

from sim.core.jit import jitable, kernel
from sim.core.ops import FLOAT
from sim.core.algebra import matvec_MtV
from sim.world.frames import WGS84_A_KM, precession
from sim.world.time import DAY, Epoch, julian_centuries_tt

__all__ = ["MU_KM", "J2", "R_EARTH_KM", "OrbitError", "KEPLER_TOL", "KEPLER_STEP", "kepler", "eccentric_sincos",
           "eccentric_anomaly", "coe_to_rv", "orbit_shape", "orbit_axes", "perifocal_state", "anomaly_state",
           "axes_fixed", "shape_state", "mean_elements_state", "true_to_mean", "elements_to_state",
           "state_to_elements", "j2_rates", "KeplerOrbit", "TleOrbit", "read_tle", "check_elements"]

#: The Earth's gravitational parameter, km^3/s^2 (EGM96; the same as sim.world.environment's MU_EARTH).
MU_KM = 398600.4418
#: The Earth's second zonal harmonic (EGM96, unnormalised).
J2 = 1.08262668e-3
#: The Earth's equatorial radius, km (WGS-84).
R_EARTH_KM = WGS84_A_KM


class OrbitError(ValueError):
    """Elements or a TLE that make no orbit (one line, naming what is wrong)."""


#: Kepler's equation is solved when Newton's next iterate is within this of the root (rad) by the a priori bound
#: of :func:`eccentric_sincos`: a twentieth of an ulp of ``E`` at 1 rad.
KEPLER_TOL = 1e-17
#: ... and its last step at most this (rad): the angle difference's series of :func:`eccentric_sincos` to ``d^2``
#: then leaves under ``d^3 / 6``, 1.7e-19 (a thousandth of an ulp at 0.5).
KEPLER_STEP = 1e-6


@jitable
def eccentric_sincos(m, e):
    """``(E, sin E, cos E)``: the eccentric anomaly of Kepler's equation ``M = E - e sin E`` (rad), Vallado
    Algorithm 2 (KepEqtnE), and its sine and cosine, what the state at ``E`` reads (:func:`anomaly_state`).

    ``M`` is taken into ``[-pi, pi)``; Newton's method from Vallado's start ``E = M - e`` for ``M < 0``,
    ``M + e`` otherwise.  A pass at ``E`` makes ``sin E`` and ``cos E`` for its step ``d``; Newton's next
    iterate ``E - d`` is within ``e d^2 / (2 (1 - e))`` of the root (``f' = 1 - e cos E >= 1 - e``,
    ``|f''| = |e sin E| <= e``), so the passes stop when that bound is under :data:`KEPLER_TOL` and ``|d|``
    under :data:`KEPLER_STEP` (at most 50 passes), and the sine and cosine of ``E - d`` come from the last
    pass's by the angle difference, ``sin(E - d) = sin E (1 - d^2/2) - d cos E``,
    ``cos(E - d) = cos E (1 - d^2/2) + d sin E``: no pass made only to find the step small, and no
    sine or cosine made again (two passes at e = 0.006 where a stop on ``|d| <= 1e-15`` made three; ``E``, its
    sine and cosine within 2 ulp, tests/sim/core/test_kepler_equation.py).  ``d`` is the difference of the two
    iterates as rounded, so the sine and cosine are those of the ``E`` returned.
    """
    m = m - (2.0 * math.pi) * ((m + math.pi) // (2.0 * math.pi))  # into [-pi, pi)
    ee = m + e * (-1.0 if m < 0.0 else 1.0)
    for _ in range(50):
        s, c = math.sin(ee), math.cos(ee)
        new = ee - (ee - e * s - m) / (1.0 - e * c)
        d = ee - new
        if not abs(d) > KEPLER_STEP and not e * d * d > 2.0 * KEPLER_TOL * (1.0 - e):  # (NaN: returned as it is)
            h = 1.0 - 0.5 * d * d
            return new, s * h - c * d, c * h + s * d
        ee = new
    return ee, math.sin(ee), math.cos(ee)


@jitable
def eccentric_anomaly(m, e):
    """The eccentric anomaly ``E`` of Kepler's equation ``M = E - e sin E`` (rad): :func:`eccentric_sincos`'s."""
    return eccentric_sincos(m, e)[0]


@kernel
def _eccentric_rows(m, e):
    out = np.empty(m.shape[0])
    for j in range(m.shape[0]):
        out[j] = eccentric_anomaly(m[j], e[j])
    return out


def _rows(*values):
    """``values`` (floats or rows) as contiguous float rows of one common length."""
    return [np.array(v) for v in np.broadcast_arrays(*(np.asarray(v, dtype=float).reshape(-1) for v in values))]


def kepler(m, e, ops=FLOAT):
    """:func:`eccentric_anomaly` of floats (``ops`` = FLOAT) or of rows, one per body (COLUMN)."""
    if ops is FLOAT:
        return eccentric_anomaly(m, e)
    return _eccentric_rows(*_rows(m, e))


def true_to_mean(nu, e, ops=FLOAT):
    """The mean anomaly of true anomaly ``nu`` (rad): ``E = 2 atan2(sqrt(1-e) sin(nu/2), sqrt(1+e) cos(nu/2))``,
    ``M = E - e sin E`` (Vallado (2-9), Algorithm 5)."""
    ee = 2.0 * ops.atan2(ops.sqrt(1.0 - e) * ops.sin(0.5 * nu), ops.sqrt(1.0 + e) * ops.cos(0.5 * nu))
    return ee - e * ops.sin(ee)


@jitable
def orbit_shape(a, e, i, mu):
    """What of the state at an eccentric anomaly (:func:`anomaly_state`) the node and perigee do not move:
    ``(a, sqrt(mu/a), cos i, sin i, sqrt(1 - e^2))``."""
    return a, math.sqrt(mu / a), math.cos(i), math.sin(i), math.sqrt((1.0 - e) * (1.0 + e))


@jitable
def orbit_axes(raan, argp, ci, si):
    """The perifocal frame's ``P`` and ``Q`` in ECI: the columns of ``R3(-RAAN) R1(-i) R3(-argp)`` (Vallado
    Algorithm 10), ``ci, si`` the inclination's cosine and sine (:func:`orbit_shape`)."""
    co, so = math.cos(raan), math.sin(raan)
    cw, sw = math.cos(argp), math.sin(argp)
    return ((co * cw - so * sw * ci, so * cw + co * sw * ci, sw * si),
            (-co * sw - so * cw * ci, -so * sw + co * cw * ci, cw * si))


@jitable
def _turned(px, py, vx, vy, axes):
    """The perifocal ``(px, py, 0)`` and ``(vx, vy, 0)`` in ECI by the frame's ``(P, Q)`` (:func:`orbit_axes`)."""
    (p1, p2, p3), (q1, q2, q3) = axes
    return (p1 * px + q1 * py, p2 * px + q2 * py, p3 * px + q3 * py,
            p1 * vx + q1 * vy, p2 * vx + q2 * vy, p3 * vx + q3 * vy)


@jitable
def perifocal_state(e, nu, p, k, axes):
    """``(rx, ry, rz, vx, vy, vz)`` at true anomaly ``nu`` (Vallado Algorithm 10: perifocal
    ``r = p/(1 + e cos nu) (cos nu, sin nu, 0)``, ``v = sqrt(mu/p) (-sin nu, e + cos nu, 0)``, turned by
    :func:`orbit_axes`), ``p = a (1 - e^2)`` the semi-latus rectum and ``k = sqrt(mu/p)``."""
    cn, sn = math.cos(nu), math.sin(nu)
    rr = p / (1.0 + e * cn)
    return _turned(rr * cn, rr * sn, -k * sn, k * (e + cn), axes)


@jitable
def anomaly_state(e, se, ce, shape, axes):
    """``(rx, ry, rz, vx, vy, vz)`` at the eccentric anomaly of sine ``se`` and cosine ``ce``
    (:func:`eccentric_sincos`) of an orbit's :func:`orbit_shape` and :func:`orbit_axes`: the ellipse in its
    eccentric anomaly (Vallado, *Fundamentals of Astrodynamics and Applications*, 4th ed., Sec. 2.2; Curtis,
    *Orbital Mechanics for Engineering Students*, Ch. 3), perifocal ``r = a (cos E - e, sqrt(1-e^2) sin E, 0)``
    (``|r| = a (1 - e cos E)``) and, with ``dE/dt = n / (1 - e cos E)``, ``n = sqrt(mu/a^3)``,
    ``v = sqrt(mu/a) / (1 - e cos E) (-sin E, sqrt(1-e^2) cos E, 0)``, turned by ``(P, Q)``.  The same state as
    the true anomaly's (:func:`perifocal_state`) without the true anomaly: no ``atan2``, no sine and cosine of it."""
    a, k, f = shape[0], shape[1], shape[4]
    g = k / (1.0 - e * ce)
    return _turned(a * (ce - e), a * f * se, -g * se, g * f * ce, axes)


@jitable
def coe_to_rv(a, e, i, raan, argp, nu, mu):
    """``(rx, ry, rz, vx, vy, vz)`` ECI (km, km/s) of elements ``a`` (km), ``e``, ``i``, RAAN, argument of perigee,
    true anomaly (rad), ``mu`` km^3/s^2: Vallado Algorithm 10 (COE2RV), :func:`perifocal_state` turned by
    :func:`orbit_axes`.
    """
    p = a * (1.0 - e * e)
    return perifocal_state(e, nu, p, math.sqrt(mu / p), orbit_axes(raan, argp, math.cos(i), math.sin(i)))


@jitable
def axes_fixed(raan, argp, raan_rate, argp_rate) -> bool:
    """True when :func:`orbit_axes` at ``RAAN + dRAAN/dt t``, ``argp + dargp/dt t`` is the same to the bit at
    every finite ``t`` (no drift; and no ``-0.0`` angle, which ``+ 0.0 t`` would turn into ``+0.0``): they may
    then be computed once (:func:`shape_state`)."""
    return (raan_rate == 0.0 and argp_rate == 0.0 and not (raan == 0.0 and math.copysign(1.0, raan) < 0.0)
            and not (argp == 0.0 and math.copysign(1.0, argp) < 0.0))


@jitable
def shape_state(shape, axes, fixed, e, raan, argp, m0, raan_rate, argp_rate, m_rate, t):
    """:func:`mean_elements_state` at ``t`` of an orbit's :func:`orbit_shape` (computed once), and its
    :func:`orbit_axes` computed once when ``fixed`` (:func:`axes_fixed`), else made at ``t`` here."""
    _, se, ce = eccentric_sincos(m0 + m_rate * t, e)
    if not fixed:
        axes = orbit_axes(raan + raan_rate * t, argp + argp_rate * t, shape[2], shape[3])
    return anomaly_state(e, se, ce, shape, axes)


@jitable
def mean_elements_state(a, e, i, raan, argp, m0, raan_rate, argp_rate, m_rate, t):
    """``(rx, ry, rz, vx, vy, vz)`` at ``t`` of mean elements drifting at constant rates (two-body, or the J2
    secular rates of :func:`j2_rates`): ``M = M0 + dM/dt t``, :func:`eccentric_sincos`, the state at the
    eccentric anomaly (:func:`anomaly_state`) turned by the axes of the node and perigee at ``t``
    (:func:`shape_state`, its parts made at ``t``)."""
    axes = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
    return shape_state(orbit_shape(a, e, i, MU_KM), axes, False, e, raan, argp, m0, raan_rate, argp_rate, m_rate, t)


@kernel
def _coe_rows(a, e, i, raan, argp, nu, mu):
    out = np.empty((6, a.shape[0]))
    for j in range(a.shape[0]):
        out[0, j], out[1, j], out[2, j], out[3, j], out[4, j], out[5, j] = coe_to_rv(a[j], e[j], i[j], raan[j],
                                                                                   argp[j], nu[j], mu)
    return out


@kernel
def _state_one(a, e, i, raan, argp, m0, raan_rate, argp_rate, m_rate, t):
    return mean_elements_state(a, e, i, raan, argp, m0, raan_rate, argp_rate, m_rate, t)


@kernel
def _state_rows(el, t):
    out = np.empty((6, t.shape[0]))
    for j in range(t.shape[0]):
        out[0, j], out[1, j], out[2, j], out[3, j], out[4, j], out[5, j] = mean_elements_state(
            el[0, j], el[1, j], el[2, j], el[3, j], el[4, j], el[5, j], el[6, j], el[7, j], el[8, j], t[j])
    return out


def elements_to_state(a, e, i, raan, argp, nu, ops=FLOAT, mu=MU_KM):
    """``(r, v)`` ECI (km, km/s) of elements (:func:`coe_to_rv`): floats, or rows (``ops`` = COLUMN)."""
    if ops is FLOAT:
        x = coe_to_rv(a, e, i, raan, argp, nu, mu)
    else:
        x = _coe_rows(*_rows(a, e, i, raan, argp, nu), float(mu))
    return (x[0], x[1], x[2]), (x[3], x[4], x[5])


def state_to_elements(r, v, mu=MU_KM):
    """``(a, e, i, raan, argp, nu)`` of an ECI state (floats), Vallado Algorithm 9 (RV2COE), non-circular, non-equatorial."""
    rx, ry, rz = r
    vx, vy, vz = v
    rn = math.sqrt(rx * rx + ry * ry + rz * rz)
    v2 = vx * vx + vy * vy + vz * vz
    h = (ry * vz - rz * vy, rz * vx - rx * vz, rx * vy - ry * vx)
    hn = math.sqrt(h[0] ** 2 + h[1] ** 2 + h[2] ** 2)
    nvec = (-h[1], h[0], 0.0)
    nn = math.hypot(nvec[0], nvec[1])
    rv = rx * vx + ry * vy + rz * vz
    ev = tuple(((v2 - mu / rn) * ri - rv * vi) / mu for ri, vi in zip(r, v))
    e = math.sqrt(sum(x * x for x in ev))
    a = 1.0 / (2.0 / rn - v2 / mu)
    i = math.acos(h[2] / hn)
    raan = math.atan2(nvec[1], nvec[0]) % (2 * math.pi)
    argp = math.acos(max(-1.0, min(1.0, (nvec[0] * ev[0] + nvec[1] * ev[1]) / (nn * e))))
    if ev[2] < 0:
        argp = 2 * math.pi - argp
    nu = math.acos(max(-1.0, min(1.0, sum(x * y for x, y in zip(ev, r)) / (e * rn))))
    if rv < 0:
        nu = 2 * math.pi - nu
    return a, e, i, raan, argp, nu


def j2_rates(a, e, i, ops=FLOAT):
    """``(dRAAN/dt, dargp/dt, dM/dt)``, rad/s, the first-order secular J2 rates (module docstring)."""
    n = ops.sqrt(MU_KM / (a * a * a))
    p = a * (1.0 - e * e)
    k = J2 * (R_EARTH_KM / p) ** 2
    c = ops.cos(i)
    return (-1.5 * n * k * c, 0.75 * n * k * (5.0 * c * c - 1.0),
            n * (1.0 + 0.75 * k * ops.sqrt(1.0 - e * e) * (3.0 * c * c - 1.0)))


def check_elements(a, e, name="orbit") -> None:
    """OrbitError unless ``0 <= e < 1`` and the perigee ``a (1 - e)`` is above the Earth's surface."""
    if not (0.0 <= e < 1.0):
        raise OrbitError(f"{name}: eccentricity {e:g} makes no closed orbit (0 <= e < 1)")
    perigee = a * (1.0 - e) - R_EARTH_KM
    if not perigee > 0.0:
        raise OrbitError(f"{name}: the perigee is {-perigee:.1f} km under the Earth's surface "
                         f"(a = {a:.1f} km, e = {e:g})")


class KeplerOrbit:
    """An orbit of mean elements at the epoch, two-body or two-body + J2 secular (module docstring).

    Parameters: ``a`` km, ``e``, ``i``, ``raan``, ``argp``, ``nu`` rad (floats,
    or numpy rows for one orbit per body), ``j2`` bool.  :meth:`state` gives
    ``(r, v)`` at ``t`` s after the epoch.
    """

    __slots__ = ("a", "e", "i", "raan", "argp", "m0", "rates", "j2", "ops", "_elements", "_shape")

    def __init__(self, a, e, i, raan, argp, nu, j2=False, ops=FLOAT):
        self.a, self.e, self.i, self.raan, self.argp, self.j2, self.ops = a, e, i, raan, argp, j2, ops
        self.m0 = true_to_mean(nu, e, ops)
        n = ops.sqrt(MU_KM / (a * a * a))
        self.rates = j2_rates(a, e, i, ops) if j2 else (0.0 * n, 0.0 * n, n)
        # what :func:`mean_elements_state` takes: nine floats, or nine rows (9, N) for one orbit per body
        values = (a, e, i, raan, argp, self.m0, *self.rates)
        self._elements = (tuple(float(x) for x in values) if ops is FLOAT
                          else np.ascontiguousarray(_rows(*values)))
        self._shape = () if ops is FLOAT else np.broadcast_shapes(*(np.shape(x) for x in values))

    @property
    def elements_and_rates(self) -> tuple:
        """What :func:`mean_elements_state` takes besides ``t``: ``(a, e, i, raan, argp, M0, dRAAN/dt, dargp/dt,
        dM/dt)``, floats (or rows (9, N) for one orbit per body)."""
        return self._elements

    @property
    def period(self):
        """The anomalistic period ``2 pi / (dM/dt)``, s."""
        return 2.0 * math.pi / self.rates[2]

    def elements(self, t):
        """``(a, e, i, raan, argp, M)`` at ``t`` s after the epoch (the mean elements; M the mean anomaly)."""
        dr, dw, dm = self.rates
        return self.a, self.e, self.i, self.raan + dr * t, self.argp + dw * t, self.m0 + dm * t

    def state(self, t):
        """``(r, v)`` ECI, km and km/s, at ``t`` s after the epoch (:func:`mean_elements_state`, compiled)."""
        if self.ops is FLOAT:
            x = _state_one(*self._elements, float(t))
        else:  # rows: one orbit per body, or one orbit at many times
            shape = np.broadcast_shapes(self._shape, np.shape(t))
            n = math.prod(shape)
            el = self._elements if self._elements.shape[1] == n else np.ascontiguousarray(
                np.broadcast_to(self._elements, (9, n)))
            x = _state_rows(el, np.ascontiguousarray(np.broadcast_to(np.asarray(t, float).reshape(-1), (n,))))
            x = [row.reshape(shape) for row in x] if shape else [float(row[0]) for row in x]
        return (x[0], x[1], x[2]), (x[3], x[4], x[5])


#: A TLE's numeric fields, 0-based column slices of lines 1 and 2 (NORAD's two-line element format).
TLE_FIELDS = {1: ((18, 32, "the epoch"), (33, 43, "the mean motion's first derivative"),
                  (44, 52, "the mean motion's second derivative"), (53, 61, "B*")),
              2: ((8, 16, "the inclination"), (17, 25, "the node"), (26, 33, "the eccentricity"),
                  (34, 42, "the argument of perigee"), (43, 51, "the mean anomaly"), (52, 63, "the mean motion"))}
#: The largest mean motion a TLE may hold, rev/day: an orbit at the surface makes about 17.
TLE_MEAN_MOTION_MAX = 18.0


def read_tle(text: str, name: str = "tle") -> Satrec:
    """A ``Satrec`` of a two-line element set (the two lines, or three with a title line); OrbitError when malformed."""
    lines = [ln.rstrip() for ln in str(text).splitlines() if ln.strip()]
    lines = [ln for ln in lines if ln[:2] in ("1 ", "2 ")] if len(lines) == 3 else lines
    if len(lines) != 2 or not lines[0].startswith("1 ") or not lines[1].startswith("2 "):
        raise OrbitError(f"{name}: expected two lines starting '1 ' and '2 ' (a two-line element set)")
    for k, ln in enumerate(lines, 1):
        if len(ln) < 68:
            raise OrbitError(f"{name}: line {k} has {len(ln)} characters, a TLE line has 69")
        if len(ln) >= 69 and ln[68].isdigit():
            total = sum(int(c) if c.isdigit() else (1 if c == "-" else 0) for c in ln[:68])
            if total % 10 != int(ln[68]):
                raise OrbitError(f"{name}: line {k} fails its checksum ({total % 10} computed, {ln[68]} given)")
    for k, ln in enumerate(lines, 1):  # the parser reads "nan" and skips letters: only a number's characters
        for start, end, what in TLE_FIELDS[k]:
            text = ln[start:end]
            if text.strip(" 0123456789.+-"):
                raise OrbitError(f"{name}: line {k}, columns {start + 1}-{end}: {what} {text.strip()!r} "
                                 "is not a number")
    try:
        sat = Satrec.twoline2rv(lines[0], lines[1])
    except (ValueError, IndexError) as exc:
        raise OrbitError(f"{name}: not a readable TLE ({exc})") from None
    if sat.error:
        raise OrbitError(f"{name}: SGP4 refuses this element set (error {sat.error})")
    revs = sat.no_kozai * DAY / 60.0 / (2.0 * math.pi)
    inc = math.degrees(sat.inclo)
    for what, value, ok, span in (("the epoch's day of the year", sat.epochdays, 1.0 <= sat.epochdays < 367.0, "1 to 366"),
                                  ("the mean motion", revs, 0.0 < revs <= TLE_MEAN_MOTION_MAX,
                                   f"above 0, at most {TLE_MEAN_MOTION_MAX:g} rev/day"),
                                  ("the eccentricity", sat.ecco, 0.0 <= sat.ecco < 1.0, "0 <= e < 1"),
                                  ("the inclination", inc, 0.0 <= inc <= 180.0, "0 to 180 deg"),
                                  ("B*", sat.bstar, math.isfinite(sat.bstar), "a finite number"),
                                  ("the mean motion's derivatives", sat.ndot + sat.nddot,
                                   math.isfinite(sat.ndot + sat.nddot), "finite numbers")):
        if not ok:  # a comparison with nan is False: nan is refused here too
            raise OrbitError(f"{name}: {what} is {value:g}, outside the TLE's range ({span})")
    return sat


class TleOrbit:
    """A TLE propagated by SGP4 (the `sgp4` package) from the run's epoch; TEME -> J2000 (module docstring).

    Floats only (one orbit shared by every body of an ensemble).
    """

    __slots__ = ("sat", "epoch", "j2")

    def __init__(self, sat: Satrec, epoch: Epoch):
        self.sat, self.epoch, self.j2 = sat, epoch, True

    @property
    def period(self) -> float:
        return 2.0 * math.pi / (self.sat.no_kozai / 60.0)

    def state(self, t: float):
        ep = self.epoch
        frac = ep.jd_frac + t / DAY
        whole = math.floor(frac)
        err, r, v = self.sat.sgp4(ep.jd_day + whole, frac - whole)
        if err:
            raise OrbitError(f"tle: SGP4 error {err} at t = {t:g} s ({SGP4_ERRORS.get(err, 'no orbit')}): "
                             "the element set has decayed or is used too far from its epoch")
        if not math.hypot(*r) > R_EARTH_KM:  # the orbit's domain: above the surface (a decaying set reaches it)
            raise OrbitError(f"tle: the orbit is under the Earth's surface at t = {t:g} s (the element set has decayed)")
        p = precession(julian_centuries_tt(ep.days_tt(t)))
        return matvec_MtV(p, r), matvec_MtV(p, v)
