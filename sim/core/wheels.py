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

The formulas are written once, here, over :mod:`sim.core.ops`: arithmetic,
comparisons, ``ops.select`` and ``ops.clip``, so that one body (floats) and
the ensemble's columns (numpy rows) get them bit for bit alike.  Because a
wheel set's constants (axes, inertias, limits, the allocation) are fixed
while it flies, and a loop over wheels in Python costs more than the
arithmetic, each :class:`WheelSet` writes them out for its own wheels
(:class:`Formulas`): one straight-line Python function per formula, the
constants in place (``repr``, exact), the terms whose constant is zero left
out (an orthogonal wheel's other two axis components: a zero product adds
exactly nothing to a finite sum), and on floats ``ops.select`` and
``ops.clip`` spelt as the conditional expressions they are
(:data:`sim.core.ops.FLOAT`).  :func:`source` shows the text.  The public
functions below call them.  The generation pays on one body: the same
formulas as plain loops over the wheels made its step with wheels more than
twice as slow (issue 29; docs/PERFORMANCE.md, "Reaction wheels: generated
formulas"), against nothing on the ensemble's columns.

Ranges (how many wheels, the lengths of the per-wheel lists, a start speed
within the speed limit) are the settings layer's to check
(:mod:`sim.model.wheel_settings`); :func:`wheel_set` builds what it is given.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from sim.core.algebra import cross_VV, matvec_MV
from sim.core.energy import energy_of
from sim.core.jit import jitable
from sim.core.ops import FLOAT

__all__ = ["LAYOUTS", "WheelSet", "Formulas", "source", "layout_axes", "wheel_set", "free_inertia",
           "wheel_motor_torques", "gyrostat_rhs", "total_momentum", "gyrostat_energy", "wheel_reaction",
           "equivalent_torque", "PYRAMID_TILT_DEG", "grouped"]

#: Wheel layouts by name (besides a list of axes).
LAYOUTS = ("none", "orthogonal", "pyramid")
#: Tilt of the pyramid's wheel axes from the body z axis: ``cos = 1/sqrt(3)``, so that
#: ``A A^T = 4/3 I`` and the four wheels give the same torque about every axis.
PYRAMID_TILT_DEG = math.degrees(math.acos(1.0 / math.sqrt(3.0)))


def layout_axes(layout) -> tuple:
    """The unit axes of a layout: ``"none"`` (no wheel), ``"orthogonal"``, ``"pyramid"``, or axes as given.

    ``orthogonal``: three wheels along body x, y, z.  ``pyramid``: four wheels
    at azimuths 0, 90, 180, 270 deg about body z, each tilted
    :data:`PYRAMID_TILT_DEG` from z: ``(s, 0, c), (0, s, c), (-s, 0, c), (0, -s, c)``
    with ``c = 1/sqrt(3)``, ``s = sqrt(2/3)``.  Given axes are returned as they
    are (:func:`sim.model.settings.validate` made them unit vectors).
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
    # rounding leaves ~1e-17 where the exact inverse has zeros (the pyramid's 3/4 A^T): zeros they are
    pinv[np.abs(pinv) < 1e-14 * np.abs(pinv).max()] = 0.0
    return tuple(tuple(float(-x) + 0.0 for x in row) for row in pinv)


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
        object.__setattr__(self, "_kept", {})

    @property
    def terms(self) -> tuple:
        """``(axis, momentum, allocation)``: per wheel, the non-zero components ``((k, value), ...)`` of its
        axis, of ``J_s,i a_i`` and of its row of ``-A+`` (what the formulas are written from)."""
        return self._axis_terms, self._momentum_terms, self._allocation_terms

    @property
    def key(self) -> tuple:
        """What defines the wheels (equal keys: the same formulas)."""
        return (self.axes, self.inertia, self.torque_limit, self.speed_limit, self.friction, self.allocation)

    def formulas(self, ops, inertia=None) -> Formulas:
        """This wheel set's :class:`Formulas` in the flavour ``ops`` (written out once per wheel set, then kept).

        ``inertia``: ``(jr, jfi)`` as floats, written into ``rhs`` (see :func:`source`).
        """
        key = ops.name if inertia is None else (ops.name, inertia)
        f = self._kept.get(key)
        if f is None:
            f = self._kept[key] = _formulas(self.key, ops, inertia)
        return f

    @functools.cached_property
    def arithmetic(self) -> Formulas:
        """The formulas that are arithmetic only (``rhs``, ``momentum``, ``reaction``, ``energy``): the same
        text in both flavours, so one set serves floats and columns."""
        return self.formulas(FLOAT)

    @property
    def momentum_capacity(self) -> tuple:
        """``J_s,i W_max,i`` per wheel, N m s: the momentum each can store relative to the body."""
        return tuple(j * s for j, s in zip(self.inertia, self.speed_limit))


def per_wheel(value, n: int) -> tuple:
    """One number for every wheel, or one per wheel, as ``n`` floats (ValueError for another count)."""
    if isinstance(value, (int, float)):
        return (float(value),) * n
    value = tuple(value)
    if len(value) != n:
        raise ValueError(f"{len(value)} values for {n} wheels")
    return tuple(float(v) for v in value)


def wheel_set(settings) -> WheelSet | None:
    """The :class:`WheelSet` of ``settings`` (None without wheels); no range checks (see the module docstring).

    ``wheel_inertia``, ``wheel_torque_limit``, ``wheel_speed_limit`` and
    ``wheel_friction`` are one number for every wheel or one per wheel.
    """
    axes = layout_axes(settings.wheels)
    n = len(axes)
    if not n:
        return None
    return WheelSet(n=n, axes=axes, inertia=per_wheel(settings.wheel_inertia, n),
                    torque_limit=per_wheel(settings.wheel_torque_limit, n),
                    speed_limit=per_wheel(settings.wheel_speed_limit, n),
                    friction=per_wheel(settings.wheel_friction, n),
                    allocation=_allocation(axes))


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
_W = ("wx", "wy", "wz")
_E = ("ex", "ey", "ez")


def _dot(terms, names) -> list:
    """``["c * name", ...]`` of ``((k, c), ...)`` over ``names``."""
    return [f"{c!r} * {names[k]}" for k, c in terms]


def _joined(first: str, parts: list, op: str = " + ") -> str:
    return op.join([first, *parts]) if first else (op.join(parts) if parts else "0.0")


def _unpack(names, source: str) -> str:
    return f"    {', '.join(names)}, = {source}"


def _row(prefix: str, r: int, names, constants=None) -> str:
    """Row ``r`` of a 3 x 3 matrix times ``names``: ``j0 * wx + j1 * wy + j2 * wz`` over the matrix's names
    ``prefix0..8``, or over its ``constants`` (floats) with the zero entries left out."""
    if constants is None:
        return " + ".join(f"{prefix}{3 * r + k} * {x}" for k, x in enumerate(names))
    return _joined("", [f"{constants[3 * r + k]!r} * {x}" for k, x in enumerate(names) if constants[3 * r + k] != 0.0])


def grouped(terms) -> list:
    """``[(c0, ((x1, 1), (x2, 1), (x3, -1))), ...]`` of ``[(c, x), ...]``: terms whose constants are equal or
    opposite share one product ``c0 (x1 + x2 - x3)`` (the pyramid's four wheels have one tilt), in the order
    of their first term.  The one grouping both the written formulas (:func:`source`) and the compiled ones
    (:mod:`sim.core.wheel_program`) follow."""
    groups = {}
    for c, x in terms:
        groups.setdefault(abs(c), []).append((c, x))
    return [(members[0][0], tuple((x, 1 if c == members[0][0] else -1) for c, x in members))
            for members in groups.values()]


def _grouped(terms) -> list:
    """``["c * x", "c * (x1 + x2 - x3)", ...]`` of ``[(c, "x"), ...]`` (:func:`grouped`)."""
    out = []
    for c0, members in grouped(terms):
        if len(members) == 1:
            out.append(f"{c0!r} * {members[0][0]}")
            continue
        inner = members[0][0] + "".join((" + " if sign > 0 else " - ") + x for x, sign in members[1:])
        out.append(f"{c0!r} * ({inner})")
    return out


def _momentum_lines(wheels, jr=None) -> list:
    """``hx, hy, hz = J w + sum a_i J_s,i W_i`` (``J`` the names ``j0..j8``, or the constants ``jr``)."""
    lines = []
    for r, h in enumerate(("hx", "hy", "hz")):
        extra = _grouped([(b, f"s{i}") for i, terms in enumerate(wheels._momentum_terms) for k, b in terms if k == r])
        lines.append(f"    {h} = " + _joined(_row("j", r, _W, jr), extra))
    return lines


def _net_lines(wheels) -> list:
    """``v_i = u_i - c_i W_i`` (only where there is friction)."""
    return [f"    v{i} = u{i} - {c!r} * s{i}" if c != 0.0 else f"    v{i} = u{i}" for i, c in enumerate(wheels.friction)]


def _reaction(wheels, r: int) -> list:
    """The terms ``a_i[r] v_i`` of the wheels' reaction ``-sum a_i v_i`` on body axis ``r`` (grouped)."""
    return _grouped([(a, f"v{i}") for i, terms in enumerate(wheels._axis_terms) for k, a in terms if k == r])


def source(wheels, ops, inertia=None) -> str:
    """The Python text of the :class:`Formulas` of ``wheels`` for the flavour ``ops``.

    ``inertia``: ``(jr, jfi)``, floats, written into ``rhs`` as constants (its
    arguments ``jr`` and ``jfi`` are then not read), for a body (or an ensemble
    whose bodies share it) of that inertia.
    """
    jr, jfi = inertia if inertia is not None else (None, None)
    n = wheels.n
    s = [f"s{i}" for i in range(n)]
    u = [f"u{i}" for i in range(n)]
    inline = ops.name == "float"
    out = []
    # motor torques: u = -A+ t (+ direct), then the torque and speed limits as one clip
    out.append("def motor_load(t, speeds, direct, ext):")
    out.append("    tx, ty, tz = t[0], t[1], t[2]")
    out.append(_unpack(s, "speeds"))
    for i, terms in enumerate(wheels._allocation_terms):
        out.append(f"    u{i} = " + _joined("", _dot(terms, ("tx", "ty", "tz"))))
    out.append("    if direct is not None:")
    out.extend(f"        u{i} = u{i} + direct[{i}]" for i in range(n))
    for i, (most, fastest) in enumerate(zip(wheels.torque_limit, wheels.speed_limit)):
        if inline:
            out.append(f"    lo{i} = 0.0 if s{i} <= {-fastest!r} else {-most!r}")
            out.append(f"    hi{i} = 0.0 if s{i} >= {fastest!r} else {most!r}")
            out.append(f"    u{i} = lo{i} if u{i} < lo{i} else (hi{i} if u{i} > hi{i} else u{i})")
        else:
            out.append(f"    lo{i} = select(s{i} <= {-fastest!r}, 0.0, {-most!r})")
            out.append(f"    hi{i} = select(s{i} >= {fastest!r}, 0.0, {most!r})")
            out.append(f"    u{i} = clip(u{i}, lo{i}, hi{i})")
    out.append(f"    return (ext[0], ext[1], ext[2], {', '.join(u)})")
    out.append("")
    # the gyrostat's equations
    out.append("def rhs(w, load, jr, jfi):")
    out.append(_unpack(_W + tuple(s), "w"))
    out.append(_unpack(_E + tuple(u), "load"))
    if jr is None:
        out.append(_unpack([f"j{k}" for k in range(9)], "jr"))
    out.extend(_net_lines(wheels))
    out.extend(_momentum_lines(wheels, jr))
    cross = ("wy * hz - wz * hy", "wz * hx - wx * hz", "wx * hy - wy * hx")
    for r, (e, c) in enumerate(zip(_E, cross)):
        out.append(f"    r{r} = " + _joined(f"{e} - ({c})", _reaction(wheels, r), " - "))
    if jfi is None:
        out.append(_unpack([f"f{k}" for k in range(9)], "jfi"))
    for r, a in enumerate(("ax", "ay", "az")):
        out.append(f"    {a} = " + _row("f", r, ("r0", "r1", "r2"), jfi))
    ds = []
    for i, (terms, js) in enumerate(zip(wheels._axis_terms, wheels.inertia)):
        ds.append(_joined(f"v{i} / {js!r}", [f"{c!r} * {('ax', 'ay', 'az')[k]}" for k, c in terms], " - "))
    out.append(f"    return (ax, ay, az, {', '.join(ds)})")
    out.append("")
    out.append("def momentum(w, jr):")
    out.append(_unpack(_W + tuple(s), "w"))
    out.append(_unpack([f"j{k}" for k in range(9)], "jr"))
    out.extend(_momentum_lines(wheels))
    out.append("    return (hx, hy, hz)")
    out.append("")
    out.append("def reaction(load, speeds):")
    out.append(_unpack(_E + tuple(u), "load"))
    out.append(_unpack(s, "speeds"))
    out.extend(_net_lines(wheels))
    for r in range(3):
        out.append(f"    r{r} = " + _joined("", ["-" + t for t in _reaction(wheels, r)][:1], "")
                   + "".join(" - " + t for t in _reaction(wheels, r)[1:]) if _reaction(wheels, r) else f"    r{r} = 0.0")
    out.append("    return (r0, r1, r2)")
    out.append("")
    out.append("def energy(w, jr):")
    out.append(_unpack(_W + tuple(s), "w"))
    out.append(_unpack([f"j{k}" for k in range(9)], "jr"))
    out.append("    e = 0.5 * (wx * (j0 * wx + j1 * wy + j2 * wz) + wy * (j3 * wx + j4 * wy + j5 * wz)"
               " + wz * (j6 * wx + j7 * wy + j8 * wz))")
    for i, (terms, js) in enumerate(zip(wheels._axis_terms, wheels.inertia)):
        aw = _joined("", _dot(terms, _W))
        out.append(f"    e = e + {js!r} * s{i} * ({aw} + 0.5 * s{i})")
    out.append("    return e")
    return "\n".join(out) + "\n"


class Formulas:
    """The formulas of one wheel set, written out for its wheels (:func:`source`) in one flavour of :mod:`sim.core.ops`.

    Attributes (functions)
    ----------------------
    motor_load(t, speeds, direct, ext)
        ``(ext..., u_1..u_n)``: the load of :func:`wheel_motor_torques`.
    rhs(w, load, jr, jfi)
        :func:`gyrostat_rhs`.
    momentum(w, jr)
        :func:`total_momentum`.
    reaction(load, speeds)
        :func:`wheel_reaction`.
    energy(w, jr)
        :func:`gyrostat_energy`.
    """

    def __init__(self, wheels, ops, inertia=None):
        namespace = {"select": ops.select, "clip": ops.clip}
        exec(compile(source(wheels, ops, inertia), f"<wheel formulas, {wheels.n} wheels, {ops.name}>", "exec"),
             namespace)
        self.motor_load = namespace["motor_load"]
        self.rhs = namespace["rhs"]
        self.momentum = namespace["momentum"]
        self.reaction = namespace["reaction"]
        self.energy = namespace["energy"]


@functools.lru_cache(maxsize=64)
def _formulas(key, ops, inertia=None) -> Formulas:
    axes, js, torque_limit, speed_limit, friction, allocation = key
    wheels = WheelSet(len(axes), axes, js, torque_limit, speed_limit, friction, allocation)
    return Formulas(wheels, ops, inertia)


def wheel_motor_torques(t, speeds, wheels: WheelSet, direct, ops):
    """The motor torques ``u_i`` that realise the body-torque command ``t``, after each wheel's limits.

    ``u_i = -(A+ t)_i + d_i`` (``d``: the direct motor commands, or None),
    then clipped to ``[lo_i, hi_i]``: ``+-u_max,i``, except that the bound on
    the side that would drive wheel ``i`` further beyond its speed limit is
    0 (``hi_i = 0`` where ``W_i >= W_max``, ``lo_i = 0`` where ``W_i <= -W_max``).
    """
    return wheels.formulas(ops).motor_load(t, speeds, direct, (0.0, 0.0, 0.0))[3:]


def total_momentum(w, jr, wheels: WheelSet | None):
    """``H = J w + sum a_i J_s,i W_i`` in body axes; ``w`` the rate state ``(wx, wy, wz, W_1, ..., W_n)``."""
    if wheels is None:
        return matvec_MV(jr, w)
    return wheels.arithmetic.momentum(w, jr)


def wheel_reaction(u, speeds, wheels: WheelSet):
    """``-sum a_i v_i``: the torque the wheels' motors and friction put on the body (``v_i = u_i - c_i W_i``)."""
    return wheels.arithmetic.reaction((0.0, 0.0, 0.0, *u), speeds)


def gyrostat_rhs(w, load, jr, jfi, wheels: WheelSet):
    """Time derivative of the rate state ``(wx, wy, wz, W_1..W_n)``: the gyrostat's equations.

    ``(J - sum J_s a a^T) dw/dt = T - w x H - sum a_i v_i`` and
    ``dW_i/dt = v_i / J_s,i - a_i . dw/dt`` (the module docstring), with
    ``load = (Tx, Ty, Tz, u_1, ..., u_n)``: the external torque on the body and
    the motor torques; ``jr`` the locked inertia ``J`` and ``jfi`` the inverse of
    :func:`free_inertia`, each 9 entries row major.  With no wheel these are
    Euler's equations, Hoffmann (4.3).
    """
    return wheels.arithmetic.rhs(w, load, jr, jfi)


@jitable
def equivalent_torque(w, acceleration, jr):
    """``J dw/dt + w x J w``: the torque that gives the rigid body of inertia ``J`` the gyrostat's ``dw/dt``.

    How full-quat, whose equation (Hoffmann (4.15)) is the rigid body's, takes
    the wheels: fed this torque, its ``dw/dt`` is the gyrostat's.
    """
    ja = matvec_MV(jr, acceleration)
    c = cross_VV(w, matvec_MV(jr, w))
    return (ja[0] + c[0], ja[1] + c[1], ja[2] + c[2])


def gyrostat_energy(w, jr, wheels: WheelSet | None):
    """Kinetic energy of the craft and its wheels: ``1/2 w^T J w + sum J_s,i W_i (a_i . w + W_i / 2)``.

    Equal to ``1/2 w^T (J - sum J_s a a^T) w + sum h_i^2 / (2 J_s,i)``; with
    no wheel ``1/2 w^T J w``, Hoffmann (5.1).
    """
    if wheels is None:
        return energy_of(w, matvec_MV(jr, w))
    return wheels.arithmetic.energy(w, jr)
