"""Spherical linear interpolation of attitudes, Hoffmann Appendix C.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  The
angle between two quaternions is taken with the bivector (the 4D substitute
for a cross product), ``atan2(|P^Q|, P.Q)``, which stays accurate near 0 and
pi and works for non-unit inputs.  Inputs are never modified (Hoffmann's
listing flips ``Qe`` in place; here a new value is returned).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import bivector_norm as _bivector_norm
from sim.core.algebra import dot_QQ, norm2_Q
from sim.core.ops import COLUMN, FLOAT

__all__ = ["scaled_pair", "bivector", "bivector_norm", "bivector_angle", "sine_cosine", "sine_cosine_unit", "SlerpPath",
           "SlerpColumns", "slerp", "LINEAR_BELOW", "ANTIPODAL_WITHIN"]

#: Below this angle between the quaternions (1 degree) SLERP is linear,
#: Hoffmann Appendix C ("eps = pi/180").
LINEAR_BELOW = math.pi / 180.0


#: Within this of pi (rad) the two quaternions count as antipodal: the plane
#: of the great circle is undefined there.
ANTIPODAL_WITHIN = 1e-6


def _as4(q) -> tuple:
    """A 4-tuple of floats, or ValueError."""
    if type(q) is tuple and len(q) == 4 and all(type(x) is float for x in q):
        return q  # already one (the ensemble's SLERP prepares ten thousand)
    a = np.asarray(q, dtype=float)
    if a.shape != (4,):
        raise ValueError(f"a quaternion has shape (4,), got {a.shape}")
    return tuple(float(x) for x in a)


def scaled_pair(p, q):
    """``p`` and ``q`` divided by their largest component, so squares neither overflow nor underflow."""
    sp = max(abs(x) for x in p) or 1.0
    sq = max(abs(x) for x in q) or 1.0
    return tuple(x / sp for x in p), tuple(x / sq for x in q), sp * sq


def bivector(p, q) -> np.ndarray:
    """Bivector ``P^Q`` (six components), Hoffmann Appendix C (2014 ordering).

    ``(p1q2-p2q1, p1q3-p3q1, p1q4-p4q1, p2q3-p3q2, p2q4-p4q2, p3q4-p4q3)``.
    """
    p1, p2, p3, p4 = _as4(p)
    q1, q2, q3, q4 = _as4(q)
    return np.array(
        [
            p1 * q2 - p2 * q1,
            p1 * q3 - p3 * q1,
            p1 * q4 - p4 * q1,
            p2 * q3 - p3 * q2,
            p2 * q4 - p4 * q2,
            p3 * q4 - p4 * q3,
        ]
    )


def bivector_norm(p, q) -> float:
    """Euclidean norm ``|P^Q|`` of the bivector, Hoffmann Appendix C."""
    p, q, scale = scaled_pair(_as4(p), _as4(q))
    return _bivector_norm(p, q) * scale


def bivector_angle(p, q) -> float:
    """Angle between two quaternions as 4-vectors, ``atan2(|P^Q|, P.Q)``, Hoffmann Appendix C.

    In [0, pi], for inputs of any length (they are rescaled first, so neither
    tiny nor huge components underflow or overflow).  For unit quaternions
    the attitudes differ by a rotation of twice this angle (or
    ``2 (pi - angle)`` the other way round).
    """
    return math.atan2(*sine_cosine(p, q))


def sine_cosine_unit(p, q, ops=FLOAT) -> tuple:
    """``(|P^Q|, P.Q)`` for two quaternions of about unit length (no checks, no rescaling).

    4-tuples of floats, or with ``ops`` = :data:`sim.core.ops.COLUMN` 4-tuples of
    numpy rows (one pair per body; the bivector's norm is then the square root
    of the sum of squares, see :mod:`sim.core.ops`).
    """
    return _bivector_norm(p, q, ops), dot_QQ(p, q)


def sine_cosine(p, q) -> tuple[float, float]:
    """``(|P^Q|, P.Q)`` of ``p`` and ``q`` rescaled to a largest component of 1.

    Their ratio is ``tan`` of the angle between the quaternions (Hoffmann
    Appendix C); rescaling keeps tiny and huge inputs from underflowing or
    overflowing.
    """
    p, q, _ = scaled_pair(_as4(p), _as4(q))
    return _bivector_norm(p, q), dot_QQ(p, q)


class SlerpPath:
    """A prepared SLERP from ``qi`` to ``qe``, Hoffmann Appendix C (ZFlug352 Slerp).

    The preparation (Hoffmann's ``t = 0`` branch) computes the bivector angle
    and, with ``shortest_path``, replaces ``qe`` by ``-qe`` when
    ``|-qe - qi| < |qe - qi|`` (the same selection as the quaternion
    controller, Hoffmann 9.8).  Evaluation is Hoffmann's formula

        R = qi sin((1-t) a) / sin(a) + qe sin(t a) / sin(a),

    linear below 1 degree.  Two cases the listing leaves open are handled:
    the result is renormalised (Hoffmann skips it; it matters in the linear
    branch and where ``sin(a)`` is small), and without ``shortest_path`` a path
    between antipodal quaternions (within :data:`ANTIPODAL_WITHIN` of a full
    360 degree turn, where the direction is undefined) turns about the body
    x axis.

    Parameters
    ----------
    qi, qe : sequence of 4 floats
        Start and end quaternions (unit length), scalar last.
    shortest_path : bool
        Choose the sign of ``qe`` that gives the shorter rotation.

    Attributes
    ----------
    qi, qe : tuple of 4 floats
        Start and end (``qe`` with the sign chosen).
    angle : float
        Bivector angle between them, radians.
    mode : str
        ``"sine"`` (Hoffmann's formula), ``"linear"`` (below 1 degree) or
        ``"antipodal"``.
    perp : tuple of 4 floats or None
        For ``"antipodal"``: the unit 4-vector orthogonal to ``qi`` the path
        turns toward (a turn about body x).
    """

    __slots__ = ("qi", "qe", "angle", "mode", "perp", "_sine")

    def __init__(self, qi, qe, shortest_path: bool = True):
        qi = _as4(qi)
        qe = _as4(qe)
        angle = math.atan2(*sine_cosine_unit(qi, qe))
        if shortest_path:
            d1 = sum((e - i) ** 2 for i, e in zip(qi, qe))
            d2 = sum((-e - i) ** 2 for i, e in zip(qi, qe))
            if d2 < d1:
                angle = math.pi - angle
                qe = tuple(-x for x in qe)
        self.qi, self.qe, self.angle = qi, qe, angle
        self._sine = math.sin(angle)  # sin(a) of every evaluation, computed once
        self.perp = None
        if angle <= LINEAR_BELOW:
            self.mode = "linear"
        elif angle >= math.pi - ANTIPODAL_WITHIN:
            # qe ~ -qi: every great circle is as long; go about body x.
            # The first row of V(qi) (Hoffmann 3.26) is a unit 4-vector
            # orthogonal to qi.
            q1, q2, q3, q4 = qi
            self.perp = (-q4, q3, -q2, q1)
            self.mode = "antipodal"
        else:
            self.mode = "sine"

    def __call__(self, t: float) -> tuple[float, float, float, float]:
        """Interpolated quaternion at ``t`` in [0, 1] (clamped)."""
        t = _clamp(t)
        if self.mode == "sine":
            r = _sine_blend(self.qi, self.qe, self.angle, t, FLOAT, self._sine)
        elif self.mode == "linear":
            r = _linear_blend(self.qi, self.qe, t)
        else:
            if t == 1.0:
                return self.qe
            r = _antipodal_blend(self.qi, self.perp, t)
        return tuple(_unit(r, FLOAT))


class SlerpColumns:
    """One :class:`SlerpPath` per column, evaluated at once: the ensemble's SLERP, Hoffmann Appendix C.

    The preparation runs body by body with :class:`SlerpPath` itself.  The
    evaluation, every step of the ensemble while the command moves, is the
    same formulas (the sine, linear and antipodal blends and the
    renormalisation, each body taking its own path's branch) with the same
    operations in the same order, written into buffers kept from step to
    step (:meth:`formulas` evaluates the single-source functions instead;
    the two agree bit for bit, tested), with ``sin(a)`` computed once.

    Parameters
    ----------
    qi : ndarray, shape (4, N)
        Start quaternions, one column per body.
    qe : sequence of 4 floats
        The common end quaternion.
    shortest_path : bool
        As for :class:`SlerpPath`, body by body.
    """

    def __init__(self, qi: np.ndarray, qe, shortest_path: bool = True):
        n = qi.shape[1]
        qe = _as4(qe)
        paths = [SlerpPath(tuple(q), qe, shortest_path) for q in np.asarray(qi, dtype=float).T.tolist()]
        self.qi = np.array([p.qi for p in paths]).T.reshape(4, n)
        self.qe = np.array([p.qe for p in paths]).T.reshape(4, n)
        self.angle = np.array([p.angle for p in paths])
        self.perp = np.zeros((4, n))
        for j, path in enumerate(paths):
            if path.perp is not None:
                self.perp[:, j] = path.perp
        mode = np.array([p.mode for p in paths])
        self.linear, self.antipodal = mode == "linear", mode == "antipodal"
        self._linear_at, self._antipodal_at = np.flatnonzero(self.linear), np.flatnonzero(self.antipodal)
        self._sine = np.sin(self.angle)  # sin(a) of every evaluation, computed once
        self._ab, self._n = np.empty((2, n)), np.empty(n)  # sin((1-t) a) and sin(t a), in one call
        self._r, self._e = np.empty((4, n)), np.empty((4, n))

    def __call__(self, t: float) -> np.ndarray:
        """Interpolated quaternions at ``t`` in [0, 1] (clamped), shape (4, N): a new array."""
        t = _clamp(t)
        qi, qe, ab, r, e, n = self.qi, self.qe, self._ab, self._r, self._e, self._n
        a, b = ab
        with np.errstate(all="ignore"):  # sin(a) = 0 in the columns that take another branch
            # _sine_blend: qi sin((1-t) a) / sin(a) + qe sin(t a) / sin(a)
            np.multiply(self.angle, 1.0 - t, out=a)
            np.multiply(self.angle, t, out=b)
            np.sin(ab, out=ab)
            ab /= self._sine
            np.multiply(qi, a, out=r)
            np.multiply(qe, b, out=e)
            r += e
        k = self._linear_at
        if len(k):  # _linear_blend
            r[:, k] = qi[:, k] * (1.0 - t) + qe[:, k] * t
        k = self._antipodal_at
        if len(k):  # _antipodal_blend
            c, s = math.cos(math.pi * t), math.sin(math.pi * t)
            r[:, k] = qi[:, k] * c + self.perp[:, k] * s
        # _unit: r / sqrt(r1^2 + r2^2 + r3^2 + r4^2)
        np.multiply(r[0], r[0], out=n)
        np.multiply(r[1], r[1], out=a)
        n += a
        np.multiply(r[2], r[2], out=a)
        n += a
        np.multiply(r[3], r[3], out=a)
        n += a
        np.sqrt(n, out=n)
        out = np.divide(r, n)
        if t == 1.0 and len(k):
            out[:, k] = qe[:, k]
        return out

    def formulas(self, t: float) -> np.ndarray:
        """:meth:`__call__` through the single-source functions on numpy rows (the reference it is tested against)."""
        t = _clamp(t)
        qi, qe = self.qi, self.qe
        with np.errstate(all="ignore"):
            r = np.array(_sine_blend(qi, qe, self.angle, t, COLUMN, COLUMN.sin(self.angle)))
        if self.linear.any():
            r = np.where(self.linear, _linear_blend(qi, qe, t), r)
        if self.antipodal.any():
            r = np.where(self.antipodal, _antipodal_blend(qi, self.perp, t), r)
        r = np.array(_unit(r, COLUMN))
        if t == 1.0 and self.antipodal.any():
            r = np.where(self.antipodal, qe, r)
        return r


def _clamp(t: float) -> float:
    return 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)


def _sine_blend(qi, qe, angle, t, ops, s):
    """Hoffmann's ``qi sin((1-t) a) / sin(a) + qe sin(t a) / sin(a)``, Appendix C; ``s`` is ``sin(a)``."""
    a = ops.sin((1.0 - t) * angle) / s
    b = ops.sin(t * angle) / s
    return [i * a + e * b for i, e in zip(qi, qe)]


def _linear_blend(qi, qe, t):
    """``qi (1 - t) + qe t``: below 1 degree, Hoffmann Appendix C."""
    return [i * (1.0 - t) + e * t for i, e in zip(qi, qe)]


def _antipodal_blend(qi, perp, t):
    """Half a great circle from ``qi`` through ``perp``: ``qi cos(pi t) + perp sin(pi t)``.

    ``t`` is one float for every body, so ``math`` serves both flavours.
    """
    a, b = math.cos(math.pi * t), math.sin(math.pi * t)
    return [i * a + u * b for i, u in zip(qi, perp)]


def _unit(r, ops):
    """``r / |r|`` (the renormalisation Hoffmann's listing leaves out)."""
    n = ops.sqrt(norm2_Q(r))
    return [x / n for x in r]


def slerp(qi, qe, t: float, shortest_path: bool = True) -> np.ndarray:
    """Spherical linear interpolation between attitudes, Hoffmann Appendix C.

    Parameters
    ----------
    qi, qe : array_like, shape (4,)
        Start and end quaternions, unit length, scalar last.
    t : float
        Interpolation parameter in [0, 1] (clamped).
    shortest_path : bool, default True
        Use ``-qe`` when it is closer to ``qi`` (the rotation turns the short way).

    Returns
    -------
    ndarray, shape (4,)
        ``qi`` at ``t = 0``; ``qe`` (or ``-qe`` on the short path) at ``t = 1``.
    """
    return np.array(SlerpPath(qi, qe, shortest_path)(t))
