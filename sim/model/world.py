"""The world of a run with an orbit, evaluated once per step: where the spacecraft is, the Sun, the shadow, the
pointing command.

:class:`World` is built from a :class:`~sim.model.settings.Settings` with orbit
elements or a TLE (``settings.has_orbit``) and gives, at each step's time, one
:class:`WorldState` record: the one place the window (issue 31's orbit view and
readouts), the surface torques and the magnetic field (issue 32) and the
sensors (issue 33) read the position, velocity, date, Sun and shadow from.

Evaluated once per step, at the step's start (docs/PHYSICS.md, "World state
per step"); the integrator's stages read the orbit itself at their own times
(:attr:`WorldState.orbit`: the gravity gradient and the drag's velocity, so
rk4 stays fourth order on an orbit), the pointing command and its rate
feed-forward hold over the step.  The formulas are :mod:`sim.world`'s and
:mod:`sim.gnc.pointing`'s; this module only assembles them, over
:mod:`sim.core.ops`: floats (one body, or one world shared by every body of
an ensemble), or numpy rows (an ensemble whose bodies' orbits or epochs
differ: one world per body, :mod:`sim.ensemble.engine`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim.core.ops import FLOAT
from sim.core.angles import from_cayley_entries
from sim.gnc.pointing import (MOVING_MODES, elevation, rate_between, references, secondary_axis,
                              two_vector)
from sim.world.atmosphere import exponential_density, msis_density
from sim.world.eclipse import beta_angle, sunlit_fraction
from sim.world.magnetic import IGRF_DEGREE, field_eci, gauss
from sim.world.frames import ecef_to_eci, ecef_to_geodetic, eci_to_ecef, geodetic_to_ecef, precession
from sim.world.orbit import R_EARTH_KM, KeplerOrbit, TleOrbit, read_tle
from sim.world.sun import AU_KM, sun_direction
from sim.world.time import decimal_year, gmst, julian_centuries_tt, parse_epoch

__all__ = ["World", "WorldState", "FEED_FORWARD_H", "FIELD_SAMPLE", "decimal_year"]

#: The interval (s) between the two commands whose difference is the rate feed-forward.
FEED_FORWARD_H = 1.0
#: IGRF (and NRLMSIS) are sampled every FIELD_SAMPLE s of simulated time and interpolated linearly
#: between the samples: under 0.02 % error in the field (docs/PHYSICS.md, "The geomagnetic field").
FIELD_SAMPLE = 10.0
#: The dipole's rate over a step is the difference of the field at t and t + DIPOLE_H, s.
DIPOLE_H = 1.0
_J2000 = np.datetime64("2000-01-01T12:00:00", "ms")



@dataclass(frozen=True, slots=True)
class WorldState:
    """The world at one step (all vectors ECI = J2000, 3-tuples of floats).

    Attributes
    ----------
    t : float
        Simulated time, s from the epoch.
    days_utc : float
        Days of UTC from J2000.0 (JD 2451545.0): the date, for a field model.
    r_km, v_kms : tuple
        Position (km) and velocity (km/s).
    sun : tuple
        Unit vector from the Earth's centre to the Sun (the spacecraft's is parallel to 4e-5 rad).
    sun_km : float
        The Sun's distance from the Earth's centre, km.
    sunlit : float
        Visible fraction of the solar disc, 0 (umbra) to 1 (sunlit).
    gmst : float
        Greenwich mean sidereal time, rad (ECEF = R3(gmst) P ECI, :mod:`sim.world.frames`).
    lat, lon, alt_km : float
        Geodetic latitude and longitude (rad) and height over WGS-84 (km).
    qc : tuple or None
        The pointing command (Hoffmann's Q, inertial -> body), None for inertial pointing.
    wc : tuple or None
        The command's body rate (rad/s, body axes): the rate feed-forward.
    reference : tuple or None
        Where the pointing axis is sent (ECI), for the pointing error.
    target_elevation : float or None
        The spacecraft's elevation seen from the ground target, rad (target mode).
    b_eci : tuple or None
        With a magnetic field: the field at the spacecraft, T, ECI axes (IGRF interpolated between its
        samples every :data:`FIELD_SAMPLE` s, or the dipole at ``t``).
    b_rate : tuple or None
        Its rate of change, T/s (ECI): the integrator's stages take the field as ``b_eci + b_rate (t - t_step)``.
    density : float or None
        With drag: the air's density at the spacecraft, kg/m^3.
    orbit : KeplerOrbit or TleOrbit or None
        The propagator that gave ``r_km`` and ``v_kms``: the integrator's stages read the orbit at their own
        times from it (``orbit.state(t)``, an analytic propagator gives the position at any ``t``).
    """

    t: float
    days_utc: float
    r_km: tuple
    v_kms: tuple
    sun: tuple
    sun_km: float
    sunlit: float
    gmst: float
    lat: float
    lon: float
    alt_km: float
    qc: tuple | None = None
    wc: tuple | None = None
    reference: tuple | None = None
    target_elevation: float | None = None
    b_eci: tuple | None = None
    b_rate: tuple | None = None
    density: float | None = None
    orbit: object = field(default=None, compare=False, repr=False)

    @property
    def nadir(self) -> tuple:
        """Unit vector to the Earth's centre (ECI)."""
        x, y, z = self.r_km
        n = math.sqrt(x * x + y * y + z * z)
        return (-x / n, -y / n, -z / n)

    @property
    def beta(self) -> float:
        """The beta angle, rad: the Sun over the orbit plane (:func:`sim.world.eclipse.beta_angle`)."""
        return beta_angle(self.r_km, self.v_kms, self.sun)


class World:
    """The orbit, the Sun, the shadow and the pointing command of one ``settings`` (module docstring).

    ``ops``, ``orbit`` and ``epoch`` make it an ensemble's world, one per body:
    ``orbit`` a :class:`~sim.world.orbit.KeplerOrbit` of rows and ``epoch`` an
    :class:`~sim.world.time.Epoch` whose ``jd_day`` and ``jd_frac`` are rows
    (or floats), with ``ops`` = :data:`sim.core.ops.COLUMN`; the state's
    values are then rows.
    """

    __slots__ = ("epoch", "orbit", "mode", "b1", "b2", "target_ecef", "target_up_ecef", "ops", "field", "model",
                 "air", "_samples")

    def __init__(self, settings, ops=FLOAT, orbit=None, epoch=None):
        s = settings
        self.ops = ops
        self.epoch = parse_epoch(s.epoch) if epoch is None else epoch
        if orbit is not None:
            self.orbit = orbit
        elif s.tle is not None:
            self.orbit = TleOrbit(read_tle(s.tle), self.epoch)
        else:
            alt, e, i, raan, argp, nu = s.orbit
            rad = math.radians
            self.orbit = KeplerOrbit(R_EARTH_KM + alt, e, rad(i), rad(raan), rad(argp), rad(nu), j2=s.j2)
        self.mode = s.pointing
        self.b1 = s.pointing_axis
        self.b2 = secondary_axis(self.b1)
        lat, lon, alt = (math.radians(s.target[0]), math.radians(s.target[1]), s.target[2])
        self.target_ecef = geodetic_to_ecef(lat, lon, alt)
        self.target_up_ecef = (math.cos(lat) * math.cos(lon), math.cos(lat) * math.sin(lon), math.sin(lat))
        #: The field model ("igrf", "dipole") or None; its coefficients at the epoch's year (the secular
        #: change over a run of days is under 1e-5 of the field); one set for an ensemble's per-body
        #: epochs, at the settings' epoch (an epoch spread of a month moves them under 1e-4).
        self.field = None if s.magnetic_field == "none" else s.magnetic_field
        year = decimal_year((self.epoch if epoch is None else parse_epoch(s.epoch)).days_utc(0.0))
        self.model = None if self.field is None else gauss(year, IGRF_DEGREE)
        #: The atmosphere for the drag ("exponential", "msis") or None without drag.
        self.air = s.atmosphere if s.drag else None
        self._samples = {}

    def _sample(self, k: int) -> tuple:
        """``(B_eci, density)`` at ``t = k FIELD_SAMPLE``: IGRF and NRLMSIS at a sample time (cached)."""
        got = self._samples.get(k)
        if got is None:
            t = k * FIELD_SAMPLE
            r, _ = self.orbit.state(t)
            b = rho = None
            if self.field == "igrf":
                b = self._field(t, r)
            if self.air == "msis":
                days, _, rot, p = self._rotation(t)
                lat, lon, alt = ecef_to_geodetic(eci_to_ecef(r, rot, p), self.ops)
                if self.ops is FLOAT:
                    date = _J2000 + np.timedelta64(round(days * 86400e3), "ms")
                    rho = msis_density(alt * 1e3, math.degrees(lat), math.degrees(lon), date)
                else:  # an ensemble's worlds, one per body: rows
                    date = _J2000 + np.round(np.asarray(days) * 86400e3).astype(np.int64).astype("timedelta64[ms]")
                    rho = msis_density(alt * 1e3, np.degrees(lat), np.degrees(lon), date)
            got = (b, rho)
            if len(self._samples) > 4:
                self._samples.clear()
            self._samples[k] = got
        return got

    def _field(self, t: float, r_km) -> tuple:
        """The field model at ``t`` and ``r_km`` (ECI), T, ECI axes (:func:`sim.world.magnetic.field_eci`)."""
        _, _, rot, p = self._rotation(t)
        r = (r_km[0] * 1e3, r_km[1] * 1e3, r_km[2] * 1e3)
        return field_eci(r, rot, p, self.model, self.ops, dipole=self.field == "dipole")

    def _interpolated(self, t: float, index: int) -> tuple:
        """``(value, rate)`` of sample ``index`` (0 field, 1 density) linear between the samples around ``t``."""
        k = math.floor(t / FIELD_SAMPLE)
        a, b = self._sample(k)[index], self._sample(k + 1)[index]
        f = (t - k * FIELD_SAMPLE) / FIELD_SAMPLE
        if index == 1:
            return a + f * (b - a), (b - a) / FIELD_SAMPLE
        d = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
        return (a[0] + f * d[0], a[1] + f * d[1], a[2] + f * d[2]), tuple(x / FIELD_SAMPLE for x in d)

    def _rotation(self, t):
        ops = self.ops
        days = self.epoch.days_utc(t)
        g = gmst(days, ops)
        return days, g, (ops.cos(g), ops.sin(g)), precession(julian_centuries_tt(self.epoch.days_tt(t)), ops)

    def _command(self, t, sun, rv=None):
        """``(C_c, r1, elevation)`` at ``t``: the commanded attitude matrix of the mode (``rv``: the orbit's
        state at ``t`` when it is known)."""
        ops = self.ops
        r, v = self.orbit.state(t) if rv is None else rv
        target = up = None
        if self.mode == "target":
            _, _, rot, p = self._rotation(t)
            target = ecef_to_eci(self.target_ecef, rot, p)
            up = ecef_to_eci(self.target_up_ecef, rot, p)
        r1, r2 = references(self.mode, r, v, sun=sun, target=target, target_up=up, ops=ops)
        seen = None if target is None else elevation(r, target, up, ops)
        return two_vector(self.b1, self.b2, r1, r2, ops), r1, seen

    def state(self, t: float) -> WorldState:
        """The :class:`WorldState` at ``t`` s after the epoch."""
        ops = self.ops
        r, v = self.orbit.state(t)
        days, g, rot, p = self._rotation(t)
        sun, au = sun_direction(self.epoch.days_tt(t), ops)
        d = au * AU_KM
        lit = sunlit_fraction(r, (d * sun[0], d * sun[1], d * sun[2]), ops)
        lat, lon, alt = ecef_to_geodetic(eci_to_ecef(r, rot, p), ops)
        qc = wc = r1 = elevation = None
        if self.mode in MOVING_MODES:
            c, r1, elevation = self._command(t, sun, (r, v))
            qc = from_cayley_entries(c, ops)
            h = FEED_FORWARD_H
            c0 = self._command(t - 0.5 * h, sun)[0]
            c1 = self._command(t + 0.5 * h, sun)[0]
            wc = rate_between(c0, c1, h, ops)
        b = b_rate = rho = None
        if self.field == "igrf":
            b, b_rate = self._interpolated(t, 0)
        elif self.field == "dipole":
            b = self._field(t, r)
            r2, _ = self.orbit.state(t + DIPOLE_H)
            b2 = self._field(t + DIPOLE_H, r2)
            b_rate = tuple((y - x) / DIPOLE_H for x, y in zip(b, b2))
        if self.air == "exponential":
            rho = exponential_density(alt * 1e3, ops)
        elif self.air == "msis":
            rho = self._interpolated(t, 1)[0]
        return WorldState(t, days, r, v, sun, d, lit, g, lat, lon, alt, qc, wc, r1, elevation, b, b_rate, rho,
                          self.orbit)
