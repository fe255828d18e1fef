"""Magnetic control: magnetorquer rods, B-dot detumbling and momentum dumping.

A magnetorquer rod along the body axis ``a_i`` makes the dipole ``u_i a_i``
(A m^2), ``|u_i| <= limit_i``; the body's dipole is the sum of the rods'
and a residual dipole of the body (a disturbance: currents in harness and
panels, magnetised parts).  In the field ``B`` (body axes, T) it feels the
torque

    T = m x B                                   (Markley & Crassidis 2014, chapter 3, magnetic torque)

which is always perpendicular to ``B``: magnetorquers cannot torque about
the field line, and the two other axes only.

B-dot (Stickler & Alfriend 1976; Markley & Crassidis 2014, section 7.5):
the field seen from a tumbling body turns as ``dB/dt = B x w`` (the field's
own motion along the orbit, about twice the orbit rate, is slow beside a
tumble), so ``m = -k dB/dt`` makes ``T = -k (|B|^2 w - (B . w) B)``: it
removes the rate across the field, and the field line's turning along the
orbit brings the rest across.  ``dB/dt`` is the difference of two samples
of the body-frame field (a magnetometer) at the controller's period,
held between samples (:class:`Bdot`).  Two laws:

* proportional: ``m = -k dB/dt``, the rods saturated together
  (:meth:`Magnetorquers.allocate`: the command's direction kept);
* bang-bang: ``u_i = -limit_i sign(a_i . dB/dt)``, every rod at its limit.

The gain: Avanzini & Giulietti (2012), "Magnetic detumbling of a rigid
spacecraft", J. Guidance, Control, and Dynamics 35(4), 1326-1334, prove
global convergence of ``m = (k_w / |B|) (b x w)`` written to damp (``b``
the field's unit vector), that is ``m = -(k_w / |B|^2) dB/dt``, and find a
quasi-minimum detumbling time for

    k_w = 2 n (1 + sin xi) J_min                (their criterion for the gain)

with ``n`` the orbit rate, ``xi`` the inclination of the orbit to the
geomagnetic equator and ``J_min`` the smallest principal moment of inertia
(N m s).  For the law ``m = -k dB/dt`` here the equivalent gain is
``k = k_w / |B|^2`` with a typical ``|B|`` on the orbit
(:func:`avanzini_giulietti_gain` returns ``k_w``).

Momentum dumping (Markley & Crassidis 2014, section 7.6; Camillo & Markley
1980): with ``dh = h_wheels - h_target`` (body axes) the excess of the
wheels' momentum,

    m = k (dh x B) / |B|^2,   T = m x B = -k (dh - (dh . b) b)

a torque against the excess across the field line: holding the attitude,
the wheels take up ``T`` and their excess decays at the rate ``k``.  (The
same law as ``m = k (B x dh') / |B|^2`` with ``dh'`` the target minus the
wheels' momentum.)

Every formula is arithmetic over :mod:`sim.core.ops` (``select`` for the
signs and the saturation): floats for one body, numpy rows for an ensemble.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim.core.jit import jitable
from sim.core.ops import FLOAT, select_of
from sim.core.angles import to_body

__all__ = ["magnetic_torque", "Magnetorquers", "bdot_dipole", "Bdot", "avanzini_giulietti_gain", "allocate_rods",
           "bang_bang_rods", "rods_dipole", "bdot_sample", "wheels_momentum", "torquer_command", "BDOT_STATE",
           "ROD_COLUMNS", "OFF", "BDOT", "DUMPING",
           "dumping_dipole", "BDOT_LAWS", "MagneticControl"]

#: The B-dot laws of :class:`Bdot`.
BDOT_LAWS = ("proportional", "bang-bang")


@jitable
def magnetic_torque(m, b) -> tuple:
    """``T = m x B`` (N m): the dipole ``m`` (A m^2) in the field ``b`` (T), the same axes (Markley & Crassidis 2014, ch. 3)."""
    mx, my, mz = m
    bx, by, bz = b
    return (my * bz - mz * by, mz * bx - mx * bz, mx * by - my * bx)


@jitable
def _abs(x, ops):
    return select_of(x < 0.0, -x, x, ops)


@jitable
def _sign(x, ops):
    return select_of(x > 0.0, 1.0, select_of(x < 0.0, -1.0, 0.0, ops), ops)


@jitable
def allocate_rods(m, pinv, limits, u, ops=FLOAT) -> None:
    """:meth:`Magnetorquers.allocate` into ``u`` (one entry per rod): ``u = A^+ m`` (the rows of ``pinv``),
    scaled by ``1 / max(1, max_i |u_i| / limit_i)``.  ``u`` a list (floats or rows) or, compiled, an array."""
    mx, my, mz = m[0], m[1], m[2]
    n = len(limits)
    for i in range(n):
        p = pinv[i]
        u[i] = p[0] * mx + p[1] * my + p[2] * mz
    worst = 1.0
    for i in range(n):
        r = _abs(u[i], ops) / limits[i]
        worst = select_of(r > worst, r, worst, ops)
    for i in range(n):
        u[i] = u[i] / worst


@jitable
def bang_bang_rods(bdot, axes, limits, u, ops=FLOAT) -> None:
    """:meth:`Magnetorquers.bang_bang` into ``u``: ``u_i = -limit_i sign(a_i . dB/dt)``."""
    bx, by, bz = bdot[0], bdot[1], bdot[2]
    for i in range(len(limits)):
        a = axes[i]
        u[i] = -limits[i] * _sign(a[0] * bx + a[1] * by + a[2] * bz, ops)


@jitable
def rods_dipole(u, axes, residual) -> tuple:
    """:meth:`Magnetorquers.body_dipole`: ``m = sum_i u_i a_i + residual`` (A m^2, body axes)."""
    mx, my, mz = residual[0], residual[1], residual[2]
    for i in range(min(len(u), len(axes))):
        a = axes[i]
        mx, my, mz = mx + u[i] * a[0], my + u[i] * a[1], mz + u[i] * a[2]
    return (mx, my, mz)


@dataclass(frozen=True)
class Magnetorquers:
    """Rods along the body axes ``axes`` (unit vectors, any number from 3 on that span space), each with its
    dipole limit in ``limits`` (A m^2), and the body's ``residual`` dipole (A m^2, body axes).

    :meth:`allocate` turns a commanded body dipole into rod dipoles by the
    pseudo-inverse of the axes (the least-squares allocation, exact when the
    rods span space) and scales them together so that none passes its limit;
    :meth:`body_dipole` is what the rods and the residual make.
    """

    axes: tuple
    limits: tuple
    residual: tuple = (0.0, 0.0, 0.0)
    _pinv: tuple = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        a = np.array(self.axes, dtype=float)
        if a.ndim != 2 or a.shape[1] != 3 or a.shape[0] < 3:
            raise ValueError("magnetorquers: give three or more axes of three components")
        norms = np.linalg.norm(a, axis=1)
        if not np.all(norms > 0) or np.linalg.matrix_rank(a) < 3:
            raise ValueError("magnetorquers: the axes must be non-zero and span space")
        if len(self.limits) != a.shape[0] or not all(float(x) > 0 for x in self.limits):
            raise ValueError("magnetorquers: one positive dipole limit (A m^2) per rod")
        a = a / norms[:, None]
        object.__setattr__(self, "axes", tuple(tuple(float(v) for v in row) for row in a))
        object.__setattr__(self, "limits", tuple(float(x) for x in self.limits))
        object.__setattr__(self, "residual", tuple(float(x) for x in self.residual))
        object.__setattr__(self, "_pinv", tuple(tuple(float(v) for v in row) for row in np.linalg.pinv(a.T)))

    @classmethod
    def three(cls, limit: float, residual=(0.0, 0.0, 0.0)) -> Magnetorquers:
        """Three rods along the body axes x, y, z, each with the dipole limit ``limit`` (A m^2)."""
        return cls(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), (limit, limit, limit), residual)

    def allocate(self, m, ops=FLOAT) -> tuple:
        """Rod dipoles (A m^2) for the commanded body dipole ``m``: ``u = A^+ m`` scaled by
        ``1 / max(1, max_i |u_i| / limit_i)`` (the direction of ``m`` kept): :func:`allocate_rods`."""
        u = [0.0] * len(self.limits)
        allocate_rods(m, self._pinv, self.limits, u, ops)
        return tuple(u)

    def bang_bang(self, bdot, ops=FLOAT) -> tuple:
        """Rod dipoles of the bang-bang B-dot law: ``u_i = -limit_i sign(a_i . dB/dt)`` (:func:`bang_bang_rods`)."""
        u = [0.0] * len(self.limits)
        bang_bang_rods(bdot, self.axes, self.limits, u, ops)
        return tuple(u)

    def body_dipole(self, u) -> tuple:
        """``m = sum_i u_i a_i + residual`` (A m^2, body axes): what the rods ``u`` and the body make
        (:func:`rods_dipole`)."""
        return rods_dipole(u, self.axes, self.residual)

    @property
    def table(self) -> np.ndarray:
        """The rods as the compiled loop reads them (:data:`ROD_COLUMNS`): one row per rod, its axis, its row
        of the pseudo-inverse, its limit and (last) the held command, zero."""
        a = np.zeros((len(self.limits), ROD_COLUMNS))
        a[:, 0:3], a[:, 3:6], a[:, 6] = self.axes, self._pinv, self.limits
        return a


@jitable
def bdot_dipole(bdot, gain) -> tuple:
    """The proportional B-dot law ``m = -k dB/dt`` (A m^2), ``k`` = ``gain`` (A m^2 s / T); Stickler & Alfriend (1976)."""
    return (-gain * bdot[0], -gain * bdot[1], -gain * bdot[2])


def avanzini_giulietti_gain(orbit_rate: float, xi: float, j_min: float) -> float:
    """``k_w = 2 n (1 + sin xi) J_min`` (N m s), Avanzini & Giulietti (2012), their gain criterion (the module docstring).

    ``orbit_rate`` n (rad/s), ``xi`` the orbit's inclination to the
    geomagnetic equator (rad), ``j_min`` the smallest principal moment of
    inertia (kg m^2).  For ``m = -k dB/dt`` use ``k = k_w / |B|^2``.
    """
    return 2.0 * orbit_rate * (1.0 + math.sin(xi)) * j_min


class Bdot:
    """The B-dot controller at its own period: samples the body-frame field, differences, holds the command.

    ``law`` is ``"proportional"`` (``m = -gain dB/dt``, then
    :meth:`Magnetorquers.allocate`) or ``"bang-bang"``
    (:meth:`Magnetorquers.bang_bang`; ``gain`` unused).  :meth:`__call__`
    takes the time and the field in body axes at every step and returns the
    rod dipoles held since the last sample; a sample is taken when ``t``
    reaches the next multiple of ``period``.  The first sample has no
    predecessor: the rods stay off until the second.  The time is shared by
    every body of an ensemble (floats or rows for the field).
    """

    def __init__(self, torquers: Magnetorquers, period: float, gain: float = 0.0, law: str = "proportional",
                 ops=FLOAT):
        if law not in BDOT_LAWS:
            raise ValueError(f"B-dot law: {law!r} is not one of {', '.join(BDOT_LAWS)}")
        if not period > 0.0:
            raise ValueError("B-dot: the sampling period must be positive")
        self.torquers, self.period, self.gain, self.law, self.ops = torquers, float(period), float(gain), law, ops
        self.reset()

    def reset(self) -> None:
        """Forget the samples: the next call samples afresh and the rods are off."""
        #: The sample state of :func:`bdot_sample` (:data:`BDOT_STATE`): sampled yet, the next sample's time,
        #: a last sample yet, the last sample (3), dB/dt (3).
        self.state = [0.0] * BDOT_STATE
        self.u = [0.0] * len(self.torquers.limits)

    @property
    def bdot(self) -> tuple:
        """``dB/dt`` of the last two samples (T/s, body axes), held between samples."""
        return tuple(self.state[6:9])

    def __call__(self, t: float, b) -> tuple:
        rods = self.torquers
        bdot_sample(t, b, self.state, self.u, self.period, self.gain, BDOT_LAWS.index(self.law), rods.axes,
                    rods._pinv, rods.limits, self.ops)
        return tuple(self.u)


#: Length of :class:`Bdot`'s sample state (:func:`bdot_sample`).
BDOT_STATE = 9
#: Columns of :attr:`Magnetorquers.table`: the axis (3), the pseudo-inverse's row (3), the limit, the held command.
ROD_COLUMNS = 8


@jitable
def bdot_sample(t, b, state, u, period, gain, law, axes, pinv, limits, ops=FLOAT) -> None:
    """:class:`Bdot` at ``t`` with the body-frame field ``b``: when ``t`` reaches the next multiple of ``period``
    (within ``1e-9`` of it), a sample: ``dB/dt`` the difference of the last two over ``period``, the rods ``u``
    commanded from it by the ``law`` (:data:`BDOT_LAWS`' index: ``m = -gain dB/dt`` through
    :func:`allocate_rods`, or :func:`bang_bang_rods`), and held until the next; the first sample only
    remembers the field.  ``state`` as :attr:`Bdot.state`, changed in place with ``u``."""
    if state[0] == 0.0 or t >= state[1] - 1e-9 * period:
        k = round(t / period)
        state[0] = 1.0
        state[1] = (k + 1) * period
        if state[2] != 0.0:
            bdot = ((b[0] - state[3]) / period, (b[1] - state[4]) / period, (b[2] - state[5]) / period)
            state[6], state[7], state[8] = bdot[0], bdot[1], bdot[2]
            if law == 0:
                allocate_rods(bdot_dipole(bdot, gain), pinv, limits, u, ops)
            else:
                bang_bang_rods(bdot, axes, limits, u, ops)
        state[2] = 1.0
        state[3], state[4], state[5] = b[0], b[1], b[2]


@jitable
def wheels_momentum(axes, inertia, speeds) -> tuple:
    """``h = sum_i J_i W_i a_i`` (N m s, body axes): the wheels' momentum relative to the body, for
    :func:`dumping_dipole` (a wheel's axis ``a_i``, its inertia ``J_i`` about it, its speed ``W_i``)."""
    h0, h1, h2 = 0.0, 0.0, 0.0
    for i in range(min(len(axes), len(inertia), len(speeds))):
        a, j, speed = axes[i], inertia[i], speeds[i]
        h0, h1, h2 = h0 + a[0] * j * speed, h1 + a[1] * j * speed, h2 + a[2] * j * speed
    return (h0, h1, h2)


@jitable
def dumping_dipole(b, dh, gain) -> tuple:
    """``m = k (dh x B) / |B|^2`` (A m^2): the momentum-dumping dipole for the wheels' excess ``dh``
    (``h_wheels - h_target``, N m s, body axes) in the field ``b`` (T), ``k`` = ``gain`` (1/s);
    its torque ``m x B = -k dh_perp`` (the module docstring).  Arithmetic: floats or rows."""
    bx, by, bz = b
    hx, hy, hz = dh
    s = gain / (bx * bx + by * by + bz * bz)
    return (s * (hy * bz - hz * by), s * (hz * bx - hx * bz), s * (hx * by - hy * bx))


class MagneticControl:
    """The torquers' step, one implementation for one body (floats) and an ensemble (rows): at the start of each
    step, the field in body axes (what a magnetometer reads), the torquers' command held over the step (B-dot at
    its own sampling period, :class:`Bdot`, or momentum dumping at every step, :func:`dumping_dipole`) and the
    body's dipole (the command plus the residual dipole) that ``m x B`` acts with.

    ``settings`` is read for ``magnetorquer_set``, ``bdot_law``, ``bdot_period``, ``bdot_gain``,
    ``dumping_gain``, ``wheel_set`` and ``residual_dipole`` (a :class:`~sim.model.settings.Settings`).
    """

    def __init__(self, settings, ops=FLOAT):
        s = settings
        self.rods = s.magnetorquer_set
        self.bdot = None if s.bdot_law == "off" else Bdot(self.rods, s.bdot_period, s.bdot_gain, s.bdot_law, ops)
        self.dumping_gain = s.dumping_gain
        self.wheels = s.wheel_set
        self.residual = tuple(s.residual_dipole)
        self.ops = ops
        #: :data:`TORQUERS`' code of this control: off, B-dot, dumping.
        self.kind = BDOT if self.bdot is not None else (DUMPING if self.dumping_gain > 0.0 else OFF)

    def reset(self) -> None:
        """Forget the B-dot samples (a new run)."""
        if self.bdot is not None:
            self.bdot.reset()

    def __call__(self, t, q, b_eci, wheel_speeds=()) -> tuple:
        """``(b_body, m_cmd, dipole)`` at the step's start: ``t`` (s), the attitude ``q`` (read as the integrator
        reads it), the field ``b_eci`` (T, ECI) and the wheels' speeds (rad/s; for the dumping law):
        :func:`torquer_command`."""
        rods, bdot, wheels = self.rods, self.bdot, self.wheels
        if self.kind == OFF:
            return torquer_command(t, q, b_eci, (), OFF, 0, 1.0, 0.0, 0.0, (), (), (), (), (), _ZERO, self.residual,
                                   (), (), self.ops)
        if bdot is not None:
            state, u, law, period, gain = bdot.state, bdot.u, BDOT_LAWS.index(bdot.law), bdot.period, bdot.gain
        else:
            state, u, law, period, gain = (), [0.0] * len(rods.limits), 0, 1.0, 0.0
        w_axes, w_inertia = (wheels.axes, wheels.inertia) if wheels is not None else ((), ())
        return torquer_command(t, q, b_eci, wheel_speeds, self.kind, law, period, gain, self.dumping_gain, state, u,
                               rods.axes, rods._pinv, rods.limits, rods.residual, self.residual, w_axes, w_inertia,
                               self.ops)


#: The torquers' laws by their code in :func:`torquer_command`.
OFF, BDOT, DUMPING = 0, 1, 2
_ZERO = (0.0, 0.0, 0.0)


@jitable
def torquer_command(t, q, b_eci, speeds, kind, law, period, gain, dumping_gain, state, u, axes, pinv, limits,
                    rods_residual, residual, wheel_axes, wheel_inertia, ops=FLOAT) -> tuple:
    """:class:`MagneticControl` at a step's start: ``(b_body, m_cmd, dipole)``, the field ``b_eci`` turned into
    body axes by ``q`` (:func:`sim.core.angles.to_body`), the rods' command (``kind`` :data:`BDOT`:
    :func:`bdot_sample` with its ``state`` and held ``u``; :data:`DUMPING`: :func:`dumping_dipole` of the
    wheels' momentum, :func:`wheels_momentum`, through :func:`allocate_rods` into ``u``) made by the rods
    (:func:`rods_dipole`), and that plus the body's ``residual`` dipole."""
    b = to_body(q, b_eci)
    m = (0.0, 0.0, 0.0)
    if kind == BDOT:
        bdot_sample(t, b, state, u, period, gain, law, axes, pinv, limits, ops)
        m = rods_dipole(u, axes, rods_residual)
    elif kind == DUMPING:
        h = wheels_momentum(wheel_axes, wheel_inertia, speeds)
        allocate_rods(dumping_dipole(b, h, dumping_gain), pinv, limits, u, ops)
        m = rods_dipole(u, axes, rods_residual)
    r = residual
    return b, m, (m[0] + r[0], m[1] + r[1], m[2] + r[2])
