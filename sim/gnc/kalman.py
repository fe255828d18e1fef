"""The MEKF's compiled kernels: the transition, one Kalman update in Joseph form, and the filter's propagation
and updates over a column of filters (one filter is a column of one).

The formulas of :class:`sim.gnc.estimation.Mekf` (Lefferts, Markley & Shuster 1982; Markley & Crassidis
2014 ch. 6, Table 6.3), with the 6x6 covariance's products written out as loops (no BLAS), compiled by
:mod:`sim.core.jit`; :class:`~sim.gnc.estimation.Mekf` holds the state and calls them.  Conventions as
:mod:`sim.gnc.attitude`: ``Q`` scalar last, inertial -> body; the error state ``x = (a, Δβ)``.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import matmul_into, product_QQ
from sim.core.angles import to_body
from sim.core.jit import jitable, kernel
from sim.gnc.attitude import delta_q, rotation_vector_of

__all__ = ["transition_into", "transition_rows", "kalman_update", "propagate_row", "update_attitude_row",
           "update_vector_row", "mekf_propagate", "mekf_update_attitude", "mekf_update_vector", "error_of", "nees_of"]


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
def transition_rows(w, dt):
    out = np.empty((w.shape[0], 6, 6))
    for j in range(w.shape[0]):
        transition_into(out[j], w[j, 0], w[j, 1], w[j, 2], dt)
    return out


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
    pht = np.empty((6, 3))
    matmul_into(pht, pj[:, :3], h3, True)          # P H^T
    m = np.empty((3, 9))        # [S | (P H^T)^T]: solved in place for K^T
    matmul_into(m[:, :3], h3, pht[:3], False)       # H P H^T
    for a in range(3):
        for b in range(3):
            m[a, b] += r[a, b]
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
    kh = np.empty((6, 3))
    matmul_into(kh, gain, h3, False)                # K H (its last three columns are 0)
    ikh = np.zeros((6, 6))
    for a in range(6):
        for b in range(6):
            ikh[a, b] = (1.0 if a == b else 0.0) - (kh[a, b] if b < 3 else 0.0)
    tmp = np.empty((6, 6))
    matmul_into(tmp, ikh, pj, False)                # (I - K H) P
    kr = np.empty((6, 3))
    matmul_into(kr, gain, r, False)                 # K R
    new = np.empty((6, 6))
    matmul_into(new, tmp, ikh, True)                # (I - K H) P (I - K H)^T
    krk = np.empty((6, 6))
    matmul_into(krk, kr, gain, True)                # K R K^T
    for a in range(6):
        for b in range(6):
            new[a, b] += krk[a, b]
    for a in range(6):
        for b in range(6):
            pj[a, b] = 0.5 * (new[a, b] + new[b, a])
    _reset(q, bias, j, dx[0], dx[1], dx[2], dx[3], dx[4], dx[5])


@jitable
def propagate_row(q, bias, p, j, rx, ry, rz, dt, qd, phi, tmp):
    """Filter ``j`` over ``dt`` with its gyro sample ``(rx, ry, rz)``: ``ŵ = w~ - β̂``, ``Q̂ <- δQ(ŵ dt) . Q̂``
    normalised (the exact rotation for a constant rate, Markley & Crassidis's ``Θ̄(ŵ) q̂``), and
    ``P <- Φ P Φ^T + Q_d`` (:func:`transition_into`; ``qd`` :func:`sim.gnc.estimation.process_noise`).  In place;
    ``phi``, ``tmp`` (6, 6) scratch."""
    wx, wy, wz = rx - bias[j, 0], ry - bias[j, 1], rz - bias[j, 2]
    n1, n2, n3, n4 = product_QQ(delta_q(wx * dt, wy * dt, wz * dt), (q[j, 0], q[j, 1], q[j, 2], q[j, 3]))
    size = math.sqrt(n1 * n1 + n2 * n2 + n3 * n3 + n4 * n4)
    q[j, 0], q[j, 1], q[j, 2], q[j, 3] = n1 / size, n2 / size, n3 / size, n4 / size
    transition_into(phi, wx, wy, wz, dt)
    pj = p[j]
    matmul_into(tmp, phi, pj, False)
    matmul_into(pj, tmp, phi, True)
    for a in range(6):
        for b in range(6):
            pj[a, b] += qd[a, b]


@jitable
def update_attitude_row(q, bias, p, j, qm, r, eye, res):
    """Filter ``j`` updated by a measured attitude ``qm`` (a 4-tuple): residual ``a(Q_m, Q̂)``
    (:func:`sim.gnc.estimation.attitude_error`), ``H = [I 0]`` (``eye``: I, 3x3), ``R = r`` (3x3);
    :func:`kalman_update`.  In place; ``res`` (3,) scratch."""
    e = product_QQ(qm, (-q[j, 0], -q[j, 1], -q[j, 2], q[j, 3]))
    res[0], res[1], res[2] = rotation_vector_of(e[0], e[1], e[2], e[3])
    kalman_update(q, bias, p, j, res, eye, r)


@jitable
def update_vector_row(q, bias, p, j, bx, by, bz, reference, r, h3, res):
    """Filter ``j`` updated by a vector measured in body axes, ``b = C(Q) r_ref + noise``: residual ``b - ĥ``,
    ``ĥ = C(Q̂) r_ref``, ``H = [[ĥ×] 0]`` (Markley & Crassidis 2014 ch. 6: ``C(Q) r ≈ (I - [a×]) ĥ = ĥ + [ĥ×] a``),
    ``R = r`` (3x3); :func:`kalman_update`.  In place; ``h3`` (3, 3) scratch with a zero diagonal, ``res`` (3,)."""
    x, y, z = to_body((q[j, 0], q[j, 1], q[j, 2], q[j, 3]), (reference[0], reference[1], reference[2]))
    h3[0, 1], h3[0, 2], h3[1, 0], h3[1, 2], h3[2, 0], h3[2, 1] = -z, y, z, -x, -y, x
    res[0], res[1], res[2] = bx - x, by - y, bz - z
    kalman_update(q, bias, p, j, res, h3, r)


@kernel
def mekf_propagate(q, bias, p, rates, dt, qd):
    """:func:`propagate_row` of each filter ``j`` with its gyro sample ``rates[j]``.  In place."""
    phi = np.empty((6, 6))
    tmp = np.empty((6, 6))
    for j in range(q.shape[0]):
        propagate_row(q, bias, p, j, rates[j, 0], rates[j, 1], rates[j, 2], dt, qd, phi, tmp)


@kernel
def mekf_update_attitude(q, bias, p, q_measured, r, valid):
    """:func:`update_attitude_row` of each filter ``j`` with ``valid[j]``.  In place."""
    eye = np.eye(3)
    res = np.empty(3)
    for j in range(q.shape[0]):
        if valid[j]:
            update_attitude_row(q, bias, p, j, (q_measured[j, 0], q_measured[j, 1], q_measured[j, 2],
                                                q_measured[j, 3]), r, eye, res)


@kernel
def mekf_update_vector(q, bias, p, b, reference, r, valid):
    """:func:`update_vector_row` of each filter ``j`` with ``valid[j]`` (``r[j]`` its 3x3 covariance).  In place."""
    h3 = np.zeros((3, 3))
    res = np.empty(3)
    for j in range(q.shape[0]):
        if valid[j]:
            update_vector_row(q, bias, p, j, b[j, 0], b[j, 1], b[j, 2], reference[j], r[j], h3, res)


@jitable
def error_of(qt, qe):
    """:func:`sim.gnc.estimation.attitude_error` of one estimate ``qe`` against the truth ``qt`` (4-tuples): ``a`` as a 3-tuple, rad,
    ``Q_true . Q̂'`` (Hoffmann (1.7), (1.10)) as a rotation vector (:func:`sim.gnc.attitude.rotation_vector_of`)."""
    e = product_QQ(qt, (-qe[0], -qe[1], -qe[2], qe[3]))
    return rotation_vector_of(e[0], e[1], e[2], e[3])


@jitable
def nees_of(e, p, n):
    """The NEES ``e^T P^-1 e`` of one error ``e`` (its first ``n`` entries) against its covariance ``p`` (n, n)
    (:func:`sim.gnc.estimation.nees`, Bar-Shalom et al. 2001 §5.4): ``P x = e`` solved by Gaussian elimination without pivoting
    (``P`` symmetric positive definite: stable, Golub & Van Loan 2013 §4.2), then ``e . x``."""
    m = np.empty((n, n + 1))
    for a in range(n):
        for b in range(n):
            m[a, b] = p[a, b]
        m[a, n] = e[a]
    for c in range(n):
        for a in range(c + 1, n):
            f = m[a, c] / m[c, c]
            for b in range(c, n + 1):
                m[a, b] -= f * m[c, b]
    x = np.empty(n)
    total = 0.0
    for a in range(n - 1, -1, -1):
        acc = m[a, n]
        for k in range(a + 1, n):
            acc -= m[a, k] * x[k]
        x[a] = acc / m[a, a]
    for a in range(n):
        total += e[a] * x[a]
    return total
