"""Handling of the quaternion norm ``|Q| = 1`` between steps.

Each mode maps ``q -> (q_new, correction)`` where ``correction = 1 - |Q|``
measured before the step's correction (0 for ``"none"``): the fraction by
which ``Q`` was stretched back onto the unit sphere.

Written once for one body and for the ensemble's columns: ``ops`` is
:data:`sim.ops.FLOAT` (the default) or :data:`sim.ops.COLUMN`, and the two
agree bit for bit (only arithmetic and a correctly rounded square root).
"""

from __future__ import annotations

from sim.ops import FLOAT

__all__ = ["NORM_MODES", "hoffmann", "renormalize", "none"]


def hoffmann(q, ops=FLOAT):
    """Hoffmann's norm controller ``Q <- Q + Q (1 - |Q|)`` (Appendix A, "Normalization controller").

    A first-order pull toward the unit sphere, independent of the step size.
    """
    q1, q2, q3, q4 = q
    qn = 1.0 - ops.sqrt(q1 * q1 + q2 * q2 + q3 * q3 + q4 * q4)
    return (q1 + q1 * qn, q2 + q2 * qn, q3 + q3 * qn, q4 + q4 * qn), qn


def renormalize(q, ops=FLOAT):
    """Projection ``Q <- Q / |Q|``."""
    q1, q2, q3, q4 = q
    n = ops.sqrt(q1 * q1 + q2 * q2 + q3 * q3 + q4 * q4)
    return (q1 / n, q2 / n, q3 / n, q4 / n), 1.0 - n


def none(q, ops=FLOAT):
    """No correction: shows how the integrator's norm drifts."""
    return q, 0.0


#: Norm modes by name, each ``mode(q, ops=FLOAT) -> (q_new, correction)``.
NORM_MODES = {"hoffmann": hoffmann, "renormalize": renormalize, "none": none}
