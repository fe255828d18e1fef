"""The compiled step of a spacecraft in its world: wheels, orbit, environment torques (issue 42).

:func:`advance_craft` takes up to ``n`` fixed steps of a body with reaction wheels (any number, any layout),
under the torque law of :func:`sim.core.advance.law_torque` (tracking a command quaternion with a rate
feed-forward, as a pointing mode asks), the wheels realising it within their torque and speed limits
(:mod:`sim.core.wheel_program`), and the external torques of :class:`sim.model.loads.LoadModel` in its
order: the gravity gradient (on the circular orbit of :func:`sim.world.environment.gravity_gradient_torque`,
or on the propagated orbit read at each stage's time, :func:`sim.world.orbit.mean_elements_state` and
:func:`sim.world.environment.gravity_gradient_at`), solar radiation pressure and drag on the body's facets
(:func:`sim.world.surfaces.srp_facets`, :func:`~sim.world.surfaces.drag_facets`), the torquers' dipole in
the field (:func:`sim.gnc.magnetic.magnetic_torque`, the field ``B + dB/dt (t - t_step)`` at each stage)
and the disturbance torque (:func:`sim.world.environment.disturbance_torque`), then the thrusters' torque held
over the step (issue 45): at the start of a step that may fire the kernel runs the thrusters' drive
(:func:`sim.model.thruster_drive.drive_step`, its state in the arrays ``thr``; any other step it only counts,
:func:`~sim.model.thruster_drive.drive_held`), which fires on the torque law's command (the thrusters then
realise the law: without wheels the body feels ``T_ext`` alone) or on the wheels' unloading command, and
writes the held torque into ``world``.  Half-quat or rk4, every
norm mode: the same formulas the Python step calls, with ``ops=None``, so each step is bit for bit
:meth:`sim.model.simulation.Simulation._step_python`'s.

What changes once per step (the world of :class:`sim.model.world.WorldState`, the torquers' dipole held
over the step, the command quaternion and its rate, the law's torque held at the estimate when the body flies
on it) is the array ``world`` (:data:`WORLD`), written by
the Python side before each call and, on a Kepler orbit, by the loop itself after each step
(:func:`next_world`: the world's numbers of :func:`sim.model.world_kernel.world_into`, the torquers' command
of :func:`sim.gnc.magnetic.torquer_command` with B-dot's sample state carried in ``mag``, the moving mode's
command with :meth:`~sim.core.command.Command.follow`'s sign rule and its rate feed-forward), so ``n`` steps
go in one call; the loop returns early where Python must act (a field sample's boundary, a fault).  During
a SLERP, or on a TLE's orbit, the Python side calls one step at a time and makes the world between steps.  What the
settings fix is ``par`` and ``flags`` (:func:`pack`), the wheels' tables (:func:`sim.core.wheel_program.program`)
and the facets' table (:attr:`sim.world.surfaces.Surfaces.table`).  The state ``(q, w, correction, W)``
is an array written back after the last good step; faults are a status (:mod:`sim.core.advance`).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.advance import INTEGRATORS as PLAIN_INTEGRATORS
from sim.core.advance import NORMS, CONTROLLERS, OK, inertia, normed, status_of
from sim.core.algebra import product_QQ
from sim.core.equations import euler_rhs, qdot, quasi_rates, rates
from sim.core.geometric import dexpinv, rotation_quaternion
from sim.core.norm import renormalize
from sim.core.integrators import FORM_CODES, axpy_Q, axpy_V, half_quat_update, quat_acceleration, rk4_sum_Q, rk4_sum_V
from sim.core.jit import jitable, kernel
from sim.core.jit_borrow import borrowed
from sim.core.wheel_program import gyrostat_rates
from sim.core.wheels import equivalent_torque
from sim.gnc.magnetic import ROD_COLUMNS, torquer_command
from sim.model.craft_nav import NO_NAV, end_step, start_step
from sim.model.craft_row import NO_ROWS, craft_row, looked
from sim.model.thruster_drive import (NO_THRUSTERS, drive_back, drive_held, drive_kept, drive_step, due,
                                      unloading_command)
from sim.model.craft_torques import craft_load, external, law_command
from sim.world.surfaces import pressure
from sim.model.world_kernel import FIELD_SAMPLE, sampled, world_into

__all__ = ["WARM_AFTER", "advance_craft", "covers", "pack", "external", "craft_step", "full_quat_step", "craft_load", "law_command", "PAR", "FLAGS", "WORLD", "NO_SURFACES",
           "NO_THRUSTERS", "NO_WORLD", "NO_RODS", "NO_ROWS", "MAG", "MAG_SIZE", "next_world"]

#: Layout of the craft's ``par``: :data:`sim.core.advance.PAR` (0-34), then name -> (first index, length).
PAR = {"rate": (35, 1), "disturbance": (36, 3), "period": (39, 1), "j_free_inv": (40, 9), "elements": (49, 9)}
#: Layout of the craft's ``flags``: :data:`sim.core.advance.FLAGS` (0-8), then name -> index.
FLAGS = {"gravity": 9, "disturbance_on": 10, "inertial": 11, "srp": 12, "drag": 13, "field": 14, "direct_on": 15,
         "outside": 16, "form": 17, "thrusters": 18}
#: The integrators the craft's step runs, by their code in ``flags`` (:data:`sim.core.advance.INTEGRATORS`, and
#: full-quat in the forms of :data:`sim.core.integrators.FORM_CODES`).
INTEGRATORS = {**PLAIN_INTEGRATORS, "full-quat": 2, "rkmk4": 3}
#: Layout of ``world``: name -> (first index, length).  ``steps`` is ``k - k0`` (the step's time is
#: ``t0 + steps dt``, as :class:`~sim.model.simulation.Simulation` counts it), ``t_world`` the time the world
#: was made at, ``pressure`` the signed solar pressure (:func:`sim.world.surfaces.pressure`), ``feed`` 1 when
#: the dampers act against ``w - w_c``, ``thrust`` the thrusters' torque held over the step (written by the kernel,
#: :func:`sim.model.thruster_drive.drive_step`), ``held`` 1 when the torque law flies on the estimate: its torque
#: ``torque``, made at the estimate of the step's start, held over the step (:class:`sim.model.navigation.HeldTorque`).
WORLD = {"t0": (0, 1), "steps": (1, 1), "t_world": (2, 1), "r": (3, 3), "v": (6, 3), "sun": (9, 3),
         "pressure": (12, 1), "sunlit": (13, 1), "b": (14, 3), "b_rate": (17, 3), "density": (20, 1),
         "dipole": (21, 3), "qc": (24, 4), "feed": (28, 1), "wc": (29, 3), "thrust": (32, 3), "held": (35, 1),
         "torque": (36, 3)}
_PAR_SIZE, _FLAG_SIZE, _WORLD_SIZE = 58, 19, 39
#: Steps a process takes in Python before it loads :func:`advance_craft` (about 0.5 s from the disk cache; a first
#: compile 10-30 s, once): a spacecraft's Python step costs 15 us (wheels alone) to 1 ms (208 facets), so
#: 2,000 steps are 0.03-2 s of Python (:data:`sim.core.advance.WARM_AFTER` for the plain body).
WARM_AFTER = 2_000
#: The facets' table of a body without surface torques.
NO_SURFACES = np.zeros((0, 13))
#: ``inp`` and ``out`` of :func:`advance_craft` without a world of its own (none, or one the caller makes).
NO_WORLD = np.zeros(0)
#: The rods' table of :func:`advance_craft` without magnetorquers (:attr:`sim.gnc.magnetic.Magnetorquers.table`).
NO_RODS = np.zeros((0, ROD_COLUMNS))


def covers(settings) -> bool:
    """True when :func:`advance_craft` steps a body of ``settings``: half-quat, rk4, rkmk4 or full-quat (not
    its ``kane`` form), no controller or the
    quaternion controller, every norm mode, any wheels, any environment torque, an orbit of elements (a TLE's
    SGP4 and the Euler controller, splitting step in Python), any sensors and estimator (the law's torque
    held over a step when it flies on the estimate: ``world``'s ``held``), any thrusters
    (:func:`sim.model.thruster_drive.drive_step` at each step's start; not with a law flown on the estimate), no
    CMGs (the kernel moves no gimbal: :mod:`sim.model.cmg_step`).  A user's torque function is the caller's to
    check (:meth:`sim.model.simulation.Simulation.step`)."""
    s = settings
    return (s.integrator in INTEGRATORS and (s.integrator != "full-quat" or s.full_quat_form in FORM_CODES)
            and s.controller in CONTROLLERS and s.norm in NORMS
            and s.tle is None and (s.has_orbit or not s.torques_on)
            and s.cmg == "none" and (s.thrusters == "none" or s.fly_on != "estimate"))


def pack(torque, load, body, dt, integrator, norm, elements=None, form="hoffmann") -> tuple:
    """``(par, flags)`` of a :class:`~sim.core.control.TorqueModel`, a :class:`~sim.model.loads.LoadModel`, the
    integrators' ``body`` (a :class:`~sim.core.body.Body` or a :class:`~sim.model.loads.Gyrostat`), ``dt``,
    the integrator's and norm mode's names and the orbit's mean elements (nine floats:
    :func:`sim.world.orbit.mean_elements_state`'s, or None without an orbit)."""
    par = np.zeros(_PAR_SIZE)
    par[0:3] = torque.command
    par[3:6] = torque.dampers
    par[6:10] = torque.qc
    par[10:13] = torque.gains
    par[13:16] = torque.limits
    par[16:25] = body.j_rows
    par[25:34] = body.j_inv_rows
    par[34] = dt
    par[35] = load.rate
    if load.disturbance is not None:
        par[36:39] = load.disturbance
    par[39] = load.period
    if getattr(body, "j_free_inv_rows", None) is not None:
        par[40:49] = body.j_free_inv_rows
    if elements is not None:
        par[49:58] = elements
    gravity = 0 if not load.gravity_gradient else (2 if load.orbit else 1)
    flags = np.array([INTEGRATORS[integrator], NORMS[norm], torque.dampers_on, torque.controller == "quaternion",
                      torque.axes[0], torque.axes[1], torque.axes[2], torque.shortest_path, torque.limiter_on,
                      gravity, load.disturbance is not None, load.inertial, load.srp, load.drag, load.field,
                      load.direct is not None, load.gravity_gradient or load.disturbance is not None or load.srp
                      or load.drag or load.field or load.thrust is not None, FORM_CODES.get(form, 0),
                      load.thrust is not None], dtype=np.int64)
    return par, flags


@jitable
def _fire(thr, q, w, speeds, world, par, flags, wheels):
    """The thrusters at a step's start (:func:`sim.model.thruster_drive.drive_step`, ``thr`` a drive's arrays): the
    torque law's command to fire on (without wheels) or the wheels' unloading; their torque into ``world``."""
    x, c = thr[0], thr[1]
    command = (0.0, 0.0, 0.0)
    if due(x, c):
        command = law_command(q, w, world, par, flags) if wheels.shape[0] == 0 else unloading_command(c, wheels, speeds)
    drive_step(x, c, q, (world[24], world[25], world[26], world[27]), (w[0], w[1], w[2]), command, thr[2], thr[3],
               thr[4], thr[5], thr[6])
    world[32], world[33], world[34] = x[11], x[12], x[13]


@jitable
def _rates(q, w, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, row):
    """``dw/dt`` at a stage (the wheels' ``dW/dt`` into ``buf[row]``): :func:`_load` through Euler's or the
    gyrostat's equations (:func:`sim.core.integrators.rates_rhs`)."""
    if wheels.shape[0] == 0:  # no motor torques to write: no view of buf made (speeds has the wheels' length, 0)
        return euler_rhs(w, craft_load(q, w, speeds, t, world, par, flags, jr, wheels, table, speeds), jr, jir)
    load = craft_load(q, w, speeds, t, world, par, flags, jr, wheels, table, buf[0])
    return gyrostat_rates(w, speeds, load, buf[0], jr, jfi, wheels, groups, buf[1], buf[row])


@jitable
def full_quat_step(q, p, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf):
    """:func:`sim.core.integrators.full_quat` (Hoffmann App. B, the form coded ``flags[17]``): ``(q, p)``
    returned, the wheels' new speeds in ``buf[7]``; the rates the torque law sees are ``rates_of(Q, P)``."""
    speeds, world, par, flags, wheels, groups, table, buf = borrowed((speeds, world, par, flags, wheels, groups, table,
                                                                      buf))
    dt = par[34]
    w = quasi_rates(q, p) if flags[1] == 3 else rates(q, p)
    if wheels.shape[0] == 0:
        a = quat_acceleration(q, p, craft_load(q, w, speeds, t, world, par, flags, jr, wheels, table, buf[0]), jr, jir,
                              flags[17])
    else:
        d = _rates(q, w, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 2)
        a = quat_acceleration(q, p, equivalent_torque(w, d, jr), jr, jir, flags[17])
        for i in range(wheels.shape[0]):
            buf[7, i] = speeds[i] + dt * buf[2, i]
    p1 = p[0] + dt * a[0]
    p2 = p[1] + dt * a[1]
    p3 = p[2] + dt * a[2]
    p4 = p[3] + dt * a[3]
    return (q[0] + dt * p1, q[1] + dt * p2, q[2] + dt * p3, q[3] + dt * p4), (p1, p2, p3, p4)


@jitable
def _rkmk4(q, w, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf):
    """:func:`sim.core.geometric.rkmk4` (Munthe-Kaas 1998): the attitude moved by the exponential map of the RK4
    combination of ``dexp^-1`` stages, the rate state by RK4; the wheels' new speeds in ``buf[7]``."""
    dt = par[34]
    n = wheels.shape[0]
    h = 0.5 * dt
    th = t + h
    stage = buf[8]
    k1w = _rates(q, w, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 2)
    k1 = w
    x2 = (h * k1[0], h * k1[1], h * k1[2])
    w2 = axpy_V(w, h, k1w)
    for i in range(n):
        stage[i] = speeds[i] + h * buf[2, i]
    q2 = product_QQ(rotation_quaternion(x2, None), q)
    k2w = _rates(q2, w2, stage, th, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 3)
    k2 = dexpinv(x2, w2)
    x3 = (h * k2[0], h * k2[1], h * k2[2])
    w3 = axpy_V(w, h, k2w)
    for i in range(n):
        stage[i] = speeds[i] + h * buf[3, i]
    q3 = product_QQ(rotation_quaternion(x3, None), q)
    k3w = _rates(q3, w3, stage, th, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 4)
    k3 = dexpinv(x3, w3)
    x4 = (dt * k3[0], dt * k3[1], dt * k3[2])
    w4 = axpy_V(w, dt, k3w)
    for i in range(n):
        stage[i] = speeds[i] + dt * buf[4, i]
    q4 = product_QQ(rotation_quaternion(x4, None), q)
    k4w = _rates(q4, w4, stage, t + dt, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 5)
    k4 = dexpinv(x4, w4)
    s = dt / 6.0
    theta = (s * (k1[0] + 2.0 * k2[0] + 2.0 * k3[0] + k4[0]), s * (k1[1] + 2.0 * k2[1] + 2.0 * k3[1] + k4[1]),
             s * (k1[2] + 2.0 * k2[2] + 2.0 * k3[2] + k4[2]))
    for i in range(n):
        buf[7, i] = speeds[i] + s * (buf[2, i] + 2.0 * buf[3, i] + 2.0 * buf[4, i] + buf[5, i])
    return product_QQ(rotation_quaternion(theta, None), q), rk4_sum_V(w, s, k1w, k2w, k3w, k4w)


@jitable
def craft_step(q, w, speeds, t, world, par, flags, wheels, groups, table, buf):
    """One step of the integrator coded in ``flags`` (:func:`sim.core.integrators.half_quat`,
    :func:`~sim.core.integrators.rk4`, :func:`sim.core.geometric.rkmk4`) from ``(q, w, speeds)`` at ``t``: ``(q, w)`` returned, the new wheel
    speeds in ``buf[7]`` (``buf`` rows: 0 motor torques, 1 net wheel torques, 2-5 the stages' ``dW/dt``,
    7 the result, 8 a stage's speeds).  Its arrays go down to the stages :func:`~sim.core.jit_borrow.borrowed`."""
    speeds, world, par, flags, wheels, groups, table, buf = borrowed((speeds, world, par, flags, wheels, groups, table,
                                                                      buf))
    jr, jir = inertia(par)
    jfi = (par[40], par[41], par[42], par[43], par[44], par[45], par[46], par[47], par[48])
    dt = par[34]
    n = wheels.shape[0]
    if flags[0] == 0:
        a = _rates(q, w, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 2)
        for i in range(n):
            buf[7, i] = speeds[i] + dt * buf[2, i]
        return half_quat_update(q, w, a, dt)
    h = 0.5 * dt
    th = t + h
    stage = buf[8]
    if flags[0] == 3:
        return _rkmk4(q, w, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf)
    k1q, k1w = qdot(q, w), _rates(q, w, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 2)
    for i in range(n):
        stage[i] = speeds[i] + h * buf[2, i]
    q2, w2 = axpy_Q(q, h, k1q), axpy_V(w, h, k1w)
    k2q, k2w = qdot(q2, w2), _rates(q2, w2, stage, th, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 3)
    for i in range(n):
        stage[i] = speeds[i] + h * buf[3, i]
    q3, w3 = axpy_Q(q, h, k2q), axpy_V(w, h, k2w)
    k3q, k3w = qdot(q3, w3), _rates(q3, w3, stage, th, world, par, flags, jr, jir, jfi, wheels, groups, table, buf, 4)
    for i in range(n):
        stage[i] = speeds[i] + dt * buf[4, i]
    q4, w4 = axpy_Q(q, dt, k3q), axpy_V(w, dt, k3w)
    k4q, k4w = qdot(q4, w4), _rates(q4, w4, stage, t + dt, world, par, flags, jr, jir, jfi, wheels, groups, table,
                                    buf, 5)
    s = dt / 6.0
    for i in range(n):
        buf[7, i] = speeds[i] + s * (buf[2, i] + 2.0 * buf[3, i] + 2.0 * buf[4, i] + buf[5, i])
    return rk4_sum_Q(q, s, k1q, k2q, k3q, k4q), rk4_sum_V(w, s, k1w, k2w, k3w, k4w)


#: Layout of ``mag``, the torquers of the compiled loop (:func:`next_world`): name -> (first index, length).
#: ``kind``, ``law``, ``period``, ``gain``, ``dumping_gain`` as :func:`sim.gnc.magnetic.torquer_command` takes
#: them, the rods' and the body's residual dipoles, the B-dot sample state (:attr:`sim.gnc.magnetic.Bdot.state`)
#: and, written by the loop, the field in body axes and the rods' dipole of the last world made.
MAG = {"kind": (0, 1), "law": (1, 1), "period": (2, 1), "gain": (3, 1), "dumping_gain": (4, 1),
       "rods_residual": (5, 3), "residual": (8, 3), "state": (11, 9), "b_body": (20, 3), "m_cmd": (23, 3)}
MAG_SIZE = 26


@jitable
def next_world(q, speeds, t, world, flags, wheels, inp, out, mag, rods) -> bool:
    """The world of the step at ``t`` made in the loop as :meth:`sim.model.simulation.Simulation._update_world`
    makes it after a step: :func:`sim.model.world_kernel.world_into` into ``out``, and into ``world`` (as
    :meth:`sim.model.craft_steps.CraftSteps._world_values` writes it) the orbit, Sun, solar pressure
    (:func:`sim.world.surfaces.pressure`), shadow, field and density; with a field the torquers' dipole
    (:func:`sim.gnc.magnetic.torquer_command` at the attitude the integrator reads, the B-dot state in ``mag``
    and the held rods in ``rods``' last column); in a moving mode the command, its sign continuous with the
    last (:meth:`sim.core.command.Command.follow`), and its rate feed-forward.  False, nothing made, when ``t``
    is past the field's samples in ``inp`` (the caller makes that world and the next samples)."""
    speeds, world, flags, wheels, inp, out, mag, rods = borrowed((speeds, world, flags, wheels, inp, out, mag, rods))
    if sampled(inp) and float(math.floor(t / FIELD_SAMPLE)) != inp[35]:
        return False
    world_into(inp, t, out)
    world[2] = t
    for j in range(3):
        world[3 + j] = out[1 + j]
        world[6 + j] = out[4 + j]
        world[9 + j] = out[7 + j]
        world[14 + j] = out[27 + j]
        world[17 + j] = out[30 + j]
    world[12] = pressure(out[10] * 1e3, out[11]) if flags[12] != 0 else 0.0
    world[13], world[20] = out[11], out[33]
    if inp[37] != 0.0:
        a = renormalize(q, None)[0] if flags[1] == 3 else q  # elimination reads Q / |Q| (sim.core.norm.unit)
        b, m, d = torquer_command(t, a, (out[27], out[28], out[29]), speeds, int(mag[0]), int(mag[1]), mag[2],
                                  mag[3], mag[4], mag[11:20], rods[:, 7], rods[:, 0:3], rods[:, 3:6], rods[:, 6],
                                  (mag[5], mag[6], mag[7]), (mag[8], mag[9], mag[10]), wheels[:, 3:6], wheels[:, 6],
                                  None)
        for j in range(3):
            mag[20 + j], mag[23 + j], world[21 + j] = b[j], m[j], d[j]
    if inp[36] != 0.0:
        qc = (out[16], out[17], out[18], out[19])
        s = -1.0 if qc[0] * world[24] + qc[1] * world[25] + qc[2] * world[26] + qc[3] * world[27] < 0.0 else 1.0
        for j in range(4):
            world[24 + j] = s * qc[j]
        world[28] = 1.0
        world[29], world[30], world[31] = out[20], out[21], out[22]
    return True


@kernel
def advance_craft(state, world, par, flags, wheels, groups, table, n, thr, inp, out, mag, rods, nav, rows):
    """Take up to ``n`` steps from ``state = (q1..q4, wx, wy, wz, correction, P1..P4, W_1..W_n)`` (``P``:
    full-quat's ``dQ/dt``, else not read), in place; the thrusters' drive ``thr``
    (:attr:`sim.model.thruster_drive.ThrusterDrive.arrays`, or :data:`~sim.model.thruster_drive.NO_THRUSTERS`)
    fires at each step's start and is left as it was before a step that faults.

    With a world of its own (``inp`` not empty: :data:`sim.model.world_kernel.INPUTS`, a Kepler orbit), the
    loop makes the world of each new step (:func:`next_world`) and the steps go on; it stops early where the
    caller must act: at a field sample's boundary (``made`` False: the step taken, its world not made; the
    caller gives the next samples and calls again with ``n = 0`` and ``world``'s ``t_world`` NaN, which makes
    the present step's world first).
    With a navigation (``nav``: :mod:`sim.model.craft_nav`) the sensors, the estimator and the torque held at the
    estimate run between two steps (:func:`sim.model.craft_nav.end_step`, then :func:`~sim.model.craft_nav.start_step`);
    the loop stops before a step whose navigation would read past a block of noise (the caller takes the next
    blocks and ends that step).  Its rows carry the estimate after a step's end: the row of a step is written
    between that end and the next start, so the last step's row of a call is the caller's (but a fault's: the
    row before the faulting step is written).
    With ``rows = (array, look)`` not empty (:data:`sim.model.craft_row.NO_ROWS` when no row is wanted) the history
    row after step ``i`` goes into ``array[i]`` (:func:`sim.model.craft_row.craft_row`; ``look``:
    :data:`sim.model.craft_row.LOOK`), once the step's world is made (a step whose world is not made has no row:
    the call with ``n = 0`` that makes it writes it into ``array[0]``); a call with ``n = 0`` writes the present
    state's row into ``array[0]`` (:meth:`sim.model.craft_steps.CraftSteps._craft_row`, the compiled row).
    Returns ``(status, steps, made)``; ``status`` as :func:`sim.core.advance.advance`'s: the checks of
    :meth:`sim.model.simulation.Simulation.step` in its order (:func:`sim.core.advance.status_of`), the
    wheels' speeds in the finiteness check as in Python's ``sum(w)``.
    """
    m = wheels.shape[0]
    buf = np.empty((9, m))
    speeds = buf[6]
    for i in range(m):
        speeds[i] = state[12 + i]
    q = (state[0], state[1], state[2], state[3])
    w = (state[4], state[5], state[6])
    correction = state[7]
    p = (state[8], state[9], state[10], state[11])
    jr, jir = inertia(par)
    jfi = (par[40], par[41], par[42], par[43], par[44], par[45], par[46], par[47], par[48])
    t0, k, dt, mode = world[0], world[1], par[34], flags[1]
    loop = inp.shape[0] > 0
    status = OK
    done = 0
    fires = flags[18] != 0
    saved = thr[0].copy()
    kept = False
    if fires:  # the torque held from the last firing (a step that cannot fire leaves it)
        world[32], world[33], world[34] = saved[11], saved[12], saved[13]
    made = True
    writing = rows[0].shape[0] > 0
    fresh = loop and world[2] != t0 + k * dt
    if fresh:  # the present step's world first: the caller's new samples (NaN)
        made = next_world(q, speeds, t0 + k * dt, world, flags, wheels, inp, out, mag, rods)
        if not made:
            return status, done, made
    if writing and n == 0:  # the row of the present step, once its world is made (or the caller's world)
        if fresh:
            looked(rows[1], out, mag, inp)
        craft_row(rows[0], 0, q, w, p if flags[0] == 2 else qdot(q, w), correction, speeds, t0 + k * dt, world,
                  par, flags, wheels, groups, table, buf[0], buf[1], rows[1], nav, thr)
    for _ in range(n):
        t = t0 + k * dt
        if not end_step(nav, done, q, w, t, dt, world, par, flags):  # the navigation between two steps: the end,
            break
        if writing and nav[0][0] != 0.0 and done > 0:  # the row of the step before (its estimate ended), the start
            craft_row(rows[0], done - 1, q, w, p if flags[0] == 2 else qdot(q, w), correction, speeds, t, world, par,
                      flags, wheels, groups, table, buf[0], buf[1], rows[1], nav, thr)
        start_step(nav, done, q, w, t, dt, world, par, flags)
        if fires:  # the drive's step (only counted when it cannot fire: drive_kept)
            kept = drive_kept(thr[0], thr[1], saved)
            if kept:
                _fire(thr, q, w, speeds, world, par, flags, wheels)
            else:
                drive_held(thr[0])
        p1 = p
        if flags[0] == 2:  # full-quat: (Q, P), the rates read back from them after the norm mode
            q1, p1 = full_quat_step(q, p, speeds, t, world, par, flags, jr, jir, jfi, wheels, groups, table, buf)
            q1, c1 = normed(q1, mode)
            w1 = quasi_rates(q1, p1) if mode == 3 else rates(q1, p1)
        else:
            q1, w1 = craft_step(q, w, speeds, t, world, par, flags, wheels, groups, table, buf)
            q1, c1 = normed(q1, mode)
        sw = 0.0 + w1[0] + w1[1] + w1[2]  # Python's sum(w), left to right from 0, the wheels after the body
        for i in range(m):
            sw = sw + buf[7, i]
        status = status_of(q1, sw, c1, mode)
        if status != OK:
            if fires:
                drive_back(thr[0], saved, kept)
            break
        q, w, p, correction = q1, w1, p1, c1
        for i in range(m):
            speeds[i] = buf[7, i]
        k += 1.0
        done += 1
        if loop:
            made = next_world(q, speeds, t0 + k * dt, world, flags, wheels, inp, out, mag, rods)
            if not made:
                break
            if writing:
                looked(rows[1], out, mag, inp)
        if writing and nav[0][0] == 0.0:  # the row after the step, in the step's world
            craft_row(rows[0], done - 1, q, w, p if flags[0] == 2 else qdot(q, w), correction, speeds, t0 + k * dt,
                      world, par, flags, wheels, groups, table, buf[0], buf[1], rows[1], nav, thr)
    state[0], state[1], state[2], state[3] = q
    state[4], state[5], state[6] = w
    state[7] = correction
    state[8], state[9], state[10], state[11] = p
    for i in range(m):
        state[12 + i] = speeds[i]
    return status, done, made


def _sample() -> tuple:
    """Arguments of :func:`advance_craft` of the types it is compiled for (no step taken)."""
    return (np.zeros(12), np.zeros(_WORLD_SIZE), np.zeros(_PAR_SIZE), np.zeros(_FLAG_SIZE, dtype=np.int64),
            np.zeros((0, 11)), np.zeros((0, 5)), NO_SURFACES, 0, NO_THRUSTERS, NO_WORLD, NO_WORLD, np.zeros(MAG_SIZE),
            NO_RODS, NO_NAV, NO_ROWS)


advance_craft.warms(_sample, WARM_AFTER)  # the warm-up rule of sim.core.jit.Kernel
