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

import numpy as np

from sim.gnc.attitude import conjugate, from_cayley, product, rotation_vector
from sim.gnc.kalman import (transition_rows, kalman_update, mekf_propagate, mekf_update_attitude,
                            mekf_update_vector, transition_into)

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
        self._q = np.array(np.broadcast_to(q, (n, 4)))
        self._bias = np.array(np.broadcast_to(np.asarray(bias, float), (n, 3)))
        self._p = np.array(np.broadcast_to(np.asarray(p, float), (n, 6, 6)))
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
