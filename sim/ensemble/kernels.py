"""Hand-fused column kernels: the ensemble's hot step, written into preallocated rows.

These are the only copies of physics formulas in :mod:`sim`, kept because
they measurably pay at N = 10,000: every operation writes into a
preallocated row (``out=``), so a step allocates nothing, and a term whose
inertia entry is zero is skipped.  ``make bench`` measures each against the
single-source path (``Ensemble(..., fused=False)``, the rows "single-source
formulas (no fused kernel)" of docs/PERFORMANCE.md; the figures measured
when they were written are in its "Figures that were in docstrings").  The
single source pays most in a fresh process, where glibc hands each freed
temporary back to the system and faults it in again at the next step
(:mod:`sim.ensemble.heap`).  They do not call the tuple kernels of
:mod:`sim.core.algebra`: a kernel returns a new tuple of rows, which is the
allocation these kernels exist to avoid.

Each is the same sequence of floating-point operations as its single
source, and tests/sim/core/test_kernels.py checks it bit for bit against that source
on random states, for every branch:

* :func:`torque_into`: :class:`sim.core.control.TorqueModel` on columns (command,
  dampers, quaternion controller with and without the shortest path, axis
  flags, limiter; Hoffmann (9.8)-(9.9));
* :func:`half_quat_into`: :func:`sim.core.integrators.half_quat` (Hoffmann
  Appendix A, (4.3) and (5.18)) followed by a norm mode of :mod:`sim.core.norm`.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["Scratch", "covers", "inertia_terms", "matvec", "torque_into", "half_quat_into", "CONTROLLERS", "NORMS",
           "TORQUE_FIELDS"]

#: The controllers :func:`torque_into` implements.
CONTROLLERS = ("none", "quaternion")
#: The norm modes :func:`half_quat_into` implements.
NORMS = ("hoffmann", "renormalize", "none")
#: The fields of :class:`sim.core.control.TorqueModel` that :func:`torque_into` knows (tests/sim/core/test_kernels.py
#: fails when the model gains another: a new torque term goes into the kernel, or into :func:`covers`).
#: ``unit`` (the attitude read as Q/|Q|) is set only by the norm mode ``elimination``, which is not
#: one of :data:`NORMS`, so :func:`covers` leaves it to the single source.
TORQUE_FIELDS = frozenset({"command", "dampers_on", "dampers", "controller", "gains", "axes", "shortest_path",
                           "limiter_on", "limits", "qc", "command_angles", "unit", "ops", "rate_ref"})


def covers(settings) -> bool:
    """True when the fused kernels compute what the single-source formulas compute for ``settings``.

    Half-quat with no controller or the quaternion controller, and a norm
    mode of :data:`NORMS`, without reaction wheels or an external torque
    (gravity gradient, disturbance); everything else (rk4, full-quat, the
    Euler controller, the wheels and the environment of :mod:`sim.model.loads`, a
    new norm mode or torque term) steps through the single source.
    """
    return (settings.integrator == "half-quat" and settings.controller in CONTROLLERS and settings.norm in NORMS
            and settings.wheel_count == 0 and not settings.gravity_gradient
            and not any(x != 0.0 for x in settings.disturbance) and not settings.has_orbit
            and settings.thrusters == "none")


class Scratch:
    """Preallocated rows for N bodies that the kernels and the metrics write into."""

    __slots__ = ("c3", "d4", "e4", "f4", "s1", "s2", "s3", "mask")

    def __init__(self, n: int):
        self.c3 = np.empty((3, n))
        self.d4, self.e4, self.f4 = np.empty((4, n)), np.empty((4, n)), np.empty((4, n))
        self.s1, self.s2, self.s3 = np.empty(n), np.empty(n), np.empty(n)
        self.mask = np.empty(n, dtype=bool)


def inertia_terms(rows) -> list:
    """The non-zero terms ``(k, M[r, k])`` of each row ``r`` of a 3x3 matrix held as 9 row-major entries.

    An entry is a row with one value per body, or one float for all.  A
    zero product adds exactly nothing to a finite sum, so skipping it
    changes no result (Hoffmann's aircraft has 5 non-zeros of 9).
    """
    out = []
    for r in range(3):
        row = []
        for k in range(3):
            m = rows[3 * r + k]
            if np.any(np.asarray(m) != 0.0):
                row.append((k, m))
        out.append(row)
    return out


def matvec(terms, v, out, tmp) -> None:
    """``out[r] = sum_k M[r, k] v[k]`` left to right over the non-zero terms of each row."""
    for r, row in enumerate(terms):
        o = out[r]
        (k, m), rest = row[0], row[1:]
        np.multiply(m, v[k], out=o)
        for k, m in rest:
            np.multiply(m, v[k], out=tmp)
            o += tmp


# ------------------------------------------------------------------ torque
def torque_into(tq, q, w, model, g2, qc, qc_neg, sc: Scratch) -> None:
    """:class:`~sim.core.control.TorqueModel` (command, dampers, quaternion controller, limiter) into ``tq`` (3, N).

    ``model`` supplies the settings (its controller is ``"none"`` or
    ``"quaternion"``); ``g2`` is ``2 K`` of (9.9), shape (3, N) or (3, 1);
    ``qc`` and ``qc_neg`` the command and its negative, (4, N) or (4, 1).
    """
    if model.dampers_on:  # T = command - k w  (sim.core.control.damper_torque)
        np.multiply(np.array(model.dampers).reshape(3, 1), w, out=sc.c3)
        np.subtract(np.array(model.command).reshape(3, 1), sc.c3, out=tq)
    else:
        tq[:] = np.array(model.command).reshape(3, 1)
    if model.controller == "quaternion":
        _quaternion_error_into(sc.d4, q, qc, qc_neg, model.shortest_path, sc)
        _controller_into(tq, q, sc.d4, g2, model.axes, sc.s1, sc.s2)
    if model.limiter_on:
        lim = np.array(model.limits).reshape(3, 1)
        np.maximum(tq, -lim, out=tq)
        np.minimum(tq, lim, out=tq)


def _quaternion_error_into(d, q, qc, qc_neg, shortest_path, sc: Scratch) -> None:
    """``dQ = Qc - Q``, or ``-Qc - Q`` where shorter, Hoffmann (9.8) (:func:`sim.core.control.quaternion_error`)."""
    np.subtract(qc, q, out=d)
    if shortest_path:
        e, sq = sc.e4, sc.f4
        np.subtract(qc_neg, q, out=e)
        for src, acc in ((e, sc.s2), (d, sc.s1)):  # ((x1^2 + x2^2) + x3^2) + x4^2
            np.multiply(src, src, out=sq)
            np.add(sq[0], sq[1], out=acc)
            acc += sq[2]
            acc += sq[3]
        np.less(sc.s2, sc.s1, out=sc.mask)
        np.copyto(d, e, where=sc.mask)


def _controller_into(tq, q, d, g2, axes, t1, t2) -> None:
    """``T += 2 K V(Q) dQ`` per axis that is on, Hoffmann (9.9) (:func:`sim.core.control.quaternion_controller_torque`)."""
    q1, q2, q3, q4 = q
    d1, d2, d3, d4 = d
    if axes[0]:  # (-q4 d1 + q3 d2) - q2 d3 + q1 d4
        np.multiply(q3, d2, out=t1)
        np.multiply(q4, d1, out=t2)
        t1 -= t2
        np.multiply(q2, d3, out=t2)
        t1 -= t2
        np.multiply(q1, d4, out=t2)
        t1 += t2
        t1 *= g2[0]
        tq[0] += t1
    if axes[1]:  # (-q3 d1 - q4 d2) + q1 d3 + q2 d4
        np.multiply(q3, d1, out=t1)
        np.multiply(q4, d2, out=t2)
        t1 += t2
        np.multiply(q1, d3, out=t2)
        np.subtract(t2, t1, out=t1)
        np.multiply(q2, d4, out=t2)
        t1 += t2
        t1 *= g2[1]
        tq[1] += t1
    if axes[2]:  # (q2 d1 - q1 d2) - q4 d3 + q3 d4
        np.multiply(q2, d1, out=t1)
        np.multiply(q1, d2, out=t2)
        t1 -= t2
        np.multiply(q4, d3, out=t2)
        t1 -= t2
        np.multiply(q3, d4, out=t2)
        t1 += t2
        t1 *= g2[2]
        tq[2] += t1


# --------------------------------------------------------------- half-quat
def half_quat_into(x0, xn, tq, dt: float, jterms, jiterms, norm: str, zero_torque: bool, sc: Scratch) -> None:
    """:func:`sim.core.integrators.half_quat` and the norm handling, from state ``x0`` into ``xn``.

    ``x0`` and ``xn`` are (8, N): ``Q`` (4), ``w`` (3), the norm correction.
    Hoffmann Appendix A: ``w <- w + dt J^-1 (T - w x J w)`` (4.3), then
    ``Q <- Q + dt/2 V(Q)^T [w_new; 0]`` (5.18); then ``norm`` (a key of
    :data:`sim.core.norm.NORM_MODES`).  ``zero_torque``: ``tq`` is zero, and
    ``0 - (a - b)`` is computed as ``b - a`` (exactly the same number).
    """
    _rates_into(xn[4:7], x0[4:7], tq, dt, jterms, jiterms, zero_torque, sc)
    _attitude_into(xn[0:4], x0[0:4], xn[4:7], dt, sc)
    _norm_into(xn, norm, sc)


def _rates_into(wn, w, tq, dt, jterms, jiterms, zero_torque, sc: Scratch) -> None:
    """``w_new = w + dt J^-1 (T - w x J w)``, Euler's equations, Hoffmann (4.3) (:func:`sim.core.integrators.euler_rhs`)."""
    wx, wy, wz = w
    lv, cv, t1, t2 = sc.d4[0:3], sc.c3, sc.s1, sc.s2
    matvec(jterms, w, lv, t2)  # L = J w, row by row (jr0 wx + jr1 wy) + jr2 wz
    lx, ly, lz = lv
    for r, (a, b, c, e) in enumerate(((wy, lz, wz, ly), (wz, lx, wx, lz), (wx, ly, wy, lx))):
        if zero_torque:  # R = 0 - (a b - c e) = c e - a b
            np.multiply(c, e, out=cv[r])
            np.multiply(a, b, out=t2)
            cv[r] -= t2
        else:  # R = T - (a b - c e)
            np.multiply(a, b, out=t1)
            np.multiply(c, e, out=t2)
            t1 -= t2
            np.subtract(tq[r], t1, out=cv[r])
    matvec(jiterms, cv, wn, t2)  # A = J^-1 R
    wn *= dt
    wn += w


def _attitude_into(qn, q, wn, dt, sc: Scratch) -> None:
    """``Q_new = Q + dt/2 V(Q)^T [w_new; 0]``, Hoffmann (5.18) (:func:`sim.core.integrators.half_quat`)."""
    q1, q2, q3, q4 = q
    x, y, z = wn
    d, t2 = sc.d4, sc.s2
    d1, d2, d3, d4 = d
    np.multiply(q4, x, out=d1)      # -q4 x - q3 y = -(q4 x + q3 y)
    np.multiply(q3, y, out=t2)
    d1 += t2
    np.multiply(q2, z, out=t2)
    np.subtract(t2, d1, out=d1)
    np.multiply(q3, x, out=d2)      # (q3 x - q4 y) - q1 z
    np.multiply(q4, y, out=t2)
    d2 -= t2
    np.multiply(q1, z, out=t2)
    d2 -= t2
    np.multiply(q1, y, out=d3)      # -q2 x + q1 y = q1 y - q2 x
    np.multiply(q2, x, out=t2)
    d3 -= t2
    np.multiply(q4, z, out=t2)
    d3 -= t2
    np.multiply(q1, x, out=d4)      # (q1 x + q2 y) + q3 z
    np.multiply(q2, y, out=t2)
    d4 += t2
    np.multiply(q3, z, out=t2)
    d4 += t2
    d *= 0.5 * dt
    np.add(q, d, out=qn)


def _norm_into(xn, norm: str, sc: Scratch) -> None:
    """The norm mode ``norm`` (of :data:`NORMS`) on ``xn``'s ``Q``, its correction into ``xn[7]`` (:mod:`sim.core.norm`)."""
    if norm not in NORMS:
        raise ValueError(f"the fused half-quat step has no norm mode {norm!r} (see covers())")
    if norm == "none":
        xn[7] = 0.0
        return
    qn, d, s = xn[0:4], sc.d4, sc.s3
    np.multiply(qn, qn, out=d)
    np.add(d[0], d[1], out=s)
    s += d[2]
    s += d[3]
    np.sqrt(s, out=s)
    if norm == "hoffmann":  # Q + Q (1 - |Q|)
        np.subtract(1.0, s, out=xn[7])
        np.multiply(qn, xn[7], out=d)
        qn += d
    else:  # Q / |Q|
        np.divide(qn, s, out=qn)
        np.subtract(1.0, s, out=xn[7])
