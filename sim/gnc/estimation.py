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
run by itself (tests/test_mekf.py).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import product_QQ
from sim.core.angles import to_body
from sim.core.jit import jitable, kernel
from sim.gnc.attitude import (
    conjugate,
    delta_q,
    from_cayley,
    product,
    rotation_vector,
    rotation_vector_of,
)

__all__ = ["triad", "davenport_k", "q_method", "quest", "attitude_error", "transition", "transition_into",
           "process_noise", "nees", "Mekf", "kalman_update", "mekf_propagate", "mekf_update_attitude",
           "mekf_update_vector"]


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _outer(a, b):
    return a[..., :, None] * b[..., None, :]


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
    b1, r1 = _unit(np.asarray(b1, float)), _unit(np.asarray(r1, float))
    bx = _unit(np.cross(b1, np.asarray(b2, float)))
    rx = _unit(np.cross(r1, np.asarray(r2, float)))
    c = _outer(b1, r1) + _outer(bx, rx) + _outer(np.cross(b1, bx), np.cross(r1, rx))
    return from_cayley(c)


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


#: Row and column indices of the 3x3 minors of a 4x4 matrix: _MINOR[i] deletes index i.
_MINOR = np.array([[j for j in range(4) if j != i] for i in range(4)])


def _lambda_max(s, z, sigma, lam, iterations, tolerance):
    """The largest eigenvalue of ``K`` by Newton's iteration, each row stopping by itself.

    Shuster & Oh (1981) (70)-(74): ``det(lambda I - K) = lambda^4 - (a + b) lambda^2 - c lambda + (a b + c sigma - d)``
    with ``a = sigma^2 - tr adj S``, ``b = sigma^2 + z^T z``, ``c = det S + z^T S z``, ``d = z^T S^2 z``.
    """
    kappa = np.trace(_adjugate(s), axis1=-2, axis2=-1)
    a = sigma * sigma - kappa
    b = sigma * sigma + np.sum(z * z, axis=-1)
    sz = np.einsum("...ij,...j->...i", s, z)
    c = np.linalg.det(s) + np.sum(z * sz, axis=-1)
    d = np.sum(sz * sz, axis=-1)
    const = a * b + c * sigma - d
    done = np.zeros(lam.shape, dtype=bool)
    for _ in range(iterations):
        f = ((lam * lam - (a + b)) * lam - c) * lam + const
        df = (4.0 * lam * lam - 2.0 * (a + b)) * lam - c
        step = f / np.where(df == 0.0, 1.0, df)
        new = np.where(done, lam, lam - step)
        done = done | (np.abs(step) <= tolerance * np.abs(lam))
        lam = new
        if np.all(done):
            break
    return lam


def _adjugate(m):
    """The adjugate of 3x3 matrices (the transposed cofactors), exact for singular ones."""
    c0 = np.cross(m[..., 1, :], m[..., 2, :])
    c1 = np.cross(m[..., 2, :], m[..., 0, :])
    c2 = np.cross(m[..., 0, :], m[..., 1, :])
    return np.stack([c0, c1, c2], axis=-1)


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
    a = np.ones(b.shape[:-1]) if weights is None else np.broadcast_to(np.asarray(weights, float), b.shape[:-1])
    k, _, s, z, sigma = davenport_k(b, r, a)
    start = np.sum(a * np.linalg.norm(b, axis=-1) * np.linalg.norm(np.asarray(r, float), axis=-1), axis=-1)
    lam = _lambda_max(s, z, sigma, start, iterations, tolerance)
    m = lam[..., None, None] * np.eye(4) - k
    minors = m[..., _MINOR[:, None, :, None], _MINOR[None, :, None, :]]        # (..., 4, 4, 3, 3)
    sign = (-1.0) ** (np.arange(4)[:, None] + np.arange(4)[None, :])
    adj = np.swapaxes(sign * np.linalg.det(minors), -1, -2)
    j = np.argmax(np.abs(np.diagonal(adj, axis1=-2, axis2=-1)), axis=-1)
    qm = np.take_along_axis(adj, j[..., None, None], axis=-1)[..., 0]
    q = conjugate(qm / np.linalg.norm(qm, axis=-1, keepdims=True))
    return np.where(q[..., 3:] < 0.0, -q, q)


def attitude_error(q_true, q_est) -> np.ndarray:
    """The error angles ``a`` (body axes, rad) of an estimate: ``Q_true = δQ(a) . Q_est``.

    ``C(Q_true) = exp(-[a×]) C(Q_est)``: the true body axes are the estimated
    ones turned by ``|a|`` about ``a`` (:func:`sim.gnc.attitude.rotation_vector`);
    Markley & Crassidis's ``δϑ``.
    """
    return rotation_vector(product(q_true, conjugate(q_est)))


@jitable
def transition_into(phi, wx, wy, wz, dt):
    """The MEKF's discrete state transition ``Φ`` (6x6) over ``dt`` for the estimated rate ``w`` (constant),
    written into ``phi``.

    For the error state ``x = (a, Δβ)``, ``da/dt = -[w×] a - Δβ - η_v``,
    ``dΔβ/dt = η_u`` (Lefferts, Markley & Shuster 1982; Markley & Crassidis
    2014 ch. 6), ``Φ = exp(F dt)`` in closed form (Crassidis & Junkins 2012
    §7.2), with ``θ = |w| dt``::

        Φ11 = I - [w×] sin θ / |w| + [w×]^2 (1 - cos θ) / |w|^2     (= C(δQ(w dt)))
        Φ12 = [w×] (1 - cos θ) / |w|^2 - I dt - [w×]^2 (θ - sin θ) / |w|^3
        Φ21 = 0,  Φ22 = I

    and their series below ``θ = 1e-4``.
    """
    n = math.sqrt(wx * wx + wy * wy + wz * wz)
    th = n * dt
    th2 = th * th
    if th < 1e-4:
        s1 = dt * (1.0 - th2 / 6.0)                       # sin θ / |w|
        s2 = dt * dt * (0.5 - th2 / 24.0)                 # (1 - cos θ) / |w|^2
        s3 = dt * dt * dt * (1.0 / 6.0 - th2 / 120.0)     # (θ - sin θ) / |w|^3
    else:
        s1 = math.sin(th) / n
        s2 = (1.0 - math.cos(th)) / (n * n)
        s3 = (th - math.sin(th)) / (n * n * n)
    wx_ = ((0.0, -wz, wy), (wz, 0.0, -wx), (-wy, wx, 0.0))
    for i in range(3):
        for j in range(3):
            w2 = wx_[i][0] * wx_[0][j] + wx_[i][1] * wx_[1][j] + wx_[i][2] * wx_[2][j]
            eye = 1.0 if i == j else 0.0
            phi[i, j] = eye - wx_[i][j] * s1 + w2 * s2
            phi[i, j + 3] = wx_[i][j] * s2 - eye * dt - w2 * s3
            phi[i + 3, j] = 0.0
            phi[i + 3, j + 3] = eye


@kernel
def _transition_rows(w, dt):
    out = np.empty((w.shape[0], 6, 6))
    for j in range(w.shape[0]):
        transition_into(out[j], w[j, 0], w[j, 1], w[j, 2], dt)
    return out


def transition(w, dt: float) -> np.ndarray:
    """:func:`transition_into` for rates ``w`` (shape ``(..., 3)``): ``Φ``, shape ``(..., 6, 6)``."""
    w = np.asarray(w, float)
    return _transition_rows(np.ascontiguousarray(w.reshape(-1, 3)), float(dt)).reshape(w.shape[:-1] + (6, 6))


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


@jitable
def _reset(q, bias, j, d1, d2, d3, d4, d5, d6):
    """The MEKF's reset: ``Q̂ <- δQ(â) . Q̂`` normalised, ``β̂ <- β̂ + Δβ̂`` (row ``j``)."""
    n1, n2, n3, n4 = product_QQ(delta_q(d1, d2, d3), (q[j, 0], q[j, 1], q[j, 2], q[j, 3]))
    size = math.sqrt(n1 * n1 + n2 * n2 + n3 * n3 + n4 * n4)
    q[j, 0], q[j, 1], q[j, 2], q[j, 3] = n1 / size, n2 / size, n3 / size, n4 / size
    bias[j, 0] += d4
    bias[j, 1] += d5
    bias[j, 2] += d6


@jitable
def kalman_update(q, bias, p, j, residual, h3, r):
    """One Kalman update of filter ``j`` in Joseph form, then the reset of the error state (:func:`_reset`).

    ``H = [h3 0]`` (3x6), ``S = H P H^T + R``, ``K = P H^T S^-1`` (``S`` solved by
    Gaussian elimination, without pivoting: ``S`` is symmetric positive definite,
    for which it is stable, Golub & Van Loan 2013 §4.2), ``x̂ = K z``,
    ``P <- (I - K H) P (I - K H)^T + K R K^T``, symmetrised (Markley &
    Crassidis 2014 ch. 6, Table 6.3; Bucy & Joseph 1968 for the form).
    ``residual`` (3,), ``h3`` and ``r`` (3, 3).
    """
    pj = p[j]
    pht = np.zeros((6, 3))
    for a in range(6):
        for b in range(3):
            acc = 0.0
            for k in range(3):
                acc += pj[a, k] * h3[b, k]
            pht[a, b] = acc
    m = np.zeros((3, 9))        # [S | (P H^T)^T]: solved in place for K^T
    for a in range(3):
        for b in range(3):
            acc = 0.0
            for k in range(3):
                acc += h3[a, k] * pht[k, b]
            m[a, b] = acc + r[a, b]
        for b in range(6):
            m[a, 3 + b] = pht[b, a]
    for c in range(3):
        for a in range(c + 1, 3):
            f = m[a, c] / m[c, c]
            for b in range(c, 9):
                m[a, b] -= f * m[c, b]
    gain = np.zeros((6, 3))     # K
    for b in range(6):
        for a in range(2, -1, -1):
            acc = m[a, 3 + b]
            for k in range(a + 1, 3):
                acc -= m[a, k] * gain[b, k]
            gain[b, a] = acc / m[a, a]
    dx = np.zeros(6)
    for a in range(6):
        dx[a] = gain[a, 0] * residual[0] + gain[a, 1] * residual[1] + gain[a, 2] * residual[2]
    ikh = np.zeros((6, 6))
    for a in range(6):
        for b in range(6):
            kh = 0.0
            if b < 3:
                kh = gain[a, 0] * h3[0, b] + gain[a, 1] * h3[1, b] + gain[a, 2] * h3[2, b]
            ikh[a, b] = (1.0 if a == b else 0.0) - kh
    tmp = np.zeros((6, 6))
    for a in range(6):
        for b in range(6):
            acc = 0.0
            for k in range(6):
                acc += ikh[a, k] * pj[k, b]
            tmp[a, b] = acc
    kr = np.zeros((6, 3))
    for a in range(6):
        for b in range(3):
            kr[a, b] = gain[a, 0] * r[0, b] + gain[a, 1] * r[1, b] + gain[a, 2] * r[2, b]
    new = np.zeros((6, 6))
    for a in range(6):
        for b in range(6):
            acc = 0.0
            for k in range(6):
                acc += tmp[a, k] * ikh[b, k]
            new[a, b] = acc + (kr[a, 0] * gain[b, 0] + kr[a, 1] * gain[b, 1] + kr[a, 2] * gain[b, 2])
    for a in range(6):
        for b in range(6):
            pj[a, b] = 0.5 * (new[a, b] + new[b, a])
    _reset(q, bias, j, dx[0], dx[1], dx[2], dx[3], dx[4], dx[5])


@kernel
def mekf_propagate(q, bias, p, rates, dt, qd):
    """Each filter over ``dt`` with its gyro sample ``rates[j]``: ``ŵ = w~ - β̂``, ``Q̂ <- δQ(ŵ dt) . Q̂``
    normalised (the exact rotation for a constant rate, Markley & Crassidis's ``Θ̄(ŵ) q̂``), and
    ``P <- Φ P Φ^T + Q_d`` (:func:`transition_into`; ``qd`` :func:`process_noise`).  In place."""
    phi = np.empty((6, 6))
    tmp = np.empty((6, 6))
    for j in range(q.shape[0]):
        wx, wy, wz = rates[j, 0] - bias[j, 0], rates[j, 1] - bias[j, 1], rates[j, 2] - bias[j, 2]
        n1, n2, n3, n4 = product_QQ(delta_q(wx * dt, wy * dt, wz * dt), (q[j, 0], q[j, 1], q[j, 2], q[j, 3]))
        size = math.sqrt(n1 * n1 + n2 * n2 + n3 * n3 + n4 * n4)
        q[j, 0], q[j, 1], q[j, 2], q[j, 3] = n1 / size, n2 / size, n3 / size, n4 / size
        transition_into(phi, wx, wy, wz, dt)
        pj = p[j]
        for a in range(6):
            for b in range(6):
                acc = 0.0
                for k in range(6):
                    acc += phi[a, k] * pj[k, b]
                tmp[a, b] = acc
        for a in range(6):
            for b in range(6):
                acc = 0.0
                for k in range(6):
                    acc += tmp[a, k] * phi[b, k]
                pj[a, b] = acc + qd[a, b]


@kernel
def mekf_update_attitude(q, bias, p, q_measured, r, valid):
    """Each filter ``j`` with ``valid[j]`` updated by a measured attitude: residual ``a(Q_m, Q̂)``
    (:func:`attitude_error`), ``H = [I 0]``, ``R = r`` (3x3); :func:`kalman_update`.  In place."""
    eye = np.eye(3)
    res = np.empty(3)
    for j in range(q.shape[0]):
        if valid[j]:
            e = product_QQ((q_measured[j, 0], q_measured[j, 1], q_measured[j, 2], q_measured[j, 3]),
                           (-q[j, 0], -q[j, 1], -q[j, 2], q[j, 3]))
            res[0], res[1], res[2] = rotation_vector_of(e[0], e[1], e[2], e[3])
            kalman_update(q, bias, p, j, res, eye, r)


@kernel
def mekf_update_vector(q, bias, p, b, reference, r, valid):
    """Each filter ``j`` with ``valid[j]`` updated by a vector measured in body axes, ``b = C(Q) r_ref + noise``:
    residual ``b - ĥ``, ``ĥ = C(Q̂) r_ref``, ``H = [[ĥ×] 0]`` (Markley & Crassidis 2014 ch. 6:
    ``C(Q) r ≈ (I - [a×]) ĥ = ĥ + [ĥ×] a``), ``R = r[j]`` (3x3); :func:`kalman_update`.  In place."""
    h3 = np.zeros((3, 3))
    res = np.empty(3)
    for j in range(q.shape[0]):
        if valid[j]:
            x, y, z = to_body((q[j, 0], q[j, 1], q[j, 2], q[j, 3]), (reference[j, 0], reference[j, 1], reference[j, 2]))
            h3[0, 1], h3[0, 2], h3[1, 0], h3[1, 2], h3[2, 0], h3[2, 1] = -z, y, z, -x, -y, x
            res[0], res[1], res[2] = b[j, 0] - x, b[j, 1] - y, b[j, 2] - z
            kalman_update(q, bias, p, j, res, h3, r[j])


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
        self._q = np.array(np.broadcast_to(q, (n, 4)))
        self._bias = np.array(np.broadcast_to(np.asarray(bias, float), (n, 3)))
        self._p = np.array(np.broadcast_to(np.asarray(p, float), (n, 6, 6)))
        self.arw, self.rrw = float(arw), float(rrw)

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
        mekf_propagate(self._q, self._bias, self._p, rates, float(dt), process_noise(self.arw, self.rrw, dt))

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
