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
:mod:`sim.gnc.pointing`'s, assembled once by :func:`sim.model.world_kernel.world_values`
over :mod:`sim.core.ops`: compiled for one body on a Kepler orbit
(:func:`sim.model.world_kernel.world_kernel`, once the process has computed
:data:`sim.model.world_kernel.WARM_AFTER` states in Python and the kernel is loaded, :meth:`sim.core.jit.Kernel.wanted`: the same
numbers bit for bit), on floats for a TLE (SGP4's states passed in), or on numpy rows
(an ensemble whose bodies' orbits or epochs differ: one world per body,
:mod:`sim.ensemble.engine`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim.core.ops import FLOAT
from sim.gnc.pointing import MODE_CODES, TARGET, secondary_axis
from sim.model import world_kernel as wk
from sim.model.world_kernel import DIPOLE_H, FEED_FORWARD_H, FIELD_SAMPLE, rotation_at, world_values
from sim.world.atmosphere import msis_density
from sim.world.eclipse import beta_angle
from sim.world.magnetic import IGRF_DEGREE, field_eci, gauss, warm_igrf
from sim.world.frames import ecef_to_geodetic, eci_to_ecef, geodetic_to_ecef
from sim.world.orbit import R_EARTH_KM, KeplerOrbit, TleOrbit, read_tle
from sim.world.time import decimal_year, parse_epoch

__all__ = ["World", "WorldState", "FEED_FORWARD_H", "FIELD_SAMPLE", "DIPOLE_H", "decimal_year"]

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
                 "air", "_samples", "_codes", "_input", "_output")

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
        self.b1 = tuple(float(x) for x in s.pointing_axis)
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
        #: (mode, field, atmosphere) by their numbers (sim.model.world_kernel)
        self._codes = (MODE_CODES[self.mode], wk.FIELD_CODES[self.field], wk.AIR_CODES[self.air])
        self._input = self._output = None
        if ops is FLOAT and isinstance(self.orbit, KeplerOrbit) and self.orbit.ops is FLOAT:  # the kernel's input
            inp = wk.new_input()
            inp[0:9] = self.orbit.elements_and_rates
            inp[10], inp[11] = self.epoch.jd_day, self.epoch.jd_frac
            inp[12:15], inp[15:18] = self.b1, self.b2
            inp[18:21], inp[21:24] = self.target_ecef, self.target_up_ecef
            if self.model is not None:
                inp[24:27] = self.model.dipole
            inp[36:39] = self._codes
            self._input, self._output = inp, np.empty(wk.SIZE)

    @property
    def compilable(self) -> bool:
        """True when the compiled world gives this world's states once loaded: one body (floats) on a Kepler orbit."""
        return self._input is not None

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
                days, _, rot, p = rotation_at(self.epoch.jd_day, self.epoch.jd_frac, t, self.ops)
                lat, lon, alt = ecef_to_geodetic(eci_to_ecef(r, rot, p), self.ops)
                if self.ops is FLOAT:
                    date = _J2000 + np.timedelta64(round(days * 86400e3), "ms")
                    rho = msis_density(alt * 1e3, math.degrees(lat), math.degrees(lon), date)
                else:  # an ensemble's worlds, one per body: rows
                    date = _J2000 + np.round(np.asarray(days) * 86400e3).astype(np.int64).astype("timedelta64[ms]")
                    rho = msis_density(alt * 1e3, np.degrees(lat), np.degrees(lon), date)
            got = (b, rho)
            if len(self._samples) > 4:  # the oldest goes: a run moves on, and the sample it leaves is the next's
                del self._samples[min(self._samples)]
            self._samples[k] = got
        return got

    def _field(self, t: float, r_km) -> tuple:
        """The field model at ``t`` and ``r_km`` (ECI), T, ECI axes (:func:`sim.world.magnetic.field_eci`)."""
        _, _, rot, p = rotation_at(self.epoch.jd_day, self.epoch.jd_frac, t, self.ops)
        r = (r_km[0] * 1e3, r_km[1] * 1e3, r_km[2] * 1e3)
        return field_eci(r, rot, p, self.model, self.ops, dipole=self.field == "dipole")

    def _bracket(self, t: float) -> tuple:
        """``(b_a, b_b, rho_a, rho_b, k)``: the samples of IGRF and NRLMSIS around ``t`` (zeros where unused)."""
        zero = (0.0, 0.0, 0.0)
        if self.field != "igrf" and self.air != "msis":
            return zero, zero, 0.0, 0.0, 0.0
        k = math.floor(t / FIELD_SAMPLE)
        (b_a, rho_a), (b_b, rho_b) = self._sample(k), self._sample(k + 1)
        return (zero if b_a is None else b_a, zero if b_b is None else b_b, 0.0 if rho_a is None else rho_a,
                0.0 if rho_b is None else rho_b, float(k))

    def state(self, t: float) -> WorldState:
        """The :class:`WorldState` at ``t`` s after the epoch: compiled for one body on a Kepler orbit
        (module docstring), else :func:`~sim.model.world_kernel.world_values` in Python."""
        inp = self._input
        if inp is not None and wk.world_kernel.wanted():
            self.loop_input(t)
            inp[9] = t
            out = self._output
            wk.world_kernel(inp, out)
            return self.state_of(t, out)
        mode, fld, air = self._codes
        b_a, b_b, rho_a, rho_b, k = self._bracket(t)
        state = self.orbit.state
        rv = state(t)
        rv_lo = rv_hi = rv_dipole = rv
        if mode:
            rv_lo, rv_hi = state(t - 0.5 * FEED_FORWARD_H), state(t + 0.5 * FEED_FORWARD_H)
        if self.field == "dipole":
            rv_dipole = state(t + DIPOLE_H)
        dipole = (0.0, 0.0, 0.0) if self.model is None else self.model.dipole
        values = world_values(t, self.epoch.jd_day, self.epoch.jd_frac, rv, rv_lo, rv_hi, rv_dipole, mode, self.b1,
                              self.b2, self.target_ecef, self.target_up_ecef, fld, dipole, b_a, b_b, rho_a, rho_b, k,
                              air, self.ops)
        return self._state(t, values)

    def loop_input(self, t: float) -> np.ndarray | None:
        """The compiled world's input (:data:`sim.model.world_kernel.INPUTS`) with the field's and the density's
        samples around ``t`` (the loop of :func:`sim.model.advance_craft.advance_craft` makes the worlds up to
        the next sample; its output goes to :attr:`output`), or None when this world is not :attr:`compilable`."""
        inp = self._input
        if inp is not None:
            if self.field == "igrf":
                warm_igrf(self.model)  # the process has gone compiled: IGRF's samples too (once)
            b_a, b_b, rho_a, rho_b, k = self._bracket(t)
            inp[27], inp[28], inp[29], inp[30], inp[31], inp[32] = b_a + b_b
            inp[33], inp[34], inp[35] = rho_a, rho_b, k
        return inp

    @property
    def output(self) -> np.ndarray | None:
        """The compiled world's output (:data:`sim.model.world_kernel.LAYOUT`), read by :meth:`state_of`; None
        when this world is not :attr:`compilable`."""
        return self._output

    def state_of(self, t: float, out: np.ndarray) -> WorldState:
        """The :class:`WorldState` at ``t`` of the compiled world's output ``out`` (:data:`sim.model.world_kernel.LAYOUT`)."""
        x = out.tolist()
        return self._state(t, (x[0], (x[1], x[2], x[3]), (x[4], x[5], x[6]), (x[7], x[8], x[9]), x[10], x[11], x[12],
                               x[13], x[14], x[15], (x[16], x[17], x[18], x[19]), (x[20], x[21], x[22]),
                               (x[23], x[24], x[25]), x[26], (x[27], x[28], x[29]), (x[30], x[31], x[32]), x[33]))

    def _state(self, t: float, values: tuple) -> WorldState:
        """The :class:`WorldState` of :func:`~sim.model.world_kernel.world_values`'s ``values`` at ``t``: what the
        settings do not have made None."""
        mode, fld, air = self._codes
        days, r, v, sun, d, lit, g, lat, lon, alt, qc, wc, r1, seen, b, b_rate, rho = values
        if not mode:
            qc = wc = r1 = None
        if mode != TARGET:
            seen = None
        if not fld:
            b = b_rate = None
        if not air:
            rho = None
        return WorldState(t, days, r, v, sun, d, lit, g, lat, lon, alt, qc, wc, r1, seen, b, b_rate, rho,
                          self.orbit)
