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

Every formula is a :func:`sim.core.jit.jitable` of :mod:`sim.core.thrusters`; this module only
holds the state and calls them once a step.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core import jit
from sim.core import thrusters as th

__all__ = ["ThrusterDrive", "thruster_columns", "drive_for", "load", "WARM_STEPS"]

#: The modulators' codes in :func:`sim.core.thrusters.fire_period`.
_MODES = {"schmitt": 0, "pwpf": 1, "deadband": 2}
_ZERO3 = np.zeros(3)
#: The same texts run as Python (numba's ``py_func``; the functions themselves with the JIT off).
_PYTHON_FIRE = getattr(th.fire_period, "py_func", th.fire_period)
_PYTHON_DEADBAND = getattr(th.deadband_step, "py_func", th.deadband_step)
#: Steps this process takes with thrusters in Python before it loads the compiled kernels
#: (:func:`sim.core.thrusters.fire_period`, :func:`sim.core.thrusters.deadband_step`) in a thread of its own: the
#: rule of :class:`sim.core.jit.Kernel`; short runs never wait for them.
WARM_STEPS = 20_000


def _fire_sample() -> tuple:
    z3 = np.zeros(3)
    return (2, z3, np.ones(6), z3.copy(), z3.copy(), 0.45, 0.15, 4.5, 0.35, 0.1, np.zeros((6, 12)), np.zeros((12, 3)),
            np.ones((12, 3)), np.ones(12), np.zeros(12))


def _deadband_sample() -> tuple:
    q = (0.0, 0.0, 0.0, 1.0)
    return q, q, (0.0, 0.0, 0.0), True, np.zeros(3), np.zeros(3), 0.1, 0.1, 0.01


th.fire_period.warms(_fire_sample, WARM_STEPS)
th.deadband_step.warms(_deadband_sample, WARM_STEPS)


def _compiled() -> bool:
    """True when the compiled kernels are to be called: both wanted (:meth:`sim.core.jit.Kernel.wanted`; never
    with the JIT off)."""
    if jit.DISABLED:
        return False
    fire, deadband = th.fire_period.wanted(), th.deadband_step.wanted()
    return fire and deadband


def load() -> float:
    """Compile the thrusters' kernels or load them from the disk cache now; the seconds it took."""
    if jit.DISABLED:
        return 0.0
    return th.fire_period.wait() + th.deadband_step.wait()


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
    """One body's thrusters: state between steps, and :meth:`step` once a step (see the module docstring)."""

    def __init__(self, settings, key=None):
        s = settings
        self.key = key
        t = s.thruster_set
        from sim.gnc.thruster_mapping import axis_groups  # scipy: loaded only when a body has thrusters

        self.set = t
        self.b = th.torque_matrix(t.pos, t.dirs, t.force, np.zeros(3))
        self.groups, self.authority = axis_groups(self.b, (t.dirs * t.force[:, None]).T)
        self.mode = s.thruster_modulation
        self.dt = s.dt
        self.every = max(1, round(s.thruster_period / s.dt))
        self.period = self.every * s.dt
        self.u_on, self.u_off, self.km, self.tau = s.thruster_on, s.thruster_off, s.pwpf_km, s.pwpf_tau
        self.deadband = math.radians(s.thruster_deadband_deg)
        self.gain = s.thruster_unloading
        wheels = s.wheel_set
        self.wheel_axes = None if wheels is None else np.array(wheels.axes, dtype=float)
        self.wheel_inertia = None if wheels is None else np.array(wheels.inertia, dtype=float)
        self.shortest = s.shortest_path
        self.reset()

    def reset(self) -> None:
        """No firing, no fuel used, the modulators at rest (a new run)."""
        n = len(self.set.force)
        self.out = np.zeros(3)
        self.filt = np.zeros(3)
        self.left = np.zeros(3)
        self.level = np.zeros(n)
        self.on_time = np.zeros(n)
        self.torque = (0.0, 0.0, 0.0)
        self.force = (0.0, 0.0, 0.0)
        self.k = 0
        self.fuel_before = 0.0  # kg burnt by the drive this one replaced mid-run (drive_for)
        self._held = 0  # steps the present levels have been held since they were counted

    def step(self, q, w, law, qc) -> tuple:
        """The torque the thrusters make over the step from state ``(q, w)`` (``w`` with the wheels' speeds)."""
        compiled = _compiled()
        if self.mode == "deadband":
            step = th.deadband_step if compiled else _PYTHON_DEADBAND
            if step((q[0], q[1], q[2], q[3]), qc, (w[0], w[1], w[2]), self.shortest, self.left, self.out,
                    self.deadband, self.period, self.dt):
                self._fire(None, compiled)
        elif self.k % self.every == 0:
            if self.wheel_axes is None:
                command = np.array(law(q, w), dtype=float)
            else:
                h = th.wheel_momentum(self.wheel_axes, self.wheel_inertia, np.array(w[3:], dtype=float))
                command = th.unloading_torque(h, self.gain)
            self._fire(command, compiled)
        self.k += 1
        self._held += 1
        return self.torque

    def _fire(self, command, compiled: bool) -> None:
        """New levels: the on-times of the old ones are counted first (:attr:`fuel`)."""
        fire = th.fire_period if compiled else _PYTHON_FIRE
        t = self.set
        self._count()
        mode = _MODES[self.mode]
        level, torque, force = fire(mode, _ZERO3 if command is None else command, self.authority, self.out,
                                    self.filt, self.u_on, self.u_off, self.km, self.tau, self.period, self.groups,
                                    t.pos, t.dirs, t.force, t.impulse_bit)
        self.level = level
        self.torque = (float(torque[0]), float(torque[1]), float(torque[2]))
        self.force = (float(force[0]), float(force[1]), float(force[2]))

    def _count(self) -> None:
        if self._held:
            self.on_time += self.level * (self._held * self.dt)
            self._held = 0

    @property
    def fuel(self) -> float:
        """Propellant used so far, kg: ``sum_i F_i t_i / (Isp_i g0)`` of the on-times ``t_i``."""
        self._count()
        return self.fuel_before + float(th.fuel_used(self.set.force, self.set.isp, self.on_time))

    def values(self) -> tuple:
        """The :func:`thruster_columns` values now: the levels of the step just taken, the force, the fuel."""
        return (*(float(x) for x in self.level), *self.force, self.fuel)
