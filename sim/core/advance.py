"""The compiled advance of one body: many steps in one call (issue 42).

:func:`advance` runs ``n`` fixed steps of a rigid body without wheels, under the torque law of
:mod:`sim.core.control` (command torque, dampers, Hoffmann's quaternion controller, limiter), with a
norm mode of :mod:`sim.core.norm`, in compiled code (:mod:`sim.core.jit`).  It calls the same
formulas the Python step calls (:func:`sim.core.equations.euler_rhs`,
:func:`sim.core.integrators.half_quat_update`, the rk4 kernels :func:`~sim.core.integrators.axpy_Q`
and :func:`~sim.core.integrators.rk4_sum_Q`, :func:`sim.core.control.quaternion_controller_torque`,
:func:`sim.core.control.summed_torque`, the norm modes) with ``ops=None``, so each step is bit for bit
the Python step of :class:`sim.model.simulation.Simulation`.

What it reads is packed once per change of the settings (:func:`pack`): ``par``, the floats
(:data:`PAR`: command torque, dampers, command quaternion, gains, limits, ``J`` and ``J^-1`` row
major, ``dt``), and ``flags``, the switches (:data:`FLAGS`).  The state ``(q, w, correction)`` is
an array of 8 floats, written back after the last good step.

Faults are a status, never an exception (hapsira's rule): the loop stops before the step that
gave a non-finite state (:data:`NOT_FINITE`), a ``|Q|^2`` that overflows or vanishes with
``elimination`` (:data:`UNIT_RANGE`) or a norm error beyond :data:`NORM_FAULT` with ``none``
(:data:`NORM_RUNAWAY`), and returns the status and the number of good steps; the Python side
(:meth:`sim.model.simulation.Simulation.step`) takes that step again in Python, which raises the
:class:`~sim.model.simulation.SimulationFault` of today with its message.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import norm2_Q
from sim.core.control import quaternion_controller_torque, summed_torque
from sim.core.equations import euler_rhs, qdot
from sim.core.integrators import axpy_Q, axpy_V, half_quat_update, rk4_sum_Q, rk4_sum_V
from sim.core.jit import jitable, kernel
from sim.core.jit_borrow import borrowed
from sim.core.norm import elimination, hoffmann, none, renormalize, unit
from sim.core.row_formula import NO_ROWS, plain_row, write_row

__all__ = ["advance", "checked_step", "step_torque", "law_torque", "normed", "status_of", "inertia", "as_tuples", "pack", "covers", "WARM_AFTER", "INTEGRATORS", "NORMS", "CONTROLLERS", "OK", "NOT_FINITE", "UNIT_RANGE",
           "NORM_RUNAWAY", "NORM_FAULT", "PAR", "FLAGS", "NO_ROWS"]

#: With norm handling ``none``, a norm error beyond this is a fault.
NORM_FAULT = 1e-3

#: Steps a process takes in Python before it loads the compiled advance (from the disk cache, about 0.3 s, or
#: compiling it, 5-20 s, once) in a thread of its own; one call of more steps waits for it (the rule of
#: :class:`sim.core.jit.Kernel`, :meth:`~sim.core.jit.Kernel.wanted`): a short run (``attitude-sim run --duration
#: 1``: 1,000 steps, 3 ms in Python) never pays for it, a long one pays once; the numbers are the same either way.
WARM_AFTER = 20_000

#: The integrators the compiled step runs, by their code in ``flags``.
INTEGRATORS = {"half-quat": 0, "rk4": 1}
#: The norm modes, by their code in ``flags``.
NORMS = {"hoffmann": 0, "renormalize": 1, "none": 2, "elimination": 3}
#: The attitude controllers the compiled torque law holds.
CONTROLLERS = ("none", "quaternion")

#: Statuses of :func:`advance`.
OK, NOT_FINITE, UNIT_RANGE, NORM_RUNAWAY = 0, 1, 2, 3

#: Layout of ``par``: name -> (first index, length).
PAR = {"command": (0, 3), "dampers": (3, 3), "qc": (6, 4), "gains": (10, 3), "limits": (13, 3),
       "j": (16, 9), "j_inv": (25, 9), "dt": (34, 1)}
#: Layout of ``flags``: name -> index.
FLAGS = {"integrator": 0, "norm": 1, "dampers_on": 2, "quaternion": 3, "axis_x": 4, "axis_y": 5, "axis_z": 6,
         "shortest_path": 7, "limiter_on": 8}


def covers(settings) -> bool:
    """True when :func:`advance` steps a body of ``settings`` (:class:`sim.model.settings.Settings`).

    Half-quat or rk4 (:data:`INTEGRATORS`); no controller or Hoffmann's quaternion controller, with or
    without dampers, limiter, command torque and shortest path; every norm mode of :data:`NORMS`; no
    reaction wheels, no orbit (and so no world, pointing mode or environment torque), no gravity
    gradient, no disturbance, the truth flown (no sensors or estimator), no CMGs and no thrusters (this kernel
    fires none: issue 45).  Everything else (full-quat,
    rkmk4, splitting, the Euler controller, wheels, the world, a user's torque, a SLERP in progress:
    :meth:`sim.model.simulation.Simulation.step` checks those it holds) steps in Python.
    """
    return (settings.integrator in INTEGRATORS and settings.controller in CONTROLLERS and settings.norm in NORMS
            and settings.wheel_count == 0 and not settings.gravity_gradient and not settings.has_orbit
            and not any(x != 0.0 for x in settings.disturbance) and settings.estimator == "truth"
            and settings.cmg == "none" and settings.thrusters == "none")


def _sample() -> tuple:
    """Arguments of :func:`advance` of the types it is compiled for (no step taken)."""
    return np.zeros(8), np.zeros(35), np.zeros(9, dtype=np.int64), 0, NO_ROWS


def pack(torque, j_rows, j_inv_rows, dt, integrator, norm) -> tuple:
    """``(par, flags)`` of a :class:`~sim.core.control.TorqueModel` (floats), the inertia rows, ``dt`` and the
    integrator's and norm mode's names (:data:`INTEGRATORS`, :data:`NORMS`)."""
    par = np.empty(35)
    par[0:3] = torque.command
    par[3:6] = torque.dampers
    par[6:10] = torque.qc
    par[10:13] = torque.gains
    par[13:16] = torque.limits
    par[16:25] = j_rows
    par[25:34] = j_inv_rows
    par[34] = dt
    flags = np.array([INTEGRATORS[integrator], NORMS[norm], torque.dampers_on, torque.controller == "quaternion",
                      torque.axes[0], torque.axes[1], torque.axes[2], torque.shortest_path, torque.limiter_on],
                     dtype=np.int64)
    return par, flags


@jitable
def law_torque(q, wd, qc, par, flags):
    """:meth:`sim.core.control.TorqueModel.__call__` for the settings :func:`pack` holds (no Euler controller):
    the same terms in the same order, :func:`~sim.core.control.summed_torque`, the controller tracking ``qc``
    and the dampers acting against ``wd`` (``w``, or ``w - w_c`` with a rate feed-forward)."""
    par, flags = borrowed((par, flags))  # no reference counts of its own nor its callees' (sim.core.jit_borrow)
    control_on = flags[3] != 0
    control = (0.0, 0.0, 0.0)
    if control_on:
        qa = unit(q, None) if flags[1] == 3 else q  # elimination: the attitude is Q/|Q|
        control = quaternion_controller_torque(qa, qc, (par[10], par[11], par[12]),
                                               (flags[4] != 0, flags[5] != 0, flags[6] != 0), flags[7] != 0, None)
    return summed_torque((par[0], par[1], par[2]), flags[2] != 0, (par[3], par[4], par[5]), wd, control_on, control,
                         flags[8] != 0, (par[13], par[14], par[15]), None)


@jitable
def step_torque(q, w, par, flags):
    """:func:`law_torque` with the command quaternion of ``par`` and no rate feed-forward."""
    return law_torque(q, w, (par[6], par[7], par[8], par[9]), par, flags)


@jitable
def _rates_rhs(q, w, par, flags, jr, jir):
    """``dw/dt``: Euler's equations (:func:`~sim.core.equations.euler_rhs`) under :func:`step_torque`."""
    return euler_rhs(w, step_torque(q, w, par, flags), jr, jir)


@jitable(inline=True)
def _step(q, w, dt, par, flags, jr, jir):
    """One step of the integrator coded in ``flags``: :func:`~sim.core.integrators.half_quat` or
    :func:`~sim.core.integrators.rk4` without wheels, through their kernels."""
    if flags[0] == 0:
        return half_quat_update(q, w, _rates_rhs(q, w, par, flags, jr, jir), dt)
    h = 0.5 * dt
    k1q, k1w = qdot(q, w), _rates_rhs(q, w, par, flags, jr, jir)
    q2, w2 = axpy_Q(q, h, k1q), axpy_V(w, h, k1w)
    k2q, k2w = qdot(q2, w2), _rates_rhs(q2, w2, par, flags, jr, jir)
    q3, w3 = axpy_Q(q, h, k2q), axpy_V(w, h, k2w)
    k3q, k3w = qdot(q3, w3), _rates_rhs(q3, w3, par, flags, jr, jir)
    q4, w4 = axpy_Q(q, dt, k3q), axpy_V(w, dt, k3w)
    k4q, k4w = qdot(q4, w4), _rates_rhs(q4, w4, par, flags, jr, jir)
    s = dt / 6.0
    return rk4_sum_Q(q, s, k1q, k2q, k3q, k4q), rk4_sum_V(w, s, k1w, k2w, k3w, k4w)


@jitable
def normed(q, mode):
    """The norm mode coded ``mode`` (:data:`NORMS`) of :mod:`sim.core.norm`: ``(q, correction)``."""
    if mode == 0:
        return hoffmann(q, None)
    if mode == 1:
        return renormalize(q, None)
    if mode == 2:
        return none(q, None)
    return elimination(q, None)


@jitable
def as_tuples(par, flags):
    """``par`` and ``flags`` of :func:`pack` as tuples, for a loop that steps many times: passed to the step's
    functions they cost no reference counts (an array's are atomic, and shared between the threads of a
    parallel loop)."""
    return (par[0], par[1], par[2], par[3], par[4], par[5], par[6], par[7], par[8], par[9], par[10], par[11], par[12], par[13], par[14], par[15], par[16], par[17], par[18], par[19], par[20], par[21], par[22], par[23], par[24], par[25], par[26], par[27], par[28], par[29], par[30], par[31], par[32], par[33], par[34],), (flags[0], flags[1], flags[2], flags[3], flags[4], flags[5], flags[6], flags[7], flags[8],)


@jitable
def inertia(par):
    """``(J, J^-1)``, row major, of a ``par`` of :func:`pack`."""
    jr = (par[16], par[17], par[18], par[19], par[20], par[21], par[22], par[23], par[24])
    jir = (par[25], par[26], par[27], par[28], par[29], par[30], par[31], par[32], par[33])
    return jr, jir


@jitable(inline=True)
def checked_step(q, w, par, flags, jr, jir):
    """One step of the integrator and the norm mode coded in ``flags``, and the checks of
    :meth:`sim.model.simulation.Simulation.step` in its order: ``(status, q, w, correction)``, the new state
    when ``status`` is :data:`OK`.  The one step :func:`advance` and the ensemble's body loop
    (:func:`sim.ensemble.compiled.advance_bodies`) both take."""
    mode = flags[1]
    q1, w1 = _step(q, w, par[34], par, flags, jr, jir)
    q1, c1 = normed(q1, mode)
    sw = 0.0 + w1[0] + w1[1] + w1[2]  # Python's sum(w), left to right from 0
    return status_of(q1, sw, c1, mode), q1, w1, c1


@jitable
def status_of(q1, sw, c1, mode):
    """The checks of :meth:`sim.model.simulation.Simulation.step` in its order on a new state: ``q1`` after the
    norm mode ``mode``, ``sw`` the sum of the rate state (wheel speeds included), ``c1`` the norm correction."""
    if not math.isfinite(q1[0] + q1[1] + q1[2] + q1[3] + sw + c1):
        return NOT_FINITE
    if mode == 3:
        qq = q1[0] * q1[0] + q1[1] * q1[1] + q1[2] * q1[2] + q1[3] * q1[3]
        if not 0.0 < qq < math.inf:
            return UNIT_RANGE
    if mode == 2 and abs(math.sqrt(norm2_Q(q1)) - 1.0) > NORM_FAULT:
        return NORM_RUNAWAY
    return OK


@jitable
def _row(rows, k, q, w, c, pt, ft, jr):
    """Row ``k`` of ``rows = (out, head)`` (:func:`advance`) after the step that gave ``(q, w, c)``."""
    head = rows[1]
    t = head[0] + (head[1] + (k + 1)) * pt[34]  # Simulation's t0 + (k - k0) dt
    write_row(rows[0], k, plain_row(t, q, w, qdot(q, w), c, ft[1] == 3, jr, step_torque(q, w, pt, ft),
                                    (head[2], head[3], head[4], head[5]), (head[6], head[7], head[8])))


@kernel
def advance(state, par, flags, n, rows):
    """Take up to ``n`` steps from ``state = (q1..q4, wx, wy, wz, correction)``, in place.

    Returns ``(status, steps)``: :data:`OK` and ``n``, or a fault status and the number of good
    steps before the step that faulted (``state`` holds the last good state), the checks of
    :meth:`sim.model.simulation.Simulation.step` in its order (:func:`checked_step`).

    ``rows = (out, head)``: with ``out`` of ``n`` rows (:data:`sim.core.row_formula.PLAIN_COLUMNS` columns),
    row ``k`` is written after step ``k`` (:func:`sim.core.row_formula.plain_row`), ``head`` = ``(t0, steps,
    qc1..qc4, psi_c, theta_c, phi_c)``: the time base, the steps taken since it before this call, the command as
    written (:attr:`sim.core.command.Command.written`) and its angles (degrees); :data:`sim.core.row_formula.NO_ROWS` (``out`` empty) writes none.
    """
    jr, jir = inertia(par)
    pt, ft = as_tuples(par, flags)  # tuples, not arrays, into the step's calls: no reference counts a call
    q = (state[0], state[1], state[2], state[3])
    w = (state[4], state[5], state[6])
    correction = state[7]
    status = OK
    done = 0
    for _ in range(n):
        status, q1, w1, c1 = checked_step(q, w, pt, ft, jr, jir)
        if status != OK:
            break
        q, w, correction = q1, w1, c1
        if rows[0].shape[0] > 0:
            _row(rows, done, q, w, correction, pt, ft, jr)
        done += 1
    state[0], state[1], state[2], state[3] = q
    state[4], state[5], state[6] = w
    state[7] = correction
    return status, done


advance.warms(_sample, WARM_AFTER)
