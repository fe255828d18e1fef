"""The thrusters in the loop (issue 45): the torque command to firings, their torque on the body, the fuel.

As Basilisk's chain ``thrForceMapping`` -> ``thrFiringSchmitt`` (or a PWPF modulator) ->
``thrusterDynamicEffector``, once a step, before the integrator:

* **the command.** Without reaction wheels the thrusters are the actuator of the torque law
  (:class:`sim.core.control.TorqueModel`: command, dampers, controller, limiter), which then
  acts on the body only through them.  With wheels the wheels fly the controller and the
  thrusters unload them, ``T = -k h_w`` (:func:`sim.core.thrusters.unloading_torque`).
* **the modulation.** At each control period ``P`` (``thruster_period``, a whole number of
  steps) the command about each axis, normalised by the thrusters' authority about it, goes
  through a Schmitt trigger or PWPF (:func:`sim.core.thrusters.modulate_axes`); or, with
  ``deadband``, Wie's dead-band controller watches the attitude error at every step and fires a
  pulse of one control period against it (:func:`sim.core.thrusters.deadband_pulse`).
* **the firings.** Each axis's output fires its couple (the groups of
  :func:`sim.gnc.thruster_mapping.axis_groups`, found once by scipy's ``nnls``); a firing shorter
  than the minimum impulse bit is not made (:func:`sim.core.thrusters.minimum_on_times`).
* **the torque** ``sum (r_i x F_i d_i) level_i`` is held over the step (zero-order hold, as
  Basilisk's effector) and added to the body's external torque (:attr:`sim.model.loads.LoadModel.thrust`);
  the fuel is ``sum F_i t_i / (Isp_i g0)`` of the on-times so far (:func:`sim.core.thrusters.fuel_used`).

The drive's state is two arrays, so that the compiled spacecraft step (:func:`sim.model.advance_craft.advance_craft`)
fires the thrusters itself inside its loop of steps, the modulators' state carried from step to step in the
array: ``x`` (:data:`X`: the step count, the steps the levels have been held, the modulators' outputs, PWPF's
filters, the dead band's pulses left, the torque and force held, then each thruster's level and on-time) and
``c`` (:data:`C`: what the settings fix).  :func:`drive_step` is the one text of a step's start, run by the
kernel and by :meth:`ThrusterDrive.step` (as Python, or as the compiled :func:`drive_kernel`); every formula is a
:func:`sim.core.jit.jitable` of :mod:`sim.core.thrusters`.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core import jit
from sim.core import thrusters as th
from sim.core.jit import jitable, kernel

__all__ = ["ThrusterDrive", "thruster_columns", "drive_for", "load", "WARM_STEPS", "X", "C", "due", "drive_step",
           "drive_kernel", "unloading_command", "count_on_times", "drive_kept", "drive_back", "drive_held", "NO_THRUSTERS",
           "DriveColumns", "drive_bodies", "columns_for", "load_bodies"]

#: The modulators' codes in :func:`sim.core.thrusters.fire_period`.
_MODES = {"schmitt": 0, "pwpf": 1, "deadband": 2}
_ZERO3 = (0.0, 0.0, 0.0)
#: Layout of a drive's state ``x``: name -> (first index, length); each thruster's level (``n``) and its on-time
#: counted so far (``n``, s) follow from :data:`_X_HEAD`.  ``k`` counts the steps, ``held`` the steps the present
#: levels have been held since their on-times were counted; ``torque`` and ``force`` are held over the step.
X = {"k": (0, 1), "held": (1, 1), "out": (2, 3), "filt": (5, 3), "left": (8, 3), "torque": (11, 3), "force": (14, 3)}
_X_HEAD = 17
#: Layout of a drive's constants ``c``: name -> (first index, length).  ``mode`` is a code of :data:`_MODES`,
#: ``every`` the steps of a control period, ``period`` its length (s), ``shortest`` 1 for the shortest way
#: round, ``authority`` the thrusters' torque about +x, -x, +y, -y, +z, -z (:func:`sim.gnc.thruster_mapping.axis_groups`).
C = {"mode": (0, 1), "every": (1, 1), "period": (2, 1), "dt": (3, 1), "u_on": (4, 1), "u_off": (5, 1), "km": (6, 1),
     "tau": (7, 1), "deadband": (8, 1), "gain": (9, 1), "shortest": (10, 1), "authority": (11, 6)}
_C_SIZE = 17
#: A body without thrusters, for :func:`sim.model.advance_craft.advance_craft`: ``(x, c, groups, pos, dirs, force,
#: impulse_bit)`` of no thrusters, of the types of a drive's (:attr:`ThrusterDrive.arrays`).
NO_THRUSTERS = (np.zeros(_X_HEAD), np.zeros(_C_SIZE), np.zeros((6, 0)), np.zeros((0, 3)), np.zeros((0, 3)),
                np.zeros(0), np.zeros(0))


@jitable
def due(x, c):
    """True when the step to come fires on a torque command: a Schmitt or PWPF drive at the start of a control period
    (step ``k`` a multiple of ``every``)."""
    return c[0] != 2.0 and x[0] % c[1] == 0.0


@jitable
def unloading_command(c, wheels, speeds):
    """The unloading command ``-k h_w`` (:func:`sim.core.thrusters.unloading_torque`) of the wheels of the table
    ``wheels`` (:func:`sim.core.wheel_program.program`: axes in columns 3-5, inertia in 6) at ``speeds``."""
    u = th.unloading_torque(th.wheel_momentum(wheels[:, 3:6], wheels[:, 6], speeds), c[9])
    return (u[0], u[1], u[2])


@jitable
def count_on_times(x, c, n):
    """The on-times of the ``n`` thrusters' levels held so far added to theirs (``level_i held dt``, s), ``held``
    back to 0: at each firing (:func:`drive_step`) and when the fuel is read (:attr:`ThrusterDrive.fuel`)."""
    held = x[1]
    if held != 0.0:
        for i in range(n):
            x[_X_HEAD + n + i] += x[_X_HEAD + i] * (held * c[3])
        x[1] = 0.0


@jitable
def drive_step(x, c, q, qc, w, command, groups, pos, dirs, force, impulse_bit):
    """A step's start, ``x`` updated in place: the dead band watches the attitude ``q`` against ``qc`` and the rates
    ``w`` (:func:`sim.core.thrusters.deadband_step`), or at a control period's start (:func:`due`) ``command``
    (N m) is modulated; when the outputs change, the on-times of the levels held so far are counted and the new
    levels, torque and force are those of :func:`sim.core.thrusters.fire_period`."""
    n = force.shape[0]
    if c[0] == 2.0:
        fire = th.deadband_step(q, qc, w, c[10] != 0.0, x[8:11], x[2:5], c[8], c[2], c[3])
    else:
        fire = due(x, c)
    if fire:
        count_on_times(x, c, n)
        level, torque, total = th.fire_period(int(c[0]), command, c[11:17], x[2:5], x[5:8], c[4], c[5], c[6], c[7],
                                              c[2], groups, pos, dirs, force, impulse_bit)
        for i in range(n):
            x[_X_HEAD + i] = level[i]
        for k in range(3):
            x[11 + k] = torque[k]
            x[14 + k] = total[k]
    drive_held(x)


@jitable
def drive_held(x):
    """The end of every step of the drive: one step more counted, the levels held one step more (all a step
    that cannot fire does, :func:`drive_kept`)."""
    x[0] += 1.0
    x[1] += 1.0


@jitable
def drive_kept(x, c, saved):
    """Before a :func:`drive_step` that a fault may take back (the compiled step's, :func:`drive_back`): the state
    ``x`` copied into ``saved`` when the step may fire (the dead band, or :func:`due`), and True; else False
    (the step will only count itself: ``k`` and ``held`` one more)."""
    if c[0] == 2.0 or due(x, c):
        for i in range(x.shape[0]):
            saved[i] = x[i]
        return True
    return False


@jitable
def drive_back(x, saved, kept):
    """The drive as it was before the last :func:`drive_step` (:func:`drive_kept` said ``kept``)."""
    if kept:
        for i in range(x.shape[0]):
            x[i] = saved[i]
    else:
        x[0] -= 1.0
        x[1] -= 1.0


@kernel
def drive_kernel(x, c, q, qc, w, command, groups, pos, dirs, force, impulse_bit):
    """:func:`drive_step` compiled, for the Python step (:meth:`ThrusterDrive.step`)."""
    drive_step(x, c, q, qc, w, command, groups, pos, dirs, force, impulse_bit)


#: Steps this process takes with thrusters in Python before it loads :func:`drive_kernel` in a thread of its own
#: (the rule of :class:`sim.core.jit.Kernel`): short runs never wait for it.
WARM_STEPS = 20_000


def _drive_sample() -> tuple:
    """Arguments of :func:`drive_kernel` of the types it is compiled for (no thrusters)."""
    q = (0.0, 0.0, 0.0, 1.0)
    x, c = NO_THRUSTERS[0].copy(), NO_THRUSTERS[1].copy()
    return (x, c, q, q, _ZERO3, _ZERO3, *NO_THRUSTERS[2:])


drive_kernel.warms(_drive_sample, WARM_STEPS)


def _compiled() -> bool:
    """True when the compiled :func:`drive_kernel` is to be called (:meth:`sim.core.jit.Kernel.wanted`; never
    with the JIT off)."""
    return not jit.DISABLED and drive_kernel.wanted()


def load() -> float:
    """Compile :func:`drive_kernel` or load it from the disk cache now; the seconds it took (with the JIT off: 0,
    its calls run its text as Python)."""
    return drive_kernel.wait()


#: The settings a drive is made of: a change of any of them makes a new one (fuel and modulators from zero).
_KEYS = ("thrusters", "thruster_directions", "thruster_force", "thruster_isp", "thruster_impulse_bit",
         "thruster_modulation", "thruster_period", "thruster_on", "thruster_off", "pwpf_km", "pwpf_tau",
         "thruster_deadband_deg", "thruster_unloading", "dt", "wheels", "wheel_inertia", "shortest_path")


def drive_for(settings, drive=None):
    """The :class:`ThrusterDrive` of ``settings`` (None without thrusters): ``drive`` itself when it was made
    of the same thruster settings, else a new one that carries on the fuel used (a change of the thrusters'
    settings mid-run; the modulators start again at rest)."""
    if settings.thrusters == "none":
        return None
    key = tuple(getattr(settings, k) for k in _KEYS)
    if drive is not None and drive.key == key:
        return drive
    new = ThrusterDrive(settings, key)
    if drive is not None:
        new.fuel_before = drive.fuel
    return new


def thruster_columns(n: int) -> tuple:
    """The CSV columns of ``n`` thrusters: each one's level over the step (``thr_on1..n``, 0..1), the net force
    in body axes (``thr_fx, thr_fy, thr_fz``, N) and the propellant used so far (``fuel_kg``)."""
    if not n:
        return ()
    return tuple(f"thr_on{i}" for i in range(1, n + 1)) + ("thr_fx", "thr_fy", "thr_fz", "fuel_kg")


class ThrusterDrive:
    """One body's thrusters: state between steps (:data:`X`, :data:`C`), and :meth:`step` once a step (see the
    module docstring)."""

    def __init__(self, settings, key=None):
        s = settings
        self.key = key
        t = s.thruster_set
        from sim.gnc.thruster_mapping import axis_groups  # scipy: loaded only when a body has thrusters

        self.set = t
        groups, authority = axis_groups(th.torque_matrix(t.pos, t.dirs, t.force, np.zeros(3)),
                                        (t.dirs * t.force[:, None]).T)
        self.mode = s.thruster_modulation
        every = max(1, round(s.thruster_period / s.dt))
        self.c = np.array((_MODES[self.mode], every, every * s.dt, s.dt, s.thruster_on, s.thruster_off, s.pwpf_km,
                           s.pwpf_tau, math.radians(s.thruster_deadband_deg), s.thruster_unloading,
                           1.0 if s.shortest_path else 0.0, *authority), dtype=float)
        wheels = s.wheel_set
        #: The wheels' table of the unloading command (:func:`unloading_command`), None without wheels.
        self.wheel_table = None if wheels is None else np.column_stack(
            (np.zeros((wheels.n, 3)), np.array(wheels.axes, dtype=float), np.array(wheels.inertia, dtype=float)))
        self.x = np.zeros(_X_HEAD + 2 * len(t.force))
        #: ``(x, c, groups, pos, dirs, force, impulse_bit)``: what the kernels read (:data:`NO_THRUSTERS`'s types).
        self.arrays = (self.x, self.c, np.ascontiguousarray(groups, dtype=float), *(
            np.ascontiguousarray(a, dtype=float) for a in (t.pos, t.dirs, t.force, t.impulse_bit)))
        self.reset()

    def reset(self) -> None:
        """No firing, no fuel used, the modulators at rest (a new run)."""
        self.x[:] = 0.0
        self.fuel_before = 0.0  # kg burnt by the drive this one replaced mid-run (drive_for)

    def step(self, q, w, law, qc) -> tuple:
        """The torque the thrusters make over the step from state ``(q, w)`` (``w`` with the wheels' speeds)."""
        x = self.x
        compiled = _compiled()
        if self.mode != "deadband":
            if not due(x, self.c):  # the levels held (drive_step's own test, without calling it)
                drive_held(x)
                return self.torque
            if self.wheel_table is None:
                command = tuple(float(v) for v in law(q, w))
            else:
                command = unloading_command(self.c, self.wheel_table, np.array(w[3:], dtype=float))
        else:
            command = _ZERO3
        step = drive_kernel if compiled else drive_step
        x0, c, *tables = self.arrays
        step(x0, c, (q[0], q[1], q[2], q[3]), (qc[0], qc[1], qc[2], qc[3]), (w[0], w[1], w[2]), command, *tables)
        return self.torque

    @property
    def torque(self) -> tuple:
        """The torque held over the step (N m, body axes)."""
        return tuple(self.x[11:14].tolist())

    @property
    def fuel(self) -> float:
        """Propellant used so far, kg: ``sum_i F_i t_i / (Isp_i g0)`` of the on-times ``t_i``."""
        n = len(self.set.force)
        count_on_times(self.x, self.c, n)
        return self.fuel_before + float(th.fuel_used(self.set.force, self.set.isp, self.x[_X_HEAD + n:]))

    def values(self) -> tuple:
        """The :func:`thruster_columns` values now: the levels of the step just taken, the force, the fuel."""
        n = len(self.set.force)
        return (*self.x[_X_HEAD:_X_HEAD + n].tolist(), *self.x[14:17].tolist(), self.fuel)


@kernel
def drive_bodies(x, c, q, qc, w, command, speeds, wheels, groups, pos, dirs, force, impulse_bit):
    """:func:`drive_step` for each body ``j`` of an ensemble, its state the row ``x[j]``, its attitude, command
    quaternion and rates the columns ``j`` of ``q``, ``qc``, ``w``; the torque law's ``command`` (3, n), or with
    wheels (their table ``wheels``, :func:`unloading_command`) their unloading at the speeds ``speeds[:, j]``."""
    for j in range(x.shape[0]):
        xj = x[j]
        u = (command[0, j], command[1, j], command[2, j])
        if wheels.shape[0] > 0 and due(xj, c):
            u = unloading_command(c, wheels, speeds[:, j])
        drive_step(xj, c, (q[0, j], q[1, j], q[2, j], q[3, j]), (qc[0, j], qc[1, j], qc[2, j], qc[3, j]),
                   (w[0, j], w[1, j], w[2, j]), u, groups, pos, dirs, force, impulse_bit)


def load_bodies() -> float:
    """Compile :func:`drive_bodies` or load it from the disk cache now (a bench; an ensemble's own calls load
    it in a thread after :data:`sim.core.jit.WARM_SECONDS` of Python); the seconds it took."""
    if jit.DISABLED:
        return 0.0
    x, c, groups, pos, dirs, force, impulse_bit = NO_THRUSTERS
    z = np.zeros((4, 1))
    return drive_bodies.wait(x.reshape(1, -1), c, z, z, z[:3], z[:3], z[:0], np.zeros((0, 7)), groups, pos, dirs,
                             force, impulse_bit)


class DriveColumns:
    """The thrusters of ``n`` bodies flying the same settings (an ensemble): one :class:`ThrusterDrive`'s
    constants and tables, each body's state a row of ``x`` (n, :data:`X` ...), each body's step
    :func:`drive_step`, the text its own run steps (:func:`drive_bodies`): so each body fires as its
    :class:`~sim.model.simulation.Simulation` does, bit for bit."""

    def __init__(self, settings, n: int, key=None):
        self.key = key
        self.one = ThrusterDrive(settings, key)
        self.x = np.zeros((n, len(self.one.x)))
        self.fuel_before = np.zeros(n)
        self._zero = np.zeros((3, n))
        self.reset()

    def reset(self) -> None:
        """No firing, no fuel used, every body's modulators at rest (a new run)."""
        self.x[:] = 0.0
        self.fuel_before[:] = 0.0

    def step(self, q, w, law, qc) -> tuple:
        """The torque rows (3 of n) the thrusters make over the step from the columns ``q`` (4, n) and ``w``
        (3 + wheels, n), the torque law ``law`` over columns and the command quaternion(s) ``qc``."""
        one, x = self.one, self.x
        n = x.shape[0]
        command = self._zero
        if one.mode != "deadband":
            if not due(x[0], one.c):  # every body's levels held (they share the step count)
                drive_held(x.T)  # (x.T[0] is every body's count, x[:, 0])
                return self.torque
            if one.wheel_table is None:
                command = np.array(np.broadcast_arrays(*law(tuple(q), tuple(w[:3])), np.empty(n))[:3], dtype=float)
        speeds = np.ascontiguousarray(w[3:], dtype=float)
        qc = np.array(np.broadcast_to(np.asarray(qc, dtype=float).reshape(4, -1), (4, n)))  # (writable: one type)
        tables = one.arrays[2:]
        drive_bodies(x, one.c, np.ascontiguousarray(q, dtype=float), qc, np.ascontiguousarray(w[:3], dtype=float),
                     command, speeds, np.zeros((0, 7)) if one.wheel_table is None else one.wheel_table, *tables)
        return self.torque

    @property
    def torque(self) -> tuple:
        """Each body's torque held over the step: three rows (N m, body axes)."""
        return self.x[:, 11].copy(), self.x[:, 12].copy(), self.x[:, 13].copy()

    @property
    def fuel(self) -> np.ndarray:
        """Each body's propellant used so far, kg (:attr:`ThrusterDrive.fuel`)."""
        one, out = self.one, np.empty(len(self.x))
        for j, xj in enumerate(self.x):
            k = len(one.set.force)
            count_on_times(xj, one.c, k)
            out[j] = self.fuel_before[j] + float(th.fuel_used(one.set.force, one.set.isp, xj[_X_HEAD + k:]))
        return out


def columns_for(settings, n: int, drive=None):
    """The :class:`DriveColumns` of ``n`` bodies of ``settings`` (None without thrusters): ``drive`` itself when
    made of the same thruster settings, else a new one carrying on each body's fuel (:func:`drive_for`'s rule)."""
    if settings.thrusters == "none":
        return None
    key = tuple(getattr(settings, k) for k in _KEYS)
    if drive is not None and drive.key == key and len(drive.x) == n:
        return drive
    new = DriveColumns(settings, n, key)
    if drive is not None and len(drive.x) == n:
        new.fuel_before[:] = drive.fuel
    return new
