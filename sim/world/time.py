"""Time: a scenario's epoch (UTC), Julian dates, TT and the Earth's rotation (GMST).

Approximations (docs/PHYSICS.md, "Time and frames"):

* UT1 = UTC (|UT1 - UTC| < 0.9 s: at most 0.004 deg of Earth rotation);
* TT = UTC + 69.184 s (TAI - UTC = 37 s since 2017, TT - TAI = 32.184 s); leap seconds
  are not counted, so simulated time is uniform from the epoch;
* the epoch must lie in 1950-2050, the span of the solar ephemeris (:mod:`sim.world.sun`).

Every formula of time ``t`` (s from the epoch) takes the epoch's Julian date split
into a day part and a fraction, so that a date carries microseconds (a single
float JD carries only ~40 us).  The arithmetic runs on floats and on numpy rows
alike (:mod:`sim.core.ops`).
"""

from __future__ import annotations

import math
import re
from datetime import datetime, UTC

from sim.core.jit import jitable
from sim.core.ops import FLOAT

__all__ = ["decimal_year", "Epoch", "parse_epoch", "julian_date", "TT_MINUS_UTC", "J2000_JD", "DAY", "gmst",
           "julian_centuries_tt", "days_utc_of", "days_tt_of", "EPOCH_RANGE", "DEFAULT_EPOCH", "EpochError"]

#: TT - UTC, s (TAI - UTC = 37 s since 2017-01-01, plus 32.184 s).
TT_MINUS_UTC = 69.184
#: Julian date of J2000.0 (2000-01-01 12:00 TT).
J2000_JD = 2451545.0
#: Seconds in a day.
DAY = 86400.0
#: Years an epoch may lie in: those of the solar ephemeris (:mod:`sim.world.sun`), inclusive.
EPOCH_RANGE = (1950, 2050)
#: The epoch a run takes without one (the J2000 epoch, in UTC).
DEFAULT_EPOCH = "2000-01-01T12:00:00Z"


#: The text of a leap second, ``hh:mm:60`` (UTC's 23:59:60 of a day that has one): ``datetime`` cannot hold it.
_LEAP_SECOND = re.compile(r"[T ]\d\d:\d\d:60(?:[.,]\d+)?(?:[zZ]|[+-]\d\d:?\d\d)?$")


class EpochError(ValueError):
    """An epoch that cannot be read, or lies outside :data:`EPOCH_RANGE`."""


def julian_date(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: float = 0.0) -> tuple:
    """``(jd_day, jd_frac)``: the Julian date of a Gregorian calendar date, split as ``day + fraction``.

    Meeus, *Astronomical Algorithms* (2nd ed., 1998), (7.1), for Gregorian
    dates: ``JD = INT(365.25 (Y + 4716)) + INT(30.6001 (M + 1)) + D + B - 1524.5``
    with ``Y, M`` shifted so that January and February are months 13 and 14
    of the year before, ``A = INT(Y/100)``, ``B = 2 - A + INT(A/4)``.

    ``jd_day`` is the date at 0 h (a whole number and a half), ``jd_frac`` the
    time of day in days.

    >>> julian_date(2000, 1, 1, 12)
    (2451544.5, 0.5)
    """
    y, m = (year - 1, month + 12) if month <= 2 else (year, month)
    a = y // 100
    b = 2 - a + a // 4
    day0 = math.floor(365.25 * (y + 4716)) + math.floor(30.6001 * (m + 1)) + day + b - 1524.5
    return float(day0), (hour * 3600.0 + minute * 60.0 + second) / DAY


class Epoch:
    """A UTC instant: ``jd_day + jd_frac`` its Julian date (UTC), and the ISO text it was read from.

    ``jd_day`` the date at 0 h, ``jd_frac`` the time of day, days (:func:`julian_date`).
    """

    __slots__ = ("text", "jd_day", "jd_frac", "year")

    def __init__(self, text: str, jd_day: float, jd_frac: float, year: int):
        self.text, self.jd_day, self.jd_frac, self.year = text, jd_day, jd_frac, year

    def __repr__(self) -> str:
        return f"Epoch({self.text!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Epoch) and (self.jd_day, self.jd_frac) == (other.jd_day, other.jd_frac)

    def __hash__(self) -> int:
        return hash((self.jd_day, self.jd_frac))

    def days_utc(self, t):
        """Days from J2000.0 (JD 2451545.0) in UTC, at ``t`` s after the epoch (floats or rows): :func:`days_utc_of`."""
        return days_utc_of(self.jd_day, self.jd_frac, t)

    def days_tt(self, t):
        """Days from J2000.0 in TT at ``t`` s after the epoch: :func:`days_tt_of`."""
        return days_tt_of(self.jd_day, self.jd_frac, t)


@jitable
def days_utc_of(jd_day, jd_frac, t):
    """Days from J2000.0 (JD 2451545.0) in UTC at ``t`` s after the epoch ``jd_day + jd_frac`` (UTC),
    ``(jd_day - 2451545) + (jd_frac + t / 86400)``: the day part first, so the fraction keeps its digits."""
    return (jd_day - J2000_JD) + (jd_frac + t / DAY)


@jitable
def days_tt_of(jd_day, jd_frac, t):
    """Days from J2000.0 in TT at ``t`` s after the epoch: :func:`days_utc_of` + 69.184 s (module docstring)."""
    return (jd_day - J2000_JD) + (jd_frac + (t + TT_MINUS_UTC) / DAY)


def parse_epoch(text) -> Epoch:
    """An :class:`Epoch` from ISO 8601 UTC text (``2024-03-20T12:00:00Z``, ``2024-03-20 12:00``, ``2024-03-20``).

    A time zone other than UTC is converted to UTC.  EpochError (one line) for
    text that is no date, or a year outside :data:`EPOCH_RANGE`.
    """
    if isinstance(text, Epoch):
        return text
    if not isinstance(text, str):
        raise EpochError(f"expected an ISO 8601 date such as 2024-03-20T12:00:00Z, got {text!r}")
    s = text.strip()
    try:
        d = datetime.fromisoformat(s[:-1] + "+00:00" if s.endswith(("Z", "z")) else s)
    except ValueError:
        if _LEAP_SECOND.search(s):
            raise EpochError(f"{text!r} is a leap second (23:59:60), which simulated time does not "
                             "count (it runs uniformly from the epoch): give 23:59:59 or the next 00:00:00") from None
        raise EpochError(f"expected an ISO 8601 date such as 2024-03-20T12:00:00Z, got {text!r}") from None
    if d.tzinfo is not None:
        d = d.astimezone(UTC).replace(tzinfo=None)
    low, high = EPOCH_RANGE
    if not low <= d.year <= high:
        raise EpochError(f"{text!r} lies outside {low}-{high}, the span of the solar ephemeris")
    day, frac = julian_date(d.year, d.month, d.day, d.hour, d.minute, d.second + d.microsecond * 1e-6)
    return Epoch(d.isoformat(timespec="microseconds" if d.microsecond else "seconds") + "Z", day, frac, d.year)


@jitable
def julian_centuries_tt(days_tt):
    """``T = (JD_TT - 2451545.0) / 36525``: Julian centuries of TT from J2000.0."""
    return days_tt / 36525.0


@jitable
def gmst(days_ut1, ops=FLOAT):
    """Greenwich mean sidereal time, rad in [0, 2 pi), at ``days_ut1`` days of UT1 from J2000.0.

    IAU 1982 (Aoki et al. 1982), as in Vallado, *Fundamentals of Astrodynamics*
    (4th ed.), (3-47), in degrees: ``280.46061837 + 360.98564736629 d
    + 0.000387933 T^2 - T^3 / 38710000`` with ``d`` days and ``T = d / 36525``.
    UT1 = UTC here (module docstring).  The whole days of ``d`` are taken
    apart first (360.98564736629 = 360 + 0.98564736629 degrees a day), so the
    angle keeps its precision far from J2000.
    """
    t = days_ut1 / 36525.0
    frac = days_ut1 - days_ut1 // 1.0
    deg = (280.46061837 + 360.0 * frac + 0.98564736629 * days_ut1
           + (0.000387933 - t / 38710000.0) * t * t)
    rad = deg * (math.pi / 180.0)
    two_pi = 2.0 * math.pi
    return rad - two_pi * (rad // two_pi)


def decimal_year(days_utc: float) -> float:
    """The decimal year of a date given in days from J2000.0 (2000-01-01 12 h): ``2000 + days / 365.25``
    (within half a day of the calendar's year fraction, 1e-5 of IGRF's yearly secular change)."""
    return 2000.0 + days_utc / 365.25
