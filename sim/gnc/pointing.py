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
from sim.core.jit import jitable
from sim.core.ops import FLOAT, atan2_of, clip_of, select_of, sqrt_of
from sim.core.algebra import cross_VV, dot_VV, matvec_MtV, unit_V

__all__ = ["POINTING_MODES", "MOVING_MODES", "MODE_CODES", "two_vector", "rate_between", "references_of",
           "secondary_axis", "references", "pointing_error", "axis_error", "commanded_axis", "elevation"]

POINTING_MODES = ("inertial", "nadir", "sun", "target", "velocity")
#: The modes whose command moves with the orbit (all but inertial).
MOVING_MODES = POINTING_MODES[1:]
#: Each mode's number, what :func:`references_of` and the compiled world take (its index in POINTING_MODES).
MODE_CODES = {name: k for k, name in enumerate(POINTING_MODES)}
INERTIAL, NADIR, SUN, TARGET, VELOCITY = range(5)


def secondary_axis(b1) -> tuple:
    """The body axis ``b2`` turned toward the secondary reference: body x, or body y when ``b1`` is within 30 deg of x."""
    return (0.0, 1.0, 0.0) if abs(b1[0]) > math.cos(math.radians(30.0)) else (1.0, 0.0, 0.0)


@jitable
def two_vector(b1, b2, r1, r2, ops=FLOAT) -> tuple:
    """``C_c = [t1 t2 t3][s1 s2 s3]^T``, row major: the two-vector construction (module docstring)."""
    t1 = unit_V(b1, ops)
    t2 = unit_V(cross_VV(t1, b2), ops)
    t3 = cross_VV(t1, t2)
    s1 = unit_V(r1, ops)
    s2 = unit_V(cross_VV(s1, r2), ops)
    s3 = cross_VV(s1, s2)
    return (t1[0] * s1[0] + t2[0] * s2[0] + t3[0] * s3[0], t1[0] * s1[1] + t2[0] * s2[1] + t3[0] * s3[1],
            t1[0] * s1[2] + t2[0] * s2[2] + t3[0] * s3[2],
            t1[1] * s1[0] + t2[1] * s2[0] + t3[1] * s3[0], t1[1] * s1[1] + t2[1] * s2[1] + t3[1] * s3[1],
            t1[1] * s1[2] + t2[1] * s2[2] + t3[1] * s3[2],
            t1[2] * s1[0] + t2[2] * s2[0] + t3[2] * s3[0], t1[2] * s1[1] + t2[2] * s2[1] + t3[2] * s3[1],
            t1[2] * s1[2] + t2[2] * s2[2] + t3[2] * s3[2])


@jitable
def rate_between(c0, c1, h, ops=FLOAT) -> tuple:
    """The constant body rate ``w`` (rad/s, body axes) that turns ``C0`` into ``C1`` in ``h`` seconds.

    ``M = C1 C0^T = exp(-[w x] h)`` (``dC/dt = -[w x] C``): its skew part is
    ``sin(theta) e`` with ``theta = |w| h`` about the unit axis ``e``,
    ``(M23 - M32, M31 - M13, M12 - M21) / 2``, and ``cos(theta) = (tr M - 1) / 2``
    (Markley & Crassidis (2.106)); ``w = theta e / h``.  Taken between
    ``t - h/2`` and ``t + h/2`` it is ``w(t)`` to ``O(h^2)``.
    """
    # M_ij = row i of C1 . row j of C0
    m00 = c1[0] * c0[0] + c1[1] * c0[1] + c1[2] * c0[2]
    m01 = c1[0] * c0[3] + c1[1] * c0[4] + c1[2] * c0[5]
    m02 = c1[0] * c0[6] + c1[1] * c0[7] + c1[2] * c0[8]
    m10 = c1[3] * c0[0] + c1[4] * c0[1] + c1[5] * c0[2]
    m11 = c1[3] * c0[3] + c1[4] * c0[4] + c1[5] * c0[5]
    m12 = c1[3] * c0[6] + c1[4] * c0[7] + c1[5] * c0[8]
    m20 = c1[6] * c0[0] + c1[7] * c0[1] + c1[8] * c0[2]
    m21 = c1[6] * c0[3] + c1[7] * c0[4] + c1[8] * c0[5]
    m22 = c1[6] * c0[6] + c1[7] * c0[7] + c1[8] * c0[8]
    sx, sy, sz = 0.5 * (m12 - m21), 0.5 * (m20 - m02), 0.5 * (m01 - m10)
    s = sqrt_of(sx * sx + sy * sy + sz * sz, ops)
    c = 0.5 * (m00 + m11 + m22 - 1.0)
    k = select_of(s > 0.0, atan2_of(s, c, ops) / select_of(s > 0.0, s, 1.0, ops), 1.0, ops) / h
    return (k * sx, k * sy, k * sz)


@jitable
def elevation(r, g, up, ops=FLOAT):
    """The spacecraft's elevation (rad) seen from a ground point ``g`` (ECI km) of local vertical ``up`` (unit, ECI)."""
    d = (r[0] - g[0], r[1] - g[1], r[2] - g[2])
    e = dot_VV(d, up)  # squared as e * e: numpy's and numba's ** 2 are that, libm's pow need not be
    return atan2_of(e, sqrt_of(clip_of(dot_VV(d, d) - e * e, 0.0, math.inf, ops), ops), ops)


def references(mode: str, r, v, sun=None, target=None, target_up=None, ops=FLOAT):
    """``(r1, r2)``: the mode's primary and secondary reference directions in ECI (module docstring's table).

    ``target`` and ``target_up`` (ECI, km and unit) are needed by ``target`` mode,
    ``sun`` (unit, ECI) by ``sun`` mode.  In ``target`` mode, while the target
    is below its horizon, nadir's references are given.  :func:`references_of` of the mode's number.
    """
    if mode not in MOVING_MODES:
        raise ValueError(f"pointing: unknown mode {mode!r} (choose from {', '.join(MOVING_MODES)})")
    return references_of(MODE_CODES[mode], r, v, sun, target, target_up, ops)


@jitable
def references_of(code, r, v, sun, target, target_up, ops=FLOAT):
    """:func:`references` of the mode numbered ``code`` (:data:`MODE_CODES`, a moving mode): floats, rows, or
    ``ops=None`` compiled (every argument then a 3-tuple, the unused ones anything)."""
    nadir = (-r[0], -r[1], -r[2])
    if code == NADIR:
        return nadir, (v[0], v[1], v[2])
    normal = cross_VV(r, v)
    if code == SUN:
        return (sun[0], sun[1], sun[2]), normal
    if code == VELOCITY:
        return (v[0], v[1], v[2]), nadir
    los = (target[0] - r[0], target[1] - r[1], target[2] - r[2])
    up = select_of(dot_VV(los, target_up) < 0.0, 1.0, 0.0, ops)  # the target sees the spacecraft over its horizon
    return ((up * los[0] + (1.0 - up) * nadir[0], up * los[1] + (1.0 - up) * nadir[1],
             up * los[2] + (1.0 - up) * nadir[2]),
            (up * normal[0] + (1.0 - up) * v[0], up * normal[1] + (1.0 - up) * v[1],
             up * normal[2] + (1.0 - up) * v[2]))


@jitable
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


@jitable
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
    return atan2_of(sqrt_of(dot_VV(k, k), ops), dot_VV(x, b), ops)
