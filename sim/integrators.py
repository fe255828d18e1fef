"""Fixed-step integrators for the rotating rigid body and the gyrostat (a body with reaction wheels).

All share one interface::

    q, w, p = integrator(q, w, p, dt, torque, body, t=None)

``q`` (4 floats, scalar last, Hoffmann's convention, see :mod:`sim`); ``w``
the **rate state**: the body rates ``(wx, wy, wz)``, followed by the wheel
speeds ``(W_1, ..., W_n)`` when the body has reaction wheels
(:mod:`sim.wheels`); ``p = dQ/dt`` (4 floats, or ``None`` for integrators
whose state is ``(Q, w)``); ``t`` the time at the start of the step, s.
``torque(q, w, t)`` gives the **load** at a state and time (``torque(q, w)``
when ``t`` is None, for a load that does not depend on time): without wheels
the total body-axis torque ``(tx, ty, tz)``; with wheels the external torque
on the body followed by the motor torques, ``(tx, ty, tz, u_1, ..., u_n)``
(:class:`sim.loads.LoadModel`).  ``body`` is a :class:`sim.body.Body`, a
:class:`sim.loads.Gyrostat`, or anything with their ``j_rows``,
``j_inv_rows``, ``wheels`` and (with wheels) ``j_free_inv_rows`` and
``formulas`` (:class:`sim.wheels.Formulas`).  Norm
handling is not part of the step (see :mod:`sim.norm`).  Plain Python
floats on purpose: for 3- and 4-vectors numpy's per-call overhead costs more
than the arithmetic.

How an integrator takes the wheels (and how a new one does): it calls
:func:`rates_rhs` for the time derivative of the whole rate state, which is
Euler's equations without wheels and the gyrostat's with them, treats the
wheel speeds as the rest of its state, and evaluates ``torque`` at the
stage's state and time.  An integrator of ``(Q, P)`` (full-quat) feeds its
rigid-body equation :func:`sim.wheels.equivalent_torque`.

Arithmetic only: the same functions run on the ensemble's columns, fed
tuples of numpy rows (one value per body; the inertia rows may be one float
for all bodies or one row each), and give there bit for bit what they give
on floats (the rule of :mod:`sim.ops`).

Hoffmann's listings update components one after the other and reuse the new
values (``q1`` before ``q2``; ``Tx`` before ``Ty``); here each vector is
computed at once from the old values, as the equations say.
"""

from __future__ import annotations

from sim.wheels import equivalent_torque

__all__ = ["half_quat", "full_quat", "rk4", "INTEGRATORS", "FULL_QUAT_FORMS",
           "euler_rhs", "rates_rhs", "qdot", "rates", "integrator"]

FULL_QUAT_FORMS = ("hoffmann", "raw", "lagrange")


def euler_rhs(w, t, jr, jir):
    """``dw/dt = J^-1 (T - w x J w)``, Euler's equations with the full tensor, Hoffmann (4.3), App. A."""
    wx, wy, wz = w
    lx = jr[0] * wx + jr[1] * wy + jr[2] * wz
    ly = jr[3] * wx + jr[4] * wy + jr[5] * wz
    lz = jr[6] * wx + jr[7] * wy + jr[8] * wz
    rx = t[0] - (wy * lz - wz * ly)
    ry = t[1] - (wz * lx - wx * lz)
    rz = t[2] - (wx * ly - wy * lx)
    return (jir[0] * rx + jir[1] * ry + jir[2] * rz,
            jir[3] * rx + jir[4] * ry + jir[5] * rz,
            jir[6] * rx + jir[7] * ry + jir[8] * rz)


def rates_rhs(w, load, body):
    """Time derivative of the rate state: Euler's equations, or the gyrostat's with wheels.

    Without wheels (``body.wheels`` None) :func:`euler_rhs` of ``w`` and the
    torque ``load``; with them :func:`sim.wheels.gyrostat_rhs`, whose
    ``dw/dt`` solves ``(J - sum J_s a a^T) dw/dt = T - w x H - sum a_i v_i``
    and whose wheel speeds follow ``dW_i/dt = v_i / J_s,i - a_i . dw/dt``.
    """
    wheels = getattr(body, "wheels", None)
    if wheels is None:
        return euler_rhs(w, load, body.j_rows, body.j_inv_rows)
    return body.formulas.rhs(w, load, body.j_rows, body.j_free_inv_rows)


def qdot(q, w):
    """``dQ/dt = 1/2 V(Q)^T [w; 0]``, Hoffmann (5.18) with V from (3.26) (``w``: its first three entries)."""
    q1, q2, q3, q4 = q
    x, y, z = w[0], w[1], w[2]
    return (0.5 * (-q4 * x - q3 * y + q2 * z),
            0.5 * (q3 * x - q4 * y - q1 * z),
            0.5 * (-q2 * x + q1 * y - q4 * z),
            0.5 * (q1 * x + q2 * y + q3 * z))


def rates(q, p):
    """Body rates ``w = 2 V(Q) P`` (first three rows), Hoffmann (3.25), (4.16)."""
    q1, q2, q3, q4 = q
    p1, p2, p3, p4 = p
    return (2.0 * (-q4 * p1 + q3 * p2 - q2 * p3 + q1 * p4),
            2.0 * (-q3 * p1 - q4 * p2 + q1 * p3 + q2 * p4),
            2.0 * (q2 * p1 - q1 * p2 - q4 * p3 + q3 * p4))


def _load(torque, q, w, t):
    """``torque(q, w, t)``, or ``torque(q, w)`` when ``t`` is None."""
    return torque(q, w) if t is None else torque(q, w, t)


def half_quat(q, w, p, dt, torque, body, t=None):
    """One Half-Quat step, Hoffmann Appendix A ("False Euler").

    ``w <- w + dt J^-1 (T - w x J w)`` with the old ``w``, then
    ``Q <- Q + dt/2 V(Q)^T [w_new; 0]`` with the new ``w``.  Stable for
    ``dt <= 0.3`` with Hoffmann's aircraft (his remark in Appendix A).

    Wheels: the whole rate state takes the same explicit step,
    ``(w, W) <- (w, W) + dt d(w, W)/dt`` from :func:`rates_rhs` (the
    gyrostat's equations) with the load at the old state and ``t``; ``Q`` then
    follows the new body rates as above.

    Returns ``(q, w, None)``.
    """
    a = rates_rhs(w, torque(q, w) if t is None else torque(q, w, t), body)
    if len(w) == 3:
        x = w[0] + dt * a[0]
        y = w[1] + dt * a[1]
        z = w[2] + dt * a[2]
        rates_new = (x, y, z)
    else:
        rates_new = tuple([s + dt * d for s, d in zip(w, a)])
        x, y, z = rates_new[0], rates_new[1], rates_new[2]
    q1, q2, q3, q4 = q
    h = 0.5 * dt
    return ((q1 + h * (-q4 * x - q3 * y + q2 * z),
             q2 + h * (q3 * x - q4 * y - q1 * z),
             q3 + h * (-q2 * x + q1 * y - q4 * z),
             q4 + h * (q1 * x + q2 * y + q3 * z)),
            rates_new, None)


def rk4(q, w, p, dt, torque, body, t=None):
    """One classical Runge-Kutta step on ``(w, Q)``, the accuracy reference.

    The right-hand side is Appendix A's pair ``dw/dt`` (Euler's equations) and
    ``dQ/dt = 1/2 V^T(Q) [w; 0]``; the torque model is evaluated at every stage,
    at the stage's time (``t``, ``t + dt/2`` twice, ``t + dt``).

    Wheels: the rate state holds the wheel speeds too, and :func:`rates_rhs`
    (the gyrostat's equations) gives the derivative of all of it, so the four
    stages carry the wheels exactly as they carry ``w``.

    Returns ``(q, w, None)``.
    """
    def f(qs, ws, ts):
        return qdot(qs, ws), rates_rhs(ws, torque(qs, ws) if ts is None else torque(qs, ws, ts), body)

    h = 0.5 * dt
    th = None if t is None else t + h
    k1q, k1w = f(q, w, t)
    k2q, k2w = f(tuple(a + h * b for a, b in zip(q, k1q)), tuple(a + h * b for a, b in zip(w, k1w)), th)
    k3q, k3w = f(tuple(a + h * b for a, b in zip(q, k2q)), tuple(a + h * b for a, b in zip(w, k2w)), th)
    k4q, k4w = f(tuple(a + dt * b for a, b in zip(q, k3q)), tuple(a + dt * b for a, b in zip(w, k3w)),
                 None if t is None else t + dt)
    s = dt / 6.0
    return (tuple(a + s * (b1 + 2.0 * b2 + 2.0 * b3 + b4) for a, b1, b2, b3, b4 in zip(q, k1q, k2q, k3q, k4q)),
            tuple(a + s * (b1 + 2.0 * b2 + 2.0 * b3 + b4) for a, b1, b2, b3, b4 in zip(w, k1w, k2w, k3w, k4w)),
            None)


def _vt(q, x):
    """``V(Q)^T x`` for a 4-vector ``x``, Hoffmann (3.26)."""
    q1, q2, q3, q4 = q
    x1, x2, x3, x4 = x
    return (-q4 * x1 - q3 * x2 + q2 * x3 + q1 * x4,
            q3 * x1 - q4 * x2 - q1 * x3 + q2 * x4,
            -q2 * x1 + q1 * x2 - q4 * x3 + q3 * x4,
            q1 * x1 + q2 * x2 + q3 * x3 + q4 * x4)


def _v(q, x):
    """``V(Q) x`` for a 4-vector ``x``, Hoffmann (3.26)."""
    q1, q2, q3, q4 = q
    x1, x2, x3, x4 = x
    return (-q4 * x1 + q3 * x2 - q2 * x3 + q1 * x4,
            -q3 * x1 - q4 * x2 + q1 * x3 + q2 * x4,
            q2 * x1 - q1 * x2 - q4 * x3 + q3 * x4,
            q1 * x1 + q2 * x2 + q3 * x3 + q4 * x4)


def full_quat_acceleration(q, p, t, body, form="hoffmann"):
    """``dP/dt = N + M`` of Hoffmann (4.15) as his MakeN listing builds it (Appendix B).

    ``N = -2 V^T(Q) J44^-1 C J44 V(Q) P`` with ``C = V(Q) V^T(P)`` and
    ``M = 1/2 V^T(Q) J44^-1 [T; 0]``, ``J44 = diag(J, 1)``.

    ``form``:

    * ``"hoffmann"``: his manipulation of ``C`` (diagonal and fourth row and
      column overwritten with 0, last element 1), which he found to cure
      most of the artificial damping;
    * ``"raw"``: ``C`` as it is (the damping he describes);
    * ``"lagrange"``: Hoffmann's form plus ``-(P^T P) Q``, the constraint force
      that (4.15) leaves out; with it the acceleration is Sherif (38)/(40).
    """
    jr, jir = body.j_rows, body.j_inv_rows
    u1, u2, u3, u4 = _v(q, p)                       # (w/2, Q.P)
    x1 = jr[0] * u1 + jr[1] * u2 + jr[2] * u3       # J44 V(Q) P
    x2 = jr[3] * u1 + jr[4] * u2 + jr[5] * u3
    x3 = jr[6] * u1 + jr[7] * u2 + jr[8] * u3
    if form == "raw":
        y1, y2, y3, y4 = _v(q, _vt(p, (x1, x2, x3, u4)))
    else:
        # 3x3 block of V(Q) V^T(P) without its diagonal (each diagonal
        # element equals Q.P); fourth row and column zero, last element 1.
        c1, c2, c3, _ = _v(q, _vt(p, (x1, x2, x3, 0.0)))
        y1, y2, y3, y4 = c1 - u4 * x1, c2 - u4 * x2, c3 - u4 * x3, u4
    z1 = jir[0] * y1 + jir[1] * y2 + jir[2] * y3    # J44^-1 (J4 = 1)
    z2 = jir[3] * y1 + jir[4] * y2 + jir[5] * y3
    z3 = jir[6] * y1 + jir[7] * y2 + jir[8] * y3
    n1, n2, n3, n4 = _vt(q, (z1, z2, z3, y4))
    a1 = jir[0] * t[0] + jir[1] * t[1] + jir[2] * t[2]   # J^-1 T as one vector
    a2 = jir[3] * t[0] + jir[4] * t[1] + jir[5] * t[2]
    a3 = jir[6] * t[0] + jir[7] * t[1] + jir[8] * t[2]
    m1, m2, m3, m4 = _vt(q, (a1, a2, a3, 0.0))
    r = (-2.0 * n1 + 0.5 * m1, -2.0 * n2 + 0.5 * m2, -2.0 * n3 + 0.5 * m3, -2.0 * n4 + 0.5 * m4)
    if form == "lagrange":
        pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]
        r = (r[0] - pp * q[0], r[1] - pp * q[1], r[2] - pp * q[2], r[3] - pp * q[3])
    return r


def full_quat(q, w, p, dt, torque, body, form="hoffmann", t=None):
    """One Full-Quat step, Hoffmann Appendix B ("False Euler" on (Q, P)).

    The torque model sees ``w = 2 V(Q) P``; ``P <- P + dt (N + M)``, then
    ``Q <- Q + dt P_new``.  See :func:`full_quat_acceleration` for ``form``.

    Wheels: the torque in ``M`` is :func:`sim.wheels.equivalent_torque`
    ``J dw/dt + w x J w`` of the gyrostat's ``dw/dt`` (:func:`rates_rhs`), the
    torque that gives the rigid body the gyrostat's acceleration (exactly so
    in the ``lagrange`` form, whose acceleration is the exact one; the other
    forms keep their own treatment of ``w x J w``); the wheel speeds take the
    explicit step ``W <- W + dt dW/dt``.

    Returns ``(q, w_old, p)``, where ``w_old`` holds the new wheel speeds
    after the old body rates; the caller derives the new body rates from the
    new ``(Q, P)`` after norm handling (:func:`rates`) and keeps ``w_old[3:]``.
    """
    if p is None:
        p = qdot(q, w)
    rw = rates(q, p)
    if len(w) == 3:
        w = rw
        a = full_quat_acceleration(q, p, torque(q, w) if t is None else torque(q, w, t), body, form)
    else:
        w = (*rw, *w[3:])
        d = rates_rhs(w, _load(torque, q, w, t), body)
        a = full_quat_acceleration(q, p, equivalent_torque(w, d, body.j_rows), body, form)
        w = (*rw, *(s + dt * ds for s, ds in zip(w[3:], d[3:])))
    p1 = p[0] + dt * a[0]
    p2 = p[1] + dt * a[1]
    p3 = p[2] + dt * a[2]
    p4 = p[3] + dt * a[3]
    return ((q[0] + dt * p1, q[1] + dt * p2, q[2] + dt * p3, q[3] + dt * p4), w, (p1, p2, p3, p4))


INTEGRATORS = {"half-quat": half_quat, "full-quat": full_quat, "rk4": rk4}


def integrator(name: str, full_quat_form: str = "hoffmann"):
    """The step function of integrator ``name`` (a key of :data:`INTEGRATORS`), with the shared signature.

    For ``"full-quat"``, the step of ``full_quat_form`` (:func:`full_quat_acceleration`).
    """
    if name != "full-quat":
        return INTEGRATORS[name]

    def full_quat_step(q, w, p, dt, torque, body, t=None):
        return full_quat(q, w, p, dt, torque, body, full_quat_form, t)

    return full_quat_step
