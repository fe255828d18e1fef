"""The simulator's own elliptic functions and the closed form of the free asymmetric top, against scipy.

References, independent of sim/: scipy.special (ellipj, ellipk, ellipkinc,
elliprf, elliprj, elliprc), scipy.integrate.quad for the integral of the
third kind (scipy has no incomplete Pi), and solve_ivp (DOP853, rtol 1e-12,
tests/oracle.py) for the tumble.  scipy's ellipj is cephes' Landen
transformation for m <= 1 - 1e-9 (beyond, it switches to a series that is
off by up to 1e-5 here): above that the functions are checked by their own
identities and by F(am(u) | m) = u with scipy's ellipkinc.
"""

import math

import numpy as np
import pytest
from scipy import integrate, special

from sim.core import elliptic as E
from sim.core.body import Body
from sim.core.quaternion import cayley, from_aircraft_angles
from sim.core.tumble import FreeTumble, attitude_error, crossings, flip_period, measured_period

from oracle import solve_attitude

RNG = np.random.default_rng(20240522)


def _ms(n, below=1.0 - 1e-9):
    """Parameters spread over [0, below]: uniform, and logarithmically close to the top."""
    u = RNG.uniform(0.0, 1.0, n)
    near = 1.0 - 10.0 ** RNG.uniform(math.log10(1.0 - below), -1.0, n)
    return np.where(RNG.uniform(size=n) < 0.6, u * below, near)


def test_ellipk_agrees_with_scipy():
    for m in [0.0, 1e-12, 0.3, 0.5, 0.9, 0.999999, 1.0 - 1e-15, *_ms(200)]:
        assert E.ellipk(m) == pytest.approx(special.ellipk(m), rel=2e-15), m
    assert E.ellipk(0.0) == math.pi / 2


def test_ellipj_agrees_with_scipy():
    ms, us = _ms(3000), RNG.uniform(-60.0, 60.0, 3000)
    for m, u in zip(ms, us):
        sn, cn, dn, am = E.ellipj(u, m)
        s_sn, s_cn, s_dn, s_am = special.ellipj(u, m)
        assert abs(sn - s_sn) < 1e-12 and abs(cn - s_cn) < 1e-12, (m, u)
        # scipy's dn is sqrt(1 - m sn^2), which loses digits where dn is small; ours has no cancellation
        assert abs(dn - s_dn) < 1e-12 * max(1.0, 1e-4 / s_dn), (m, u)
        assert am == pytest.approx(s_am, rel=1e-14, abs=1e-14), (m, u)


def test_ellipj_near_one_by_its_identities():
    for m, u in zip(1.0 - 10.0 ** RNG.uniform(-15, -9, 500), RNG.uniform(-60.0, 60.0, 500)):
        sn, cn, dn, am = E.ellipj(u, m)
        assert sn == math.sin(am) and cn == math.cos(am)
        assert dn * dn + m * sn * sn == pytest.approx(1.0, abs=4e-16)
        assert special.ellipkinc(am, m) == pytest.approx(u, rel=1e-9, abs=1e-9)   # F is steep there


def test_ellipj_special_values():
    m = 0.7
    k = E.ellipk(m)
    sn, cn, dn, am = E.ellipj(k, m)
    assert (sn, am) == (pytest.approx(1.0, abs=1e-15), pytest.approx(math.pi / 2, abs=1e-14))
    assert abs(cn) < 1e-14 and dn == pytest.approx(math.sqrt(1.0 - m), rel=1e-13)
    assert E.ellipj(0.37, 0.0)[:3] == pytest.approx((math.sin(0.37), math.cos(0.37), 1.0), abs=1e-16)
    assert E.ellipj(2 * k + 0.3, m)[3] == pytest.approx(E.ellipj(0.3, m)[3] + math.pi, abs=1e-13)


def test_carlson_integrals_agree_with_scipy():
    for x, y, z, p in RNG.uniform(0.0, 5.0, (1000, 4)):
        assert E.carlson_rf(x, y, z) == pytest.approx(special.elliprf(x, y, z), rel=1e-15)
        assert E.carlson_rj(x, y, z, p + 1e-3) == pytest.approx(special.elliprj(x, y, z, p + 1e-3), rel=4e-15)
        assert E.carlson_rc(x, y + 1e-3) == pytest.approx(special.elliprc(x, y + 1e-3), rel=1e-15)
    assert E.carlson_rf(0.0, 1.0, 2.0) == pytest.approx(special.elliprf(0.0, 1.0, 2.0), rel=1e-15)


def test_ellipf_agrees_with_scipy_for_any_amplitude():
    for m, phi in zip(_ms(1000), RNG.uniform(-40.0, 40.0, 1000)):
        assert E.ellipf(phi, m) == pytest.approx(special.ellipkinc(phi, m), rel=1e-13, abs=1e-13), (m, phi)


def test_ellippi_agrees_with_quadrature():
    for _ in range(60):
        m, n, phi = RNG.uniform(0.0, 0.999), RNG.uniform(-20.0, 0.95), RNG.uniform(-9.0, 9.0)

        def integrand(t):
            s2 = math.sin(t) ** 2
            return 1.0 / ((1.0 - n * s2) * math.sqrt(1.0 - m * s2))

        ref = integrate.quad(integrand, 0.0, phi, epsabs=1e-15, epsrel=1e-13, limit=400)[0]
        assert E.ellippi(n, phi, m) == pytest.approx(ref, rel=1e-12, abs=1e-13), (m, n, phi)
    assert E.ellippi(0.0, 1.1, 0.4) == pytest.approx(special.ellipkinc(1.1, 0.4), rel=1e-15)


def test_out_of_range_parameters_are_refused():
    for bad in (-0.1, 1.0, 1.5, math.nan):
        with pytest.raises(ValueError):
            E.ellipk(bad)
    with pytest.raises(ValueError):
        E.ellippi(1.0, 0.3, 0.5)


# --------------------------------------------------------------- the tumble
BODIES = {
    "aircraft": (0.6, 1.0, 1.5, 0.0, 0.2, 0.0),
    "general": (2.0, 1.5, 3.0, 0.1, 0.2, -0.3),
}
CASES = [("aircraft", (1.0, 0.2, -0.5)),     # H^2 > 2 T I2: the rate stays near the largest axis
         ("aircraft", (0.2, 1.0, 0.1)),      # H^2 < 2 T I2: near the smallest
         ("general", (0.3, -0.2, 1.5)),
         ("general", (1.2, 0.1, 0.05))]


@pytest.mark.parametrize("body, w0", CASES)
def test_free_tumble_is_the_solve_ivp_solution(body, w0):
    j = Body(BODIES[body]).J
    q0 = from_aircraft_angles(0.3, -0.4, 1.0)
    tumble = FreeTumble(j, w0, q0)
    assert attitude_error(tumble.cayley(0.0), cayley(q0)) < 1e-14
    np.testing.assert_allclose(tumble.rates(0.0), w0, atol=1e-14)
    for t in (0.7, 13.1, 41.0):
        w, q = solve_attitude(t, w0, tuple(q0), j)
        np.testing.assert_allclose(tumble.rates(t), w, atol=1e-10)
        assert attitude_error(tumble.cayley(t), cayley(q)) < 1e-10


@pytest.mark.parametrize("w0, near_largest", [((1.0, 0.2, -0.5), True), ((0.2, 1.0, 0.1), False)])
def test_free_tumble_period_is_four_k_over_lambda(w0, near_largest):
    # w(t + T) = w(t) for T = 4 K(m) / lambda, with K from scipy and lambda, m written here from
    # Landau and Lifshitz section 37 (I1 < I2 < I3, M^2 > 2 E I2; otherwise suffixes 1 and 3 exchanged)
    j = Body(BODIES["aircraft"]).J
    w0 = np.array(w0)
    tumble = FreeTumble(j, w0)
    i1, i2, i3 = np.linalg.eigvalsh(j)
    wp = np.linalg.eigh(j)[1].T @ w0
    two_e, mm = float(np.dot([i1, i2, i3], wp ** 2)), float(np.dot(np.square([i1, i2, i3]), wp ** 2))
    assert (mm > two_e * i2) == near_largest
    if not near_largest:
        i1, i3 = i3, i1
    lam = math.sqrt((i3 - i2) * (mm - two_e * i1) / (i1 * i2 * i3))
    m = (i2 - i1) * (two_e * i3 - mm) / ((i3 - i2) * (mm - two_e * i1))
    assert tumble.period() == pytest.approx(4.0 * special.ellipk(m) / lam, rel=1e-14)
    np.testing.assert_allclose(tumble.rates(tumble.period() + 0.3), tumble.rates(0.3), atol=1e-12)
    assert np.abs(tumble.rates(tumble.period() / 2 + 0.3) - tumble.rates(0.3)).max() > 0.1
    assert flip_period(j, w0) == tumble.period()


def test_free_tumble_refuses_what_it_cannot_solve():
    with pytest.raises(ValueError):
        FreeTumble(np.diag([1.0, 1.0, 2.0]), (0.3, 0.2, 1.0))      # symmetric body
    with pytest.raises(ValueError):
        FreeTumble(np.diag([1.0, 2.0, 3.0]), (0.0, 0.0, 1.0))      # a pure spin


def test_crossings_and_measured_period():
    t = np.linspace(0.0, 10.0, 10001)
    np.testing.assert_allclose(crossings(t, np.sin(2.0 * t)), np.pi / 2 * np.arange(1, 7), atol=1e-7)
    assert measured_period(t, np.sin(2.0 * t)) == pytest.approx(np.pi, rel=1e-7)
    assert measured_period(t[:1000], np.sin(2.0 * t[:1000])) is None
