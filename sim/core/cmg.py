"""Single-gimbal control moment gyros: the cluster's momentum, its Jacobian, its singularities, the steering laws.

Conventions (docs/PHYSICS.md, "Control moment gyros")
-------------------------------------------------------
* CMG ``i`` has a unit gimbal axis ``g_i`` fixed in the body, a rotor of constant axial momentum
  ``h0`` (the same for every CMG of a cluster) along its spin axis ``s_i`` and a gimbal angle
  ``delta_i``.  At ``delta_i = 0`` the spin axis is ``s0_i`` (perpendicular to ``g_i``); the
  transverse axis is ``t_i = g_i x s_i``, so that ``ds_i/ddelta_i = t_i`` and::

      s_i(delta) = cos(delta_i) s0_i + sin(delta_i) t0_i,   t_i(delta) = cos(delta_i) t0_i - sin(delta_i) s0_i

  (Wie, *Space Vehicle Dynamics and Control*, 2nd ed., ch. 7; Schaub & Junkins, *Analytical
  Mechanics of Space Systems*, ch. 4, with their ``g_s, g_t, g_g`` frame).
* The cluster's momentum (body axes) is ``h = h0 sum_i s_i(delta_i)``; its Jacobian is the
  3 x n matrix ``A = dh/ddelta = h0 [t_1 ... t_n]``, and ``dh/dt = A ddelta/dt`` (Wie, ch. 7).
* The gimbal inertia and the rotors' transverse inertia are neglected (Wie's simplification in
  ch. 7; Schaub & Junkins keep them): the craft's inertia ``J`` holds the rotors as points,
  and the gimbal rates are the control input, set by the steering law (no gimbal dynamics).
* The spacecraft and the cluster: the total momentum ``H = J w + h`` obeys ``dH/dt + w x H = T``
  in body axes (Wie, ch. 7), so::

      J dw/dt = T - A ddelta/dt - w x (J w + h)

  and without external torque ``C(Q)^T H`` is constant in inertial axes.
* The torque the cluster puts on the body is ``tau = -dh/dt - w x h``.  To make a wanted body
  torque ``u`` the steering law is asked for ``dh/dt = -u - w x h`` (Wie, ch. 7).
* The singularity measure is ``m = det(A A^T)`` (Wie, ch. 7); ``m = 0`` exactly when some
  direction ``u`` has ``u . t_i = 0`` for every CMG, i.e. no torque about ``u`` can be made.  Those
  gimbal sets, the momentum envelope and the internal singular surfaces: :mod:`sim.core.cmg_surfaces`.

Everything here is written for numba's :func:`sim.core.jit.jitable`: floats and small arrays,
loops, no ``np.dot``/``@`` (numba's need BLAS through scipy).  The gimbal axes ``g`` and the
spin axes at zero ``s0`` are arrays of shape (n, 3); ``delta`` is shape (n,).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import vtmul_QV
from sim.core.jit import jitable, kernel

__all__ = ["PYRAMID_SKEW_DEG", "pyramid", "spin_transverse", "cluster_momentum", "momentum_of", "jacobian",
           "jacobian_of", "gram",
           "inverse3", "det3", "singularity_measure", "moore_penrose", "singularity_robust", "sr_torque_error",
           "sr_weight", "measure_gradient", "null_motion", "gradient_steering", "rate_limit", "steer",
           "cmg_rhs", "cmg_rk4_step", "cmg_advance", "STEERING_LAWS", "dither_matrix", "generalized_sr", "gsr_torque_error"]

#: The pyramid's skew angle: ``cos(beta) = 1/sqrt(3)`` (54.7356 deg), for which the four-CMG
#: pyramid's momentum envelope is nearly spherical (Wie, ch. 7).
PYRAMID_SKEW_DEG = math.degrees(math.acos(1.0 / math.sqrt(3.0)))

#: The steering laws by name, in the order of their codes in :func:`steer` and :func:`cmg_advance`.
STEERING_LAWS = ("moore_penrose", "singularity_robust", "gradient", "generalized_sr")

jitable(vtmul_QV)   # Hoffmann's V(Q)^T [w; 0], compiled inline into cmg_advance


def pyramid(beta_deg: float = PYRAMID_SKEW_DEG):
    """The four-CMG pyramid of Wie, ch. 7: gimbal axes ``g`` and spin axes at zero ``s0``, each shape (4, 3).

    Its momentum is, with ``c = cos(beta)``, ``s = sin(beta)`` (Wie, ch. 7)::

        h = h0 [-c sin d1 - cos d2 + c sin d3 + cos d4,
                 cos d1 - c sin d2 - cos d3 + c sin d4,
                 s (sin d1 + sin d2 + sin d3 + sin d4)]
    """
    b = math.radians(beta_deg)
    c, s = math.cos(b), math.sin(b)
    g = np.array([[s, 0.0, c], [0.0, s, c], [-s, 0.0, c], [0.0, -s, c]])
    s0 = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])
    return g, s0


@jitable
def spin_transverse(g, s0, delta):
    """The spin axes ``s_i`` and transverse axes ``t_i = g_i x s_i`` at the gimbal angles ``delta`` (each shape (n, 3))."""
    n = delta.shape[0]
    s = np.empty((n, 3))
    t = np.empty((n, 3))
    for i in range(n):
        t0x = g[i, 1] * s0[i, 2] - g[i, 2] * s0[i, 1]
        t0y = g[i, 2] * s0[i, 0] - g[i, 0] * s0[i, 2]
        t0z = g[i, 0] * s0[i, 1] - g[i, 1] * s0[i, 0]
        cd, sd = math.cos(delta[i]), math.sin(delta[i])
        s[i, 0] = cd * s0[i, 0] + sd * t0x
        s[i, 1] = cd * s0[i, 1] + sd * t0y
        s[i, 2] = cd * s0[i, 2] + sd * t0z
        t[i, 0] = cd * t0x - sd * s0[i, 0]
        t[i, 1] = cd * t0y - sd * s0[i, 1]
        t[i, 2] = cd * t0z - sd * s0[i, 2]
    return s, t


@jitable
def cluster_momentum(h0, g, s0, delta):
    """The cluster's momentum in body axes, ``h = h0 sum_i s_i(delta_i)`` (Wie, ch. 7); shape (3,)."""
    s, _ = spin_transverse(g, s0, delta)
    hx, hy, hz = momentum_of(h0, s)
    h = np.empty(3)
    h[0], h[1], h[2] = hx, hy, hz
    return h


@jitable
def momentum_of(h0, s):
    """``h0 sum_i s_i`` from the spin axes ``s`` (shape (n, 3)), as three floats, summed over ``i`` in order."""
    hx, hy, hz = 0.0, 0.0, 0.0
    for i in range(s.shape[0]):
        hx += h0 * s[i, 0]
        hy += h0 * s[i, 1]
        hz += h0 * s[i, 2]
    return hx, hy, hz


@jitable
def jacobian(h0, g, s0, delta):
    """``A = dh/ddelta = h0 [t_1 ... t_n]``, shape (3, n) (Wie, ch. 7)."""
    _, t = spin_transverse(g, s0, delta)
    return jacobian_of(h0, t)


@jitable
def jacobian_of(h0, t):
    """``A = h0 [t_1 ... t_n]`` from the transverse axes ``t`` (shape (n, 3)), shape (3, n)."""
    n = t.shape[0]
    a = np.empty((3, n))
    for i in range(n):
        for k in range(3):
            a[k, i] = h0 * t[i, k]
    return a


@jitable
def gram(a):
    """``A A^T``, shape (3, 3)."""
    m = np.zeros((3, 3))
    for r in range(3):
        for c in range(3):
            acc = 0.0
            for i in range(a.shape[1]):
                acc += a[r, i] * a[c, i]
            m[r, c] = acc
    return m


@jitable
def det3(m):
    """The determinant of a 3 x 3 matrix (cofactors along the first row)."""
    return (m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
            - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
            + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))


@jitable
def inverse3(m):
    """The inverse of a 3 x 3 matrix, adjugate over determinant (``inf``/``nan`` when singular: numpy's error model)."""
    d = det3(m)
    r = np.empty((3, 3))
    r[0, 0] = (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1]) / d
    r[0, 1] = (m[0, 2] * m[2, 1] - m[0, 1] * m[2, 2]) / d
    r[0, 2] = (m[0, 1] * m[1, 2] - m[0, 2] * m[1, 1]) / d
    r[1, 0] = (m[1, 2] * m[2, 0] - m[1, 0] * m[2, 2]) / d
    r[1, 1] = (m[0, 0] * m[2, 2] - m[0, 2] * m[2, 0]) / d
    r[1, 2] = (m[0, 2] * m[1, 0] - m[0, 0] * m[1, 2]) / d
    r[2, 0] = (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]) / d
    r[2, 1] = (m[0, 1] * m[2, 0] - m[0, 0] * m[2, 1]) / d
    r[2, 2] = (m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]) / d
    return r


@jitable
def singularity_measure(a):
    """``m = det(A A^T)`` (Wie, ch. 7): zero at a singular gimbal set, largest away from them."""
    return det3(gram(a))


@jitable
def _mat3_vec(m, v):
    out = np.empty(3)
    for r in range(3):
        out[r] = m[r, 0] * v[0] + m[r, 1] * v[1] + m[r, 2] * v[2]
    return out


@jitable
def _at_vec(a, v):
    """``A^T v`` for A of shape (3, n)."""
    n = a.shape[1]
    out = np.empty(n)
    for i in range(n):
        out[i] = a[0, i] * v[0] + a[1, i] * v[1] + a[2, i] * v[2]
    return out


@jitable
def _damped_inverse(a, hdot, lam):
    """``A^T (A A^T + lam I)^-1 hdot``: the pseudo-inverse at ``lam = 0``, the SR inverse above."""
    m = gram(a)
    for k in range(3):
        m[k, k] += lam
    return _at_vec(a, _mat3_vec(inverse3(m), hdot))


@jitable
def moore_penrose(a, hdot):
    """The Moore-Penrose steering law ``ddelta/dt = A^T (A A^T)^-1 hdot`` (Wie, ch. 7).

    The least-norm gimbal rates that make ``hdot`` exactly; at a singular gimbal set ``A A^T``
    has no inverse and the rates blow up (``inf``/``nan``), near one they grow as ``1/sqrt(m)``.
    """
    return _damped_inverse(a, hdot, 0.0)


@jitable
def sr_weight(m, lam0, mu):
    """The SR inverse's weight ``lam = lam0 exp(-mu m)`` (Wie, ch. 7, after Nakamura and Hanafusa)."""
    return lam0 * math.exp(-mu * m)


@jitable
def singularity_robust(a, hdot, lam0, mu):
    """The singularity-robust inverse ``ddelta/dt = A^T (A A^T + lam I)^-1 hdot``, ``lam = lam0 exp(-mu m)``.

    Wie, ch. 7 (Nakamura and Hanafusa 1986; Bedrossian 1990).  It stays finite through a
    singularity by making a momentum rate that is not the one asked: see :func:`sr_torque_error`.
    """
    return _damped_inverse(a, hdot, sr_weight(singularity_measure(a), lam0, mu))


@jitable
def sr_torque_error(a, hdot, lam):
    """The SR inverse's error ``A ddelta/dt - hdot = -lam (A A^T + lam I)^-1 hdot``, shape (3,).

    From ``A A^T (A A^T + lam I)^-1 = I - lam (A A^T + lam I)^-1``; its size is at most
    ``lam / (sigma_min^2 + lam) |hdot|`` with ``sigma_min`` the least singular value of ``A``:
    small away from singularities, up to the whole command about the singular direction on one.
    """
    m = gram(a)
    for k in range(3):
        m[k, k] += lam
    e = _mat3_vec(inverse3(m), hdot)
    for k in range(3):
        e[k] = -lam * e[k]
    return e


@jitable
def dither_matrix(eps0, omega, t):
    """Wie's weight ``E = [[1, e3, e2], [e3, 1, e1], [e2, e1, 1]]``, ``e_i = eps0 sin(omega t + phi_i)``, ``phi = 0, pi/2, pi``.

    Wie, "Singularity escape/avoidance steering logic for control moment gyro systems", JGCD 28(5),
    2005 (and his book, ch. 7): positive definite for ``eps0 < 1/2``.
    """
    e1 = eps0 * math.sin(omega * t)
    e2 = eps0 * math.sin(omega * t + 0.5 * math.pi)
    e3 = eps0 * math.sin(omega * t + math.pi)
    e = np.empty((3, 3))
    e[0, 0], e[0, 1], e[0, 2] = 1.0, e3, e2
    e[1, 0], e[1, 1], e[1, 2] = e3, 1.0, e1
    e[2, 0], e[2, 1], e[2, 2] = e2, e1, 1.0
    return e


@jitable
def _weighted(a, lam, e):
    m = gram(a)
    for r in range(3):
        for c in range(3):
            m[r, c] += lam * e[r, c]
    return inverse3(m)


@jitable
def generalized_sr(a, hdot, lam0, mu, e):
    """Wie's generalized SR inverse ``ddelta/dt = A^T (A A^T + lam E)^-1 hdot``, ``lam = lam0 exp(-mu m)`` (Wie 2005).

    The off-diagonal dither of ``E`` (:func:`dither_matrix`) makes a torque error about the other
    axes too, which turns the gimbals off a singular set where the plain SR inverse, asked for
    torque exactly along the singular direction, sits still.  Error: :func:`gsr_torque_error`.
    """
    lam = sr_weight(singularity_measure(a), lam0, mu)
    return _at_vec(a, _mat3_vec(_weighted(a, lam, e), hdot))


@jitable
def gsr_torque_error(a, hdot, lam, e):
    """The generalized SR inverse's error ``A ddelta/dt - hdot = -lam E (A A^T + lam E)^-1 hdot`` (``E = I``: the SR's)."""
    err = _mat3_vec(e, _mat3_vec(_weighted(a, lam, e), hdot))
    for k in range(3):
        err[k] = -lam * err[k]
    return err


@jitable
def measure_gradient(h0, g, s0, delta):
    """``dm/ddelta_i = -2 m h0^2 t_i^T (A A^T)^-1 s_i`` (Jacobi's formula with ``dt_i/ddelta_i = -s_i``), shape (n,)."""
    s, t = spin_transverse(g, s0, delta)
    a = jacobian(h0, g, s0, delta)
    gm = gram(a)
    m = det3(gm)
    gi = inverse3(gm)
    n = delta.shape[0]
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        for r in range(3):
            for c in range(3):
                acc += t[i, r] * gi[r, c] * s[i, c]
        out[i] = -2.0 * m * h0 * h0 * acc
    return out


@jitable
def null_motion(a, v):
    """``(I - A^T (A A^T)^-1 A) v``: ``v`` projected on the null space of ``A`` (gimbal motion that makes no torque)."""
    av = np.zeros(3)
    for k in range(3):
        for i in range(a.shape[1]):
            av[k] += a[k, i] * v[i]
    back = moore_penrose(a, av)
    out = np.empty(v.shape[0])
    for i in range(v.shape[0]):
        out[i] = v[i] - back[i]
    return out


@jitable
def gradient_steering(h0, g, s0, delta, hdot, k):
    """The pseudo-inverse with null motion up the gradient of ``m`` (Wie, ch. 7, the gradient method).

    ``ddelta/dt = A^+ hdot + k (I - A^+ A) dm/ddelta``: the torque asked is made exactly and the
    null motion, which makes none, drives the gimbals away from the singular sets it can avoid
    (not the internal elliptic ones, which null motion cannot leave).
    """
    a = jacobian(h0, g, s0, delta)
    base = moore_penrose(a, hdot)
    grad = measure_gradient(h0, g, s0, delta)
    for i in range(grad.shape[0]):
        grad[i] *= k
    nm = null_motion(a, grad)
    for i in range(base.shape[0]):
        base[i] += nm[i]
    return base


@jitable
def rate_limit(rates, rate_max):
    """The gimbal rates scaled down together so that none exceeds ``rate_max`` (the direction in gimbal space is kept)."""
    peak = 0.0
    for i in range(rates.shape[0]):
        peak = max(peak, abs(rates[i]))
    out = rates.copy()
    if peak > rate_max:
        f = rate_max / peak
        for i in range(rates.shape[0]):
            out[i] = rates[i] * f
    return out


@jitable
def steer(law, h0, g, s0, delta, w, torque, lam0, mu, k, rate_max, t, eps0, omega):
    """The gimbal rates for a wanted body torque ``torque``: ``hdot = -torque - w x h`` (Wie, ch. 7) by law ``law``.

    ``law`` is the index in :data:`STEERING_LAWS`: 0 Moore-Penrose, 1 singularity-robust
    (``lam0``, ``mu``), 2 gradient null motion (gain ``k``), 3 generalized SR (``lam0``, ``mu`` and
    the dither ``eps0``, ``omega`` at time ``t``); then :func:`rate_limit`.
    """
    sp, tr = spin_transverse(g, s0, delta)   # h and A from one evaluation: cluster_momentum's and jacobian's sums
    hx, hy, hz = momentum_of(h0, sp)
    hdot = np.empty(3)
    hdot[0] = -torque[0] - (w[1] * hz - w[2] * hy)
    hdot[1] = -torque[1] - (w[2] * hx - w[0] * hz)
    hdot[2] = -torque[2] - (w[0] * hy - w[1] * hx)
    if law == 2:
        rates = gradient_steering(h0, g, s0, delta, hdot, k)
    else:
        a = jacobian_of(h0, tr)
        if law == 3:
            rates = generalized_sr(a, hdot, lam0, mu, dither_matrix(eps0, omega, t))
        elif law == 1:
            rates = singularity_robust(a, hdot, lam0, mu)
        else:
            rates = moore_penrose(a, hdot)
    return rate_limit(rates, rate_max)


@jitable
def cmg_rhs(j, j_inv, h0, g, s0, q, w, delta, rates, torque_ext):
    """``dQ/dt`` and ``dw/dt`` of the spacecraft with a CMG cluster turning at ``rates`` (``ddelta/dt = rates``).

    ``dQ/dt = 1/2 V(Q)^T [w; 0]`` (Hoffmann (5.18)) and ``J dw/dt = T - A rates - w x (J w + h)``
    (Wie, ch. 7, gimbal inertia neglected).  ``j`` and ``j_inv`` are 3 x 3 arrays.
    """
    qd = vtmul_QV((q[0], q[1], q[2], q[3]), (w[0], w[1], w[2]))
    qdot = np.empty(4)
    for k in range(4):
        qdot[k] = 0.5 * qd[k]
    # h from one spin_transverse (momentum_of), J w + h (sim.core.algebra.matvec_MV's sums, on the 3 x 3 array) and
    # the right-hand side as floats, A's entries h0 t_i as jacobian_of makes them: no arrays but the two returned
    s, t = spin_transverse(g, s0, delta)
    hx, hy, hz = momentum_of(h0, s)
    b0 = j[0, 0] * w[0] + j[0, 1] * w[1] + j[0, 2] * w[2] + hx
    b1 = j[1, 0] * w[0] + j[1, 1] * w[1] + j[1, 2] * w[2] + hy
    b2 = j[2, 0] * w[0] + j[2, 1] * w[1] + j[2, 2] * w[2] + hz
    r0 = torque_ext[0] - (w[1] * b2 - w[2] * b1)
    r1 = torque_ext[1] - (w[2] * b0 - w[0] * b2)
    r2 = torque_ext[2] - (w[0] * b1 - w[1] * b0)
    for i in range(rates.shape[0]):
        r0 -= h0 * t[i, 0] * rates[i]
    for i in range(rates.shape[0]):
        r1 -= h0 * t[i, 1] * rates[i]
    for i in range(rates.shape[0]):
        r2 -= h0 * t[i, 2] * rates[i]
    wdot = np.empty(3)
    for c in range(3):
        wdot[c] = j_inv[c, 0] * r0 + j_inv[c, 1] * r1 + j_inv[c, 2] * r2
    return qdot, wdot


@jitable
def _axpy(x, a, y):
    """``x + a y`` (``a`` a float), one new array."""
    out = np.empty(x.shape[0])
    for c in range(x.shape[0]):
        out[c] = x[c] + a * y[c]
    return out


@jitable
def cmg_rk4_step(q, w, delta, j, j_inv, h0, g, s0, torque_cmd, torque_ext, law, lam0, mu, k, rate_max, t, eps0, omega,
                 dt, rates_out):
    """One step of RK4 of :func:`cmg_rhs` from time ``t``, the gimbal rates :func:`steer` sets at its start held over
    it (zero-order hold); ``q``, ``w`` and ``delta`` advanced in place, the rates written to ``rates_out``.
    Returns whether the new state is finite."""
    rates = steer(law, h0, g, s0, delta, w, torque_cmd, lam0, mu, k, rate_max, t, eps0, omega)
    for i in range(rates.shape[0]):
        rates_out[i] = rates[i]
    h = 0.5 * dt
    q1d, w1d = cmg_rhs(j, j_inv, h0, g, s0, q, w, delta, rates, torque_ext)
    q2, w2, d2 = _axpy(q, h, q1d), _axpy(w, h, w1d), _axpy(delta, h, rates)
    q2d, w2d = cmg_rhs(j, j_inv, h0, g, s0, q2, w2, d2, rates, torque_ext)
    q3, w3 = _axpy(q, h, q2d), _axpy(w, h, w2d)
    q3d, w3d = cmg_rhs(j, j_inv, h0, g, s0, q3, w3, d2, rates, torque_ext)
    q4, w4, d4 = _axpy(q, dt, q3d), _axpy(w, dt, w3d), _axpy(delta, dt, rates)
    q4d, w4d = cmg_rhs(j, j_inv, h0, g, s0, q4, w4, d4, rates, torque_ext)
    finite = True
    for c in range(4):
        q[c] += dt / 6.0 * (q1d[c] + 2.0 * q2d[c] + 2.0 * q3d[c] + q4d[c])
        finite = finite and math.isfinite(q[c])
    for c in range(3):
        w[c] += dt / 6.0 * (w1d[c] + 2.0 * w2d[c] + 2.0 * w3d[c] + w4d[c])
        finite = finite and math.isfinite(w[c])
    for i in range(delta.shape[0]):
        delta[i] = d4[i]
        finite = finite and math.isfinite(delta[i])
    return finite


@kernel
def cmg_advance(q, w, delta, j, j_inv, h0, g, s0, torque_cmd, torque_ext, law, lam0, mu, k, rate_max, t0, eps0,
                omega, dt, steps, rates_out):
    """``steps`` steps of :func:`cmg_rk4_step`, the torques held, from time ``t0``; ``q``, ``w`` and ``delta``
    advanced in place, the last step's rates written to ``rates_out``.
    Returns the step at which the state stopped being finite, or -1.
    """
    for n in range(steps):
        if not cmg_rk4_step(q, w, delta, j, j_inv, h0, g, s0, torque_cmd, torque_ext, law, lam0, mu, k, rate_max,
                            t0 + n * dt, eps0, omega, dt, rates_out):
            return n
    return -1
