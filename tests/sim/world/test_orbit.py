"""Orbits, time and frames (issue 31) against closed forms, scipy and astropy."""

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from sim.core.ops import COLUMN
from sim.world import frames, time as wtime
from sim.world.orbit import (J2, MU_KM, R_EARTH_KM, KeplerOrbit, OrbitError, TleOrbit, anomaly_state, axes_fixed,
                             check_elements, coe_to_rv, elements_to_state, kepler, mean_elements_state, orbit_axes, orbit_shape,
                             read_tle, shape_state, state_to_elements)

ISS_TLE = """ISS (ZARYA)
1 25544U 98067A   24079.54791667  .00016717  00000-0  30057-3 0  9997
2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.49815311 44296
"""


def test_julian_date_and_gmst_against_astropy():
    import tests.astropy_offline  # noqa: F401
    from astropy.time import Time
    for text in ("1957-10-04T19:28:34Z", "2000-01-01T12:00:00Z", "2024-03-20T03:06:00Z", "2049-12-31T23:59:59Z"):
        e = wtime.parse_epoch(text)
        t = Time(text[:-1], scale="utc")
        assert e.jd_day + e.jd_frac == pytest.approx(t.jd, abs=1e-9)
        t.delta_ut1_utc = 0.0  # sim's UT1 = UTC
        want = t.sidereal_time("mean", "greenwich", model="IAU1982").rad
        got = wtime.gmst(e.days_utc(0.0))
        assert abs((got - want + math.pi) % (2 * math.pi) - math.pi) < 1e-8


def test_epoch_outside_the_ephemeris_is_refused():
    for bad in ("1949-12-31T23:00:00Z", "2051-01-01", "yesterday", 2024):
        with pytest.raises(wtime.EpochError):
            wtime.parse_epoch(bad)
    assert wtime.parse_epoch("2024-03-20T12:00:00+02:00") == wtime.parse_epoch("2024-03-20T10:00:00Z")


@pytest.mark.slow
def test_ecef_against_astropy_itrs():
    import tests.astropy_offline  # noqa: F401
    import astropy.units as u
    from astropy.coordinates import GCRS, ITRS, CartesianRepresentation
    from astropy.time import Time
    r = (7000.0, -1200.0, 3000.0)
    for text in ("1960-01-04T10:00:00", "2031-07-04T10:00:00", "2049-11-04T10:00:00"):
        e = wtime.parse_epoch(text)
        g = wtime.gmst(e.days_utc(0.0))
        p = frames.precession(wtime.julian_centuries_tt(e.days_tt(0.0)))
        got = frames.eci_to_ecef(r, (math.cos(g), math.sin(g)), p)
        t = Time(text, scale="utc")
        t.delta_ut1_utc = 0.0
        want = GCRS(CartesianRepresentation(*r, unit=u.km), obstime=t).transform_to(ITRS(obstime=t))
        # nutation and polar motion neglected: under 20 arcsec, 0.75 km at 7,700 km
        assert np.linalg.norm(np.array(got) - want.cartesian.xyz.to(u.km).value) < 0.75
        back = frames.ecef_to_eci(got, (math.cos(g), math.sin(g)), p)
        assert np.allclose(back, r, atol=1e-9)


def test_geodetic_against_astropy():
    import tests.astropy_offline  # noqa: F401
    import astropy.units as u
    from astropy.coordinates import EarthLocation
    for lat, lon, h in ((48.1, 11.6, 0.5), (-33.9, -70.7, 3.0), (89.0, 0.0, 400.0), (0.0, 179.0, 0.0)):
        want = EarthLocation.from_geodetic(lon * u.deg, lat * u.deg, h * u.km, ellipsoid="WGS84")
        got = frames.geodetic_to_ecef(math.radians(lat), math.radians(lon), h)
        assert np.allclose(got, [want.x.to(u.km).value, want.y.to(u.km).value, want.z.to(u.km).value], atol=1e-9)
        la, lo, al = frames.ecef_to_geodetic(got)
        assert (math.degrees(la), math.degrees(lo), al) == pytest.approx((lat, lon, h), abs=1e-9)


def test_lvlh_is_markley_crassidis():
    r, v = elements_to_state(7000.0, 0.01, 0.9, 0.2, 0.3, 1.0)
    o1, o2, o3 = frames.lvlh(r, v)
    rn = np.linalg.norm(r)
    assert np.allclose(o3, -np.array(r) / rn, atol=1e-15)
    h = np.cross(r, v)
    assert np.allclose(o2, -h / np.linalg.norm(h), atol=1e-15)
    assert np.allclose(np.cross(o1, o2), o3, atol=1e-15)   # right-handed
    assert np.dot(o1, v) > 0.99 * np.linalg.norm(v)


@pytest.mark.parametrize("e", [0.0, 0.3, 0.95])
def test_kepler_equation(e):
    m = np.linspace(-10.0, 10.0, 101)
    ee = kepler(m, e, COLUMN)
    assert np.allclose(ee - e * np.sin(ee), m - 2 * np.pi * np.round(m / (2 * np.pi)), atol=1e-13)


def test_two_body_energy_period_and_momentum():
    orbit = KeplerOrbit(8000.0, 0.2, 0.7, 1.0, 2.0, 0.3)
    a = 8000.0
    period = 2 * math.pi * math.sqrt(a ** 3 / MU_KM)
    assert orbit.period == pytest.approx(period, rel=1e-14)
    r0, v0 = orbit.state(0.0)
    for t in np.linspace(0.0, period, 17):
        r, v = orbit.state(t)
        energy = 0.5 * np.dot(v, v) - MU_KM / np.linalg.norm(r)
        assert energy == pytest.approx(-MU_KM / (2 * a), rel=1e-12)
        assert np.allclose(np.cross(r, v), np.cross(r0, v0), rtol=1e-12)
    r1, v1 = orbit.state(period)
    assert np.allclose(r1, r0, atol=1e-7) and np.allclose(v1, v0, atol=1e-10)


def test_two_body_against_numerical_integration():
    orbit = KeplerOrbit(7500.0, 0.1, 1.2, 0.4, 0.5, 2.0)
    r0, v0 = orbit.state(0.0)

    def f(t, y):
        r = y[:3]
        return np.concatenate([y[3:], -MU_KM * r / np.linalg.norm(r) ** 3])
    sol = solve_ivp(f, (0.0, 20000.0), np.concatenate([r0, v0]), rtol=1e-12, atol=1e-9, method="DOP853")
    r, _ = orbit.state(20000.0)
    assert np.allclose(r, sol.y[:3, -1], atol=1e-4)


def test_elements_round_trip():
    for el in ((7000.0, 0.001, 0.5, 6.0, 1.0, 4.0), (26000.0, 0.7, 1.1, 0.1, 5.0, 0.2)):
        r, v = elements_to_state(*el)
        assert state_to_elements(r, v) == pytest.approx(el, rel=1e-9)


def _j2_cowell(r0, v0, seconds, samples):
    def f(t, y):
        r = y[:3]
        rn = np.linalg.norm(r)
        z2 = (r[2] / rn) ** 2
        k = 1.5 * J2 * MU_KM * R_EARTH_KM ** 2 / rn ** 5
        acc = -MU_KM * r / rn ** 3 + k * np.array([r[0] * (5 * z2 - 1), r[1] * (5 * z2 - 1), r[2] * (5 * z2 - 3)])
        return np.concatenate([y[3:], acc])
    t = np.linspace(0.0, seconds, samples)
    return solve_ivp(f, (0.0, seconds), np.concatenate([r0, v0]), t_eval=t, rtol=1e-11, atol=1e-8,
                     method="DOP853")


def _unwrap_fit(t, angles):
    return np.polyfit(t, np.unwrap(angles), 1)[0]


def test_j2_nodal_and_apsidal_rates_over_a_day():
    """Closed forms of the secular rates against a J2 Cowell integration (scipy) over a day, within 1 %;
    the propagator's node and perigee turn at those rates."""
    a, e, i = 7200.0, 0.05, math.radians(63.0 - 20.0)
    orbit = KeplerOrbit(a, e, i, 0.3, 1.0, 0.0, j2=True)
    n = math.sqrt(MU_KM / a ** 3)
    p = a * (1 - e * e)
    node = -1.5 * n * J2 * (R_EARTH_KM / p) ** 2 * math.cos(i)
    apsis = 0.75 * n * J2 * (R_EARTH_KM / p) ** 2 * (5 * math.cos(i) ** 2 - 1)
    r0, v0 = orbit.state(0.0)
    sol = _j2_cowell(r0, v0, 86400.0, 2000)
    els = np.array([state_to_elements(sol.y[:3, k], sol.y[3:, k]) for k in range(sol.y.shape[1])])
    assert _unwrap_fit(sol.t, els[:, 3]) == pytest.approx(node, rel=0.01)
    assert _unwrap_fit(sol.t, els[:, 4]) == pytest.approx(apsis, rel=0.01)
    mine = np.array([state_to_elements(*orbit.state(t)) for t in sol.t])
    assert _unwrap_fit(sol.t, mine[:, 3]) == pytest.approx(node, rel=1e-6)
    assert _unwrap_fit(sol.t, mine[:, 4]) == pytest.approx(apsis, rel=1e-6)
    # position over the first orbit: the secular scheme leaves out the short-periodic terms, and its
    # mean elements started as osculating ones drift along the track (about 250 km a day here)
    first = sol.t < orbit.period
    far = np.linalg.norm(np.array([orbit.state(t)[0] for t in sol.t[first]]).T - sol.y[:3, first], axis=0)
    assert far.max() < 25.0


def test_sun_synchronous_plane_turns_a_degree_a_day():
    a = R_EARTH_KM + 500.0
    n = math.sqrt(MU_KM / a ** 3)
    # the inclination where -3/2 n J2 (R/a)^2 cos i = 360 deg per tropical year
    rate = 2 * math.pi / (365.2422 * 86400.0)
    i = math.acos(-rate / (1.5 * n * J2 * (R_EARTH_KM / a) ** 2))
    assert math.degrees(i) == pytest.approx(97.4, abs=0.05)
    orbit = KeplerOrbit(a, 0.0, i, 0.0, 0.0, 0.0, j2=True)
    r0, v0 = orbit.state(0.0)
    sol = _j2_cowell(r0, v0, 86400.0, 1500)
    h = np.cross(sol.y[:3].T, sol.y[3:].T)
    raan = np.arctan2(h[:, 0], -h[:, 1])
    assert math.degrees(_unwrap_fit(sol.t, raan)) * 86400.0 == pytest.approx(0.9856, rel=0.01)
    h1 = np.cross(*orbit.state(86400.0))
    assert math.degrees(math.atan2(h1[0], -h1[1])) == pytest.approx(0.9856, rel=0.01)


def test_bad_elements_are_refused():
    with pytest.raises(OrbitError, match="eccentricity"):
        check_elements(7000.0, 1.0)
    with pytest.raises(OrbitError, match="eccentricity"):
        check_elements(7000.0, -0.1)
    with pytest.raises(OrbitError, match="under the Earth's surface"):
        check_elements(7000.0, 0.2)
    check_elements(7000.0, 0.05)


def test_tle_against_sgp4_and_astropy_teme():
    import tests.astropy_offline  # noqa: F401
    import astropy.units as u
    from astropy.coordinates import GCRS, TEME, CartesianDifferential, CartesianRepresentation
    from astropy.time import Time
    sat = read_tle(ISS_TLE)
    epoch = wtime.parse_epoch("2024-03-20T06:00:00Z")
    orbit = TleOrbit(sat, epoch)
    for t in (0.0, 1000.0, 5000.0):
        r, v = orbit.state(t)
        err, rt, vt = sat.sgp4(epoch.jd_day, epoch.jd_frac + t / 86400.0)
        at = Time(epoch.jd_day, epoch.jd_frac + t / 86400.0, format="jd", scale="utc")
        teme = TEME(CartesianRepresentation(rt * u.km, differentials=CartesianDifferential(vt * u.km / u.s)),
                    obstime=at)
        want = teme.transform_to(GCRS(obstime=at)).cartesian.xyz.to(u.km).value
        assert np.linalg.norm(np.array(r) - want) < 0.75   # TEME as mean of date: nutation neglected
        assert abs(np.linalg.norm(r) - np.linalg.norm(rt)) < 1e-9


@pytest.mark.parametrize("bad", ["", "1 25544U\n2 25544", ISS_TLE.replace("9997", "9998"),
                                 ISS_TLE.replace("2 25544", "3 25544")])
def test_malformed_tle_is_refused(bad):
    with pytest.raises(OrbitError):
        read_tle(bad)


def test_columns_give_floats_per_body():
    a = np.array([7000.0, 7500.0, 9000.0])
    e = np.array([0.0, 0.1, 0.3])
    col = KeplerOrbit(a, e, 0.5, 0.2, 0.3, 0.4, j2=True, ops=COLUMN)
    rc, vc = col.state(3000.0)
    for k in range(3):
        r, v = KeplerOrbit(float(a[k]), float(e[k]), 0.5, 0.2, 0.3, 0.4, j2=True).state(3000.0)
        # one compiled formula for both (sim.world.orbit.mean_elements_state): bit for bit
        assert [float(x[k]) for x in rc] == list(r) and [float(x[k]) for x in vc] == list(v)


def test_the_orbit_starts_at_its_true_anomaly_and_keeps_keplers_time():
    """At t = 0 the state of the given true anomaly; from perigee to nu = 90 deg the time of flight of
    the closed form t = (E - e sin E)/n, tan(E/2) = sqrt((1-e)/(1+e)) tan(nu/2) (Vallado (2-9))."""
    a, e = 9000.0, 0.3
    orbit = KeplerOrbit(a, e, 0.5, 0.2, 0.3, 1.0)
    assert np.allclose(orbit.state(0.0)[0], elements_to_state(a, e, 0.5, 0.2, 0.3, 1.0)[0], atol=1e-8)
    perigee = KeplerOrbit(a, e, 0.5, 0.2, 0.3, 0.0)
    big_e = 2 * math.atan(math.sqrt((1 - e) / (1 + e)) * math.tan(math.pi / 4))
    tof = (big_e - e * math.sin(big_e)) / math.sqrt(MU_KM / a ** 3)
    assert np.allclose(perigee.state(tof)[0], elements_to_state(a, e, 0.5, 0.2, 0.3, math.pi / 2)[0], atol=1e-7)


def _bits(x):
    return np.asarray(x, dtype=float).view(np.uint64)


@pytest.mark.parametrize("elements", [
    (6878.0, 0.01, math.radians(97.4), 0.0, math.radians(20.0), 0.3, 0.0, 0.0),  # two-body: axes made once
    (7000.0, 0.02, 0.0, 0.0, -0.0, 1.0, 0.0, 0.0),  # equatorial, argp -0.0: the axes made at every t
    (6878.0, 0.001, math.radians(51.6), -0.0, 1.0, 2.0, 0.0, 0.0),  # RAAN -0.0
    (6878.0, 0.01, math.radians(97.4), 1.0, 2.0, 0.5, 2e-7, -3e-7),  # J2 drift: the axes made at every t
])
def test_an_orbits_fixed_part_made_once_gives_mean_elements_state_to_the_bit(elements):
    """The ensemble's orbit loop makes an orbit's shape and, without drift, its axes once per body (issue 42):
    its states must be :func:`mean_elements_state`'s to the bit at every time, the first of them negative (a
    moving mode's command at ``t - 0.5 s``) and the true anomaly in every quadrant, where a ``-0.0`` angle
    would turn into ``+0.0`` (``RAAN + 0 t``) and flip a zero's sign in the state."""
    a, e, i, raan, argp, m0, raan_rate, argp_rate = elements
    m_rate = math.sqrt(MU_KM / a ** 3)
    shape = orbit_shape(a, e, i, MU_KM)
    axes = orbit_axes(raan, argp, shape[2], shape[3])
    fixed = axes_fixed(raan, argp, raan_rate, argp_rate)
    assert fixed == (raan_rate == 0.0 and argp_rate == 0.0 and math.copysign(1.0, raan) > 0
                     and math.copysign(1.0, argp) > 0)
    period = 2.0 * math.pi / m_rate
    for t in [-0.5, 0.0, 0.1] + [period * k / 17.0 + 0.05 for k in range(18)]:
        want = mean_elements_state(a, e, i, raan, argp, m0, raan_rate, argp_rate, m_rate, t)
        got = shape_state(shape, axes, fixed, e, raan, argp, m0, raan_rate, argp_rate, m_rate, t)
        assert np.array_equal(_bits(got), _bits(want)), t
    r = np.array(coe_to_rv(a, e, i, raan, argp, 0.7, MU_KM)[:3])  # Vallado Algorithm 10 by hand, nu = 0.7
    p = a * (1.0 - e * e)
    perifocal = p / (1.0 + e * math.cos(0.7)) * np.array([math.cos(0.7), math.sin(0.7), 0.0])
    turn = _r3(-raan) @ _r1(-i) @ _r3(-argp)
    assert np.allclose(r, turn @ perifocal, rtol=0, atol=1e-9)


def _r1(x):
    return np.array([[1.0, 0.0, 0.0], [0.0, math.cos(x), math.sin(x)], [0.0, -math.sin(x), math.cos(x)]])


def _r3(x):
    return np.array([[math.cos(x), math.sin(x), 0.0], [-math.sin(x), math.cos(x), 0.0], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize("e", [0.0, 0.001, 0.2, 0.7])
def test_the_state_at_the_eccentric_anomaly_is_vallados_at_the_true_anomaly(e):
    """:func:`anomaly_state` (the perifocal state from ``sin E``, ``cos E``: no true anomaly) against Vallado's
    Algorithm 10 at the true anomaly of the same ``E`` (Vallado (2-10), in long double): position and velocity
    within 1e-14 of their norms, in every quadrant."""
    a, i, raan, argp = 7200.0, 1.1, 0.4, 2.3
    shape = orbit_shape(a, e, i, MU_KM)
    axes = orbit_axes(raan, argp, shape[2], shape[3])
    for ee in np.linspace(-math.pi, math.pi, 37):
        h = np.longdouble(ee) / 2
        nu = float(2 * np.arctan2(np.sqrt(np.longdouble(1.0 + e)) * np.sin(h), np.sqrt(np.longdouble(1.0 - e)) * np.cos(h)))
        want = np.array(coe_to_rv(a, e, i, raan, argp, nu, MU_KM))
        got = np.array(anomaly_state(e, math.sin(ee), math.cos(ee), shape, axes))
        rn, vn = np.linalg.norm(want[:3]), np.linalg.norm(want[3:])
        assert np.abs(got[:3] - want[:3]).max() <= 1e-14 * rn, ee
        assert np.abs(got[3:] - want[3:]).max() <= 1e-14 * vn, ee
