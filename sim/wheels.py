"""Reaction wheels: the gyrostat's equations, the wheels' share of the torque command, their limits.

Conventions (README, "Conventions"; docs/PHYSICS.md, "Reaction wheels")
-------------------------------------------------------------------------
* The body's inertia ``J`` is the whole craft's, wheels locked.
* Wheel ``i`` has a unit spin axis ``a_i`` in body axes and an axial inertia
  ``J_s,i``; its state is its speed ``W_i`` (rad/s) **relative to the body**.
  Its axial momentum is ``h_i = J_s,i (W_i + a_i . w)``.
* A motor torque ``u_i`` acts on the wheel (``dh_i/dt = u_i``) and
  ``-u_i a_i`` on the body.  Viscous friction ``c_i`` is a torque
  ``-c_i W_i`` between wheel and body, the same way round: the wheel
  feels the net axial torque ``v_i = u_i - c_i W_i``.
* The total momentum in body axes is ``H = J w + sum a_i J_s,i W_i``;
  without external torque its inertial components are constant.

From ``dH/dt + w x H = T`` (body axes) and ``J_s,i dW_i/dt = v_i - J_s,i
a_i . dw/dt`` follow the gyrostat's equations every integrator steps::

    (J - sum J_s,i a_i a_i^T) dw/dt = T - w x H - sum a_i v_i
    dW_i/dt = v_i / J_s,i - a_i . dw/dt

(Hughes, *Spacecraft Attitude Dynamics*, ch. 3, for an axisymmetric rotor;
with no wheels they are Euler's equations, Hoffmann (4.3)).

The wheels take the body-torque command: ``u = -A+ T_cmd`` with ``A`` the
3 x n matrix of the axes and ``A+`` its pseudo-inverse, plus any direct
motor command per wheel, then each wheel's torque limit (a clip to
``+-u_max``) and speed limit (a motor torque that would drive a wheel at or
beyond ``+-W_max`` further out is cut to zero, Basilisk's rule; the speed
overshoots the limit by at most one step's worth).

Every formula below is arithmetic, comparisons and ``ops.select``/``ops.clip``
only, written once over :mod:`sim.ops`: on floats for one body and on numpy
rows for the ensemble, bit for bit alike.  Terms whose constant is zero
(an orthogonal wheel's other two axis components) are left out of the sums:
a zero product adds exactly nothing to a finite sum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.limits import LIMITS, SettingsError

__all__ = ["LAYOUTS", "WheelSet", "layout_axes", "wheel_set", "free_inertia", "wheel_motor_torques",
           "gyrostat_rhs", "total_momentum", "gyrostat_energy", "wheel_reaction", "equivalent_torque",
           "MAX_WHEELS", "PYRAMID_TILT_DEG"]

#: Wheel layouts by name (besides a list of axes).
LAYOUTS = ("none", "orthogonal", "pyramid")
#: Most wheels accepted (:data:`sim.limits.LIMITS`, "wheel_count").
MAX_WHEELS = int(LIMITS["wheel_count"].high)
#: Tilt of the pyramid's wheel axes from the body z axis: ``cos = 1/sqrt(3)``, so that
#: ``A A^T = 4/3 I`` and the four wheels give the same torque about every axis.
PYRAMID_TILT_DEG = math.degrees(math.acos(1.0 / math.sqrt(3.0)))


def layout_axes(layout) -> tuple:
    """The unit axes of a layout: ``"none"`` (no wheel), ``"orthogonal"``, ``"pyramid"``, or axes as given.

    ``orthogonal``: three wheels along body x, y, z.  ``pyramid``: four wheels
    at azimuths 0, 90, 180, 270 deg about body z, each tilted
    :data:`PYRAMID_TILT_DEG` from z: ``(s, 0, c), (0, s, c), (-s, 0, c), (0, -s, c)``
    with ``c = 1/sqrt(3)``, ``s = sqrt(2/3)``.  Given axes are returned as they
    are (:func:`sim.settings.validate` made them unit vectors).
    """
    if layout == "none" or layout is None:
        return ()
    if layout == "orthogonal":
        return ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    if layout == "pyramid":
        c, s = 1.0 / math.sqrt(3.0), math.sqrt(2.0 / 3.0)
        return ((s, 0.0, c), (0.0, s, c), (-s, 0.0, c), (0.0, -s, c))
    return tuple(tuple(float(x) for x in axis) for axis in layout)


def _allocation(axes) -> tuple:
    """``-A+`` as n rows of 3: the motor torques ``u = -A+ T`` that realise the body torque ``T``.

    ``A+`` is the Moore-Penrose pseudo-inverse of the axes' matrix, written
    ``A^T (A A^T)^-1`` when the axes span the three body axes and
    ``(A^T A)^-1 A^T`` when they are independent (both exact for the
    orthogonal layout and a single wheel); ``numpy.linalg.pinv`` otherwise
    (coplanar or repeated axes).  With fewer than three independent axes
    the wheels realise the part of ``T`` in their span.
    """
    a = np.array(axes, dtype=float).T  # 3 x n
    rank = np.linalg.matrix_rank(a)
    if rank == 3:
        pinv = a.T @ np.linalg.inv(a @ a.T)
    elif rank == a.shape[1]:
        pinv = np.linalg.inv(a.T @ a) @ a.T
    else:
        pinv = np.linalg.pinv(a)
    return tuple(tuple(float(-x) for x in row) for row in pinv)


def _terms(vector) -> tuple:
    """``((k, v_k), ...)`` of the non-zero components of ``vector``."""
    return tuple((k, float(v)) for k, v in enumerate(vector) if v != 0.0)


@dataclass(frozen=True, eq=False)
class WheelSet:
    """The wheels of a craft: axes, inertias, limits, friction and their derived constants.

    Built from the settings by :func:`wheel_set`; shared by every body of an
    ensemble (the wheels do not depend on the body's inertia).

    Attributes
    ----------
    n : int
        Number of wheels.
    axes : tuple of n unit 3-tuples
        Spin axes ``a_i`` in body axes.
    inertia, torque_limit, speed_limit, friction : tuple of n floats
        ``J_s,i`` (kg m^2), ``u_max,i`` (N m), ``W_max,i`` (rad/s), ``c_i`` (N m s).
    allocation : tuple of n 3-tuples
        ``-A+`` row by row (see :func:`wheel_motor_torques`).
    """

    n: int
    axes: tuple
    inertia: tuple
    torque_limit: tuple
    speed_limit: tuple
    friction: tuple
    allocation: tuple

    def __post_init__(self):
        object.__setattr__(self, "_axis_terms", tuple(_terms(a) for a in self.axes))
        object.__setattr__(self, "_momentum_terms",
                           tuple(_terms([j * x for x in a]) for a, j in zip(self.axes, self.inertia)))
        object.__setattr__(self, "_allocation_terms", tuple(_terms(r) for r in self.allocation))
        object.__setattr__(self, "_inverse_inertia", tuple(1.0 / j for j in self.inertia))
        object.__setattr__(self, "_rubbing", any(c != 0.0 for c in self.friction))

    @property
    def momentum_capacity(self) -> tuple:
        """``J_s,i W_max,i`` per wheel, N m s: the momentum each can store relative to the body."""
        return tuple(j * s for j, s in zip(self.inertia, self.speed_limit))


def _per_wheel(name: str, value, n: int) -> tuple:
    if isinstance(value, (int, float)):
        return (float(value),) * n
    value = tuple(value)
    if len(value) != n:
        raise SettingsError(f"{name}: {len(value)} values for {n} wheels (give one value, or one per wheel)")
    return tuple(float(v) for v in value)


def wheel_set(settings) -> WheelSet | None:
    """The :class:`WheelSet` of ``settings`` (None without wheels); SettingsError when the lists do not fit.

    ``wheel_inertia``, ``wheel_torque_limit``, ``wheel_speed_limit`` and
    ``wheel_friction`` are one number for every wheel or one per wheel;
    ``wheel_speeds`` and ``wheel_torques`` one per wheel (or None: zero).
    """
    axes = layout_axes(settings.wheels)
    n = len(axes)
    if not n:
        return None
    for key in ("wheel_speeds", "wheel_torques"):
        value = getattr(settings, key)
        if value is not None and len(value) != n:
            raise SettingsError(f"{key}: {len(value)} values for {n} wheels (give one per wheel)")
    wheels = WheelSet(n=n, axes=axes, inertia=_per_wheel("wheel_inertia", settings.wheel_inertia, n),
                      torque_limit=_per_wheel("wheel_torque_limit", settings.wheel_torque_limit, n),
                      speed_limit=_per_wheel("wheel_speed_limit", settings.wheel_speed_limit, n),
                      friction=_per_wheel("wheel_friction", settings.wheel_friction, n),
                      allocation=_allocation(axes))
    if settings.wheel_speeds is not None:
        for i, (speed, most) in enumerate(zip(settings.wheel_speeds, wheels.speed_limit)):
            if abs(speed) > most:
                raise SettingsError(f"wheel_speeds[{i}]: {speed:g} rad/s is beyond the wheel's speed limit "
                                    f"{most:g} rad/s")
    return wheels


def free_inertia(j: np.ndarray, wheels: WheelSet) -> np.ndarray:
    """``J - sum J_s,i a_i a_i^T``: the craft's inertia with its wheels free to spin (3 x 3).

    Raises
    ------
    ValueError
        When it is not positive definite: the wheels' axial inertia exceeds
        the craft's (locked) inertia about their axes.
    """
    jf = np.array(j, dtype=float)
    for a, js in zip(wheels.axes, wheels.inertia):
        a = np.array(a)
        jf = jf - js * np.outer(a, a)
    smallest = float(np.linalg.eigvalsh(jf)[0])
    if not smallest > 0.0:
        raise ValueError(f"J - sum J_s a a^T is not positive definite (smallest moment {smallest:.6g} kg m^2): "
                         "the wheels' axial inertia exceeds the craft's about their axes; the inertia is the "
                         "whole craft's, wheels included")
    return jf


# ------------------------------------------------------------------ formulas over ops
def wheel_motor_torques(t, speeds, wheels: WheelSet, direct, ops):
    """The motor torques ``u_i`` that realise the body-torque command ``t``, after each wheel's limits.

    ``u_i = -(A+ t)_i + d_i`` (``d``: the direct motor commands, or None),
    clipped to ``+-u_max,i``; then set to zero where wheel ``i`` is at or
    beyond its speed limit and ``u_i`` would drive it further out
    (``W_i >= W_max`` and ``u_i > 0``, or ``W_i <= -W_max`` and ``u_i < 0``).
    """
    out = []
    for i, terms in enumerate(wheels._allocation_terms):
        u = 0.0
        for k, m in terms:
            u = u + m * t[k]
        if direct is not None:
            u = u + direct[i]
        most = wheels.torque_limit[i]
        u = ops.clip(u, -most, most)
        s, fastest = speeds[i], wheels.speed_limit[i]
        out.append(ops.select(ops.select(u > 0.0, s >= fastest, s <= -fastest), 0.0, u))
    return tuple(out)


def _net(u, speeds, wheels: WheelSet) -> tuple:
    """``v_i = u_i - c_i W_i``: the net axial torque on each wheel (motor and friction)."""
    if not wheels._rubbing:
        return tuple(u)
    return tuple(ui - c * s if c != 0.0 else ui for ui, c, s in zip(u, wheels.friction, speeds))


def total_momentum(w, jr, wheels: WheelSet | None):
    """``H = J w + sum a_i J_s,i W_i`` in body axes; ``w`` the rate state ``(wx, wy, wz, W_1, ..., W_n)``."""
    wx, wy, wz = w[0], w[1], w[2]
    h = [jr[0] * wx + jr[1] * wy + jr[2] * wz,
         jr[3] * wx + jr[4] * wy + jr[5] * wz,
         jr[6] * wx + jr[7] * wy + jr[8] * wz]
    if wheels is not None:
        for i, terms in enumerate(wheels._momentum_terms):
            s = w[3 + i]
            for k, b in terms:
                h[k] = h[k] + b * s
    return (h[0], h[1], h[2])


def wheel_reaction(u, speeds, wheels: WheelSet):
    """``-sum a_i v_i``: the torque the wheels' motors and friction put on the body."""
    r = [0.0, 0.0, 0.0]
    for (terms, v) in zip(wheels._axis_terms, _net(u, speeds, wheels)):
        for k, a in terms:
            r[k] = r[k] - a * v
    return (r[0], r[1], r[2])


def gyrostat_rhs(w, load, jr, jfi, wheels: WheelSet):
    """Time derivative of the rate state ``(wx, wy, wz, W_1..W_n)``: the gyrostat's equations.

    ``(J - sum J_s a a^T) dw/dt = T - w x H - sum a_i v_i`` and
    ``dW_i/dt = v_i / J_s,i - a_i . dw/dt`` (the module docstring), with
    ``load = (Tx, Ty, Tz, u_1, ..., u_n)``: the external torque on the body and
    the motor torques; ``jr`` the locked inertia ``J`` and ``jfi`` the inverse of
    :func:`free_inertia`, each 9 entries row major.  With no wheel these are
    Euler's equations, Hoffmann (4.3).
    """
    wx, wy, wz = w[0], w[1], w[2]
    speeds = w[3:]
    hx, hy, hz = total_momentum(w, jr, wheels)
    v = _net(load[3:], speeds, wheels)
    r = [load[0] - (wy * hz - wz * hy), load[1] - (wz * hx - wx * hz), load[2] - (wx * hy - wy * hx)]
    for terms, vi in zip(wheels._axis_terms, v):
        for k, a in terms:
            r[k] = r[k] - a * vi
    rx, ry, rz = r
    ax = jfi[0] * rx + jfi[1] * ry + jfi[2] * rz
    ay = jfi[3] * rx + jfi[4] * ry + jfi[5] * rz
    az = jfi[6] * rx + jfi[7] * ry + jfi[8] * rz
    a = (ax, ay, az)
    out = [ax, ay, az]
    for terms, vi, inv in zip(wheels._axis_terms, v, wheels._inverse_inertia):
        d = vi * inv
        for k, c in terms:
            d = d - c * a[k]
        out.append(d)
    return tuple(out)


def equivalent_torque(w, acceleration, jr):
    """``J dw/dt + w x J w``: the torque that gives the rigid body of inertia ``J`` the gyrostat's ``dw/dt``.

    How full-quat, whose equation (Hoffmann (4.15)) is the rigid body's, takes
    the wheels: fed this torque, its ``dw/dt`` is the gyrostat's.
    """
    wx, wy, wz = w[0], w[1], w[2]
    ax, ay, az = acceleration[0], acceleration[1], acceleration[2]
    lx = jr[0] * wx + jr[1] * wy + jr[2] * wz
    ly = jr[3] * wx + jr[4] * wy + jr[5] * wz
    lz = jr[6] * wx + jr[7] * wy + jr[8] * wz
    return (jr[0] * ax + jr[1] * ay + jr[2] * az + (wy * lz - wz * ly),
            jr[3] * ax + jr[4] * ay + jr[5] * az + (wz * lx - wx * lz),
            jr[6] * ax + jr[7] * ay + jr[8] * az + (wx * ly - wy * lx))


def gyrostat_energy(w, jr, wheels: WheelSet | None):
    """Kinetic energy of the craft and its wheels: ``1/2 w^T J w + sum J_s,i W_i (a_i . w + W_i / 2)``.

    Equal to ``1/2 w^T (J - sum J_s a a^T) w + sum h_i^2 / (2 J_s,i)``; with
    no wheel ``1/2 w^T J w``, Hoffmann (5.1).
    """
    wx, wy, wz = w[0], w[1], w[2]
    e = 0.5 * (wx * (jr[0] * wx + jr[1] * wy + jr[2] * wz) + wy * (jr[3] * wx + jr[4] * wy + jr[5] * wz)
               + wz * (jr[6] * wx + jr[7] * wy + jr[8] * wz))
    if wheels is not None:
        for i, (terms, js) in enumerate(zip(wheels._axis_terms, wheels.inertia)):
            s = w[3 + i]
            aw = 0.0
            for k, a in terms:
                aw = aw + a * w[k]
            e = e + js * s * (aw + 0.5 * s)
    return e
