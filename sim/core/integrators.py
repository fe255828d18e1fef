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

from sim.core.wheels import equivalent_torque

__all__ = ["half_quat", "full_quat", "rk4", "rkmk4", "splitting", "INTEGRATORS", "FULL_QUAT_FORMS",
           "euler_rhs", "rates_rhs", "qdot", "rates", "quasi_rates", "kane_acceleration", "rotation_quaternion",
           "integrator"]

FULL_QUAT_FORMS = ("hoffmann", "raw", "lagrange", "kane")


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
    torque ``load``; with them :func:`sim.core.wheels.gyrostat_rhs`, whose
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
    q1, q2, q3, q4 = q
    a, b, c = rates(q, p)
    qq = q1 * q1 + q2 * q2 + q3 * q3 + q4 * q4
    return (a / qq, b / qq, c / qq)


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
      that (4.15) leaves out; with it the acceleration is Sherif (38)/(40);
    * ``"kane"``: Kane's equations in the Euler-parameter space with their
      singular mass matrix, solved by constraint embedding
      (:func:`kane_acceleration`).
    """
    if form == "kane":
        return kane_acceleration(q, p, t, body)
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


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _matvec(m, x):
    """``M x`` for a 3x3 ``M`` held as 9 row-major entries."""
    return (m[0] * x[0] + m[1] * x[1] + m[2] * x[2],
            m[3] * x[0] + m[4] * x[1] + m[5] * x[2],
            m[6] * x[0] + m[7] * x[1] + m[8] * x[2])


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
    pp = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]
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
        d = rates_rhs(w, _load(torque, q, w, t), body)
        a = full_quat_acceleration(q, p, equivalent_torque(w, d, body.j_rows), body, form)
        w = (*rw, *(s + dt * ds for s, ds in zip(w[3:], d[3:])))
    p1 = p[0] + dt * a[0]
    p2 = p[1] + dt * a[1]
    p3 = p[2] + dt * a[2]
    p4 = p[3] + dt * a[3]
    return ((q[0] + dt * p1, q[1] + dt * p2, q[2] + dt * p3, q[3] + dt * p4), w, (p1, p2, p3, p4))


def rotation_quaternion(x, ops):
    """The exponential map: the coordinate rotation by the rotation vector ``x`` (rad), Hoffmann (2.1).

    ``exp(x) = (-x sin(|x|/2) / |x|, cos(|x|/2))``, so that ``Q(t + h) =
    exp(h w) . Q(t)`` solves ``dQ/dt = 1/2 V^T(Q) [w; 0]`` for constant
    ``w`` (Hoffmann's (3.26) is the product with ``(-w/2, 0)`` from the left,
    (1.7)).  ``sin(a/2)/a`` below ``a = 1e-3`` is its series to ``a^4``, so
    ``x = 0`` is exact.
    """
    x1, x2, x3 = x
    a = ops.sqrt(x1 * x1 + x2 * x2 + x3 * x3)
    big = a > 1e-3
    aa = a * a
    h = 0.5 * a
    s = ops.select(big, ops.sin(h) / ops.select(big, a, 1.0), 0.5 - aa / 48.0 + aa * aa / 3840.0)
    return (-x1 * s, -x2 * s, -x3 * s, ops.cos(h))


def _product(e, q):
    """Hoffmann's product ``E . Q = R(E) Q``, (1.7)."""
    e1, e2, e3, e4 = e
    q1, q2, q3, q4 = q
    return (e4 * q1 - e3 * q2 + e2 * q3 + e1 * q4,
            e3 * q1 + e4 * q2 - e1 * q3 + e2 * q4,
            -e2 * q1 + e1 * q2 + e4 * q3 + e3 * q4,
            -e1 * q1 - e2 * q2 - e3 * q3 + e4 * q4)


def _dexpinv(x, y):
    """The inverse derivative of the exponential map on so(3), ``y + x x y / 2 + x x (x x y) / 12``.

    ``dexp^-1_X(Y) = Y - [X, Y]/2 + [X, [X, Y]]/12 - ...`` (Bernoulli numbers;
    Munthe-Kaas 1998) for ``C' = -[w x] C`` written as ``C = exp(-[x x]) C0``,
    where ``[-[a x], -[b x]] = [(a x b) x]``: ``dx/dt = w + x x w / 2 + x x (x x w) / 12``.
    Truncated after the second commutator, which keeps order 4 (the next
    term is ``O(|x|^4) = O(h^4)`` inside an ``h`` step, Munthe-Kaas 1999).
    """
    c = _cross(x, y)
    cc = _cross(x, c)
    return (y[0] + 0.5 * c[0] + cc[0] / 12.0, y[1] + 0.5 * c[1] + cc[1] / 12.0, y[2] + 0.5 * c[2] + cc[2] / 12.0)


def rkmk4(q, w, p, dt, torque, body, t=None):
    """One Runge-Kutta-Munthe-Kaas step of order 4 on the unit quaternions (Munthe-Kaas 1998).

    The attitude is moved only by the exponential map:
    ``Q_new = exp(theta) . Q`` (:func:`rotation_quaternion`), with ``theta``
    the classical RK4 combination of the stages ``k_i = dexp^-1_(x_i)(w_i)``
    (:func:`_dexpinv`) at ``x_1 = 0``, ``x_2 = dt/2 k_1``, ``x_3 = dt/2 k_2``,
    ``x_4 = dt k_3``, stage attitudes ``exp(x_i) . Q``; the rate state takes
    the same RK4 stages of :func:`rates_rhs` (Euler's equations (4.3), or the
    gyrostat's with the wheel speeds), the load evaluated at every stage's
    state and time (``t``, ``t + dt/2`` twice, ``t + dt``).  A product of unit
    quaternions is a unit quaternion, so ``|Q| = 1`` holds to round-off with
    no norm handling at all (Andrle and Crassidis 2013, geometric integration
    of quaternions).

    Returns ``(q, w, None)``.
    """
    ops = body.ops
    h = 0.5 * dt
    th = None if t is None else t + h
    k1w = rates_rhs(w, _load(torque, q, w, t), body)
    k1 = w[:3]
    x2 = (h * k1[0], h * k1[1], h * k1[2])
    w2 = tuple(a + h * b for a, b in zip(w, k1w))
    q2 = _product(rotation_quaternion(x2, ops), q)
    k2w = rates_rhs(w2, _load(torque, q2, w2, th), body)
    k2 = _dexpinv(x2, w2)
    x3 = (h * k2[0], h * k2[1], h * k2[2])
    w3 = tuple(a + h * b for a, b in zip(w, k2w))
    q3 = _product(rotation_quaternion(x3, ops), q)
    k3w = rates_rhs(w3, _load(torque, q3, w3, th), body)
    k3 = _dexpinv(x3, w3)
    x4 = (dt * k3[0], dt * k3[1], dt * k3[2])
    w4 = tuple(a + dt * b for a, b in zip(w, k3w))
    q4 = _product(rotation_quaternion(x4, ops), q)
    k4w = rates_rhs(w4, _load(torque, q4, w4, None if t is None else t + dt), body)
    k4 = _dexpinv(x4, w4)
    s = dt / 6.0
    theta = tuple(s * (a + 2.0 * b + 2.0 * c + d) for a, b, c, d in zip(k1, k2, k3, k4))
    return (_product(rotation_quaternion(theta, ops), q),
            tuple(a + s * (b1 + 2.0 * b2 + 2.0 * b3 + b4) for a, b1, b2, b3, b4 in zip(w, k1w, k2w, k3w, k4w)),
            None)


def _principal_flow(q, lb, axis, moment, tau, ops):
    """The exact flow over ``tau`` of ``H_i = (a_i . L)^2 / (2 I_i)``: the free body turning about one principal axis.

    ``L_i = a_i . L`` is constant; the body turns about ``a_i`` by
    ``theta = tau L_i / I_i``: ``Q <- exp(theta a_i) . Q`` and, in body
    axes, ``L`` turns by ``-theta`` about ``a_i`` (Rodrigues), so ``|L|`` is
    unchanged to round-off.
    """
    a1, a2, a3 = axis
    l1, l2, l3 = lb
    li = a1 * l1 + a2 * l2 + a3 * l3
    half = 0.5 * tau * li / moment
    s, c = ops.sin(half), ops.cos(half)
    d = 2.0 / (s * s + c * c)   # 2, but with s, c as rounded: the rotation stays orthogonal, |L| unbiased
    sn, k = d * s * c, d * s * s                        # sin(theta), 1 - cos(theta)
    x1, x2, x3 = a2 * l3 - a3 * l2, a3 * l1 - a1 * l3, a1 * l2 - a2 * l1   # a x L
    # L cos(theta) - sin(theta) a x L + (1 - cos(theta)) L_i a
    lb = (l1 - k * (l1 - li * a1) - sn * x1, l2 - k * (l2 - li * a2) - sn * x2, l3 - k * (l3 - li * a3) - sn * x3)
    return _product((-a1 * s, -a2 * s, -a3 * s, c), q), lb


#: The symmetric composition of the principal flows over one step: (axis, fraction of dt).
SPLITTING_SEQUENCE = ((0, 0.5), (1, 0.5), (2, 1.0), (1, 0.5), (0, 0.5))


def splitting(q, w, p, dt, torque, body, t=None):
    """One step of the symplectic splitting of the rigid body (order 2).

    The free rigid body's energy ``H = sum_i L_i^2 / (2 I_i)`` in principal
    axes splits into three parts whose flows are exact rotations about one
    principal axis each (:func:`_principal_flow`); their symmetric
    (Strang) composition ``R1(dt/2) R2(dt/2) R3(dt) R2(dt/2) R1(dt/2)``
    (McLachlan 1993; Touma and Wisdom 1994; Dullweber, Leimkuhler and
    McLachlan 1997) is a second-order Lie-Poisson integrator: each part
    rotates ``L`` in body axes, so ``|h| = |J w|`` is kept exactly (to
    round-off), ``Q`` moves by unit quaternions only, and the energy error
    stays bounded instead of drifting.

    Torques enter as kicks ``L <- L + dt/2 T`` before and after the free
    flow.  The kick after is the adjoint of the kick before (implicit in
    ``w``, taken with one fixed-point pass: a third torque evaluation), so
    the step stays symmetric, and second order, for rate-dependent torques
    (dampers) too; for torques of the attitude only (controllers, gravity
    gradient) the kicks are exact flows and the method is symplectic.
    Bodies with products of inertia turn about their principal axes
    ``a_i`` (``body.axis_rows``, eigenvectors of ``J`` in body axes) with the
    principal moments ``I_i`` (``body.moment_rows``).  The kick before takes
    the load at ``t``, the kick after at ``t + dt``.

    Not for a body with reaction wheels: the gyrostat's free motion does not
    split into exact principal rotations of ``J w`` (:class:`sim.model.settings.Settings`
    refuses the combination).

    Returns ``(q, w, None)``.
    """
    ops, jr, jir = body.ops, body.j_rows, body.j_inv_rows
    ax, mo = body.axis_rows, body.moment_rows
    axes = ((ax[0], ax[1], ax[2]), (ax[3], ax[4], ax[5]), (ax[6], ax[7], ax[8]))
    h = 0.5 * dt
    u = _load(torque, q, w, t)
    lb = _matvec(jr, w)
    lb = (lb[0] + h * u[0], lb[1] + h * u[1], lb[2] + h * u[2])
    for i, f in SPLITTING_SEQUENCE:
        q, lb = _principal_flow(q, lb, axes[i], mo[i], f * dt, ops)
    te = None if t is None else t + dt
    u = _load(torque, q, _matvec(jir, lb), te)
    u = _load(torque, q, _matvec(jir, (lb[0] + h * u[0], lb[1] + h * u[1], lb[2] + h * u[2])), te)
    lb = (lb[0] + h * u[0], lb[1] + h * u[1], lb[2] + h * u[2])
    # w = J^-1 L with one step of refinement, so that the next step's J w gives L back to round-off:
    # J^-1 J differs from the identity by a fixed matrix of rounding errors, which would otherwise
    # scale |h| by the same factor every step (measured: a drift of 3e-17 per step without it).
    w = _matvec(jir, lb)
    r = _matvec(jr, w)
    c = _matvec(jir, (lb[0] - r[0], lb[1] - r[1], lb[2] - r[2]))
    return q, (w[0] + c[0], w[1] + c[1], w[2] + c[2]), None


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
