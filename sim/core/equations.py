"""The equations of motion every integrator of :mod:`sim.core.integrators` steps.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).
Euler's equations (with the full tensor, or the gyrostat's with reaction
wheels), the kinematics ``dQ/dt = 1/2 V(Q)^T [w; 0]`` and the rates read back
from ``(Q, dQ/dt)``.  Arithmetic only, over the kernels of
:mod:`sim.core.algebra`: the same on floats and on the ensemble's columns,
bit for bit.
"""

from __future__ import annotations

from sim.core.algebra import matvec_MV, norm2_Q, vmul3_QQ, vtmul_QV
from sim.core.jit import jitable

__all__ = ["euler_rhs", "rates_rhs", "qdot", "rates", "quasi_rates", "load_at"]


@jitable
def euler_rhs(w, t, jr, jir):
    """``dw/dt = J^-1 (T - w x J w)``, Euler's equations with the full tensor, Hoffmann (4.3), App. A."""
    wx, wy, wz = w
    lx, ly, lz = matvec_MV(jr, w)
    return matvec_MV(jir, (t[0] - (wy * lz - wz * ly), t[1] - (wz * lx - wx * lz), t[2] - (wx * ly - wy * lx)))


def rates_rhs(w, load, body):
    """Time derivative of the rate state: Euler's equations, or the gyrostat's with wheels.

    Without wheels (``body.wheels`` None) :func:`euler_rhs` of ``w`` and the
    torque ``load``; with them :func:`sim.core.wheels.gyrostat_rhs`, whose
    ``dw/dt`` solves ``(J - sum J_s a a^T) dw/dt = T - w x H - sum a_i v_i``
    and whose wheel speeds follow ``dW_i/dt = v_i / J_s,i - a_i . dw/dt``.
    """
    wheels = getattr(body, "wheels", None)
    if wheels is None:
        return euler_rhs(w, load, body.j_rows, body.j_inv_rows)
    return body.formulas.rhs(w, load, body.j_rows, body.j_free_inv_rows)


@jitable
def qdot(q, w):
    """``dQ/dt = 1/2 V(Q)^T [w; 0]``, Hoffmann (5.18) with V from (3.26) (``w``: its first three entries)."""
    a, b, c, d = vtmul_QV(q, w)
    return (0.5 * a, 0.5 * b, 0.5 * c, 0.5 * d)


@jitable
def rates(q, p):
    """Body rates ``w = 2 V(Q) P`` (first three rows), Hoffmann (3.25), (4.16)."""
    a, b, c = vmul3_QQ(q, p)
    return (2.0 * a, 2.0 * b, 2.0 * c)


@jitable
def quasi_rates(q, p):
    """Body rates of the normalised attitude, ``w = 2 V(Q) P / |Q|^2``: Joshi's quasi-velocities (27).

    Joshi's (27), ``w = 2 u`` with ``u1 = e0 de1 - e1 de0 - e2 de3 + e3 de2``
    and its cyclic twins, is written for the scalar-first Euler parameters
    ``e`` of a body rotation.  With ``e0 = q4``, ``(e1, e2, e3) = -(q1, q2, q3)``
    (Hoffmann's ``Q`` is the coordinate rotation, scalar last) it is term
    for term the first three rows of ``2 V(Q) dQ/dt``, Hoffmann (3.25)
    (:func:`rates`).  For a ``Q`` off the unit sphere the attitude is
    ``Q / |Q|`` (Joshi (25), :func:`sim.core.norm.elimination`), whose rates are
    ``u(Q/|Q|, d(Q/|Q|)/dt) = u(Q, P) / |Q|^2``: the part of ``d(Q/|Q|)/dt``
    along ``Q`` drops out because ``u(e, e) = 0``.  The rates the
    elimination mode reads from full-quat's ``(Q, P)``.
    """
    a, b, c = rates(q, p)
    qq = norm2_Q(q)
    return (a / qq, b / qq, c / qq)


def load_at(torque, q, w, t):
    """``torque(q, w, t)``, or ``torque(q, w)`` when ``t`` is None (a load that does not depend on time)."""
    return torque(q, w) if t is None else torque(q, w, t)
