"""The reaction wheels' formulas in compiled code: the gyrostat's equations and the motor torques of
:mod:`sim.core.wheels`, walked from tables instead of written out as text (issue 42).

:mod:`sim.core.wheels` writes each wheel set's formulas out as Python text (:func:`sim.core.wheels.source`:
the constants in place, the terms whose constant is zero left out, equal constants grouped), which a
compiled kernel cannot call.  :func:`program` turns the same wheel set into two tables, from the same
terms (:attr:`sim.core.wheels.WheelSet.terms`) and the same grouping (:func:`sim.core.wheels.grouped`);
:func:`motor_torques` and :func:`gyrostat_rates` walk them term by term in the written text's order, so
that a compiled step with wheels (:mod:`sim.model.advance_craft`) gives the written formulas' numbers bit
for bit (tests/sim/model/test_advance_craft.py; the equations: the module docstring of
:mod:`sim.core.wheels`, Hughes, *Spacecraft Attitude Dynamics*, ch. 3).

``wheels`` (n, :data:`WHEEL_COLUMNS`): per wheel its row of ``-A+``, its axis, ``J_s``, ``u_max``,
``W_max``, the friction ``c`` and the direct motor command.  ``groups``: the grouped sums of the
momentum ``sum J_s a_i W_i`` and of the reaction ``sum a_i v_i``, one row ``(kind, axis, c0, first,
count)`` per group (kind 0 momentum, 1 reaction), then its members, rows ``(wheel, sign, 0, 0, 0)``
from row ``first`` on.
"""

from __future__ import annotations

import numpy as np

from sim.core.jit import jitable
from sim.core.wheels import grouped

__all__ = ["program", "grouped_sum", "motor_torques", "gyrostat_rates", "WHEEL_COLUMNS", "NO_WHEELS", "NO_GROUPS"]

#: The columns of :func:`program`'s wheel table.
WHEEL_COLUMNS = ("alloc_x", "alloc_y", "alloc_z", "axis_x", "axis_y", "axis_z", "inertia", "torque_limit",
                 "speed_limit", "friction", "direct")
#: The tables of a body without wheels.
NO_WHEELS = np.zeros((0, len(WHEEL_COLUMNS)))
NO_GROUPS = np.zeros((0, 5))


def program(wheels, direct=None) -> tuple:
    """``(wheels, groups)``, the tables of a :class:`~sim.core.wheels.WheelSet` (module docstring), with the
    direct motor commands ``direct`` (one per wheel, or None)."""
    if wheels is None:
        return NO_WHEELS, NO_GROUPS
    table = np.zeros((wheels.n, len(WHEEL_COLUMNS)))
    table[:, 0:3] = wheels.allocation
    table[:, 3:6] = wheels.axes
    table[:, 6] = wheels.inertia
    table[:, 7] = wheels.torque_limit
    table[:, 8] = wheels.speed_limit
    table[:, 9] = wheels.friction
    if direct is not None:
        table[:, 10] = direct
    axis_terms, momentum_terms, _ = wheels.terms
    heads, members = [], []
    for kind, terms_of in ((0, momentum_terms), (1, axis_terms)):
        for r in range(3):
            for c0, group in grouped([(c, i) for i, terms in enumerate(terms_of) for k, c in terms if k == r]):
                heads.append((kind, r, c0, len(members), len(group)))
                members.extend((i, sign, 0, 0, 0) for i, sign in group)
    groups = np.array(heads + members, dtype=float).reshape(-1, 5)
    groups[:len(heads), 3] += len(heads)  # the members follow the heads
    return np.ascontiguousarray(table), groups


@jitable
def _row_sum(m, r, x0, x1, x2):
    """Row ``r`` of the 3 x 3 constants ``m`` (row major) times ``x``, the zero entries left out, ``0.0`` when
    all are (:func:`sim.core.wheels.source`'s ``_row`` with constants)."""
    total = 0.0
    started = False
    for k in range(3):
        c = m[3 * r + k]
        if c != 0.0:
            term = c * (x0 if k == 0 else (x1 if k == 1 else x2))
            total = total + term if started else term
            started = True
    return total


@jitable
def grouped_sum(total, kind, r, groups, x, sign_of_sum):
    """``total +- c0 (x_a + x_b - x_c) +- ...``: the groups of ``kind`` on axis ``r`` added
    (``sign_of_sum`` 1) or taken away (-1), in their order (:func:`sim.core.wheels.grouped`)."""
    for g in range(groups.shape[0]):
        if groups[g, 3] == 0.0 and groups[g, 4] == 0.0:
            break  # the members' rows
        if int(groups[g, 0]) != kind or int(groups[g, 1]) != r:
            continue
        first, count = int(groups[g, 3]), int(groups[g, 4])
        inner = x[int(groups[first, 0])]
        for m in range(first + 1, first + count):
            inner = inner + x[int(groups[m, 0])] if groups[m, 1] > 0.0 else inner - x[int(groups[m, 0])]
        term = groups[g, 2] * inner
        total = total + term if sign_of_sum > 0 else total - term
    return total


@jitable
def motor_torques(t, speeds, direct_on, wheels, u):
    """The motor torques ``u_i`` (written into ``u``) that realise the body torque ``t``: ``-A+ t`` plus the
    direct command, then each wheel's torque and speed limits (:func:`sim.core.wheels.wheel_motor_torques`)."""
    for i in range(wheels.shape[0]):
        v = _row_sum(wheels[i, 0:3], 0, t[0], t[1], t[2])
        if direct_on:
            v = v + wheels[i, 10]
        fastest, most = wheels[i, 8], wheels[i, 7]
        lo = 0.0 if speeds[i] <= -fastest else -most
        hi = 0.0 if speeds[i] >= fastest else most
        u[i] = lo if v < lo else (hi if v > hi else v)


@jitable
def gyrostat_rates(w, speeds, e, u, jr, jfi, wheels, groups, v, ds):
    """The gyrostat's equations (:func:`sim.core.wheels.gyrostat_rhs`): ``dw/dt`` returned, ``dW_i/dt`` written
    into ``ds``; ``e`` the external torque, ``u`` the motor torques, ``jr`` and ``jfi`` the inertia's constants
    (nine each), ``v`` scratch for the net axial torques ``u_i - c_i W_i``."""
    wx, wy, wz = w[0], w[1], w[2]
    for i in range(wheels.shape[0]):
        c = wheels[i, 9]
        v[i] = u[i] - c * speeds[i] if c != 0.0 else u[i]
    hx = grouped_sum(_row_sum(jr, 0, wx, wy, wz), 0, 0, groups, speeds, 1)
    hy = grouped_sum(_row_sum(jr, 1, wx, wy, wz), 0, 1, groups, speeds, 1)
    hz = grouped_sum(_row_sum(jr, 2, wx, wy, wz), 0, 2, groups, speeds, 1)
    r0 = grouped_sum(e[0] - (wy * hz - wz * hy), 1, 0, groups, v, -1)
    r1 = grouped_sum(e[1] - (wz * hx - wx * hz), 1, 1, groups, v, -1)
    r2 = grouped_sum(e[2] - (wx * hy - wy * hx), 1, 2, groups, v, -1)
    ax = _row_sum(jfi, 0, r0, r1, r2)
    ay = _row_sum(jfi, 1, r0, r1, r2)
    az = _row_sum(jfi, 2, r0, r1, r2)
    for i in range(wheels.shape[0]):
        d = v[i] / wheels[i, 6]
        for k in range(3):
            c = wheels[i, 3 + k]
            if c != 0.0:
                d = d - c * (ax if k == 0 else (ay if k == 1 else az))
        ds[i] = d
    return (ax, ay, az)
