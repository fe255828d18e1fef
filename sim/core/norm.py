"""Handling of the quaternion norm ``|Q| = 1`` between steps.

Each mode maps ``q -> (q_new, correction)`` where ``correction = 1 - |Q|``
measured before the step's correction (0 for ``"none"`` and
``"elimination"``): the fraction by which ``Q`` was stretched back onto the
unit sphere.

``"elimination"`` (Joshi, Guy and Bowling 2022) corrects nothing either: the
constraint is eliminated rather than enforced.  The integrator carries an
unnormalised ``Q`` and everything that depends on the attitude reads it
through :func:`unit` (:data:`READS_UNIT`), see :func:`elimination`.

Written once for one body and for the ensemble's columns: ``ops`` is
:data:`sim.core.ops.FLOAT` (the default) or :data:`sim.core.ops.COLUMN`, and the two
agree bit for bit (only arithmetic and a correctly rounded square root).  Compiled
(:mod:`sim.core.advance`) they run with ``ops=None`` (:func:`sim.core.ops.sqrt_of`).
"""

from __future__ import annotations

from sim.core.algebra import norm2_Q
from sim.core.jit import jitable
from sim.core.ops import FLOAT, sqrt_of

__all__ = ["NORM_MODES", "READS_UNIT", "hoffmann", "renormalize", "none", "elimination", "unit"]


@jitable
def hoffmann(q, ops=FLOAT):
    """Hoffmann's norm controller ``Q <- Q + Q (1 - |Q|)`` (Appendix A, "Normalization controller").

    A first-order pull toward the unit sphere, independent of the step size.
    """
    q1, q2, q3, q4 = q
    qn = 1.0 - sqrt_of(norm2_Q(q), ops)
    return (q1 + q1 * qn, q2 + q2 * qn, q3 + q3 * qn, q4 + q4 * qn), qn


@jitable
def renormalize(q, ops=FLOAT):
    """Projection ``Q <- Q / |Q|``."""
    q1, q2, q3, q4 = q
    n = sqrt_of(norm2_Q(q), ops)
    return (q1 / n, q2 / n, q3 / n, q4 / n), 1.0 - n


@jitable
def none(q, ops=FLOAT):
    """No correction: shows how the integrator's norm drifts."""
    return q, 0.0


@jitable
def elimination(q, ops=FLOAT):
    """Joshi, Guy and Bowling's elimination: ``Q`` is carried as integrated, never corrected.

    The normality constraint is eliminated instead of enforced: everything
    that depends on the attitude is computed from the normalised rotation
    matrix, Joshi (25), ``R = R(e) / |e|^2``, which in Hoffmann's convention
    (``e0 = q4``, ``(e1, e2, e3) = -(q1, q2, q3)``: scalar first, and a body
    rotation where Hoffmann's ``Q`` is a coordinate rotation) is
    ``C(Q)^T / |Q|^2``, the Cayley matrix of :func:`unit` ``(Q)``: so the
    Cayley matrix, the angles, the controllers' error, the drawing and any
    attitude-dependent torque read ``Q / |Q|`` and never depend on ``|Q|``.
    ``|Q|`` drifts freely (the plots show it); there is no fault for it.

    The body rates are Joshi's quasi-velocities (27), ``w = 2 u``.  Converted
    to Hoffmann's convention (the same ``e <-> Q`` map) (27) reads
    ``w = 2 V(Q) dQ/dt`` (first three rows, Hoffmann (3.25)) for a unit
    ``Q``; for the normalised attitude of any ``Q`` it is
    ``w = 2 V(Q) dQ/dt / |Q|^2`` (:func:`sim.core.integrators.quasi_rates`),
    because the bilinear form ``u(e, de/dt)`` vanishes for ``de/dt = e``.
    Integrators whose state is ``(Q, w)`` carry these quasi-velocities
    themselves (``dQ/dt = 1/2 V^T(Q) [w; 0]`` turns ``Q / |Q|`` at exactly
    ``w``); full-quat derives them from ``(Q, P)`` with that conversion.
    """
    return q, 0.0


@jitable
def unit(q, ops=FLOAT):
    """``Q / |Q|`` (:func:`renormalize`'s projection): the attitude of the elimination mode, whose Cayley
    matrix is Joshi (25)."""
    return renormalize(q, ops)[0]


#: Norm modes by name, each ``mode(q, ops=FLOAT) -> (q_new, correction)``.
NORM_MODES = {"hoffmann": hoffmann, "renormalize": renormalize, "none": none, "elimination": elimination}
#: The modes whose attitude is read through :func:`unit` (everything else reads ``Q`` as carried).
READS_UNIT = frozenset({"elimination"})
