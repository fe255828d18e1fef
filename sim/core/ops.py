"""The operations every physics formula of :mod:`sim` is written over, in two flavours.

Each formula (the integrators, the torque model, the norm modes, the
angles, SLERP, energy and momentum) is written once, with the arithmetic
operators and the few operations below, and takes the flavour as its
``ops`` argument:

* :data:`FLOAT`: Python floats, one body (:class:`sim.model.simulation.Simulation`);
* :data:`COLUMN`: numpy rows, one value per body (:class:`sim.ensemble.Ensemble`).

Arithmetic is the same in both: ``+ - * /`` on two floats and on two float64
rows round alike, so a formula that uses only arithmetic gives bit-identical
results on one body and on its column.  What remains different is in the
elementary functions, never in the formulas:

* ``sin``, ``cos``, ``atan2`` and two-argument ``hypot`` are libm's on floats
  (``math``) and numpy's on rows; numpy's own (vectorised) implementations may
  round differently in the last place (``atan2`` and ``hypot`` do, by one ulp,
  for some arguments: docs/PERFORMANCE.md, "Figures that were in
  docstrings"; ``sin`` and ``cos`` agreed, but numpy does not promise it on
  every machine).  That is why the Euler controller,
  which reads aircraft angles through ``atan2``/``hypot`` and applies
  ``sin``, agrees between the paths to about 1e-12 rather than bit for bit;
* ``hypot`` of more than two values is ``math.hypot`` (an accurate n-ary
  algorithm) on floats and the square root of the sum of squares, left to
  right, on rows (numpy has no n-ary hypot; unit-size inputs cannot
  overflow).  It is used only for Hoffmann's bivector angle, a readout.

A third flavour, ``None``, is one body in compiled code (:mod:`sim.core.jit`): a
formula called from a compiled kernel gets ``ops=None`` and reaches the operations
through :func:`sqrt_of`, :func:`select_of`, :func:`clip_of`, :func:`sin_of`, :func:`cos_of` and
:func:`atan2_of`, whose ``None`` branch (``math.sqrt``, a conditional, :func:`clip_float`, ``math.sin``, ...)
numba keeps and whose other branch
it prunes; on Python floats the two give the same bits as :data:`FLOAT`.

``sqrt`` is correctly rounded in both (IEEE 754), so the norm modes agree bit
for bit.  ``select(cond, a, b)`` (``a`` where ``cond``, else ``b``) and
``clip(x, low, high)`` (``min(max(x, low), high)``, NaN passes through) are
exact in both.  On floats ``select`` is an ordinary conditional; both of its
arguments are evaluated first, so a formula passes it values, not work.
``any(cond)`` (``bool`` on floats, ``numpy.any`` on rows) lets a formula
skip a rare branch that no body takes (the singular aircraft angles).

Where a new piece of physics goes (once, for both paths):

* a control torque term (part of the torque command the wheels realise):
  a function over ``ops`` in :mod:`sim.core.control`, added in
  :meth:`~sim.core.control.TorqueModel.__call__`, its settings read in
  :meth:`~sim.core.control.TorqueModel.configure`.  The ensemble's fused torque
  (:mod:`sim.ensemble.kernels`) knows a fixed list of the model's fields
  (a test fails on a new one): teach it the term, or leave the settings
  that use it out of :func:`sim.ensemble.kernels.covers`;
* an external torque (environment, disturbance) or an actuator: a function
  over ``ops`` (:mod:`sim.world.environment`, :mod:`sim.core.wheels`), added in
  :meth:`sim.model.loads.LoadModel.external` or :meth:`~sim.model.loads.LoadModel.__call__`,
  its settings read in :meth:`~sim.model.loads.LoadModel.configure`.  The load is
  evaluated at every integrator stage with the stage's time ``t`` (the same
  float for every body of an ensemble: take ``math`` functions of it, not
  ``ops``'s), and the fused kernels never see it (``kernels.covers`` leaves
  out settings with wheels or an external torque);
* a norm mode: a function in :mod:`sim.core.norm` and its name in ``NORM_MODES``
  (the fused step covers only the three of ``kernels.NORMS``; a new mode
  steps through the single source by itself);
* an integrator: a function with the shared signature in
  :mod:`sim.core.integrators` (``(q, w, p, dt, torque, body, t=None)``), in
  ``INTEGRATORS``; arithmetic only, so it runs on columns as written.  To
  carry reaction wheels it treats ``w`` as the whole rate state (body rates,
  then wheel speeds), takes its derivative from
  :func:`sim.core.integrators.rates_rhs` (Euler's equations, or the gyrostat's),
  and calls ``torque(q, w, t)`` at each stage's state and time; an
  integrator of ``(Q, P)`` feeds :func:`sim.core.wheels.equivalent_torque` to its
  rigid-body equation (see :func:`sim.core.integrators.full_quat`);
* a number a user gives: a field of :class:`sim.model.settings.Settings` (or of
  the ensemble spec) and its range in :data:`sim.io.limits.LIMITS`.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.jit import jitable

__all__ = ["Ops", "FLOAT", "COLUMN", "sqrt_of", "select_of", "clip_of", "clip_float", "sin_of", "cos_of",
           "atan2_of", "hypot_of", "any_of"]


class Ops:
    """A flavour of the operations (see the module docstring); attributes are plain functions."""

    __slots__ = ("name", "sqrt", "sin", "cos", "atan2", "hypot", "select", "clip", "any")

    def __init__(self, name, *, sqrt, sin, cos, atan2, hypot, select, clip, any):
        self.name = name
        self.sqrt, self.sin, self.cos, self.atan2 = sqrt, sin, cos, atan2
        self.hypot, self.select, self.clip, self.any = hypot, select, clip, any

    def __repr__(self) -> str:
        return f"<ops {self.name}>"


def _select_float(cond, a, b):
    return a if cond else b


@jitable
def clip_float(x, low, high):
    """``min(max(x, low), high)`` with one call; NaN fails both tests and passes through, as with min/max."""
    return low if x < low else (high if x > high else x)


@jitable
def sqrt_of(x, ops):
    """``ops.sqrt(x)``, or ``math.sqrt(x)`` for ``ops=None`` (one body, compiled)."""
    if ops is None:
        return math.sqrt(x)
    return ops.sqrt(x)


@jitable
def sin_of(x, ops):
    """``ops.sin(x)``, or ``math.sin(x)`` for ``ops=None`` (one body, compiled: libm's, as Python's)."""
    if ops is None:
        return math.sin(x)
    return ops.sin(x)


@jitable
def cos_of(x, ops):
    """``ops.cos(x)``, or ``math.cos(x)`` for ``ops=None`` (one body, compiled: libm's, as Python's)."""
    if ops is None:
        return math.cos(x)
    return ops.cos(x)


@jitable
def select_of(cond, a, b, ops):
    """``ops.select(cond, a, b)``, or ``a if cond else b`` for ``ops=None`` (one body, compiled)."""
    if ops is None:
        return a if cond else b
    return ops.select(cond, a, b)


@jitable
def clip_of(x, low, high, ops):
    """``ops.clip(x, low, high)``, or :func:`clip_float` for ``ops=None`` (one body, compiled)."""
    if ops is None:
        return clip_float(x, low, high)
    return ops.clip(x, low, high)


@jitable
def atan2_of(y, x, ops):
    """``ops.atan2(y, x)``, or ``math.atan2(y, x)`` for ``ops=None`` (one body, compiled)."""
    if ops is None:
        return math.atan2(y, x)
    return ops.atan2(y, x)


@jitable
def hypot_of(x, y, ops):
    """``ops.hypot(x, y)``, or ``math.sqrt(x * x + y * y)`` for ``ops=None`` (one body, compiled or its Python
    source): compiled ``math.hypot`` is libm's and CPython's is its own, and the two differ in the last place for
    about 0.2 % of arguments (measured here on 2 million pairs), so the ``None`` flavour takes the square root of
    the sum of squares, the same bits in both (a readout of unit-size values: nothing overflows)."""
    if ops is None:
        return math.sqrt(x * x + y * y)
    return ops.hypot(x, y)


@jitable
def any_of(cond, ops):
    """``ops.any(cond)``, or ``cond`` itself for ``ops=None`` (one body, compiled)."""
    if ops is None:
        return cond
    return ops.any(cond)


def _clip_column(x, low, high):
    return np.minimum(np.maximum(x, low), high)


def _hypot_column(*xs):
    if len(xs) == 2:
        return np.hypot(xs[0], xs[1])
    s = xs[0] * xs[0]
    for x in xs[1:]:
        s = s + x * x
    return np.sqrt(s)


#: Python floats: one body.
FLOAT = Ops("float", sqrt=math.sqrt, sin=math.sin, cos=math.cos, atan2=math.atan2, hypot=math.hypot,
            select=_select_float, clip=clip_float, any=bool)

#: numpy rows (shape (N,), or floats broadcast against them): one value per body.
COLUMN = Ops("column", sqrt=np.sqrt, sin=np.sin, cos=np.cos, atan2=np.arctan2, hypot=_hypot_column,
             select=np.where, clip=_clip_column, any=np.any)
