"""Fixed-step integrators for the rotating rigid body and the gyrostat (a body with reaction wheels).

All share one interface::

    q, w, p = integrator(q, w, p, dt, torque, body, t=None)

``q`` (4 floats, scalar last, Hoffmann's convention, see :mod:`sim`); ``w``
the **rate state**: the body rates ``(wx, wy, wz)``, followed by the wheel
speeds ``(W_1, ..., W_n)`` when the body has reaction wheels
(:mod:`sim.core.wheels`); ``p = dQ/dt`` (4 floats, or ``None`` for integrators
whose state is ``(Q, w)``); ``t`` the time at the start of the step, s.
``torque(q, w, t)`` gives the **load** at a state and time (``torque(q, w)``
when ``t`` is None, for a load that does not depend on time): without wheels
the total body-axis torque ``(tx, ty, tz)``; with wheels the external torque
on the body followed by the motor torques, ``(tx, ty, tz, u_1, ..., u_n)``
(:class:`sim.model.loads.LoadModel`).  ``body`` is a :class:`sim.core.body.Body`, a
:class:`sim.model.loads.Gyrostat`, or anything with their ``j_rows``,
``j_inv_rows``, ``wheels`` and (with wheels) ``j_free_inv_rows`` and
``formulas`` (:class:`sim.core.wheels.Formulas`), and ``ops``, the flavour of
:mod:`sim.core.ops` it runs on (splitting also reads the principal axes and
moments ``axis_rows`` and ``moment_rows``).  Norm
handling is not part of the step (see :mod:`sim.core.norm`).  Plain Python
floats on purpose: for 3- and 4-vectors numpy's per-call overhead costs more
than the arithmetic.

How an integrator takes the wheels (and how a new one does): it calls
:func:`rates_rhs` for the time derivative of the whole rate state, which is
Euler's equations without wheels and the gyrostat's with them, treats the
wheel speeds as the rest of its state, and evaluates ``torque`` at the
stage's state and time.  An integrator of ``(Q, P)`` (full-quat) feeds its
rigid-body equation :func:`sim.core.wheels.equivalent_torque`.

Written once: the same functions run on the ensemble's columns, fed tuples
of numpy rows (one value per body; the inertia rows may be one float for
all bodies or one row each).  Half-quat, full-quat and rk4 are arithmetic
only and give there bit for bit what they give on floats; rkmk4 and
splitting also call ``sin``, ``cos`` and ``sqrt`` through ``body.ops`` (the
rule of :mod:`sim.core.ops`).

* ``half-quat``, ``full-quat``: Hoffmann's Appendices A and B (first order);
* ``rk4``: the classical Runge-Kutta reference (fourth order);
* ``rkmk4``: Runge-Kutta-Munthe-Kaas on the unit quaternions (fourth
  order; ``|Q|`` stays 1 to round-off without norm handling);
* ``splitting``: the symplectic splitting of the free rigid body into
  exact rotations about the principal axes, torques as kicks (second
  order; ``|h|`` exact, no secular energy drift).

Hoffmann's listings update components one after the other and reuse the new
values (``q1`` before ``q2``; ``Tx`` before ``Ty``); here each vector is
computed at once from the old values, as the equations say.
"""

from __future__ import annotations

from sim.core.algebra import matvec_MV, norm2_Q, vmul_QQ, vtmul_QQ, vtmul_QV
from sim.core.equations import euler_rhs, load_at, qdot, quasi_rates, rates, rates_rhs
from sim.core.geometric import rkmk4, rotation_quaternion, splitting
from sim.core.jit import jitable
from sim.core.wheels import equivalent_torque

__all__ = ["half_quat", "full_quat", "rk4", "rkmk4", "splitting", "INTEGRATORS", "FULL_QUAT_FORMS",
           "euler_rhs", "rates_rhs", "qdot", "rates", "quasi_rates", "full_quat_acceleration", "kane_acceleration",
           "quat_acceleration", "FORM_CODES",
           "rotation_quaternion", "integrator"]

FULL_QUAT_FORMS = ("hoffmann", "raw", "lagrange", "kane")


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
        q, rates_new = half_quat_update(q, w, a, dt)
        return q, rates_new, None
    rates_new = tuple([s + dt * d for s, d in zip(w, a)])
    return half_quat_attitude(q, rates_new, dt), rates_new, None


@jitable
def half_quat_update(q, w, a, dt):
    """Half-quat's step of ``(Q, w)`` without wheels from ``a = dw/dt`` at the old state, Hoffmann App. A:
    ``w <- w + dt a``, then :func:`half_quat_attitude` with the new ``w``.  Returns ``(q, w)``."""
    wx, wy, wz = w[0], w[1], w[2]
    ax, ay, az = a[0], a[1], a[2]
    x = wx + dt * ax
    y = wy + dt * ay
    z = wz + dt * az
    rates_new = (x, y, z)
    return half_quat_attitude(q, rates_new, dt), rates_new


@jitable
def half_quat_attitude(q, rates_new, dt):
    """Half-quat's attitude update ``Q <- Q + dt/2 V(Q)^T [w_new; 0]``, Hoffmann App. A (5.18)."""
    h = 0.5 * dt
    q1, q2, q3, q4 = q
    d1, d2, d3, d4 = vtmul_QV(q, rates_new)
    return (q1 + h * d1, q2 + h * d2, q3 + h * d3, q4 + h * d4)


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
    if len(w) == 3:  # the same arithmetic as the compiled step's (sim.core.advance), through the same kernels
        k1q, k1w = f(q, w, t)
        k2q, k2w = f(axpy_Q(q, h, k1q), axpy_V(w, h, k1w), th)
        k3q, k3w = f(axpy_Q(q, h, k2q), axpy_V(w, h, k2w), th)
        k4q, k4w = f(axpy_Q(q, dt, k3q), axpy_V(w, dt, k3w), None if t is None else t + dt)
        s = dt / 6.0
        return rk4_sum_Q(q, s, k1q, k2q, k3q, k4q), rk4_sum_V(w, s, k1w, k2w, k3w, k4w), None
    k1q, k1w = f(q, w, t)
    k2q, k2w = f(tuple(a + h * b for a, b in zip(q, k1q)), tuple(a + h * b for a, b in zip(w, k1w)), th)
    k3q, k3w = f(tuple(a + h * b for a, b in zip(q, k2q)), tuple(a + h * b for a, b in zip(w, k2w)), th)
    k4q, k4w = f(tuple(a + dt * b for a, b in zip(q, k3q)), tuple(a + dt * b for a, b in zip(w, k3w)),
                 None if t is None else t + dt)
    s = dt / 6.0
    return (tuple(a + s * (b1 + 2.0 * b2 + 2.0 * b3 + b4) for a, b1, b2, b3, b4 in zip(q, k1q, k2q, k3q, k4q)),
            tuple(a + s * (b1 + 2.0 * b2 + 2.0 * b3 + b4) for a, b1, b2, b3, b4 in zip(w, k1w, k2w, k3w, k4w)),
            None)


@jitable
def axpy_Q(a, h, b):
    """``a + h b`` of 4-vectors: an rk4 stage's state (Butcher's tableau of the classical method)."""
    return (a[0] + h * b[0], a[1] + h * b[1], a[2] + h * b[2], a[3] + h * b[3])


@jitable
def axpy_V(a, h, b):
    """``a + h b`` of 3-vectors: an rk4 stage's state (Butcher's tableau of the classical method)."""
    return (a[0] + h * b[0], a[1] + h * b[1], a[2] + h * b[2])


@jitable
def rk4_sum_Q(a, s, b1, b2, b3, b4):
    """``a + s (k1 + 2 k2 + 2 k3 + k4)`` of 4-vectors, ``s = dt/6``: the classical Runge-Kutta update."""
    return (a[0] + s * (b1[0] + 2.0 * b2[0] + 2.0 * b3[0] + b4[0]),
            a[1] + s * (b1[1] + 2.0 * b2[1] + 2.0 * b3[1] + b4[1]),
            a[2] + s * (b1[2] + 2.0 * b2[2] + 2.0 * b3[2] + b4[2]),
            a[3] + s * (b1[3] + 2.0 * b2[3] + 2.0 * b3[3] + b4[3]))


@jitable
def rk4_sum_V(a, s, b1, b2, b3, b4):
    """``a + s (k1 + 2 k2 + 2 k3 + k4)`` of 3-vectors, ``s = dt/6``: the classical Runge-Kutta update."""
    return (a[0] + s * (b1[0] + 2.0 * b2[0] + 2.0 * b3[0] + b4[0]),
            a[1] + s * (b1[1] + 2.0 * b2[1] + 2.0 * b3[1] + b4[1]),
            a[2] + s * (b1[2] + 2.0 * b2[2] + 2.0 * b3[2] + b4[2]))


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
      that (4.15) leaves out; with it the acceleration is Sherif (38)/(40);
    * ``"kane"``: Kane's equations in the Euler-parameter space with their
      singular mass matrix, solved by constraint embedding
      (:func:`kane_acceleration`).
    """
    if form == "kane":
        return kane_acceleration(q, p, t, body)
    return quat_acceleration(q, p, t, body.j_rows, body.j_inv_rows, FORM_CODES[form])


#: The forms of :func:`quat_acceleration`, by code (``kane``: :func:`kane_acceleration`, Python only).
FORM_CODES = {"hoffmann": 0, "raw": 1, "lagrange": 2}


@jitable
def quat_acceleration(q, p, t, jr, jir, form):
    """:func:`full_quat_acceleration` of the form coded ``form`` (:data:`FORM_CODES`) for the inertia rows
    ``jr`` and ``jir`` (``J`` and ``J^-1``): Hoffmann (4.15) as his MakeN listing builds it (Appendix B), and
    with ``lagrange`` the constraint force ``-(P^T P) Q`` (Sherif (38)/(40))."""
    u = vmul_QQ(q, p)                               # (w/2, Q.P)
    u4 = u[3]
    x1, x2, x3 = matvec_MV(jr, u)                   # J44 V(Q) P
    if form == 1:
        y1, y2, y3, y4 = vmul_QQ(q, vtmul_QQ(p, (x1, x2, x3, u4)))
    else:
        # 3x3 block of V(Q) V^T(P) without its diagonal (each diagonal
        # element equals Q.P); fourth row and column zero, last element 1.
        c1, c2, c3, _ = vmul_QQ(q, vtmul_QQ(p, (x1, x2, x3, 0.0)))
        y1, y2, y3, y4 = c1 - u4 * x1, c2 - u4 * x2, c3 - u4 * x3, u4
    z1, z2, z3 = matvec_MV(jir, (y1, y2, y3))       # J44^-1 (J4 = 1)
    n1, n2, n3, n4 = vtmul_QQ(q, (z1, z2, z3, y4))
    a1, a2, a3 = matvec_MV(jir, t)                  # J^-1 T as one vector
    m1, m2, m3, m4 = vtmul_QQ(q, (a1, a2, a3, 0.0))
    r = (-2.0 * n1 + 0.5 * m1, -2.0 * n2 + 0.5 * m2, -2.0 * n3 + 0.5 * m3, -2.0 * n4 + 0.5 * m4)
    if form == 2:
        pp = norm2_Q(p)
        r = (r[0] - pp * q[0], r[1] - pp * q[1], r[2] - pp * q[2], r[3] - pp * q[3])
    return r


def _largest(q, ops):
    """One-hot ``(s1, s2, s3, s4)`` (exact 0.0 and 1.0) of the component of ``Q`` with the largest magnitude.

    Ties go to the first.  Comparisons and selections only: the same on floats and rows.
    """
    a1, a2, a3, a4 = abs(q[0]), abs(q[1]), abs(q[2]), abs(q[3])
    t2 = ops.select(a2 > a1, 1.0, 0.0)
    b = ops.select(a2 > a1, a2, a1)
    t3 = ops.select(a3 > b, 1.0, 0.0)
    b = ops.select(a3 > b, a3, b)
    t4 = ops.select(a4 > b, 1.0, 0.0)
    n3, n4 = 1.0 - t3, 1.0 - t4
    return ((1.0 - t2) * n3 * n4, t2 * n3 * n4, t3 * n4, t4)


def _rotated(s, v):
    """``v`` with the component ``d`` one-hot in ``s`` last: component ``k`` is ``v[(d + 1 + k) mod 4]``.

    A dot product with exact zeros and one exact 1.0 per component: the
    values move, none is rounded (the same on floats and rows).
    """
    return tuple(s[0] * v[(1 + k) % 4] + s[1] * v[(2 + k) % 4] + s[2] * v[(3 + k) % 4] + s[3] * v[k % 4]
                 for k in range(4))


def _unrotated(s, x):
    """The inverse of :func:`_rotated`: component ``j`` is ``x[(j - d - 1) mod 4]``."""
    return tuple(s[0] * x[(j - 1) % 4] + s[1] * x[(j - 2) % 4] + s[2] * x[(j - 3) % 4] + s[3] * x[j % 4]
                 for j in range(4))


def kane_acceleration(q, p, t, body):
    """``d2Q/dt2`` from Kane's equations with the normality constraint embedded, dissertation App. B.

    Kane's equations for the Euler parameters, (B.58)-(B.59)::

        L^T J L Q'' = L^T (T - K),   K = J L' Q' + (L Q') x J (L Q'),   (B.34)

    with ``L = 2 eta E^T`` (B.32): in Hoffmann's convention (``e0 = q4``,
    ``(e1, e2, e3) = -(q1, q2, q3)``, checked term for term) ``L`` is the first
    three rows of ``2 V(Q)`` (3.26) and ``L Q' = w`` (3.25, (B.17)).  The 4x4
    mass matrix ``M = L^T J L`` is singular: ``L Q = 0``.  Constraint
    embedding (the appendix's last paragraph; Joshi's Appendix 2, (45)-(48))
    takes as dependent the component ``d`` of ``Q`` with the largest
    magnitude, so ``|q_d| >= |Q|/2`` and the reduced system is never
    singular.  The acceleration form of the constraint, ``Q . Q'' = -|Q'|^2``
    (the derivative of (B.10)), gives ``Q'' = T_d x + b``: ``x`` the three
    independent accelerations, the columns of ``T_d`` the independent unit
    vectors ``e_i - (q_i / q_d) e_d`` (Joshi's ``C_ji``), ``b = -(|P|^2 / q_d) e_d``.
    Premultiplied by ``T_d^T`` (Joshi (48)), the reduced 3x3 mass matrix is

        T_d^T M T_d = B^T J B,   B = L T_d (3x3, invertible),

    so ``B^T J B x = B^T (T - K - J L b)`` is ``x = B^-1 (J^-1 (T - K) - L b)``,
    solved here by the adjugate of ``B``; the dependent acceleration then
    follows from the constraint.  ``L' Q'``, the first three rows of
    ``2 V(P) P``, vanishes (``V(P) P = (0, 0, 0, |P|^2)``, Hoffmann (3.33)), so
    ``J^-1 (T - K) = J^-1 (T - w x J w)``: Euler's equations.

    Arithmetic only: the dependent index is chosen per body by selections
    (:func:`_largest`), and ``Q`` is rotated so that it comes last.
    """
    ops = body.ops
    w = rates(q, p)
    wd = euler_rhs(w, t, body.j_rows, body.j_inv_rows)                   # J^-1 (T - K)
    pp = norm2_Q(p)
    s = _largest(q, ops)
    # The dependent component last: k-th independent is (d + 1 + k) mod 4.
    r1, r2, r3, qd = _rotated(s, q)
    beta = -pp / qd
    # Column j of L = 2 V(Q) (rows 1-3) for component j, Hoffmann (3.26).
    q1, q2, q3, q4 = q
    cols = ((-2.0 * q4, -2.0 * q3, 2.0 * q2), (2.0 * q3, -2.0 * q4, -2.0 * q1),
            (-2.0 * q2, 2.0 * q1, -2.0 * q4), (2.0 * q1, 2.0 * q2, 2.0 * q3))
    # rotate the columns with Q: component k of each row
    lx = _rotated(s, tuple(c[0] for c in cols))
    ly = _rotated(s, tuple(c[1] for c in cols))
    lz = _rotated(s, tuple(c[2] for c in cols))
    # B = L T_d: column k = l_(ik) - l_d q_(ik) / q_d
    c1, c2, c3 = r1 / qd, r2 / qd, r3 / qd
    b11, b12, b13 = lx[0] - lx[3] * c1, lx[1] - lx[3] * c2, lx[2] - lx[3] * c3
    b21, b22, b23 = ly[0] - ly[3] * c1, ly[1] - ly[3] * c2, ly[2] - ly[3] * c3
    b31, b32, b33 = lz[0] - lz[3] * c1, lz[1] - lz[3] * c2, lz[2] - lz[3] * c3
    y1 = wd[0] - beta * lx[3]
    y2 = wd[1] - beta * ly[3]
    y3 = wd[2] - beta * lz[3]
    a11, a12, a13 = b22 * b33 - b23 * b32, b13 * b32 - b12 * b33, b12 * b23 - b13 * b22   # adjugate of B
    a21, a22, a23 = b23 * b31 - b21 * b33, b11 * b33 - b13 * b31, b13 * b21 - b11 * b23
    a31, a32, a33 = b21 * b32 - b22 * b31, b12 * b31 - b11 * b32, b11 * b22 - b12 * b21
    det = b11 * a11 + b12 * a21 + b13 * a31
    x1 = (a11 * y1 + a12 * y2 + a13 * y3) / det
    x2 = (a21 * y1 + a22 * y2 + a23 * y3) / det
    x3 = (a31 * y1 + a32 * y2 + a33 * y3) / det
    xd = beta - (r1 * x1 + r2 * x2 + r3 * x3) / qd                         # Q . Q'' = -|P|^2
    # back to Hoffmann's order: component j is the rotated one (j - d - 1) mod 4
    return _unrotated(s, (x1, x2, x3, xd))


def full_quat(q, w, p, dt, torque, body, form="hoffmann", t=None, rates_of=rates):
    """One Full-Quat step, Hoffmann Appendix B ("False Euler" on (Q, P)).

    The torque model sees ``w = 2 V(Q) P`` (``rates_of``: :func:`rates`, or
    :func:`quasi_rates` in the elimination mode); ``P <- P + dt (N + M)``,
    then ``Q <- Q + dt P_new``.  See :func:`full_quat_acceleration` for ``form``.

    Wheels: the torque in ``M`` is :func:`sim.core.wheels.equivalent_torque`
    ``J dw/dt + w x J w`` of the gyrostat's ``dw/dt`` (:func:`rates_rhs`), the
    torque that gives the rigid body the gyrostat's acceleration (exactly so
    in the ``lagrange`` form, whose acceleration is the exact one; the other
    forms keep their own treatment of ``w x J w``); the wheel speeds take the
    explicit step ``W <- W + dt dW/dt``.

    Returns ``(q, w_old, p)``, where ``w_old`` holds the new wheel speeds
    after the old body rates; the caller derives the new body rates from the
    new ``(Q, P)`` after norm handling (``rates_of``) and keeps ``w_old[3:]``.
    """
    if p is None:
        p = qdot(q, w)
    rw = rates_of(q, p)
    if len(w) == 3:
        w = rw
        a = full_quat_acceleration(q, p, torque(q, w) if t is None else torque(q, w, t), body, form)
    else:
        w = (*rw, *w[3:])
        d = rates_rhs(w, load_at(torque, q, w, t), body)
        a = full_quat_acceleration(q, p, equivalent_torque(w, d, body.j_rows), body, form)
        w = (*rw, *(s + dt * ds for s, ds in zip(w[3:], d[3:])))
    p1 = p[0] + dt * a[0]
    p2 = p[1] + dt * a[1]
    p3 = p[2] + dt * a[2]
    p4 = p[3] + dt * a[3]
    return ((q[0] + dt * p1, q[1] + dt * p2, q[2] + dt * p3, q[3] + dt * p4), w, (p1, p2, p3, p4))


INTEGRATORS = {"half-quat": half_quat, "full-quat": full_quat, "rk4": rk4, "rkmk4": rkmk4,
               "splitting": splitting}


def integrator(name: str, full_quat_form: str = "hoffmann", rates_of=rates):
    """The step function of integrator ``name`` (a key of :data:`INTEGRATORS`), with the shared signature.

    For ``"full-quat"``, the step of ``full_quat_form`` (:func:`full_quat_acceleration`)
    whose torque model sees the rates ``rates_of(Q, P)`` (:func:`rates`, or
    :func:`quasi_rates` in the elimination mode).
    """
    if name != "full-quat":
        return INTEGRATORS[name]

    def full_quat_step(q, w, p, dt, torque, body, t=None):
        return full_quat(q, w, p, dt, torque, body, full_quat_form, t, rates_of)

    return full_quat_step
