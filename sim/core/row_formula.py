"""The history row's derived values of one body, as one formula for Python and compiled code (issue 42).

:func:`body_readout` computes what :meth:`sim.model.simulation.Simulation._derived` reads off the state
``(Q, w, P)``: the aircraft angles from the Cayley matrix (Hoffmann (2.12), (7.21)), ``|Q| - 1``, Sherif's
multiplier (30), ``Q . P`` (Hoffmann (1.15)), the body momentum ``J w`` (Hoffmann (4.2)) and the Cayley
entries the inertial momentum is taken with; with norm handling ``elimination`` the attitude and its rate are
those of ``Q / |Q|`` (Joshi (25): ``d(Q/|Q|)/dt = P/|Q| - Q (Q.P)/|Q|^3``).  :func:`plain_row` lays out the
history row of a body without wheels or world (:func:`sim.model.rows.history_row`'s order, the one place that
knows it; a test checks the two against each other) and :func:`write_row` writes a row into row ``k`` of a
preallocated array: :func:`sim.core.advance.advance` calls them after each step, ``Simulation.row`` calls the
same text in Python, so a row is the same bits whichever path made it.

Angles use ``ops=None`` (:func:`sim.core.ops.hypot_of`): compiled and Python alike.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import dot_QQ, norm2_Q
from sim.core.angles import aircraft_angles_of, cayley_entries
from sim.core.energy import body_momentum, energy_of, inertial_momentum
from sim.core.jit import jitable
from sim.core.multiplier import multiplier
from sim.core.norm import unit

__all__ = ["DEG", "body_readout", "plain_row", "write_row", "PLAIN_COLUMNS", "NO_ROWS"]

#: Degrees per radian, as every angle column is written (``180 / pi``).
DEG = 180.0 / math.pi
#: The number of history columns of a body without wheels or world (:data:`sim.model.rows.HISTORY_COLUMNS`).
PLAIN_COLUMNS = 33
#: ``rows`` of :func:`sim.core.advance.advance` when no row is wanted: an empty array and no head.
NO_ROWS = (np.zeros((0, PLAIN_COLUMNS)), np.zeros(9))


@jitable
def body_readout(q, w, p, elimination, jr):
    """``(angles_deg, norm, multiplier, cayley, lb, q_dot_p)`` of the state ``(q, w, p)`` (module docstring):
    the aircraft angles (degrees) of the attitude read (``Q``, or ``Q / |Q|`` with ``elimination``), ``|Q| - 1``,
    Sherif's multiplier of the attitude read and its rate, its Cayley entries, ``J w`` and ``Q . P``."""
    lb = body_momentum(w, jr)
    qq = norm2_Q(q)
    q_dot_p = dot_QQ(q, p)
    if elimination:  # d(Q/|Q|)/dt = P/|Q| - Q (Q.P)/|Q|^3
        n = math.sqrt(qq)
        r = q_dot_p / qq
        qa = unit(q, None)
        pa = ((p[0] - q[0] * r) / n, (p[1] - q[1] * r) / n, (p[2] - q[2] * r) / n, (p[3] - q[3] * r) / n)
        qqa = 1.0
    else:
        qa, pa, qqa = q, p, qq
    c = cayley_entries(qa)
    psi, theta, phi = aircraft_angles_of(c, qqa, None)
    return ((psi * DEG, theta * DEG, phi * DEG), math.sqrt(qq) - 1.0, multiplier(qa, pa, jr), c, lb, q_dot_p)


@jitable
def plain_row(t, q, w, p, correction, elimination, jr, torque, qc, command_deg):
    """The history row (33 floats) of a body without wheels or world at ``t``: its state ``(q, w)``, ``p =
    dQ/dt``, the last norm correction, the torque law's torque at the state, the command quaternion and its
    angles (degrees)."""
    angles, norm, mult, c, lb, q_dot_p = body_readout(q, w, p, elimination, jr)
    energy = energy_of(w, lb)
    h = inertial_momentum(c, lb)
    return (t, q[0], q[1], q[2], q[3], w[0], w[1], w[2], angles[0], angles[1], angles[2], norm, mult, energy,
            h[0], h[1], h[2], torque[0], torque[1], torque[2], qc[0], qc[1], qc[2], qc[3], correction, 4.0 * energy,
            q_dot_p, angles[0], angles[1], angles[2], command_deg[0], command_deg[1], command_deg[2])


@jitable
def write_row(rows, k, row):
    """Row ``k`` of ``rows`` (an array, ``n`` x columns) set to the values ``row``."""
    for j in range(len(row)):
        rows[k, j] = row[j]
