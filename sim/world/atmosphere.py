"""The density of the upper atmosphere for the drag torque: an exponential table, or NRLMSIS if installed.

The exponential model (Vallado 2013, "Fundamentals of Astrodynamics and
Applications", 4th ed., section 8.6.2, Table 8-4, after CIRA-72 and the US
Standard Atmosphere 1976) is

    rho(h) = rho0 exp(-(h - h0) / H)

with the base altitude ``h0``, base density ``rho0`` and scale height ``H``
of the table's row whose band holds ``h`` (0-25 km, 25-30 km, ...; the last
row, 1,000 km, also above).  It depends on the altitude only: no day and
night, no season, no solar cycle.  Below 0 km it is the sea-level value.

NRLMSIS 2.1 (Emmert et al. 2022, Earth and Space Science 9) through the
``pymsis`` package is the alternative (the optional extra ``msis``,
imported when first used).  It takes the date, place and the space weather:
here fixed values of F10.7, its 81-day mean and Ap, given by the caller, so
that pymsis never downloads its space-weather file.

Altitudes are in metres above the caller's reference (the geodetic height
where an orbit gives one, else ``|r|`` minus the equatorial radius: the
table is spherically symmetric and the choice moves the density by the
ellipsoid's 21 km at the poles, which the caller states).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.jit import jitable
from sim.core.ops import FLOAT

__all__ = ["EXPONENTIAL_TABLE", "exponential_density", "exponential_float", "msis_density", "MSIS_DEFAULTS"]

#: Vallado (2013) Table 8-4: (base altitude km, nominal density kg/m^3, scale height km).
EXPONENTIAL_TABLE = (
    (0.0, 1.225, 7.249), (25.0, 3.899e-2, 6.349), (30.0, 1.774e-2, 6.682), (40.0, 3.972e-3, 7.554),
    (50.0, 1.057e-3, 8.382), (60.0, 3.206e-4, 7.714), (70.0, 8.770e-5, 6.549), (80.0, 1.905e-5, 5.799),
    (90.0, 3.396e-6, 5.382), (100.0, 5.297e-7, 5.877), (110.0, 9.661e-8, 7.263), (120.0, 2.438e-8, 9.473),
    (130.0, 8.484e-9, 12.636), (140.0, 3.845e-9, 16.149), (150.0, 2.070e-9, 22.523),
    (180.0, 5.464e-10, 29.740), (200.0, 2.789e-10, 37.105), (250.0, 7.248e-11, 45.546),
    (300.0, 2.418e-11, 53.628), (350.0, 9.518e-12, 53.298), (400.0, 3.725e-12, 58.515),
    (450.0, 1.585e-12, 60.828), (500.0, 6.967e-13, 63.822), (600.0, 1.454e-13, 71.835),
    (700.0, 3.614e-14, 88.667), (800.0, 1.170e-14, 124.64), (900.0, 5.245e-15, 181.05),
    (1000.0, 3.019e-15, 268.00),
)
_BASE_M = tuple(1e3 * row[0] for row in EXPONENTIAL_TABLE)
_RHO0 = tuple(row[1] for row in EXPONENTIAL_TABLE)
_SCALE_M = tuple(1e3 * row[2] for row in EXPONENTIAL_TABLE)
_BASE_A, _RHO0_A, _SCALE_A = np.array(_BASE_M), np.array(_RHO0), np.array(_SCALE_M)

#: The space weather the NRLMSIS density uses unless told: F10.7 and its 81-day mean (sfu), daily Ap.
MSIS_DEFAULTS = {"f107": 150.0, "f107a": 150.0, "ap": 4.0}


@jitable
def exponential_float(altitude):
    """:func:`exponential_density` of one float (plain Python, or compiled into a kernel: ``math.exp``).

    The row is the last whose base is at or below ``h = max(altitude, 0)`` (the table's bands; NaN takes
    the last row and gives NaN).
    """
    h = float(altitude)
    h = 0.0 if h < 0.0 else h
    above = 0
    for base in _BASE_M:
        if base > h:
            above += 1
    i = len(_BASE_M) - 1 - above
    return _RHO0[i] * math.exp(-(h - _BASE_M[i]) / _SCALE_M[i])


@jitable
def exponential_density(altitude, ops=FLOAT):
    """Density (kg/m^3) at ``altitude`` (m): Vallado (2013) Table 8-4 (the module docstring).

    ``altitude`` a float (``ops`` = FLOAT, or None compiled: :func:`exponential_float`, ``math.exp``) or a
    numpy row (``COLUMN``: ``numpy.exp``, which may differ from ``math.exp`` in the last place, as
    :mod:`sim.core.ops` says of the sines).
    """
    if ops is None:
        return exponential_float(altitude)
    if ops is FLOAT:
        return exponential_float(altitude)
    h = np.maximum(np.asarray(altitude, dtype=float), 0.0)
    i = np.searchsorted(_BASE_A, h, side="right") - 1
    return _RHO0_A[i] * np.exp(-(h - _BASE_A[i]) / _SCALE_A[i])


def msis_density(altitude, latitude_deg, longitude_deg, date, f107: float = MSIS_DEFAULTS["f107"],
                 f107a: float = MSIS_DEFAULTS["f107a"], ap: float = MSIS_DEFAULTS["ap"]):
    """Total mass density (kg/m^3) of NRLMSIS 2.1 (pymsis) at ``altitude`` (m, geodetic), latitude,
    longitude (degrees) and ``date`` (a ``datetime`` or ``numpy.datetime64``, UTC), under fixed space weather.

    Floats give a float; rows (one date, or one per row) give a row.  All
    three indices are passed, so pymsis reads no space-weather file and
    downloads nothing.

    Raises
    ------
    RuntimeError
        pymsis is not installed (``pip install attitude-sim[msis]``).
    """
    try:
        import pymsis
    except ImportError:
        raise RuntimeError("NRLMSIS needs the optional package pymsis (pip install 'attitude-sim[msis]')") from None
    scalar = np.ndim(altitude) == 0 and np.ndim(latitude_deg) == 0 and np.ndim(longitude_deg) == 0
    alt, lat, lon = np.broadcast_arrays(np.atleast_1d(np.asarray(altitude, float) / 1e3),
                                        np.atleast_1d(latitude_deg), np.atleast_1d(longitude_deg))
    dates = np.broadcast_to(np.atleast_1d(np.asarray(date, dtype="datetime64[ms]")), alt.shape)
    n = alt.size
    out = pymsis.calculate(dates, lon, lat, alt, f107s=np.full(n, float(f107)), f107as=np.full(n, float(f107a)),
                           aps=np.full((n, 7), float(ap)))
    rho = np.asarray(out, dtype=float).reshape(n, -1)[:, 0]  # Variable.MASS_DENSITY is the first
    return float(rho[0]) if scalar else rho
