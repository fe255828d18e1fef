"""The geometric integrators: Runge-Kutta-Munthe-Kaas on the unit quaternions, and the symplectic splitting.

Both move the attitude only by unit quaternions (the exponential map,
:func:`rotation_quaternion`, and Hoffmann's product (1.7),
:func:`sim.core.algebra.product_QQ`), so ``|Q|`` stays 1 to round-off without
norm handling.  They share the interface of :mod:`sim.core.integrators`
(``q, w, p = step(q, w, p, dt, torque, body, t=None)``), which lists them in
``INTEGRATORS``; they call ``sin``, ``cos`` and ``sqrt`` through ``body.ops``
(the rule of :mod:`sim.core.ops`).  Quaternions are scalar last,
Hoffmann's convention (see :mod:`sim`).
"""

from __future__ import annotations

from sim.core.algebra import cross_VV, matvec_MV, product_QQ
from sim.core.jit import jitable
from sim.core.ops import cos_of, select_of, sin_of, sqrt_of
from sim.core.equations import load_at, rates_rhs

__all__ = ["rotation_quaternion", "dexpinv", "rkmk4", "principal_flow", "SPLITTING_SEQUENCE", "splitting"]


@jitable
def rotation_quaternion(x, ops):
    """The exponential map: the coordinate rotation by the rotation vector ``x`` (rad), Hoffmann (2.1).

    ``exp(x) = (-x sin(|x|/2) / |x|, cos(|x|/2))``, so that ``Q(t + h) =
    exp(h w) . Q(t)`` solves ``dQ/dt = 1/2 V^T(Q) [w; 0]`` for constant
    ``w`` (Hoffmann's (3.26) is the product with ``(-w/2, 0)`` from the left,
    (1.7)).  ``sin(a/2)/a`` below ``a = 1e-3`` is its series to ``a^4``, so
    ``x = 0`` is exact.
    """
    x1, x2, x3 = x
    a = sqrt_of(x1 * x1 + x2 * x2 + x3 * x3, ops)
    big = a > 1e-3
    aa = a * a
    h = 0.5 * a
    s = select_of(big, sin_of(h, ops) / select_of(big, a, 1.0, ops), 0.5 - aa / 48.0 + aa * aa / 3840.0, ops)
    return (-x1 * s, -x2 * s, -x3 * s, cos_of(h, ops))


@jitable
def dexpinv(x, y):
    """The inverse derivative of the exponential map on so(3), ``y + x x y / 2 + x x (x x y) / 12``.

    ``dexp^-1_X(Y) = Y - [X, Y]/2 + [X, [X, Y]]/12 - ...`` (Bernoulli numbers;
    Munthe-Kaas 1998) for ``C' = -[w x] C`` written as ``C = exp(-[x x]) C0``,
    where ``[-[a x], -[b x]] = [(a x b) x]``: ``dx/dt = w + x x w / 2 + x x (x x w) / 12``.
    Truncated after the second commutator, which keeps order 4 (the next
    term is ``O(|x|^4) = O(h^4)`` inside an ``h`` step, Munthe-Kaas 1999).
    """
    c = cross_VV(x, y)
    cc = cross_VV(x, c)
    return (y[0] + 0.5 * c[0] + cc[0] / 12.0, y[1] + 0.5 * c[1] + cc[1] / 12.0, y[2] + 0.5 * c[2] + cc[2] / 12.0)


def rkmk4(q, w, p, dt, torque, body, t=None):
    """One Runge-Kutta-Munthe-Kaas step of order 4 on the unit quaternions (Munthe-Kaas 1998).

    The attitude is moved only by the exponential map:
    ``Q_new = exp(theta) . Q`` (:func:`rotation_quaternion`), with ``theta``
    the classical RK4 combination of the stages ``k_i = dexp^-1_(x_i)(w_i)``
    (:func:`dexpinv`) at ``x_1 = 0``, ``x_2 = dt/2 k_1``, ``x_3 = dt/2 k_2``,
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
    k1w = rates_rhs(w, load_at(torque, q, w, t), body)
    k1 = w[:3]
    x2 = (h * k1[0], h * k1[1], h * k1[2])
    w2 = tuple(a + h * b for a, b in zip(w, k1w))
    q2 = product_QQ(rotation_quaternion(x2, ops), q)
    k2w = rates_rhs(w2, load_at(torque, q2, w2, th), body)
    k2 = dexpinv(x2, w2)
    x3 = (h * k2[0], h * k2[1], h * k2[2])
    w3 = tuple(a + h * b for a, b in zip(w, k2w))
    q3 = product_QQ(rotation_quaternion(x3, ops), q)
    k3w = rates_rhs(w3, load_at(torque, q3, w3, th), body)
    k3 = dexpinv(x3, w3)
    x4 = (dt * k3[0], dt * k3[1], dt * k3[2])
    w4 = tuple(a + dt * b for a, b in zip(w, k3w))
    q4 = product_QQ(rotation_quaternion(x4, ops), q)
    k4w = rates_rhs(w4, load_at(torque, q4, w4, None if t is None else t + dt), body)
    k4 = dexpinv(x4, w4)
    s = dt / 6.0
    theta = tuple(s * (a + 2.0 * b + 2.0 * c + d) for a, b, c, d in zip(k1, k2, k3, k4))
    return (product_QQ(rotation_quaternion(theta, ops), q),
            tuple(a + s * (b1 + 2.0 * b2 + 2.0 * b3 + b4) for a, b1, b2, b3, b4 in zip(w, k1w, k2w, k3w, k4w)),
            None)


def principal_flow(q, lb, axis, moment, tau, ops):
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
    return product_QQ((-a1 * s, -a2 * s, -a3 * s, c), q), lb


#: The symmetric composition of the principal flows over one step: (axis, fraction of dt).
SPLITTING_SEQUENCE = ((0, 0.5), (1, 0.5), (2, 1.0), (1, 0.5), (0, 0.5))


def splitting(q, w, p, dt, torque, body, t=None):
    """One step of the symplectic splitting of the rigid body (order 2).

    The free rigid body's energy ``H = sum_i L_i^2 / (2 I_i)`` in principal
    axes splits into three parts whose flows are exact rotations about one
    principal axis each (:func:`principal_flow`); their symmetric
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
    u = load_at(torque, q, w, t)
    lb = matvec_MV(jr, w)
    lb = (lb[0] + h * u[0], lb[1] + h * u[1], lb[2] + h * u[2])
    for i, f in SPLITTING_SEQUENCE:
        q, lb = principal_flow(q, lb, axes[i], mo[i], f * dt, ops)
    te = None if t is None else t + dt
    u = load_at(torque, q, matvec_MV(jir, lb), te)
    u = load_at(torque, q, matvec_MV(jir, (lb[0] + h * u[0], lb[1] + h * u[1], lb[2] + h * u[2])), te)
    lb = (lb[0] + h * u[0], lb[1] + h * u[1], lb[2] + h * u[2])
    # w = J^-1 L with one step of refinement, so that the next step's J w gives L back to round-off:
    # J^-1 J differs from the identity by a fixed matrix of rounding errors, which would otherwise
    # scale |h| by the same factor every step (a steady drift of |h| without it).
    w = matvec_MV(jir, lb)
    r = matvec_MV(jr, w)
    c = matvec_MV(jir, (lb[0] - r[0], lb[1] - r[1], lb[2] - r[2]))
    return q, (w[0] + c[0], w[1] + c[1], w[2] + c[2]), None
