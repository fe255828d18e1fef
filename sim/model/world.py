"""The world of a run with an orbit, evaluated once per step: where the spacecraft is, the Sun, the shadow, the
pointing command.

:class:`World` is built from a :class:`~sim.model.settings.Settings` with orbit
elements or a TLE (``settings.has_orbit``) and gives, at each step's time, one
:class:`WorldState` record: the one place the window (issue 31's orbit view and
readouts), the surface torques and the magnetic field (issue 32) and the
sensors (issue 33) read the position, velocity, date, Sun and shadow from.

Evaluated once per step, at the step's start (docs/PHYSICS.md, "World state
per step"): the gravity gradient inside the integrator's stages takes the
position as ``r + v (t - t_step)`` (a relative error of ``(n dt)^2 / 2``,
1e-6 at dt = 1 s in low orbit), the pointing command and its rate
feed-forward hold over the step.  The formulas are :mod:`sim.world`'s and
:mod:`sim.gnc.pointing`'s; this module only assembles them, over
:mod:`sim.core.ops`: floats (one body, or one world shared by every body of
an ensemble), or numpy rows (an ensemble whose bodies' orbits or epochs
differ: one world per body, :mod:`sim.ensemble.engine`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.core.ops import FLOAT
from sim.gnc.pointing import (MOVING_MODES, quaternion_of_matrix, rate_between, references, secondary_axis,
                              two_vector)
from sim.world.eclipse import beta_angle, sunlit_fraction
from sim.world.frames import ecef_to_eci, ecef_to_geodetic, eci_to_ecef, geodetic_to_ecef, precession
from sim.world.orbit import R_EARTH_KM, KeplerOrbit, TleOrbit, read_tle
from sim.world.sun import AU_KM, sun_direction
from sim.world.time import gmst, julian_centuries_tt, parse_epoch

__all__ = ["World", "WorldState", "FEED_FORWARD_H"]

#: The interval (s) between the two commands whose difference is the rate feed-forward.
FEED_FORWARD_H = 1.0


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

    __slots__ = ("epoch", "orbit", "mode", "b1", "b2", "target_ecef", "target_up_ecef", "ops")

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
        elevation = None
        if target is not None:
            d = (r[0] - target[0], r[1] - target[1], r[2] - target[2])
            dn = ops.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
            x = (d[0] * up[0] + d[1] * up[1] + d[2] * up[2]) / dn
            elevation = math.asin(max(-1.0, min(1.0, x))) if ops is FLOAT else np.arcsin(np.clip(x, -1.0, 1.0))
        return two_vector(self.b1, self.b2, r1, r2, ops), r1, elevation

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
            qc = quaternion_of_matrix(c, ops)
            h = FEED_FORWARD_H
            c0 = self._command(t - 0.5 * h, sun)[0]
            c1 = self._command(t + 0.5 * h, sun)[0]
            wc = rate_between(c0, c1, h, ops)
        return WorldState(t, days, r, v, sun, d, lit, g, lat, lon, alt, qc, wc, r1, elevation)
