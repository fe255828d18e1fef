"""A spacecraft's history row as one formula, for the compiled loop and the Python row alike (issue 42).

:func:`craft_row` writes the row of :func:`sim.model.rows.history_row` (its order, :func:`sim.model.rows.history_columns`)
of a body with wheels and a world after a step of :func:`sim.model.advance_craft.advance_craft`: the state's
readout (:func:`sim.core.row_formula.body_readout`), the energy ``1/2 w^T J w + sum J_s,i W_i (a_i . w + W_i / 2)``
and the momentum ``C^T (J w + sum a_i J_s,i W_i)`` with the wheels (:func:`sim.core.wheels.gyrostat_energy`,
:func:`sim.core.wheels.total_momentum`; Hughes, *Spacecraft Attitude Dynamics*, ch. 3), the load at the state
(:func:`sim.model.craft_torques.craft_load`: the motor torques, and the body torque ``T_ext - sum a_i (u_i - c_i W_i)``
of :meth:`sim.model.loads.LoadModel.body_torque`), the world's orbit and Sun columns, the pointing error
(:func:`sim.gnc.pointing.pointing_error`), the field and the torquers' dipole, the environment torques one by one
(:func:`sim.model.craft_torques.torque_parts`), the angles against the orbit frame (Hoffmann (2.1),
:func:`sim.world.environment.to_orbit_frame`; or LVLH, Markley & Crassidis (2.77), :func:`lvlh_attitude`), the
command's angles (Hoffmann (7.21)).  :meth:`sim.model.records.Records.row` calls the same text in Python, so a
row is the same bits whichever path wrote it.  What the world array does not hold is ``look`` (:data:`LOOK`).
"""

from __future__ import annotations

import numpy as np

from sim.core.algebra import norm2_Q, product_QQ
from sim.core.angles import aircraft_angles_of, cayley_entries, from_cayley_entries
from sim.core.energy import energy_of, inertial_momentum
from sim.core.jit import jitable
from sim.core.norm import unit
from sim.core.row_formula import DEG, body_readout
from sim.core.thrusters import fuel_used
from sim.core.wheel_program import grouped_sum
from sim.gnc.sensing import estimate_row
from sim.gnc.pointing import commanded_axis, pointing_error, two_vector
from sim.model.craft_torques import craft_load, law_command, torque_parts
from sim.model.thruster_drive import count_on_times
from sim.world.environment import to_orbit_frame

__all__ = ["LOOK", "LOOK_SIZE", "NO_ROWS", "craft_row", "lvlh_attitude", "angles_deg", "wheel_energy",
           "wheel_momentum", "wheel_reaction", "looked", "thruster_values"]

#: Layout of ``look``: the command's sign as written (:attr:`sim.core.command.Command.written`), the pointing
#: axis, 1 where the row has the orbit's, the field's and the torques' columns, 1 when a moving mode sends the
#: axis to ``reference`` (ECI), the field in body axes and the torquers' dipole of the step.
#: Then 1 when the row has an estimator's columns (read from the navigation's arrays, ``nav``), the thrusters'
#: count, the fuel the drives before this one burnt (:attr:`sim.model.thruster_drive.ThrusterDrive.fuel_before`)
#: and, past :data:`LOOK_SIZE`, each thruster's specific impulse.
LOOK = {"sign": (0, 1), "axis": (1, 3), "orbit": (4, 1), "magnetic": (5, 1), "torques": (6, 1), "moving": (7, 1),
        "reference": (8, 3), "b_body": (11, 3), "dipole": (14, 3), "estimate": (17, 1), "thrusters": (18, 1),
        "fuel_before": (19, 1)}
LOOK_SIZE = 20
#: ``rows`` of :func:`sim.model.advance_craft.advance_craft` when no row is wanted.
NO_ROWS = (np.zeros((0, 0)), np.zeros(LOOK_SIZE))


@jitable
def lvlh_attitude(q, r, v):
    """The attitude relative to LVLH (Markley & Crassidis (2.77)): ``Q_r = Q . Q_o'``, ``Q_o`` the LVLH triad's
    quaternion (z to nadir, x along the velocity, :func:`sim.gnc.pointing.two_vector`)."""
    qo = from_cayley_entries(two_vector((0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (-r[0], -r[1], -r[2]), v, None), None)
    return product_QQ(q, (-qo[0], -qo[1], -qo[2], qo[3]))


@jitable
def angles_deg(q):
    """The aircraft angles of ``q`` in degrees, Hoffmann (7.21) (:func:`sim.core.angles.aircraft_angles_of`)."""
    a = aircraft_angles_of(cayley_entries(q), norm2_Q(q), None)
    return (a[0] * DEG, a[1] * DEG, a[2] * DEG)


@jitable
def wheel_energy(w, speeds, jr, wheels):
    """``1/2 w^T J w + sum J_s,i W_i (a_i . w + W_i / 2)`` (:func:`sim.core.wheels.gyrostat_energy`), the
    axis's zero components left out as the written formula leaves them."""
    wx, wy, wz = w[0], w[1], w[2]
    e = 0.5 * (wx * (jr[0] * wx + jr[1] * wy + jr[2] * wz) + wy * (jr[3] * wx + jr[4] * wy + jr[5] * wz)
               + wz * (jr[6] * wx + jr[7] * wy + jr[8] * wz))
    for i in range(wheels.shape[0]):
        aw = 0.0
        started = False
        for k in range(3):
            c = wheels[i, 3 + k]
            if c != 0.0:
                term = c * w[k]
                aw = aw + term if started else term
                started = True
        s = speeds[i]
        e = e + wheels[i, 6] * s * (aw + 0.5 * s)
    return e


@jitable
def wheel_momentum(w, speeds, jr, groups):
    """``J w + sum a_i J_s,i W_i``, body axes (:func:`sim.core.wheels.total_momentum`; the grouped sums of
    :func:`sim.core.wheel_program.grouped_sum`)."""
    wx, wy, wz = w[0], w[1], w[2]
    return (grouped_sum(jr[0] * wx + jr[1] * wy + jr[2] * wz, 0, 0, groups, speeds, 1),
            grouped_sum(jr[3] * wx + jr[4] * wy + jr[5] * wz, 0, 1, groups, speeds, 1),
            grouped_sum(jr[6] * wx + jr[7] * wy + jr[8] * wz, 0, 2, groups, speeds, 1))


@jitable
def wheel_reaction(u, speeds, wheels, groups, v):
    """``-sum a_i v_i``, ``v_i = u_i - c_i W_i`` (``v`` scratch): the torque of the wheels' motors and friction on
    the body (:func:`sim.core.wheels.wheel_reaction`)."""
    for i in range(wheels.shape[0]):
        c = wheels[i, 9]
        v[i] = u[i] - c * speeds[i] if c != 0.0 else u[i]
    r0 = -grouped_sum(0.0, 1, 0, groups, v, 1)
    r1 = -grouped_sum(0.0, 1, 1, groups, v, 1)
    r2 = -grouped_sum(0.0, 1, 2, groups, v, 1)
    return (r0, r1, r2)


@jitable
def looked(look, out, mag, inp):
    """``look``'s reference, field and dipole of the world :func:`sim.model.advance_craft.next_world` made last."""
    if inp[36] != 0.0:
        for j in range(3):
            look[8 + j] = out[23 + j]
    if inp[37] != 0.0:
        for j in range(6):
            look[11 + j] = mag[20 + j]


@jitable
def craft_row(rows, k, q, w, p, correction, speeds, t, world, par, flags, wheels, groups, table, u, v, look, nav,
              thr):
    """Row ``k`` of ``rows`` set to the history row at ``t`` of the state ``(q, w, speeds)`` (``p``: full-quat's
    ``dQ/dt``, else ``1/2 V^T(Q) w``) in the step's ``world`` (module docstring); ``u``, ``v`` scratch
    of one entry per wheel.  With an estimator (``look``'s ``estimate``) its columns from the navigation's arrays
    ``nav`` (:data:`sim.model.craft_nav.NAV_FIELDS`; :func:`sim.gnc.sensing.estimate_row` against the attitude,
    and the sensors' timeline of :data:`sim.model.navigation.AVAILABILITY_COLUMNS`); with thrusters their
    columns from the drive's arrays ``thr`` (:func:`thruster_values`)."""
    jr = (par[16], par[17], par[18], par[19], par[20], par[21], par[22], par[23], par[24])
    elimination = flags[1] == 3
    angles, norm, mult, c, lb, q_dot_p = body_readout(q, w, p, elimination, jr)
    e = craft_load(q, w, speeds, t, world, par, flags, jr, wheels, table, u)
    n = wheels.shape[0]
    locked = energy_of(w, lb)
    if n == 0:
        energy, h, torque = locked, inertial_momentum(c, lb), e
    else:
        energy = wheel_energy(w, speeds, jr, wheels)
        h = inertial_momentum(c, wheel_momentum(w, speeds, jr, groups))
        r = wheel_reaction(u, speeds, wheels, groups, v)
        torque = (e[0] + r[0], e[1] + r[1], e[2] + r[2])
    qc = (world[24], world[25], world[26], world[27])
    written = qc if look[0] == 1.0 else (-qc[0], -qc[1], -qc[2], -qc[3])
    row = rows[k]
    head = (t, q[0], q[1], q[2], q[3], w[0], w[1], w[2], angles[0], angles[1], angles[2], norm, mult, energy,
            h[0], h[1], h[2], torque[0], torque[1], torque[2], written[0], written[1], written[2], written[3])
    for j in range(24):
        row[j] = head[j]
    for i in range(n):
        row[24 + i] = speeds[i]
        row[24 + n + i] = u[i]
    j = 24 + 2 * n
    qa = unit(q, None) if elimination else q
    if look[4] != 0.0:
        for m in range(9):
            row[j + m] = world[3 + m]
        row[j + 9] = world[13]
        b1 = (look[1], look[2], look[3])
        ref = (look[8], look[9], look[10]) if look[7] != 0.0 else commanded_axis(qc, b1)
        row[j + 10] = pointing_error(qa, b1, ref, None) * DEG
        j += 11
    if look[5] != 0.0:
        for m in range(6):
            row[j + m] = look[11 + m]
        j += 6
    if look[6] != 0.0:
        parts = torque_parts(q, t, world, par, flags, jr, table)
        for a in range(4):
            for m in range(3):
                row[j + 3 * a + m] = parts[a][m]
        j += 12
    estimated = look[17] != 0.0
    je = j
    if estimated:
        estimate_row((qa[0], qa[1], qa[2], qa[3]), nav[7], nav[9], nav[10], nav[8], nav[1][0] == 3.0, 0, row, j,
                     np.empty(6))
        j += 17
    if look[18] != 0.0:
        j = thruster_values(row, j, thr, look)
    if flags[9] == 1:
        o = angles_deg(to_orbit_frame(qa, t, par[35]))
    elif flags[9] == 2:
        o = angles_deg(lvlh_attitude(qa, (world[3], world[4], world[5]), (world[6], world[7], world[8])))
    else:
        o = angles
    cd = angles_deg(qc)
    tail = (correction, 4.0 * locked, q_dot_p, o[0], o[1], o[2])
    for m in range(6):
        row[j + m] = tail[m]
    j += 6
    if n > 0:
        bh = inertial_momentum(c, lb)
        command = law_command(q, w, world, par, flags)
        extra = (bh[0], bh[1], bh[2], command[0], command[1], command[2])
        for m in range(6):
            row[j + m] = extra[m]
        j += 6
    row[j], row[j + 1], row[j + 2] = cd[0], cd[1], cd[2]
    if estimated:  # the history's -3 sigma and the sensors' timeline (sim.model.rows' _timeline)
        available = nav[11]
        for m in range(3):
            row[j + 3 + m] = -row[je + 7 + m]
        for m in range(4):
            row[j + 6 + m] = 3.0 - m + 0.6 * available[0, m]


@jitable
def thruster_values(row, j, thr, look):
    """The thrusters' columns (:func:`sim.model.thruster_drive.thruster_columns`) into ``row`` from ``j``, as
    :meth:`sim.model.thruster_drive.ThrusterDrive.values`: each level of the step just taken, the force held, the
    fuel ``fuel_before + sum F_i t_i / (Isp_i g0)`` (:func:`sim.core.thrusters.fuel_used`) of the on-times counted
    to now (:func:`sim.model.thruster_drive.count_on_times`, as reading the fuel counts them); the next column."""
    x, n = thr[0], int(look[18])
    count_on_times(x, thr[1], n)
    for i in range(n):
        row[j + i] = x[17 + i]
    for m in range(3):
        row[j + n + m] = x[14 + m]
    row[j + n + 3] = look[19] + fuel_used(thr[5], look[LOOK_SIZE:LOOK_SIZE + n], x[17 + n:])
    return j + n + 4
