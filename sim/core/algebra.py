"""The small algebra under every formula of :mod:`sim`, written once: named kernels on tuples.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`): ``Q =
(q1, q2, q3, q4)``, the coordinate transformation inertial -> body.  A
kernel takes and returns tuples; each entry is a float (one body) or a numpy
row (the ensemble's columns, one value per body), as everywhere in
:mod:`sim.core` (see :mod:`sim.core.ops`).  All but :func:`bivector_norm`
and the angles are arithmetic only, so they give bit-identical results on
floats and on rows; every caller that expanded the same algebra inline now
calls these, with the operations in the order they had.

The suffix names the shapes of the arguments, as in poliastro's ``cross_VV``
and ``matmul_VM``: ``Q`` a quaternion or 4-vector (4 entries), ``V`` a
3-vector (its first three entries are read, so a rate state with wheel
speeds after the body rates serves), ``M`` a 3x3 matrix held as 9 entries
row major (:attr:`sim.core.body.Body.j_rows`).

* ``V(Q)`` is Hoffmann's matrix (3.26), with ``[w; 0] = 2 V(Q) dQ/dt`` (3.25)::

      V(Q) = [[-q4,  q3, -q2, q1],
              [-q3, -q4,  q1, q2],
              [ q2, -q1, -q4, q3],
              [ q1,  q2,  q3, q4]]

* the quaternion product ``E . Q = R(E) Q`` is Hoffmann's (1.7);
* the angle between two attitudes is Hoffmann's bivector angle (Appendix C),
  doubled and folded so that ``Q`` and ``-Q`` agree (:func:`rotation_angle`).

The arithmetic kernels are :func:`sim.core.jit.jitable`: plain Python for Python callers, compiled
inline into the compiled step (:mod:`sim.core.advance`) on tuples of floats.

The hand-fused kernels of :mod:`sim.ensemble.kernels` write the same
algebra into preallocated rows with ``out=``; they do not call these
(a tuple kernel allocates its result), see that module.
"""

from __future__ import annotations

from sim.core.jit import jitable
from sim.core.ops import FLOAT, sqrt_of

__all__ = ["vmul_QQ", "vmul3_QQ", "vtmul_QQ", "vtmul_QV", "product_QQ", "dot_QQ", "norm2_Q", "dot_VV",
           "cross_VV", "norm_V", "unit_V", "matvec_MV", "matvec_MtV", "bivector_norm", "rotation_angle", "path_angle",
           "matmul_into"]


@jitable
def vmul_QQ(q, x):
    """``V(Q) x`` for a 4-vector ``x``, Hoffmann (3.26)."""
    q1, q2, q3, q4 = q
    x1, x2, x3, x4 = x
    return (-q4 * x1 + q3 * x2 - q2 * x3 + q1 * x4,
            -q3 * x1 - q4 * x2 + q1 * x3 + q2 * x4,
            q2 * x1 - q1 * x2 - q4 * x3 + q3 * x4,
            q1 * x1 + q2 * x2 + q3 * x3 + q4 * x4)


@jitable
def vmul3_QQ(q, x):
    """The first three rows of ``V(Q) x``, Hoffmann (3.26): ``w = 2 V(Q) dQ/dt`` (3.25) without its fourth row."""
    q1, q2, q3, q4 = q
    x1, x2, x3, x4 = x
    return (-q4 * x1 + q3 * x2 - q2 * x3 + q1 * x4,
            -q3 * x1 - q4 * x2 + q1 * x3 + q2 * x4,
            q2 * x1 - q1 * x2 - q4 * x3 + q3 * x4)


@jitable
def vtmul_QQ(q, x):
    """``V(Q)^T x`` for a 4-vector ``x``, Hoffmann (3.26)."""
    q1, q2, q3, q4 = q
    x1, x2, x3, x4 = x
    return (-q4 * x1 - q3 * x2 + q2 * x3 + q1 * x4,
            q3 * x1 - q4 * x2 - q1 * x3 + q2 * x4,
            -q2 * x1 + q1 * x2 - q4 * x3 + q3 * x4,
            q1 * x1 + q2 * x2 + q3 * x3 + q4 * x4)


@jitable
def vtmul_QV(q, w):
    """``V(Q)^T [w; 0]`` for a 3-vector ``w``, Hoffmann (3.26): ``dQ/dt = 1/2 V(Q)^T [w; 0]`` (5.18)."""
    q1, q2, q3, q4 = q
    x, y, z = w[0], w[1], w[2]
    return (-q4 * x - q3 * y + q2 * z,
            q3 * x - q4 * y - q1 * z,
            -q2 * x + q1 * y - q4 * z,
            q1 * x + q2 * y + q3 * z)


@jitable
def product_QQ(e, q):
    """Hoffmann's quaternion product ``E . Q = R(E) Q``, (1.7); ``(e4 q4 - e.q) + (e4 q + q4 e + e x q)`` (1.9)."""
    e1, e2, e3, e4 = e
    q1, q2, q3, q4 = q
    return (e4 * q1 - e3 * q2 + e2 * q3 + e1 * q4,
            e3 * q1 + e4 * q2 - e1 * q3 + e2 * q4,
            -e2 * q1 + e1 * q2 + e4 * q3 + e3 * q4,
            -e1 * q1 - e2 * q2 - e3 * q3 + e4 * q4)


@jitable
def dot_QQ(p, q):
    """``P . Q``, summed left to right."""
    p1, p2, p3, p4 = p
    q1, q2, q3, q4 = q
    return p1 * q1 + p2 * q2 + p3 * q3 + p4 * q4


@jitable
def norm2_Q(q):
    """``|Q|^2 = Q . Q'``, Hoffmann (1.14), summed left to right."""
    q1, q2, q3, q4 = q
    return q1 * q1 + q2 * q2 + q3 * q3 + q4 * q4


@jitable
def dot_VV(a, b):
    """``a . b`` of 3-vectors, summed left to right."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@jitable
def cross_VV(a, b):
    """``a x b`` of 3-vectors."""
    a1, a2, a3 = a[0], a[1], a[2]
    b1, b2, b3 = b[0], b[1], b[2]
    return (a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1)


@jitable
def norm_V(a, ops=FLOAT):
    """``|a|`` of a 3-vector (``ops.sqrt`` of :func:`dot_VV` with itself; ``ops=None`` compiled)."""
    return sqrt_of(a[0] * a[0] + a[1] * a[1] + a[2] * a[2], ops)


@jitable
def unit_V(a, ops=FLOAT):
    """``a / |a|`` of a 3-vector."""
    n = norm_V(a, ops)
    return (a[0] / n, a[1] / n, a[2] / n)


@jitable
def matvec_MV(m, x):
    """``M x`` for a 3x3 ``M`` held as 9 row-major entries (``J w``: the body momentum, Hoffmann (4.2))."""
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = m
    x1, x2, x3 = x[0], x[1], x[2]
    return (m0 * x1 + m1 * x2 + m2 * x3,
            m3 * x1 + m4 * x2 + m5 * x3,
            m6 * x1 + m7 * x2 + m8 * x3)


@jitable
def matvec_MtV(m, x):
    """``M^T x`` for a 3x3 ``M`` held as 9 row-major entries (``C^T L``: body to inertial axes, Hoffmann (2.12))."""
    m0, m1, m2, m3, m4, m5, m6, m7, m8 = m
    x1, x2, x3 = x[0], x[1], x[2]
    return (m0 * x1 + m3 * x2 + m6 * x3,
            m1 * x1 + m4 * x2 + m7 * x3,
            m2 * x1 + m5 * x2 + m8 * x3)


def bivector_norm(p, q, ops=FLOAT):
    """``|P^Q|``, the norm of the bivector, Hoffmann Appendix C (no rescaling; ``ops.hypot`` of its six entries).

    The bivector is ``(p1q2-p2q1, p1q3-p3q1, p1q4-p4q1, p2q3-p3q2, p2q4-p4q2, p3q4-p4q3)``.
    """
    p1, p2, p3, p4 = p
    q1, q2, q3, q4 = q
    return ops.hypot(p1 * q2 - p2 * q1, p1 * q3 - p3 * q1, p1 * q4 - p4 * q1,
                     p2 * q3 - p3 * q2, p2 * q4 - p4 * q2, p3 * q4 - p4 * q3)


def rotation_angle(p, q, ops=FLOAT):
    """The angle (rad) of the rotation between the attitudes ``P`` and ``Q``, in [0, pi].

    Hoffmann's bivector angle (Appendix C) doubled and folded, ``2 atan2(|P^Q|, |P.Q|)``,
    so that ``Q`` and ``-Q`` (the same attitude) give the same angle; the ratio
    does not depend on the inputs' lengths, but their squares must neither
    overflow nor underflow (:func:`sim.core.quaternion.rotation_angle` rescales
    first, for inputs of any size).  On columns ``atan2`` and ``hypot`` are
    numpy's (:mod:`sim.core.ops`).
    """
    return 2.0 * ops.atan2(bivector_norm(p, q, ops), abs(dot_QQ(p, q)))


def path_angle(p, q, ops=FLOAT):
    """The angle (rad) turned along the quaternion path from ``P`` to ``Q``, in [0, 2 pi]: ``2 atan2(|P^Q|, P.Q)``.

    Not folded: a turn the long way round (``P.Q < 0``) shows as more than
    pi; for the angle between the attitudes take :func:`rotation_angle`.
    """
    return 2.0 * ops.atan2(bivector_norm(p, q, ops), dot_QQ(p, q))


@jitable
def matmul_into(out, a, b, bt):
    """``A B`` (``bt`` False) or ``A B^T`` (``bt`` True) into ``out``, for small arrays (no BLAS): each entry
    summed from 0.0 in the order of the inner index, ``((0 + a_i0 b_0j) + a_i1 b_1j) + ...``.

    ``a`` (n, m); ``b`` (m, p), or (p, m) with ``bt``; ``out`` (n, p), not ``a`` or ``b``.  The one source of
    the MEKF's matrix products (:mod:`sim.gnc.kalman`).
    """
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            acc = 0.0
            for k in range(a.shape[1]):
                acc += a[i, k] * (b[j, k] if bt else b[k, j])
            out[i, j] = acc
