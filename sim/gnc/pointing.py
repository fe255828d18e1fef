"""Pointing modes (guidance): a commanded attitude that moves with the orbit, built by the two-vector construction.

Each mode names two reference directions in ECI, a primary ``r1`` and a
secondary ``r2``, and two body axes, ``b1`` (the pointing axis) and ``b2``:

==========  ============================  =========================================
mode        r1 (where b1 points)          r2 (toward which b2 is turned)
==========  ============================  =========================================
nadir       nadir ``-r``                  the velocity ``v`` (LVLH: Markley & Crassidis (2.77))
sun         the Sun ``s``                 the orbit normal ``r x v``
target      the target ``g - r``          the orbit normal ``r x v``; nadir while the target is below its horizon
velocity    the velocity ``v``            nadir ``-r``
==========  ============================  =========================================

The two-vector construction (the TRIAD of Black 1964; Markley & Crassidis,
*Fundamentals of Spacecraft Attitude Determination and Control* (2014),
(5.45)-(5.47)) builds an orthonormal triad on each side::

    t1 = b1,  t2 = (b1 x b2)/|b1 x b2|,  t3 = t1 x t2      (body)
    s1 = r1,  s2 = (r1 x r2)/|r1 x r2|,  s3 = s1 x s2      (ECI, r1 and r2 made unit first)

and the commanded attitude matrix is ``C_c = [t1 t2 t3] [s1 s2 s3]^T``
(inertial -> body): ``C_c r1 = b1`` exactly, and ``b2`` lies in the plane
of ``r1`` and ``r2``, on ``r2``'s side.  Its quaternion (Hoffmann's: scalar
last, ``C_c = cayley(Q_c)``) is :func:`sim.core.angles.from_cayley_entries`.  The
commanded body rate is read from two commands ``h`` apart:
``C(t + h) C(t)^T = I - [w x] h + O(h^2)`` (:func:`rate_between`).

Floats or numpy rows through :mod:`sim.core.ops`.
"""

from __future__ import annotations

import math

from sim.core.angles import cayley_entries
from sim.core.ops import FLOAT
from sim.core.algebra import cross_VV, dot_VV, matvec_MtV, unit_V

__all__ = ["POINTING_MODES", "MOVING_MODES", "two_vector", "rate_between",
           "secondary_axis", "references", "pointing_error", "axis_error", "commanded_axis", "elevation"]

POINTING_MODES = ("inertial", "nadir", "sun", "target", "velocity")
#: The modes whose command moves with the orbit (all but inertial).
MOVING_MODES = POINTING_MODES[1:]


def secondary_axis(b1) -> tuple:
    """The body axis ``b2`` turned toward the secondary reference: body x, or body y when ``b1`` is within 30 deg of x."""
    return (0.0, 1.0, 0.0) if abs(b1[0]) > math.cos(math.radians(30.0)) else (1.0, 0.0, 0.0)


def two_vector(b1, b2, r1, r2, ops=FLOAT) -> tuple:
    """``C_c = [t1 t2 t3][s1 s2 s3]^T``, row major: the two-vector construction (module docstring)."""
    t1 = unit_V(b1, ops)
    t2 = unit_V(cross_VV(t1, b2), ops)
    t3 = cross_VV(t1, t2)
    s1 = unit_V(r1, ops)
    s2 = unit_V(cross_VV(s1, r2), ops)
    s3 = cross_VV(s1, s2)
    return tuple(t1[i] * s1[j] + t2[i] * s2[j] + t3[i] * s3[j] for i in range(3) for j in range(3))


def rate_between(c0, c1, h, ops=FLOAT) -> tuple:
    """The constant body rate ``w`` (rad/s, body axes) that turns ``C0`` into ``C1`` in ``h`` seconds.

    ``M = C1 C0^T = exp(-[w x] h)`` (``dC/dt = -[w x] C``): its skew part is
    ``sin(theta) e`` with ``theta = |w| h`` about the unit axis ``e``,
    ``(M23 - M32, M31 - M13, M12 - M21) / 2``, and ``cos(theta) = (tr M - 1) / 2``
    (Markley & Crassidis (2.106)); ``w = theta e / h``.  Taken between
    ``t - h/2`` and ``t + h/2`` it is ``w(t)`` to ``O(h^2)``.
    """
    def m(i, j):
        return c1[3 * i] * c0[3 * j] + c1[3 * i + 1] * c0[3 * j + 1] + c1[3 * i + 2] * c0[3 * j + 2]
    sx, sy, sz = 0.5 * (m(1, 2) - m(2, 1)), 0.5 * (m(2, 0) - m(0, 2)), 0.5 * (m(0, 1) - m(1, 0))
    s = ops.sqrt(sx * sx + sy * sy + sz * sz)
    c = 0.5 * (m(0, 0) + m(1, 1) + m(2, 2) - 1.0)
    k = ops.select(s > 0.0, ops.atan2(s, c) / ops.select(s > 0.0, s, 1.0), 1.0) / h
    return (k * sx, k * sy, k * sz)


def elevation(r, g, up, ops=FLOAT):
    """The spacecraft's elevation (rad) seen from a ground point ``g`` (ECI km) of local vertical ``up`` (unit, ECI)."""
    d = (r[0] - g[0], r[1] - g[1], r[2] - g[2])
    return ops.atan2(dot_VV(d, up), ops.sqrt(ops.clip(dot_VV(d, d) - dot_VV(d, up) ** 2, 0.0, math.inf)))


def references(mode: str, r, v, sun=None, target=None, target_up=None, ops=FLOAT):
    """``(r1, r2)``: the mode's primary and secondary reference directions in ECI (module docstring's table).

    ``target`` and ``target_up`` (ECI, km and unit) are needed by ``target`` mode,
    ``sun`` (unit, ECI) by ``sun`` mode.  In ``target`` mode, while the target
    is below its horizon, nadir's references are given.
    """
    nadir = (-r[0], -r[1], -r[2])
    if mode == "nadir":
        return nadir, v
    normal = cross_VV(r, v)
    if mode == "sun":
        return sun, normal
    if mode == "velocity":
        return v, nadir
    if mode == "target":
        los = (target[0] - r[0], target[1] - r[1], target[2] - r[2])
        up = ops.select(dot_VV(los, target_up) < 0.0, 1.0, 0.0)  # the target sees the spacecraft over its horizon
        return tuple(up * los[k] + (1.0 - up) * nadir[k] for k in range(3)), tuple(
            up * normal[k] + (1.0 - up) * v[k] for k in range(3))
    raise ValueError(f"pointing: unknown mode {mode!r} (choose from {', '.join(MOVING_MODES)})")


def commanded_axis(qc, b1) -> tuple:
    """``C(Qc)^T b1``: where the command ``Qc`` (inertial -> body) sends the body axis ``b1``, in ECI.

    The reference of the pointing error in inertial pointing.  Floats or rows.
    """
    return matvec_MtV(cayley_entries(qc), b1)


def axis_error(q, b1, reference, qc, ops=FLOAT):
    """The pointing axis's error (rad), the one a run reports (``point_err_deg``) for one body or columns.

    Against ``reference``, where a moving mode sends the axis, or in inertial
    pointing (``reference`` None) against where the command ``qc`` holds it,
    :func:`commanded_axis`; then :func:`pointing_error`.
    """
    r1 = commanded_axis(qc, b1) if reference is None else reference
    return pointing_error(q, b1, r1, ops)


def pointing_error(q, b1, r1, ops=FLOAT):
    """The angle (rad) between the body axis ``b1`` and where the attitude ``q`` sends the reference ``r1``.

    ``C(Q) r1 / |Q|^2`` against ``b1`` (both made unit), by ``atan2(|x|, .)``
    (accurate at small angles).
    """
    c = cayley_entries(q)
    x = (c[0] * r1[0] + c[1] * r1[1] + c[2] * r1[2], c[3] * r1[0] + c[4] * r1[1] + c[5] * r1[2],
         c[6] * r1[0] + c[7] * r1[1] + c[8] * r1[2])
    x = unit_V(x, ops)
    b = unit_V(b1, ops)
    k = cross_VV(x, b)
    return ops.atan2(ops.sqrt(dot_VV(k, k)), dot_VV(x, b))
