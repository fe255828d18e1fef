"""The geomagnetic field (sim.world.magnetic) against ppigrf (an independent IGRF synthesis) and the dipole's closed forms."""

import datetime as dt
import math
import warnings

import numpy as np
import pytest

import ppigrf  # the oracle; a dependency of the project: a broken install fails, it does not skip

from sim.core.ops import COLUMN
from sim.core.quaternion import cayley, from_axis_angle
from sim.world.frames import precession
from sim.core.angles import to_body
from sim.world.magnetic import IGRF_RADIUS, dipole_axis, dipole_ecef, field_eci, gauss, igrf_ecef

# WGS84, for placing geodetic points in the tests (ppigrf's constants)
WGS84_A, WGS84_E2 = 6378137.0, 0.00669437999014

# places that span the globe: near both poles, the equator, the South Atlantic Anomaly, the dateline
PLACES_GC = [(89.95, 0.0), (0.05, 123.0), (90.0, 10.0), (116.0, -50.0), (60.0, 180.0), (135.0, 77.0),
             (45.0, -120.0), (170.0, 300.0)]  # (colatitude, longitude) degrees
RADII_KM = [6371.2, 6878.137, 7378.137, 42164.0]
DATES = [dt.datetime(2020, 1, 1), dt.datetime(2021, 7, 15, 6), dt.datetime(2024, 2, 29, 12),
         dt.datetime(2025, 1, 1), dt.datetime(2027, 11, 3), dt.datetime(2029, 12, 31)]


def ppigrf_year(date: dt.datetime) -> float:
    """The decimal year at which ppigrf's interpolation stands: linear in time between its Jan-1 epochs."""
    y0 = 2020 if date.year < 2025 else 2025
    t0, t1 = dt.datetime(y0, 1, 1), dt.datetime(y0 + 5, 1, 1)
    return y0 + 5.0 * (date - t0).total_seconds() / (t1 - t0).total_seconds()


def decimal_year(date: dt.datetime) -> float:
    t0, t1 = dt.datetime(date.year, 1, 1), dt.datetime(date.year + 1, 1, 1)
    return date.year + (date - t0).total_seconds() / (t1 - t0).total_seconds()


def spherical(r_km, colat_deg, lon_deg):
    t, p = math.radians(colat_deg), math.radians(lon_deg)
    x = r_km * 1e3 * np.array([math.sin(t) * math.cos(p), math.sin(t) * math.sin(p), math.cos(t)])
    e_r = x / np.linalg.norm(x)
    e_t = np.array([math.cos(t) * math.cos(p), math.cos(t) * math.sin(p), -math.sin(t)])
    e_p = np.array([-math.sin(p), math.cos(p), 0.0])
    return x, e_r, e_t, e_p


def oracle_gc(r_km, colat, lon, date, degree=13):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        br, bt, bp = ppigrf.igrf_gc(r_km, colat, lon, date, max_degree=degree)
    return float(br[0]), float(bt[0]), float(bp[0])


@pytest.mark.slow
@pytest.mark.parametrize("date", DATES, ids=lambda d: d.date().isoformat())
def test_igrf_matches_ppigrf_in_geocentric_coordinates(date):
    model = gauss(ppigrf_year(date))
    for r_km in RADII_KM:
        for colat, lon in PLACES_GC:
            if colat in (0.0, 180.0):
                continue
            x, e_r, e_t, e_p = spherical(r_km, colat, lon)
            b = np.array(igrf_ecef(tuple(x), model)) * 1e9
            br, bt, bp = oracle_gc(r_km, colat, lon, date)
            # the two syntheses differ only by rounding: well under the 0.1 nT asked for
            assert abs(b @ e_r - br) < 1e-3, (r_km, colat, lon)
            assert abs(b @ e_t - bt) < 1e-3, (r_km, colat, lon)
            assert abs(b @ e_p - bp) < 1e-3, (r_km, colat, lon)


@pytest.mark.parametrize("lat, lon, h_km", [(89.9, 0.0, 500.0), (-89.9, 45.0, 0.0), (0.0, -75.0, 400.0),
                                            (-26.0, -50.0, 500.0), (51.5, -0.1, 0.0), (-33.9, 151.2, 800.0),
                                            (64.0, -150.0, 2000.0)])
def test_igrf_matches_ppigrf_at_geodetic_places_east_north_up(lat, lon, h_km):
    """ppigrf's geodetic interface (WGS84 heights, east/north/up against the ellipsoid), decimal years."""
    date = dt.datetime(2026, 8, 17, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        be, bn, bu = (float(c[0]) for c in ppigrf.igrf(lon, lat, h_km, date))
    phi, lam = math.radians(lat), math.radians(lon)
    n_e = WGS84_A / math.sqrt(1.0 - WGS84_E2 * math.sin(phi) ** 2)
    h = h_km * 1e3
    x = np.array([(n_e + h) * math.cos(phi) * math.cos(lam), (n_e + h) * math.cos(phi) * math.sin(lam),
                  (n_e * (1.0 - WGS84_E2) + h) * math.sin(phi)])
    east = np.array([-math.sin(lam), math.cos(lam), 0.0])
    north = np.array([-math.sin(phi) * math.cos(lam), -math.sin(phi) * math.sin(lam), math.cos(phi)])
    up = np.array([math.cos(phi) * math.cos(lam), math.cos(phi) * math.sin(lam), math.sin(phi)])
    b = np.array(igrf_ecef(tuple(x), gauss(decimal_year(date)))) * 1e9
    # a decimal year is not quite ppigrf's time axis (0.01 nT here); its ellipsoid conversion is a series
    assert abs(b @ east - be) < 0.1
    assert abs(b @ north - bn) < 0.1
    assert abs(b @ up - bu) < 0.1


@pytest.mark.parametrize("degree", [1, 2, 5, 10])
def test_igrf_at_a_lower_degree_matches_ppigrf_truncated(degree):
    date = dt.datetime(2025, 1, 1)
    model = gauss(2025.0, degree)
    for colat, lon in PLACES_GC[:5]:
        if colat == 90.0:
            colat = 89.0
        x, e_r, e_t, e_p = spherical(6878.137, colat, lon)
        b = np.array(igrf_ecef(tuple(x), model)) * 1e9
        br, bt, bp = oracle_gc(6878.137, colat, lon, date, degree)
        assert np.allclose([b @ e_r, b @ e_t, b @ e_p], [br, bt, bp], rtol=0, atol=1e-3)


def test_igrf_at_the_geographic_poles_is_finite_and_continuous():
    """The Cartesian recursion has no 1/sin(colatitude): exact poles evaluate, and agree with a point beside them."""
    model = gauss(2025.5)
    for z in (7e6, -7e6):
        at_pole = np.array(igrf_ecef((0.0, 0.0, z), model))
        beside = np.array(igrf_ecef((7e6 * 1e-9, 0.0, z), model))
        assert np.all(np.isfinite(at_pole))
        assert np.allclose(at_pole, beside, rtol=0, atol=1e-12)  # 7 mm apart: the gradient moves B by 0.1 pT


def test_the_dipole_is_igrf_at_degree_one():
    model = gauss(2022.3, 1)
    rng = np.random.default_rng(1)
    for _ in range(20):
        x = tuple(rng.normal(size=3) * 7e6)
        assert np.allclose(dipole_ecef(x, model), igrf_ecef(x, model), rtol=1e-12, atol=0)


@pytest.mark.parametrize("r_km", [6371.2, 6878.137, 26560.0])
def test_dipole_is_b0_on_the_magnetic_equator_and_twice_that_at_the_poles(r_km):
    model = gauss(2025.0)
    b0, u = dipole_axis(model)
    assert 29e-6 < b0 < 30e-6  # IGRF-14 2025: |(g10, g11, h11)| = 29.7 uT
    scale = (IGRF_RADIUS / (r_km * 1e3)) ** 3
    u = np.array(u)
    e = np.cross(u, [0.0, 0.0, 1.0])
    e /= np.linalg.norm(e)
    for eq in (e, np.cross(u, e), -e):
        b = np.array(dipole_ecef(tuple(r_km * 1e3 * eq), model))
        assert np.linalg.norm(b) == pytest.approx(b0 * scale, rel=1e-13, abs=0)
        assert b @ u == pytest.approx(b0 * scale, rel=1e-13, abs=0)  # on the equator the field points north along u
    north = np.array(dipole_ecef(tuple(r_km * 1e3 * u), model))
    south = np.array(dipole_ecef(tuple(-r_km * 1e3 * u), model))
    assert north == pytest.approx(-2 * b0 * scale * u, rel=1e-13, abs=0)  # into the Earth at the geomagnetic north pole
    assert south == pytest.approx(-2 * b0 * scale * u, rel=1e-13, abs=0)  # out of it at the south pole
    assert u[2] > 0.95  # the geomagnetic north pole is near the geographic one (about 80.8 deg N)


def test_columns_are_bit_identical_to_floats():
    model = gauss(2027.25)
    rng = np.random.default_rng(7)
    cols = rng.normal(size=(3, 9)) * 7e6
    cols[:, 0] = (0.0, 0.0, 6.9e6)
    era = rng.uniform(0, 2 * math.pi, 9)
    for dipole in (False, True):
        p = precession(0.27)
        bc = field_eci(tuple(cols), (np.cos(era), np.sin(era)), p, model, COLUMN, dipole=dipole)
        for i in range(9):
            rot = (math.cos(float(era[i])), math.sin(float(era[i])))
            bf = field_eci(tuple(float(v) for v in cols[:, i]), rot, p, model, dipole=dipole)
            assert tuple(float(b[i]) for b in bc) == bf


def test_field_eci_turns_by_the_earth_rotation_angle():
    """At ECI (r, 0, 0) and GMST = 90 deg (no precession) the point is at longitude -90 deg; east there is ECI +y."""
    date = dt.datetime(2025, 1, 1)
    r_km = 6878.137
    b = np.array(field_eci((r_km * 1e3, 0.0, 0.0), (0.0, 1.0), _IDENTITY, gauss(2025.0))) * 1e9
    br, bt, bp = oracle_gc(r_km, 90.0, -90.0, date)
    assert np.allclose(b, [br, bp, -bt], rtol=0, atol=1e-3)  # radial = +x, east = +y, north = -theta = +z


def test_field_eci_uses_the_frames_precession():
    """With the precession of 2025 the field is the ECEF field at P r, turned back by P^T (frames' one transformation)."""
    model = gauss(2025.0)
    p = precession(0.25)
    r = (3.1e6, -4.2e6, 4.4e6)
    x = np.array(p).reshape(3, 3) @ np.array(r)
    b_ecef = np.array(igrf_ecef(tuple(x), model))
    b = np.array(field_eci(r, (1.0, 0.0), p, model))
    assert np.allclose(b, np.array(p).reshape(3, 3).T @ b_ecef, rtol=0, atol=1e-18)
    assert not np.allclose(b, igrf_ecef(r, model), rtol=0, atol=1e-9)  # 25 years of precession: 0.35 deg


_IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def test_to_body_is_the_cayley_matrix_times_the_vector():
    rng = np.random.default_rng(3)
    for _ in range(10):
        q = from_axis_angle(rng.normal(size=3), rng.uniform(0, 6))
        v = rng.normal(size=3)
        assert np.allclose(to_body(tuple(q), tuple(v)), cayley(q) @ v, rtol=0, atol=1e-15)
        assert np.allclose(to_body(tuple(2.0 * q), tuple(v)), cayley(q) @ v, rtol=0, atol=1e-15)


@pytest.mark.parametrize("year, degree", [(1899.9, 13), (2030.01, 13), (2025.0, 0), (2025.0, 14), (2025.0, 2.5)])
def test_gauss_refuses_years_and_degrees_out_of_range(year, degree):
    with pytest.raises(ValueError, match="IGRF"):
        gauss(year, degree)


def test_gauss_interpolates_linearly_in_time_between_the_tabulated_models():
    """Alken et al. (2021) eq. (2): halfway between 2020 and 2025 the dipole is the mean of the two."""
    a, b, mid = gauss(2020.0, 1), gauss(2025.0, 1), gauss(2022.5, 1)
    assert np.allclose(mid.dipole, 0.5 * (np.array(a.dipole) + np.array(b.dipole)), rtol=1e-14, atol=0)
    assert a.dipole[2] == pytest.approx(-29403.41e-9, rel=1e-15, abs=0)  # g10 of IGRF-14 for 2020, from the file


@pytest.mark.parametrize("degree", [1, 2, 13])
def test_igrf_compiled_is_the_python_text_bit_for_bit(degree):
    """One body's field is the compiled igrf_one (issue 42: a sample of the spacecraft's loop cost 0.1 ms of
    Python); it runs igrf_sum, the text the rows run: the same bits as that text run as Python, and as rows."""
    from sim.world.magnetic import _terms_table, igrf_one, igrf_sum
    model = gauss(2024.3, degree)
    rng = np.random.default_rng(degree)
    points = [tuple(float(v) for v in rng.normal(size=3) * 7e6) for _ in range(50)] + [(0.0, 0.0, 6.4e6)]
    table = _terms_table(model)
    igrf_one.wait(*points[0], table)
    size = degree + 2
    for p in points:
        python = igrf_sum(*p, model.terms, [[0.0] * (size + 1) for _ in range(size)],
                          [[0.0] * (size + 1) for _ in range(size)])
        compiled = igrf_ecef(p, model)
        assert all(type(x) is float for x in compiled)
        assert np.array_equal(np.array(compiled).view(np.uint64), np.array(python).view(np.uint64))
    rows = igrf_ecef(tuple(np.array([p[i] for p in points]) for i in range(3)), model, COLUMN)
    assert np.array_equal(np.array(rows).T.view(np.uint64), np.array([igrf_ecef(p, model) for p in points]).view(np.uint64))
