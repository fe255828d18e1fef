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

__all__ = ["bivector", "bivector_norm", "bivector_angle", "sine_cosine", "sine_cosine_unit", "SlerpPath", "slerp",
           "LINEAR_BELOW", "ANTIPODAL_WITHIN"]

#: Below this angle between the quaternions (1 degree) SLERP is linear,
#: Hoffmann Appendix C ("eps = pi/180").
LINEAR_BELOW = math.pi / 180.0


#: Within this of pi (rad) the two quaternions count as antipodal: the plane
#: of the great circle is undefined there.
ANTIPODAL_WITHIN = 1e-6


def _as4(q) -> tuple:
    """A 4-tuple of floats, or ValueError."""
    a = np.asarray(q, dtype=float)
    if a.shape != (4,):
        raise ValueError(f"a quaternion has shape (4,), got {a.shape}")
    return tuple(float(x) for x in a)


def _scaled(p, q):
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


def _bivector_norm(p1, p2, p3, p4, q1, q2, q3, q4) -> float:
    return math.hypot(p1 * q2 - p2 * q1, p1 * q3 - p3 * q1, p1 * q4 - p4 * q1,
                      p2 * q3 - p3 * q2, p2 * q4 - p4 * q2, p3 * q4 - p4 * q3)


def bivector_norm(p, q) -> float:
    """Euclidean norm ``|P^Q|`` of the bivector, Hoffmann Appendix C."""
    p, q, scale = _scaled(_as4(p), _as4(q))
    return _bivector_norm(*p, *q) * scale


def bivector_angle(p, q) -> float:
    """Angle between two quaternions as 4-vectors, ``atan2(|P^Q|, P.Q)``, Hoffmann Appendix C.

    In [0, pi], for inputs of any length (they are rescaled first, so neither
    tiny nor huge components underflow or overflow).  For unit quaternions
    the attitudes differ by a rotation of twice this angle (or
    ``2 (pi - angle)`` the other way round).
    """
    return math.atan2(*sine_cosine(p, q))


def sine_cosine_unit(p, q) -> tuple[float, float]:
    """``(|P^Q|, P.Q)`` for two 4-tuples of floats of about unit length (no checks, no rescaling)."""
    return _bivector_norm(*p, *q), p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3]


def sine_cosine(p, q) -> tuple[float, float]:
    """``(|P^Q|, P.Q)`` of ``p`` and ``q`` rescaled to a largest component of 1.

    Their ratio is ``tan`` of the angle between the quaternions (Hoffmann
    Appendix C); rescaling keeps tiny and huge inputs from underflowing or
    overflowing.
    """
    p, q, _ = _scaled(_as4(p), _as4(q))
    return _bivector_norm(*p, *q), sum(a * b for a, b in zip(p, q))


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
    """

    __slots__ = ("qi", "qe", "angle", "_mode", "_perp")

    def __init__(self, qi, qe, shortest_path: bool = True):
        qi = _as4(qi)
        qe = _as4(qe)
        dot = sum(a * b for a, b in zip(qi, qe))
        angle = math.atan2(_bivector_norm(*qi, *qe), dot)
        if shortest_path:
            d1 = sum((e - i) ** 2 for i, e in zip(qi, qe))
            d2 = sum((-e - i) ** 2 for i, e in zip(qi, qe))
            if d2 < d1:
                angle = math.pi - angle
                qe = tuple(-x for x in qe)
        self.qi, self.qe, self.angle = qi, qe, angle
        self._perp = None
        if angle <= LINEAR_BELOW:
            self._mode = "linear"
        elif angle >= math.pi - ANTIPODAL_WITHIN:
            # qe ~ -qi: every great circle is as long; go about body x.
            # The first row of V(qi) (Hoffmann 3.26) is a unit 4-vector
            # orthogonal to qi.
            q1, q2, q3, q4 = qi
            self._perp = (-q4, q3, -q2, q1)
            self._mode = "antipodal"
        else:
            self._mode = "sine"

    def __call__(self, t: float) -> tuple[float, float, float, float]:
        """Interpolated quaternion at ``t`` in [0, 1] (clamped)."""
        t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
        qi, qe = self.qi, self.qe
        if self._mode == "sine":
            s = math.sin(self.angle)
            a = math.sin((1.0 - t) * self.angle) / s
            b = math.sin(t * self.angle) / s
            r = [i * a + e * b for i, e in zip(qi, qe)]
        elif self._mode == "linear":
            r = [i * (1.0 - t) + e * t for i, e in zip(qi, qe)]
        else:
            a, b = math.cos(math.pi * t), math.sin(math.pi * t)
            r = [i * a + u * b for i, u in zip(qi, self._perp)]
            if t == 1.0:
                return qe
        n = math.sqrt(sum(x * x for x in r))
        return (r[0] / n, r[1] / n, r[2] / n, r[3] / n)


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
