"""The Earth's magnetic field: IGRF-14 at a chosen degree, and the tilted dipole of its first degree.

The model (Alken et al. 2021, "International Geomagnetic Reference Field:
the thirteenth generation", Earth Planets Space 73:49, eq. (1); IGRF-14 has
the same form) is the potential

    V(r, theta, phi, t) = a sum_{n=1}^{N} (a/r)^(n+1)
                          sum_{m=0}^{n} (g_n^m(t) cos m phi + h_n^m(t) sin m phi) P_n^m(cos theta)

with ``a = 6,371.2 km``, Schmidt semi-normalised ``P_n^m``, geocentric
radius, colatitude and longitude, and ``B = -grad V``.  The Gauss
coefficients ``g, h`` (nT) are given every five years from 1900 to 2025
with a secular variation to 2030, and are linear in time between (eq. (2)).

The coefficients are read from the file that the ``ppigrf`` package ships
(``IGRF14.shc``: nothing is downloaded, and ppigrf itself, which imports
pandas, is not imported: it serves as the oracle in the tests).  The
synthesis is written here: Cunningham's recursion for the solid harmonics
in Cartesian coordinates (Montenbruck & Gill 2000, "Satellite Orbits",
section 3.2.4, eqs. (3.30)-(3.33)), written for the gravity potential
``U = GM/R sum (R/r)^(n+1) P_nm (C cos + S sin)``; the magnetic potential
is the same form with ``GM/R -> a``, ``R -> a`` and Schmidt's coefficients
turned into unnormalised ones, ``C_nm = g_n^m sqrt(2 (n-m)! / (n+m)!)``
(``m > 0``; ``C_n0 = g_n^0``).  The field is then ``B = -`` their
acceleration (3.33) with ``GM/R^2 = 1``.  The recursion has no sines,
cosines or divisions by ``sin theta``: it is arithmetic and one square root
(exact at the poles), so it runs on one body's floats and on the ensemble's
columns alike (:mod:`sim.core.ops`), bit for bit.

Frames and units: positions in metres, fields in tesla.  ECEF is the
Earth-fixed frame the coefficients are given in (geocentric: the field does
not depend on an ellipsoid; geodetic latitude and height matter only to
place a point, which is the caller's business).  ECI is J2000, turned into
ECEF as everywhere in the project by :func:`sim.world.frames.eci_to_ecef`
(``R3(GMST) P``, GMST and the precession of date).
Body axes are ``x_B = C(Q) x_I`` with Hoffmann's quaternion (scalar last,
inertial -> body; :func:`sim.core.angles.cayley_entries`).
"""

from __future__ import annotations

import functools
import importlib.util
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.core.jit import jitable, kernel
from sim.core.ops import FLOAT, sqrt_of
from sim.world.frames import ecef_to_eci, eci_to_ecef

__all__ = ["IGRF_RADIUS", "IGRF_DEGREE", "IGRF_YEARS", "Gauss", "gauss", "igrf_ecef", "dipole_ecef",
           "dipole_axis", "dipole_field", "dipole_eci", "field_eci", "igrf_sum", "igrf_one", "warm_igrf"]

#: The geomagnetic reference radius ``a`` of IGRF, m.
IGRF_RADIUS = 6371200.0
#: The highest degree of IGRF-14's main field.
IGRF_DEGREE = 13
#: The years the coefficients cover (the last five by the secular variation).
IGRF_YEARS = (1900.0, 2030.0)
#: nT -> T
_NT = 1e-9


def _coefficient_file() -> Path:
    """``IGRF14.shc`` in the installed ppigrf package, found without importing it (it imports pandas)."""
    spec = importlib.util.find_spec("ppigrf")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the IGRF-14 coefficients come with the ppigrf package, which is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "IGRF14.shc"


@functools.cache
def _table() -> tuple:
    """``(years, rows)`` of the coefficient file: ``rows[(n, m)]`` the values in nT per year, ``m < 0`` for h."""
    years = None
    rows = {}
    with _coefficient_file().open() as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    # line 0: N_MIN N_MAX NTIMES SP_ORDER N_STEPS [start end]; line 1: the years; then "n m values..."
    years = tuple(float(v) for v in lines[1].split())
    for line in lines[2:]:
        fields = line.split()
        rows[int(fields[0]), int(fields[1])] = tuple(float(v) for v in fields[2:])
    return years, rows


@dataclass(frozen=True)
class Gauss:
    """The field model at one date: what :func:`igrf_ecef` and :func:`dipole_ecef` evaluate.

    Attributes
    ----------
    year : float
        The decimal year the coefficients are interpolated to.
    degree : int
        The highest degree kept, 1 to 13.
    terms : tuple
        ``(n, m, C, S)`` per term, the unnormalised coefficients in tesla
        (the module docstring), degree by degree.
    dipole : tuple
        ``(g_1^1, h_1^1, g_1^0)`` in tesla: the dipole vector ``d`` in ECEF
        with ``V = a^3 (d . r) / r^3`` (:func:`dipole_ecef`).
    """

    year: float
    degree: int
    terms: tuple
    dipole: tuple


@functools.lru_cache(maxsize=32)
def gauss(year: float, degree: int = IGRF_DEGREE) -> Gauss:
    """IGRF-14's coefficients at the decimal ``year`` (linear between the 5-year models), up to ``degree``.

    Alken et al. (2021) eq. (2): ``g(t) = g(T0) + (t - T0)/5 (g(T0 + 5) - g(T0))``
    between two of the tabulated years (the last interval, 2025-2030, by
    the secular variation, as the file gives it).

    Raises
    ------
    ValueError
        ``year`` outside :data:`IGRF_YEARS` or ``degree`` outside 1..13.
    """
    year = float(year)
    if not IGRF_YEARS[0] <= year <= IGRF_YEARS[1]:
        raise ValueError(f"IGRF-14 covers the years {IGRF_YEARS[0]:g} to {IGRF_YEARS[1]:g}, not {year:g}")
    if int(degree) != degree or not 1 <= degree <= IGRF_DEGREE:
        raise ValueError(f"the IGRF degree is an integer from 1 to {IGRF_DEGREE}, not {degree}")
    degree = int(degree)
    years, rows = _table()
    i = min(max(0, sum(1 for y in years if y <= year) - 1), len(years) - 2)
    f = (year - years[i]) / (years[i + 1] - years[i])

    def at(n, m):
        row = rows.get((n, m))
        if row is None:
            return 0.0
        return ((1.0 - f) * row[i] + f * row[i + 1]) * _NT

    terms = []
    for n in range(1, degree + 1):
        for m in range(n + 1):
            # Schmidt -> unnormalised: sqrt(2 (n-m)! / (n+m)!) for m > 0
            k = 1.0 if m == 0 else math.sqrt(2.0 * math.factorial(n - m) / math.factorial(n + m))
            terms.append((n, m, k * at(n, m), k * at(n, -m)))
    return Gauss(year, degree, tuple(terms), (at(1, 1), at(1, -1), at(1, 0)))


def igrf_ecef(r, model: Gauss, ops=FLOAT) -> tuple:
    """The IGRF field ``B = -grad V`` (T, ECEF axes) at the ECEF position ``r = (x, y, z)`` (m).

    Cunningham's recursion, Montenbruck & Gill (2000) eqs. (3.30)-(3.31),
    for ``V_nm = (a/r)^(n+1) P_nm cos m phi`` and ``W_nm`` (with ``sin``) to
    degree ``N + 1``, and their gradient (3.33) (the module docstring):
    :func:`igrf_sum`.  Arithmetic and one square root: floats (one body,
    compiled once loaded: :func:`igrf_one`, the same text; :func:`warm_igrf`)
    or numpy rows (``ops`` = :data:`~sim.core.ops.COLUMN`), bit-identical per body.
    """
    x, y, z = r
    if ops is FLOAT and igrf_one.ready:
        return igrf_one(x, y, z, _terms_table(model))
    size = model.degree + 2
    v = [[0.0] * (size + 1) for _ in range(size)]
    w = [[0.0] * (size + 1) for _ in range(size)]
    return igrf_sum(x, y, z, model.terms, v, w, ops)


def _terms_table(model: Gauss) -> np.ndarray:
    """``model.terms`` as a float array, one row ``(n, m, C, S)`` a term (what :func:`igrf_one` takes), kept by
    the model's identity (hashing the model's 105 terms would cost what the compiled field costs)."""
    got = _tables.get(id(model))
    if got is None or got[0] is not model:
        if len(_tables) > 8:
            _tables.clear()
        got = _tables[id(model)] = (model, np.array(model.terms, dtype=float).reshape(-1, 4))
    return got[1]


_tables: dict = {}


@jitable
def igrf_sum(x, y, z, terms, v, w, ops=FLOAT) -> tuple:
    """:func:`igrf_ecef` at ``(x, y, z)`` (m, ECEF) of the terms ``(n, m, C, S)`` (:attr:`Gauss.terms`, the
    last of degree ``N``): ``V_nm`` and ``W_nm`` into ``v`` and ``w`` (``N + 2`` rows of ``N + 3``: lists, or
    arrays compiled), then the gradient (3.33) of ``sum (C V + S W)``."""
    a = IGRF_RADIUS
    n_max = int(terms[len(terms) - 1][0]) + 1
    r2 = x * x + y * y + z * z
    rho = a / r2
    x0, y0, z0, rr = x * rho, y * rho, z * rho, a * rho  # a x / r^2, ..., a^2 / r^2
    v[0][0] = a / sqrt_of(r2, ops)
    w[0][0] = 0.0 * v[0][0]
    for m in range(n_max + 1):
        if m > 0:  # (3.30): the sectorials from the one before
            k = 2.0 * m - 1.0
            v[m][m] = k * (x0 * v[m - 1][m - 1] - y0 * w[m - 1][m - 1])
            w[m][m] = k * (x0 * w[m - 1][m - 1] + y0 * v[m - 1][m - 1])
        if m + 1 <= n_max:  # (3.31) with V_{m-1,m} = 0
            k = 2.0 * m + 1.0
            v[m + 1][m] = k * z0 * v[m][m]
            w[m + 1][m] = k * z0 * w[m][m]
        for n in range(m + 2, n_max + 1):
            k1 = (2.0 * n - 1.0) / (n - m)
            k2 = (n + m - 1.0) / (n - m)
            v[n][m] = k1 * z0 * v[n - 1][m] - k2 * rr * v[n - 2][m]
            w[n][m] = k1 * z0 * w[n - 1][m] - k2 * rr * w[n - 2][m]
    gx = gy = gz = 0.0
    for i in range(len(terms)):  # (3.33), the gradient of sum (C V + S W)
        term = terms[i]
        n, m, c, s = int(term[0]), int(term[1]), term[2], term[3]
        vn, wn = v[n + 1], w[n + 1]
        if m == 0:
            gx = gx - c * vn[1]
            gy = gy - c * wn[1]
        else:
            f = (n - m + 2.0) * (n - m + 1.0)
            gx = gx + 0.5 * ((-c * vn[m + 1] - s * wn[m + 1]) + f * (c * vn[m - 1] + s * wn[m - 1]))
            gy = gy + 0.5 * ((-c * wn[m + 1] + s * vn[m + 1]) + f * (-c * wn[m - 1] + s * vn[m - 1]))
        gz = gz + (n - m + 1.0) * (-c * vn[m] - s * wn[m])
    return (-gx, -gy, -gz)


def warm_igrf(model: Gauss) -> None:
    """Start loading :func:`igrf_one` in a thread of its own (:meth:`sim.core.jit.Kernel.start`; nothing once it
    is ready or loading): asked by the spacecraft's compiled loop, whose process has gone compiled
    (:meth:`sim.model.world.World.loop_input`).  Until it is ready :func:`igrf_ecef` runs :func:`igrf_sum` on
    lists (about 0.1 ms a field; the kernel's own Python, on arrays, would cost three times that)."""
    if not (igrf_one.ready or igrf_one.loading):
        igrf_one.start(0.0, 0.0, 0.0, _terms_table(model))


@kernel
def igrf_one(x, y, z, terms):
    """:func:`igrf_sum` of one body (floats), ``terms`` the array of :func:`_terms_table`: compiled once loaded
    (:func:`warm_igrf`; :func:`igrf_ecef` calls it only then)."""
    size = int(terms[terms.shape[0] - 1, 0]) + 2
    v = np.zeros((size, size + 1))
    w = np.zeros((size, size + 1))
    return igrf_sum(x, y, z, terms, v, w, None)


def dipole_ecef(r, model: Gauss, ops=FLOAT) -> tuple:
    """The tilted (centred) dipole of IGRF's first degree (T, ECEF) at the ECEF position ``r`` (m):
    :func:`dipole_field` of ``model.dipole``.  Equal to :func:`igrf_ecef` at degree 1."""
    return dipole_field(r, model.dipole, ops)


@jitable
def dipole_field(r, d, ops=FLOAT) -> tuple:
    """The centred dipole ``d = (g_1^1, h_1^1, g_1^0)`` (T, :attr:`Gauss.dipole`) at ``r`` (m), in the axes of both.

    With ``d`` the first-degree potential is
    ``V = a^3 (d . r) / r^3``, so ``B = (a/r)^3 (3 (d . u) u - d)``,
    ``u = r / |r|`` (the ``n = 1`` terms of Alken et al. (2021) eq. (1),
    written with ``r cos theta = z``, ``r sin theta cos phi = x``,
    ``r sin theta sin phi = y``).  ``|B| = |d| (a/r)^3``
    on the magnetic equator (``d . u = 0``) and twice that on the dipole's
    axis.  Floats, rows, or ``ops=None`` compiled.
    """
    x, y, z = r
    dx, dy, dz = d
    r2 = x * x + y * y + z * z
    rn = sqrt_of(r2, ops)
    ux, uy, uz = x / rn, y / rn, z / rn
    a_r = IGRF_RADIUS / rn
    k = a_r * a_r * a_r
    du3 = 3.0 * (dx * ux + dy * uy + dz * uz)
    return (k * (du3 * ux - dx), k * (du3 * uy - dy), k * (du3 * uz - dz))


@jitable
def dipole_eci(r_eci, rotation, p, d, ops=FLOAT) -> tuple:
    """:func:`dipole_field` (T, ECI) at the ECI position ``r_eci`` (m): the position turned into ECEF and the
    field back (:func:`field_eci`'s transformation), ``d`` the dipole in ECEF."""
    return ecef_to_eci(dipole_field(eci_to_ecef(r_eci, rotation, p), d, ops), rotation, p)


def dipole_axis(model: Gauss) -> tuple:
    """``(B0, u)``: the dipole's strength ``B0 = |d|`` (T, at ``r = a`` on its equator) and the unit vector ``u``
    (ECEF) at the geomagnetic north pole, where the field points into the Earth (``u = -d / |d|``)."""
    dx, dy, dz = model.dipole
    b0 = math.sqrt(dx * dx + dy * dy + dz * dz)
    return b0, (-dx / b0, -dy / b0, -dz / b0)


def field_eci(r_eci, rotation, p, model: Gauss, ops=FLOAT, dipole: bool = False) -> tuple:
    """The field (T, ECI = J2000 axes) at the ECI position ``r_eci`` (m).

    ``rotation`` is ``(cos GMST, sin GMST)`` and ``p`` the precession matrix
    of date (:func:`sim.world.frames.precession`): the position is turned into
    ECEF by :func:`sim.world.frames.eci_to_ecef` (``R3(GMST) P``), the field
    evaluated there (:func:`igrf_ecef`, or :func:`dipole_ecef` when
    ``dipole``) and turned back by :func:`sim.world.frames.ecef_to_eci`: the
    one transformation of the project.  Floats, or rows for the position and
    the angle's cosine and sine.
    """
    if dipole:
        return dipole_eci(r_eci, rotation, p, model.dipole, ops)
    return ecef_to_eci(igrf_ecef(eci_to_ecef(r_eci, rotation, p), model, ops), rotation, p)
