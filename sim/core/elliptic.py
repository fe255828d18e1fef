"""Jacobi elliptic functions and elliptic integrals, for the closed forms of the free rigid body.

Our own implementations (``sim`` never imports scipy; tests check each
against scipy.special), on Python floats, with the parameter ``m = k^2``:

* :func:`ellipk`, the complete integral ``K(m)``, by the arithmetic-geometric
  mean: ``K(m) = pi / (2 AGM(1, sqrt(1 - m)))`` (Abramowitz and Stegun 17.6);
* :func:`ellipj`, ``sn``, ``cn``, ``dn`` and the amplitude ``am``, by the
  descending Landen transformation (Abramowitz and Stegun 16.4);
* :func:`ellipf` and :func:`ellippi`, the incomplete integrals of the first
  and third kind, through Carlson's symmetric integrals :func:`carlson_rf`,
  :func:`carlson_rj` (and :func:`carlson_rc`), computed by Carlson's
  duplication algorithm (B. C. Carlson, "Numerical computation of real or
  complex elliptic integrals", Numer. Algorithms 10, 1995; DLMF 19.36) and
  related by DLMF 19.25.5 and 19.25.14.  Both are continued past
  ``phi = pi/2`` with their complete values, so the amplitude of a long run
  (many periods) is used as it is.

``ellippi(n, phi, m) = int_0^phi dt / ((1 - n sin^2 t) sqrt(1 - m sin^2 t))``
(DLMF's ``Pi(phi, alpha^2 = n, k)``); ``n < 1``.
"""

from __future__ import annotations

import math

__all__ = ["agm", "ellipk", "ellipj", "ellipf", "ellippi", "carlson_rf", "carlson_rj", "carlson_rc"]

_EPS = 2.0 ** -53


def _check_m(m: float) -> float:
    m = float(m)
    if not 0.0 <= m < 1.0:
        raise ValueError(f"the parameter m = {m!r} must lie in [0, 1)")
    return m


def agm(a: float, b: float) -> float:
    """The arithmetic-geometric mean of ``a, b >= 0``."""
    for _ in range(64):
        if abs(a - b) <= 4.0 * _EPS * a:
            break
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return 0.5 * (a + b)


def ellipk(m: float) -> float:
    """The complete elliptic integral of the first kind ``K(m) = pi / (2 AGM(1, sqrt(1 - m)))``, ``0 <= m < 1``."""
    return 0.5 * math.pi / agm(1.0, math.sqrt(1.0 - _check_m(m)))


def ellipj(u: float, m: float) -> tuple:
    """``(sn, cn, dn, am)`` of ``u`` for the parameter ``0 <= m < 1``, by the descending Landen transformation.

    Abramowitz and Stegun 16.4: ``a0 = 1``, ``b0 = sqrt(1 - m)``, ``c0 = sqrt(m)``;
    ``a_n = (a + b)/2``, ``b_n = sqrt(a b)``, ``c_n = (a - b)/2`` until ``c_N``
    vanishes; ``phi_N = 2^N a_N u`` and ``phi_(n-1) = (phi_n + asin(c_n/a_n sin phi_n))/2``.
    Then ``am = phi_0``, ``sn = sin phi_0``, ``cn = cos phi_0`` and
    ``dn = sqrt(cn^2 + (1 - m) sn^2)``, a sum of squares without cancellation
    (A&S's ``cos phi_0 / cos(phi_1 - phi_0)`` loses digits where ``cn`` is
    small).  ``am`` grows continuously with ``u`` (``am(u + 2K) = am(u) + pi``).
    """
    m = _check_m(m)
    a, b, c = 1.0, math.sqrt(1.0 - m), math.sqrt(m)
    ratios = []
    while abs(c) > _EPS * a and len(ratios) < 64:
        a, b, c = 0.5 * (a + b), math.sqrt(a * b), 0.5 * (a - b)
        ratios.append(c / a)
    phi = math.ldexp(a * u, len(ratios))
    for r in reversed(ratios):
        phi = 0.5 * (phi + math.asin(r * math.sin(phi)))
    sn, cn = math.sin(phi), math.cos(phi)
    return sn, cn, math.sqrt(cn * cn + (1.0 - m) * sn * sn), phi


def carlson_rc(x: float, y: float) -> float:
    """Carlson's degenerate integral ``R_C(x, y) = R_F(x, y, y)``, ``x >= 0``, ``y > 0`` (duplication, DLMF 19.36.8)."""
    xt, yt = float(x), float(y)
    for _ in range(100):
        lam = 2.0 * math.sqrt(xt) * math.sqrt(yt) + yt
        xt, yt = 0.25 * (xt + lam), 0.25 * (yt + lam)
        ave = (xt + yt + yt) / 3.0
        s = (yt - ave) / ave
        if abs(s) < 0.0012:
            break
    return (1.0 + s * s * (0.3 + s * (1.0 / 7.0 + s * (0.375 + s * 9.0 / 22.0)))) / math.sqrt(ave)


def carlson_rf(x: float, y: float, z: float) -> float:
    """Carlson's symmetric integral of the first kind ``R_F(x, y, z)``, at most one argument zero.

    Duplication ``x <- (x + lam)/4`` (``lam = sqrt(xy) + sqrt(yz) + sqrt(zx)``) until
    the arguments agree to 0.0025, then the series of DLMF 19.36.1 to fifth order
    (relative error below 1e-16).
    """
    xt, yt, zt = float(x), float(y), float(z)
    for _ in range(100):
        sx, sy, sz = math.sqrt(xt), math.sqrt(yt), math.sqrt(zt)
        lam = sx * (sy + sz) + sy * sz
        xt, yt, zt = 0.25 * (xt + lam), 0.25 * (yt + lam), 0.25 * (zt + lam)
        ave = (xt + yt + zt) / 3.0
        dx, dy, dz = (ave - xt) / ave, (ave - yt) / ave, (ave - zt) / ave
        if max(abs(dx), abs(dy), abs(dz)) < 0.0025:
            break
    e2 = dx * dy - dz * dz
    e3 = dx * dy * dz
    return (1.0 + (e2 / 24.0 - 0.1 - 3.0 / 44.0 * e3) * e2 + e3 / 14.0) / math.sqrt(ave)


def carlson_rj(x: float, y: float, z: float, p: float) -> float:
    """Carlson's symmetric integral of the third kind ``R_J(x, y, z, p)``, ``p > 0`` (duplication, DLMF 19.36.1)."""
    xt, yt, zt, pt = float(x), float(y), float(z), float(p)
    total, fac = 0.0, 1.0
    for _ in range(100):
        sx, sy, sz = math.sqrt(xt), math.sqrt(yt), math.sqrt(zt)
        lam = sx * (sy + sz) + sy * sz
        alpha = (pt * (sx + sy + sz) + sx * sy * sz) ** 2
        beta = pt * (pt + lam) ** 2
        total += fac * carlson_rc(alpha, beta)
        fac *= 0.25
        xt, yt, zt, pt = 0.25 * (xt + lam), 0.25 * (yt + lam), 0.25 * (zt + lam), 0.25 * (pt + lam)
        ave = 0.2 * (xt + yt + zt + pt + pt)
        dx, dy, dz, dp = (ave - xt) / ave, (ave - yt) / ave, (ave - zt) / ave, (ave - pt) / ave
        if max(abs(dx), abs(dy), abs(dz), abs(dp)) < 0.0015:
            break
    c1, c2, c3, c4 = 3.0 / 14.0, 1.0 / 3.0, 3.0 / 22.0, 3.0 / 26.0
    c5, c6, c7, c8 = 0.75 * c3, 1.5 * c4, 0.5 * c2, c3 + c3
    ea = dx * (dy + dz) + dy * dz
    eb = dx * dy * dz
    ec = dp * dp
    ed = ea - 3.0 * ec
    ee = eb + 2.0 * dp * (ea - ec)
    return 3.0 * total + fac * (1.0 + ed * (-c1 + c5 * ed - c6 * ee) + eb * (c7 + dp * (-c8 + dp * c4))
                                + dp * ea * (c2 - dp * c3) - c2 * dp * ec) / (ave * math.sqrt(ave))


def _reduce(phi: float) -> tuple:
    """``phi = j pi + r`` with ``|r| <= pi/2``: ``(j, r)``."""
    j = math.floor(phi / math.pi + 0.5)
    return j, phi - j * math.pi


def ellipf(phi: float, m: float) -> float:
    """The incomplete integral of the first kind ``F(phi | m)``, any real ``phi`` (DLMF 19.25.5).

    ``F = sin(r) R_F(cos^2 r, 1 - m sin^2 r, 1) + 2 j K(m)`` for ``phi = j pi + r``.
    """
    m = _check_m(m)
    j, r = _reduce(phi)
    s, c = math.sin(r), math.cos(r)
    f = s * carlson_rf(c * c, 1.0 - m * s * s, 1.0)
    return f + 2.0 * j * ellipk(m) if j else f


def ellippi(n: float, phi: float, m: float) -> float:
    """The incomplete integral of the third kind ``Pi(n; phi | m)``, ``n < 1``, any real ``phi`` (DLMF 19.25.14).

    ``Pi = s R_F(c^2, 1 - m s^2, 1) + n/3 s^3 R_J(c^2, 1 - m s^2, 1, 1 - n s^2)``
    (``s = sin r``, ``c = cos r``) plus ``2 j Pi(n | m)`` for ``phi = j pi + r``, the
    complete integral being ``K(m) + n/3 R_J(0, 1 - m, 1, 1 - n)`` (DLMF 19.25.2).
    """
    m = _check_m(m)
    if not n < 1.0:
        raise ValueError(f"the characteristic n = {n!r} must be below 1")
    j, r = _reduce(phi)
    s, c = math.sin(r), math.cos(r)
    cc, dd = c * c, 1.0 - m * s * s
    value = s * carlson_rf(cc, dd, 1.0) + n / 3.0 * s * s * s * carlson_rj(cc, dd, 1.0, 1.0 - n * s * s)
    if j:
        value += 2.0 * j * (ellipk(m) + n / 3.0 * carlson_rj(0.0, 1.0 - m, 1.0, 1.0 - n))
    return value
