"""Attitude determination and estimation: TRIAD, Davenport's q-method, QUEST and a multiplicative EKF.

Conventions (README "Conventions"; :mod:`sim.gnc.attitude`): ``Q`` scalar
last, inertial -> body, ``x_B = C(Q) x_I``.  An observation is a pair of a
vector measured in body axes ``b_i`` and the same vector known in inertial
axes ``r_i`` (the Sun from an ephemeris, the field from a model), ideally
``b_i = C(Q) r_i``.  Markley & Crassidis write the attitude matrix ``A(q)``
of a scalar-last ``q`` whose vector part has the opposite sign:
``A(q) = C(Q)`` for ``Q = q'`` (:mod:`sim.gnc.attitude`); their formulas are
used as printed and the result conjugated.

Every function takes one problem or a stack of them (leading axes, e.g.
``b`` of shape ``(N, n, 3)``); row ``i`` of a stack is computed as if alone
(no step depends on the other rows), so a Monte Carlo of ``N`` filters is one
:class:`Mekf` over columns, and each of its filters equals the same filter
run by itself (tests/sim/gnc/test_mekf.py).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.angles import from_cayley_entries
from sim.core.jit import jitable, kernel
from sim.gnc.attitude import conjugate, product, rotation_vector
from sim.gnc.kalman import (transition_rows, kalman_update, mekf_propagate, mekf_update_attitude,
                            mekf_update_vector, transition_into)

__all__ = ["triad", "davenport_k", "q_method", "quest", "attitude_error", "transition", "transition_into",
           "process_noise", "nees", "Mekf", "kalman_update", "mekf_propagate", "mekf_update_attitude",
           "mekf_update_vector", "triad_row", "quest_row", "wahba_row", "det3", "wahba_covariance"]


@jitable
def _unit3(x, y, z):
    """``v / |v|`` of three floats."""
    n = math.sqrt(x * x + y * y + z * z)
    return x / n, y / n, z / n


@jitable
def _cross3(a, b):
    """``a x b`` of two 3-tuples."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@jitable
def _positive(q):
    """``q`` normalised, turned to ``q4 >= 0``."""
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    s = -1.0 if q[3] / n < 0.0 else 1.0
    return (s * (q[0] / n), s * (q[1] / n), s * (q[2] / n), s * (q[3] / n))


@jitable
def triad_row(b1, b2, r1, r2):
    """TRIAD of one problem (:func:`triad`): ``Q`` as a 4-tuple from the 3-vectors ``b1``, ``b2``, ``r1``, ``r2``.

    The triads ``(b1, b×, b1 x b×)`` and ``(r1, r×, r1 x r×)`` (Shuster & Oh 1981 section II), ``C = sum of
    their outer products``, ``Q`` by Shepperd's method (:func:`sim.core.angles.from_cayley_entries`),
    normalised, ``q4 >= 0``."""
    u = _unit3(b1[0], b1[1], b1[2])
    v = _unit3(r1[0], r1[1], r1[2])
    bc = _cross3(u, (b2[0], b2[1], b2[2]))
    rc = _cross3(v, (r2[0], r2[1], r2[2]))
    bx = _unit3(bc[0], bc[1], bc[2])
    rx = _unit3(rc[0], rc[1], rc[2])
    bt, rt = _cross3(u, bx), _cross3(v, rx)
    c = (u[0] * v[0] + bx[0] * rx[0] + bt[0] * rt[0], u[0] * v[1] + bx[0] * rx[1] + bt[0] * rt[1],
         u[0] * v[2] + bx[0] * rx[2] + bt[0] * rt[2], u[1] * v[0] + bx[1] * rx[0] + bt[1] * rt[0],
         u[1] * v[1] + bx[1] * rx[1] + bt[1] * rt[1], u[1] * v[2] + bx[1] * rx[2] + bt[1] * rt[2],
         u[2] * v[0] + bx[2] * rx[0] + bt[2] * rt[0], u[2] * v[1] + bx[2] * rx[1] + bt[2] * rt[1],
         u[2] * v[2] + bx[2] * rx[2] + bt[2] * rt[2])
    return _positive(from_cayley_entries(c, None))


@kernel
def _triad_rows(b1, b2, r1, r2):
    out = np.empty((b1.shape[0], 4))
    for j in range(b1.shape[0]):
        out[j, 0], out[j, 1], out[j, 2], out[j, 3] = triad_row(b1[j], b2[j], r1[j], r2[j])
    return out


def _rows_of(x, width):
    return np.ascontiguousarray(np.asarray(x, dtype=float).reshape(-1, width))


def triad(b1, b2, r1, r2) -> np.ndarray:
    """TRIAD (Black 1964; Shuster & Oh 1981, J. Guidance Control 4(1), 70, section II): ``Q`` from two observations.

    The first pair is matched exactly, the second only within the plane of
    the two: with the triads ``(b1, b×, b1 x b×)`` and ``(r1, r×, r1 x r×)``,
    ``b× = (b1 x b2)/|b1 x b2|`` and likewise ``r×``, the attitude matrix
    is ``C = sum of the triads' outer products``.  Undefined for parallel
    vectors (``b1 x b2 = 0``).

    Parameters
    ----------
    b1, b2 : array_like, shape (..., 3)
        The vectors measured in body axes (any length; the first is the
        more accurate one).
    r1, r2 : array_like, shape (..., 3)
        The same vectors in inertial axes.

    Returns
    -------
    ndarray, shape (..., 4)
        ``Q`` scalar last, inertial -> body, ``q4 >= 0``.
    """
    arrays = np.broadcast_arrays(*(np.asarray(x, float) for x in (b1, b2, r1, r2)))
    return _triad_rows(*(_rows_of(x, 3) for x in arrays)).reshape(arrays[0].shape[:-1] + (4,))


def davenport_k(b, r, weights=None):
    """Davenport's ``K`` matrix and its parts ``(K, B, S, z, sigma)``, Markley & Crassidis (2014) ch. 5.

    ``B = sum a_i b_i r_i^T``, ``S = B + B^T``, ``z = sum a_i b_i x r_i``,
    ``sigma = tr B``, ``K = [[S - sigma I, z], [z^T, sigma]]`` (scalar last).
    Wahba's loss is ``L(A) = sum a_i / 2 |b_i - A r_i|^2 = lambda_0 - tr(A B^T)``
    with ``lambda_0 = sum a_i``; ``q^T K q = tr(A(q) B^T)``.
    """
    b = np.asarray(b, float)
    r = np.asarray(r, float)
    a = np.ones(b.shape[:-1]) if weights is None else np.broadcast_to(np.asarray(weights, float), b.shape[:-1])
    big_b = np.einsum("...i,...ij,...ik->...jk", a, b, r)
    s = big_b + np.swapaxes(big_b, -1, -2)
    z = np.einsum("...i,...ij->...j", a, np.cross(b, r))
    sigma = np.trace(big_b, axis1=-2, axis2=-1)
    k = np.zeros(b.shape[:-2] + (4, 4))
    k[..., :3, :3] = s - sigma[..., None, None] * np.eye(3)
    k[..., :3, 3] = z
    k[..., 3, :3] = z
    k[..., 3, 3] = sigma
    return k, big_b, s, z, sigma


def q_method(b, r, weights=None) -> np.ndarray:
    """Davenport's q-method (Davenport 1968; Markley & Crassidis 2014 ch. 5): the optimal ``Q`` of Wahba's problem.

    The eigenvector of :func:`davenport_k`'s ``K`` for its largest
    eigenvalue (``numpy.linalg.eigh``) is Markley & Crassidis's ``q``;
    Hoffmann's ``Q`` is its conjugate.

    Parameters
    ----------
    b, r : array_like, shape (..., n, 3)
        Observations in body axes and references in inertial axes, ``n >= 2``
        not all parallel (unit vectors for the usual weighting).
    weights : array_like, shape (..., n), optional
        Non-negative weights ``a_i`` (usually ``1 / sigma_i^2``); all 1 if omitted.

    Returns
    -------
    ndarray, shape (..., 4)
        ``Q`` scalar last, inertial -> body, ``q4 >= 0``.
    """
    k = davenport_k(b, r, weights)[0]
    _, vectors = np.linalg.eigh(k)
    q = conjugate(vectors[..., :, -1])
    return np.where(q[..., 3:] < 0.0, -q, q)


@jitable
def det3(m00, m01, m02, m10, m11, m12, m20, m21, m22):
    """The determinant of a 3x3 matrix by its first row's cofactors (exact for a singular one's structure)."""
    return m00 * (m11 * m22 - m12 * m21) - m01 * (m10 * m22 - m12 * m20) + m02 * (m10 * m21 - m11 * m20)


@jitable
def _minor(m, row, col):
    """The determinant of the 3x3 minor of the 4x4 ``m`` without ``row`` and ``col``."""
    r0, r1, r2 = (1, 2, 3) if row == 0 else ((0, 2, 3) if row == 1 else ((0, 1, 3) if row == 2 else (0, 1, 2)))
    c0, c1, c2 = (1, 2, 3) if col == 0 else ((0, 2, 3) if col == 1 else ((0, 1, 3) if col == 2 else (0, 1, 2)))
    return det3(m[r0, c0], m[r0, c1], m[r0, c2], m[r1, c0], m[r1, c1], m[r1, c2], m[r2, c0], m[r2, c1], m[r2, c2])


@jitable
def quest_row(b, r, a, iterations, tolerance):
    """QUEST of one problem (:func:`quest`): ``Q`` as a 4-tuple from ``b``, ``r`` (n, 3) and the weights ``a`` (n,).

    Davenport's ``B``, ``S``, ``z``, ``sigma`` (:func:`davenport_k`); the largest eigenvalue of ``K`` by Newton's
    iteration on Shuster & Oh's (1981) characteristic polynomial (70)-(74),
    ``lambda^4 - (a + b) lambda^2 - c lambda + (a b + c sigma - d)``, ``a = sigma^2 - tr adj S``,
    ``b = sigma^2 + z^T z``, ``c = det S + z^T S z``, ``d = z^T S^2 z``, from ``sum a_i |b_i| |r_i|``, stopping
    after the first step below ``tolerance`` relative; the eigenvector the column of ``adj(lambda I - K)``
    with the largest diagonal entry (3x3 minors by :func:`det3`), conjugated, normalised, ``q4 >= 0``."""
    bb = np.zeros((3, 3))
    z0 = z1 = z2 = 0.0
    start = 0.0
    for i in range(b.shape[0]):
        w = a[i]
        for j in range(3):
            for k in range(3):
                bb[j, k] += w * b[i, j] * r[i, k]
        z0 += w * (b[i, 1] * r[i, 2] - b[i, 2] * r[i, 1])
        z1 += w * (b[i, 2] * r[i, 0] - b[i, 0] * r[i, 2])
        z2 += w * (b[i, 0] * r[i, 1] - b[i, 1] * r[i, 0])
        start += w * (math.sqrt(b[i, 0] * b[i, 0] + b[i, 1] * b[i, 1] + b[i, 2] * b[i, 2])
                      * math.sqrt(r[i, 0] * r[i, 0] + r[i, 1] * r[i, 1] + r[i, 2] * r[i, 2]))
    sigma = bb[0, 0] + bb[1, 1] + bb[2, 2]
    sm = np.empty((3, 3))
    for j in range(3):
        for k in range(3):
            sm[j, k] = bb[j, k] + bb[k, j]
    kappa = ((sm[1, 1] * sm[2, 2] - sm[1, 2] * sm[2, 1]) + (sm[0, 0] * sm[2, 2] - sm[0, 2] * sm[2, 0])
             + (sm[0, 0] * sm[1, 1] - sm[0, 1] * sm[1, 0]))
    z = (z0, z1, z2)
    sz0 = sm[0, 0] * z0 + sm[0, 1] * z1 + sm[0, 2] * z2
    sz1 = sm[1, 0] * z0 + sm[1, 1] * z1 + sm[1, 2] * z2
    sz2 = sm[2, 0] * z0 + sm[2, 1] * z1 + sm[2, 2] * z2
    ca = sigma * sigma - kappa
    cb = sigma * sigma + (z0 * z0 + z1 * z1 + z2 * z2)
    cc = det3(sm[0, 0], sm[0, 1], sm[0, 2], sm[1, 0], sm[1, 1], sm[1, 2], sm[2, 0], sm[2, 1], sm[2, 2]) + (
        z0 * sz0 + z1 * sz1 + z2 * sz2)
    cd = sz0 * sz0 + sz1 * sz1 + sz2 * sz2
    const = ca * cb + cc * sigma - cd
    lam = start
    for _ in range(iterations):
        f = ((lam * lam - (ca + cb)) * lam - cc) * lam + const
        df = (4.0 * lam * lam - 2.0 * (ca + cb)) * lam - cc
        step = f / (df if df != 0.0 else 1.0)
        done = abs(step) <= tolerance * abs(lam)
        lam = lam - step
        if done:
            break
    m = np.empty((4, 4))                   # lambda I - K
    for j in range(3):
        for k in range(3):
            m[j, k] = (lam + sigma if j == k else 0.0) - sm[j, k]
        m[j, 3] = m[3, j] = -z[j]
    m[3, 3] = lam - sigma
    best, col = -1.0, 0
    for j in range(4):
        d = abs(_minor(m, j, j))
        if d > best:
            best, col = d, j
    qm = np.empty(4)
    for i in range(4):
        sign = 1.0 if (i + col) % 2 == 0 else -1.0
        qm[i] = sign * _minor(m, col, i)      # adj(m)[i, col]
    return _positive((-qm[0], -qm[1], -qm[2], qm[3]))


@kernel
def _quest_rows(b, r, a, iterations, tolerance):
    out = np.empty((b.shape[0], 4))
    for j in range(b.shape[0]):
        out[j, 0], out[j, 1], out[j, 2], out[j, 3] = quest_row(b[j], r[j], a[j], iterations, tolerance)
    return out


def quest(b, r, weights=None, iterations: int = 50, tolerance: float = 1e-15) -> np.ndarray:
    """QUEST (Shuster & Oh 1981, J. Guidance Control 4(1), 70): Wahba's optimal ``Q`` without an eigen-solver.

    The largest eigenvalue ``lambda`` of ``K`` (:func:`davenport_k`) by
    Newton's iteration on its characteristic polynomial from
    ``lambda_0 = sum a_i |b_i| |r_i|`` (``sum a_i`` for unit vectors), an
    upper bound of ``lambda`` above which the polynomial is convex and
    rising, so the iteration falls monotonically onto the largest root (each
    row stops by itself once a step is below ``tolerance`` relative).  Then the eigenvector from the adjugate:
    ``adj(lambda I - K) = c q q^T``, so each column is ``q`` times ``c q_j``.
    Its fourth column is Shuster & Oh's ``[adj(rho I - S) z; det(rho I - S)]``
    (``rho = lambda + tr B``, Markley & Crassidis 2014 ch. 5), which
    vanishes for a rotation by 180 deg; their method of sequential rotations
    (section VI: the references turned by 180 deg about x, y or z) yields
    the first, second or third column instead.  Here the column with the
    largest diagonal entry ``c q_j^2`` is taken, row by row: the best
    conditioned of the four, with no threshold.  Parameters and result as
    :func:`q_method`.
    """
    b = np.asarray(b, float)
    r = np.broadcast_to(np.asarray(r, float), b.shape)
    a = np.ones(b.shape[:-1]) if weights is None else np.broadcast_to(np.asarray(weights, float), b.shape[:-1])
    n = b.shape[-2]
    out = _quest_rows(_rows_of(b, n * 3).reshape(-1, n, 3), _rows_of(r, n * 3).reshape(-1, n, 3), _rows_of(a, n),
                      int(iterations), float(tolerance))
    return out.reshape(b.shape[:-2] + (4,))


@jitable
def wahba_row(b, sigma, out):
    """``(sum_i sigma_i^-2 (I - b_i b_i^T))^-1`` into ``out`` (3, 3): the error covariance of Wahba's optimal
    attitude, body axes, rad^2, for the unit vectors ``b`` (n, 3) of angular noises ``sigma`` (n,), rad
    (Shuster & Oh 1981 section V; Markley & Crassidis 2014 §5.5); the inverse by the adjugate over
    :func:`det3`."""
    f = np.zeros((3, 3))
    total = 0.0
    for i in range(b.shape[0]):
        w = 1.0 / (sigma[i] * sigma[i])
        total += w
        for j in range(3):
            for k in range(3):
                f[j, k] += w * b[i, j] * b[i, k]
    m = np.empty((3, 3))
    for j in range(3):
        for k in range(3):
            m[j, k] = (total if j == k else 0.0) - f[j, k]
    det = det3(m[0, 0], m[0, 1], m[0, 2], m[1, 0], m[1, 1], m[1, 2], m[2, 0], m[2, 1], m[2, 2])
    for j in range(3):
        j1, j2 = (j + 1) % 3, (j + 2) % 3
        for k in range(3):
            k1, k2 = (k + 1) % 3, (k + 2) % 3
            out[k, j] = (m[j1, k1] * m[j2, k2] - m[j1, k2] * m[j2, k1]) / det   # the cofactor of (j, k), transposed


@kernel
def _wahba_rows(b, sigma):
    out = np.empty((b.shape[0], 3, 3))
    for j in range(b.shape[0]):
        wahba_row(b[j], sigma[j], out[j])
    return out


def wahba_covariance(b, sigma) -> np.ndarray:
    """:func:`wahba_row` of each problem: ``b`` unit vectors, shape ``(N, n, 3)`` (or ``(n, 3)``); ``sigma`` their
    angular noises (rad), shape ``(N, n)``; the covariances ``(N, 3, 3)``, rad^2, body axes."""
    b = np.asarray(b, float)
    sigma = np.broadcast_to(np.asarray(sigma, float), b.shape[:-1])
    n = b.shape[-2]
    out = _wahba_rows(_rows_of(b, n * 3).reshape(-1, n, 3), _rows_of(sigma, n))
    return out.reshape(b.shape[:-2] + (3, 3))


def attitude_error(q_true, q_est) -> np.ndarray:
    """The error angles ``a`` (body axes, rad) of an estimate: ``Q_true = δQ(a) . Q_est``.

    ``C(Q_true) = exp(-[a×]) C(Q_est)``: the true body axes are the estimated
    ones turned by ``|a|`` about ``a`` (:func:`sim.gnc.attitude.rotation_vector`);
    Markley & Crassidis's ``δϑ``.
    """
    return rotation_vector(product(q_true, conjugate(q_est)))


def transition(w, dt: float) -> np.ndarray:
    """:func:`transition_into` for rates ``w`` (shape ``(..., 3)``): ``Φ``, shape ``(..., 6, 6)``."""
    w = np.asarray(w, float)
    return transition_rows(np.ascontiguousarray(w.reshape(-1, 3)), float(dt)).reshape(w.shape[:-1] + (6, 6))


def process_noise(arw: float, rrw: float, dt: float) -> np.ndarray:
    """The discrete process noise ``Q_d`` (6x6) of the gyro's noises over ``dt``.

    ``[[(σv² dt + σu² dt³/3) I, -(σu² dt²/2) I], [-(σu² dt²/2) I, σu² dt I]]``
    (Markley & Crassidis 2014 ch. 6, Table 6.3's propagation; Crassidis &
    Junkins 2012 §7.2): exact for ``w = 0``, and the standard approximation
    (terms of order ``|w| dt``) otherwise.
    """
    v, u = arw * arw, rrw * rrw
    eye = np.eye(3)
    out = np.zeros((6, 6))
    out[:3, :3] = (v * dt + u * dt ** 3 / 3.0) * eye
    out[:3, 3:] = out[3:, :3] = -(u * dt * dt / 2.0) * eye
    out[3:, 3:] = u * dt * eye
    return out


def nees(error, p) -> np.ndarray:
    """The normalised estimation error squared ``e^T P^-1 e`` (Bar-Shalom et al. 2001, §5.4): shape ``(...)``."""
    e = np.asarray(error, float)
    return np.einsum("...i,...i->...", e, np.linalg.solve(p, e[..., None])[..., 0])


class Mekf:
    """A multiplicative extended Kalman filter of attitude and gyro bias (Lefferts, Markley & Shuster 1982).

    Markley & Crassidis (2014) ch. 6 (Table 6.3, the gyro-driven MEKF); the
    error state ``x = (a, Δβ)``: the attitude error angles of
    :func:`attitude_error` (``Q = δQ(a) . Q̂``, body axes) and the bias error
    ``β - β̂``; covariance ``P`` (6x6) of ``x``.  The gyro's samples
    ``w~`` drive it (:meth:`propagate`); each sensor updates it in turn
    (:meth:`update_attitude`, :meth:`update_vector`), and after each update the
    error is moved into the estimate and reset to zero:
    ``Q̂ <- δQ(â) . Q̂`` (normalised), ``β̂ <- β̂ + Δβ̂``.

    One filter (``q`` of shape ``(4,)``) or ``N`` (``(N, 4)``): the state is
    held as stacks ``(N, 4)``, ``(N, 3)``, ``(N, 6, 6)`` either way, and the
    properties give back the shape the filter was built with.

    Parameters
    ----------
    q : array_like, shape (4,) or (N, 4)
        The initial estimate, scalar last, inertial -> body.
    bias : array_like, shape (3,) or (N, 3)
        The initial bias estimate, rad/s.
    p : array_like, shape (6, 6) or (N, 6, 6)
        The initial covariance of ``(a, Δβ)``, rad^2 and (rad/s)^2.
    arw, rrw : float
        The gyro's noises as the filter assumes them: ``σv`` (rad/sqrt(s)) and
        ``σu`` (rad/s^(3/2)).
    """

    def __init__(self, q, bias, p, arw: float, rrw: float):
        q = np.asarray(q, float)
        self.column = q.ndim == 2
        n = q.shape[0] if self.column else 1
        self._q = np.array(np.broadcast_to(q, (n, 4)), order="C")  # (a copy of a broadcast is F-ordered)
        self._bias = np.array(np.broadcast_to(np.asarray(bias, float), (n, 3)), order="C")
        self._p = np.array(np.broadcast_to(np.asarray(p, float), (n, 6, 6)), order="C")
        self.arw, self.rrw = float(arw), float(rrw)
        self._qd_dt, self._qd = None, None

    @property
    def state(self) -> tuple:
        """``(Q̂, β̂, P)``: the filter's own arrays (N, 4), (N, 3), (N, 6, 6), C-contiguous, not copies: what the
        compiled navigation loop (:mod:`sim.gnc.sensing`) updates in place."""
        return self._q, self._bias, self._p

    def _out(self, x):
        return x.copy() if self.column else x[0].copy()

    @property
    def q(self) -> np.ndarray:
        """The attitude estimate ``Q̂``."""
        return self._out(self._q)

    @property
    def bias(self) -> np.ndarray:
        """The bias estimate ``β̂``, rad/s."""
        return self._out(self._bias)

    @property
    def p(self) -> np.ndarray:
        """The covariance of ``(a, Δβ)``."""
        return self._out(self._p)

    @property
    def sigma(self) -> np.ndarray:
        """The standard deviations of ``(a, Δβ)``: the square roots of ``P``'s diagonal."""
        return self._out(np.sqrt(np.diagonal(self._p, axis1=-2, axis2=-1)))

    def error(self, q_true, bias_true) -> np.ndarray:
        """The true error state ``(a, β - β̂)`` against the truth (shape ``(6,)`` or ``(N, 6)``)."""
        q_true = np.broadcast_to(np.asarray(q_true, float), self._q.shape)
        e = np.concatenate([attitude_error(q_true, self._q),
                            np.broadcast_to(np.asarray(bias_true, float), self._bias.shape) - self._bias], axis=-1)
        return self._out(e)

    def nees(self, q_true, bias_true) -> np.ndarray:
        """:func:`nees` of :meth:`error` against ``P``."""
        e = np.atleast_2d(self.error(q_true, bias_true))
        return self._out(nees(e, self._p))

    def propagate(self, rates, dt: float) -> None:
        """Propagate over ``dt`` with the gyro's sample ``rates`` (rad/s, body axes): :func:`mekf_propagate`."""
        rates = np.ascontiguousarray(np.broadcast_to(np.asarray(rates, float), self._bias.shape))
        if dt != self._qd_dt:
            self._qd_dt, self._qd = dt, process_noise(self.arw, self.rrw, dt)
        mekf_propagate(self._q, self._bias, self._p, rates, float(dt), self._qd)

    def _valid(self, valid) -> np.ndarray:
        n = len(self._q)
        return np.ones(n, bool) if valid is None else np.ascontiguousarray(np.broadcast_to(np.asarray(valid, bool), (n,)))

    def update_attitude(self, q_measured, r, valid=None) -> None:
        """Update with a measured attitude (a star tracker's ``Q_m = δQ(n) . Q``): :func:`mekf_update_attitude`.

        ``r``: 3x3, rad^2, body axes (:meth:`sim.gnc.sensors.StarTrackerModel.covariance`).
        ``valid`` (bool, or one per filter): filters with False keep their state.
        """
        q_measured = np.ascontiguousarray(np.broadcast_to(np.asarray(q_measured, float), self._q.shape))
        mekf_update_attitude(self._q, self._bias, self._p, q_measured, np.ascontiguousarray(r, dtype=float),
                             self._valid(valid))

    def update_vector(self, b_measured, reference, r, valid=None) -> None:
        """Update with one vector measured in body axes, ``b = C(Q) r_ref + noise``: :func:`mekf_update_vector`.

        ``r``: a variance (isotropic, in the units of ``b`` squared), a 3x3 covariance, or one per filter
        ``(N, 3, 3)``.  A sun sensor: unit vectors, ``r = σ²`` (rad²); a magnetometer: tesla.
        """
        n = len(self._q)
        ref = np.ascontiguousarray(np.broadcast_to(np.asarray(reference, float), self._bias.shape))
        b = np.ascontiguousarray(np.broadcast_to(np.asarray(b_measured, float), self._bias.shape))
        r = np.asarray(r, float)
        r = np.ascontiguousarray(np.broadcast_to(r * np.eye(3) if r.ndim == 0 else r, (n, 3, 3)))
        mekf_update_vector(self._q, self._bias, self._p, b, ref, r, self._valid(valid))
