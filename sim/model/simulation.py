"""The Simulation: state, inputs between steps, fixed-step advance, snapshots.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  The
constant description lives in :class:`sim.model.settings.Settings`; the changing
state is ``(t, Q, w, P)``, the reaction wheels' speeds ``W`` when the body
has wheels (the integrators' rate state ``(w, W)``, :mod:`sim.core.integrators`),
plus the command interpolator.  The same settings and the same inputs at
the same steps give bit-identical states.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core import advance as compiled
from sim.core.algebra import norm2_Q
from sim.core.angles import aircraft_angles
from sim.core.body import Body
from sim.core.control import TorqueModel
from sim.core.energy import energy_of, inertial_momentum
from sim.world.environment import to_orbit_frame
from sim.world.orbit import OrbitError
from sim.core.integrators import qdot
from sim.model.loads import LoadModel, gyrostat_of
from sim.model.navigation import Navigation, navigation_key
from sim.model.records import Records
from sim.model.rows import Snapshot
from sim.core.row_formula import body_readout
from sim.core.norm import unit
from sim.core.quaternion import from_aircraft_angles
from sim.model.settings import Settings
from sim.model.stepping import Stepper
from sim.model import advance_craft as craft_kernels
from sim.model.craft_steps import CraftSteps
from sim.model.craft_row import lvlh_attitude
from sim.model.cmg_step import CmgStep
from sim.model.thruster_drive import drive_for
from sim.model.world import World, WorldState
from sim.gnc.magnetic import MagneticControl
from sim.gnc.pointing import axis_error
from sim.core.wheels import gyrostat_energy, total_momentum

# Snapshot is documented here (docs/API.md: sim.model.simulation.Snapshot); the row layout is sim.model.rows.
__all__ = ["Simulation", "Snapshot", "SimulationFault", "NORM_FAULT", "to_lvlh"]

#: With norm handling ``none``, a norm error beyond this is a fault (:data:`sim.core.advance.NORM_FAULT`).
NORM_FAULT = compiled.NORM_FAULT

_DEG = 180.0 / math.pi
#: Most steps in one call of the compiled advance (about 10 ms): a Python signal (Ctrl-C) waits no longer.
_CHUNK = 100_000


class SimulationFault(RuntimeError):
    """A numerical fault (non-finite state or runaway norm); the state is the last good one."""

    def __init__(self, message: str, t: float):
        super().__init__(f"t={t:.6g} s: {message}")
        self.t = t
        self.reason = message

    def __reduce__(self):  # pickled from a Dask worker: made again from both (args holds the text alone)
        return type(self), (self.reason, self.t)


def to_lvlh(q, r, v) -> tuple:
    """The attitude relative to LVLH (Markley & Crassidis (2.77)): ``Q_r = Q . Q_o'``, ``Q_o`` the LVLH triad's
    quaternion (z to nadir, x along the velocity, :func:`sim.gnc.pointing.two_vector`)."""
    return tuple(float(x) for x in lvlh_attitude(q, r, v))  # sim.model.craft_row, the rows' formula


class Simulation(Stepper, CraftSteps, Records):
    """A rigid body (with reaction wheels, if any) integrated at a fixed step, with inputs settable between steps.

    Parameters
    ----------
    settings : Settings, optional
        Initial settings (default: Hoffmann's aircraft at rest, half-quat,
        dt = 1 ms).
    user_torque : callable, optional
        ``f(t, q, w) -> (tx, ty, tz)``: a torque of your own on the body (N m,
        body axes) at time ``t`` (s), attitude ``q`` (4 floats, scalar last) and
        body rates ``w`` (3 floats, rad/s), added to the external torques and
        evaluated at every stage of the integrator (docs/API.md).  It acts on
        the body directly, not through the wheels.
    sensor_body : int
        The body index the sensors draw with (:class:`sim.model.navigation.Navigation`'s ``bodies``; default
        0, what ``attitude-sim run`` flies): ``sensor_body=j`` flies the sensors of body ``j`` of an ensemble.
    **changes
        Settings to change from ``settings`` (validated).

    Examples
    --------
    >>> sim = Simulation(rates=(1.0, 0.2, -0.5))
    >>> sim.step(1000)
    >>> round(sim.snapshot().t, 6)
    1.0
    """

    def __init__(self, settings: Settings | None = None, *, user_torque=None, sensor_body: int = 0, **changes):
        self._settings = (settings or Settings()).replace(**changes)
        if user_torque is not None and not callable(user_torque):
            raise TypeError(f"user_torque must be a function f(t, q, w) -> (tx, ty, tz), got {user_torque!r}")
        self._torque = TorqueModel()
        self._load = LoadModel(self._torque)
        self._load.user = user_torque
        self._w = None
        self._world = self._world_state = None
        self._nav = self._nav_key = None
        self._sensor_body = int(sensor_body)
        self._pack_key = self._cmg = None
        self._law = self._torque
        self._thr = None
        self._configure()
        self.reset()

    # ------------------------------------------------------------------ inputs
    @property
    def body(self):
        """What the integrators read: the :class:`~sim.core.body.Body`, or with wheels a :class:`~sim.model.loads.Gyrostat`."""
        return self._gyrostat

    @property
    def wheel_count(self) -> int:
        """Number of reaction wheels (0 without)."""
        return self._settings.wheel_count

    def _configure(self, gains=None):
        s = self._settings
        self._rigid = Body(s.mass_properties.inertia)
        self._gyrostat = gyrostat_of(self._rigid, s.wheel_set)
        super()._configure(gains, self._rigid.j_rows)
        self._norm_is_none = s.norm == "none"
        self._world = World(s) if s.has_orbit else None
        self._world_state = None
        self._torque.rate_ref = None
        self._magnetic = MagneticControl(s)
        self._b_body = self._dipole_cmd = None
        self._thr = drive_for(s, self._thr)  # the thrusters (issue 45), kept across changes of other settings
        if self._world is not None and self._w is not None:
            self._update_world()
        if self._w is not None and len(self._w) != 3 + s.wheel_count:  # a new number of wheels: at their reset speeds
            self._w = self._w[:3] + self._initial_wheel_speeds()
        self._configure_navigation()
        self._cmg = None if s.cmg_set is None else CmgStep(s, self._rigid.j_rows, self._rigid.j_inv_rows,
                                                           None if self._cmg is None else self._cmg.delta)

    def _configure_navigation(self) -> None:
        """The sensors and estimator (sim.model.navigation), and what the torque law reads: the truth, or the
        estimate held over each step.  A change of the sensors or the filter starts them again from the present."""
        s = self._settings
        key = navigation_key(s)
        if key != self._nav_key and self._w is not None:
            self._nav_key = key
            self._nav = None if s.estimator == "truth" else Navigation(s, [self._sensor_body], self._q, self._w[:3])
        self._fly_law()

    @property
    def navigation(self) -> Navigation | None:
        """The sensors and the estimator (:class:`sim.model.navigation.Navigation`), or None (estimator truth)."""
        return self._nav

    def _update_world(self) -> None:
        """The world at the present time (once per step, sim.model.world): the orbit's state for the gravity
        gradient, and a moving pointing mode's command and rate feed-forward for the controller."""
        try:
            ws = self._world_state = self._world.state(self._t)
        except OrbitError as exc:  # a model past its domain mid-run (a TLE that decays): a fault, the rows kept
            raise SimulationFault(f"{exc}; paused at the last good state", self._t) from None
        self._load.set_world(ws)
        if ws.b_eci is not None:
            self._magnetic_command(ws)
        if ws.qc is not None:
            self._cmd.follow(ws.qc)
            self._torque.rate_ref = ws.wc
            self._sync_command()

    def _magnetic_command(self, ws) -> None:
        """The field in body axes, the torquers' command held over the step and the load's dipole
        (:class:`sim.gnc.magnetic.MagneticControl`, the ensemble's too)."""
        self._b_body, self._dipole_cmd, self._load.dipole = self._magnetic(self._t, self.attitude, ws.b_eci,
                                                                          self._w[3:])

    @property
    def b_body(self) -> tuple | None:
        """The field in body axes at the present step (T), or None without a field."""
        return self._b_body

    @property
    def dipole(self) -> tuple | None:
        """The torquers' commanded dipole at the present step (A m^2, body axes; zeros without torquers), or None
        without a field."""
        return self._dipole_cmd

    @property
    def world(self) -> WorldState | None:
        """The world at the present step (position, velocity, date, Sun, shadow, pointing), or None without an orbit."""
        return self._world_state

    def pointing_error(self) -> float | None:
        """The pointing axis's error (rad): from where the mode sends it, or (inertial) where the command holds it."""
        ws = self._world_state
        return None if ws is None else axis_error(self.attitude, self._settings.pointing_axis, ws.reference,
                                                  self._cmd.qc)

    def _initial_wheel_speeds(self) -> tuple:
        s = self._settings
        if s.wheel_speeds is not None:
            return tuple(s.wheel_speeds)
        return (0.0,) * s.wheel_count

    def _derive_p(self, full: bool):
        return qdot(self._q, self._w) if full else None

    def _sync_command(self):
        self._torque.qc = self._cmd.qc
        self._torque.command_angles = self._cmd.angles

    # -------------------------------------------------------------- stepping
    def reset(self) -> None:
        """Back to ``angles_deg``, ``rates`` and ``wheel_speeds`` at t = 0; the command starts at the attitude.

        A ``command_deg`` in the settings is then a change at t = 0.
        """
        s = self._settings
        self._q = tuple(float(x) for x in from_aircraft_angles(*(math.radians(a) for a in s.angles_deg)))
        self._w = tuple(s.rates) + self._initial_wheel_speeds()
        self._p = qdot(self._q, self._w) if self._full else None
        self._t = self._t0 = 0.0
        self._k = self._k0 = 0
        self._correction = 0.0
        self._reset_command(self._q)
        self._magnetic.reset()
        if self._thr is not None:
            self._thr.reset()
        if self._world is not None:
            self._update_world()
        self._nav_key = None
        self._configure_navigation()
        if self._cmg is not None:
            self._cmg.reset()

    @property
    def q(self) -> tuple:
        """Attitude quaternion (scalar last), as the integrator holds it."""
        return self._q

    @property
    def w(self) -> tuple:
        """Body rates (rad/s, body axes), as the integrator holds them."""
        return self._w[:3]

    @property
    def wheel_speeds(self) -> tuple:
        """Each reaction wheel's speed relative to the body, rad/s (empty without wheels)."""
        return self._w[3:]

    @property
    def attitude(self) -> tuple:
        """The quaternion the attitude is read from: :attr:`q`, or ``q / |q|`` with norm handling
        ``elimination`` (:func:`sim.core.norm.elimination`)."""
        return unit(self._q) if self._unit else self._q

    def energy(self) -> float:
        """Kinetic energy ``T = 1/2 w^T J w`` (plus the wheels', :func:`sim.core.wheels.gyrostat_energy`), Hoffmann (5.1)."""
        return gyrostat_energy(self._w, self._rigid.j_rows, self._settings.wheel_set)

    def _packed(self, n: int = 0):
        """``(par, flags)`` of the compiled advance (:mod:`sim.core.advance`), or None when this body steps in
        Python: its settings are not covered (:func:`sim.core.advance.covers`), a user's torque or a SLERP is in
        progress, or the kernel is not wanted yet for the ``n`` steps to come (:meth:`sim.core.jit.Kernel.wanted`,
        the one warm-up rule: these steps go in Python while a thread loads it, so a stepping thread never waits
        for numba; one call of :data:`sim.core.advance.WARM_AFTER` steps or more waits for it).  Packed again
        when the settings, the controls, the command or ``dt`` change."""
        s, torque = self._settings, self._torque
        if self._cmd.path is not None or self._step_torque is not torque or self._nav is not None:
            return None
        key = self._pack_key
        if key is None or key[0] is not s or key[1] is not self._controls or key[2] is not torque.qc or key[3] != self._dt:
            packed = None
            if compiled.covers(s) and self._world is None and torque.rate_ref is None and len(self._w) == 3:
                packed = compiled.pack(torque, self._rigid.j_rows, self._rigid.j_inv_rows, self._dt, s.integrator,
                                       s.norm)
            key = self._pack_key = (s, self._controls, torque.qc, self._dt, packed)
        return key[4] if key[4] is not None and compiled.advance.wanted(n) else None

    def step(self, n: int = 1) -> None:
        """Advance ``n`` fixed steps: compiled (:func:`sim.core.advance.advance`) where it covers the settings,
        else in Python; the same numbers either way.

        Raises
        ------
        SimulationFault
            On a non-finite state, or a norm error beyond :data:`NORM_FAULT`
            with norm handling ``none``; the state stays at the last good step.
        """
        if self._cmg is not None:  # a CMG cluster: its compiled step (sim.model.cmg_step)
            if not self._cmg.step(self, n):
                raise SimulationFault("the state is no longer finite; paused at the last good state", self._t)
            return
        while n > 0:
            packed = self._packed(n)
            if packed is not None:
                n = self._step_plain(packed, n, None)
                if n == 0:
                    return
            elif (craft := self._craft_packed()) is not None and craft_kernels.advance_craft.wanted(n):
                n = self._step_craft(craft, n)  # a spacecraft (sim.model.craft_steps)
                if n == 0:
                    return
            # in Python: a SLERP under way only until it ends, the rest compiled again where a kernel covers it
            n -= self._step_python(n, self._cmd.path is not None)

    def _step_plain(self, packed, n: int, out) -> int:
        """Up to ``n`` steps through :func:`sim.core.advance.advance`, with ``out`` (or None) its rows written
        after each step; the steps left (not 0 after a fault: the caller takes that step again in Python)."""
        q, w = self._q, self._w
        state = np.array((q[0], q[1], q[2], q[3], w[0], w[1], w[2], self._correction))
        head = None
        if out is not None:
            cmd = self._cmd
            head = np.array((self._t0, 0.0, *cmd.written, *(a * _DEG for a in cmd.angles)))
        while n > 0:  # in chunks of at most _CHUNK steps (milliseconds): Ctrl-C is seen between them
            m = min(n, _CHUNK)
            rows = compiled.NO_ROWS
            if out is not None:
                head[1] = float(self._k - self._k0)
                rows = (out[:m], head)
                out = out[m:]
            status, done = compiled.advance(state, packed[0], packed[1], m, rows)
            if done:
                self._took(state, done)
            n -= done
            if status != compiled.OK:
                break  # the faulting step again in Python: it raises today's SimulationFault
        return n

    def _took(self, state, done: int) -> None:
        """After ``done`` steps of a kernel on ``state`` (``q``, ``w``, the norm correction: the plain body's and
        the CMG body's layout): the body's attitude, rates, correction, step count and time from it."""
        self._q = (float(state[0]), float(state[1]), float(state[2]), float(state[3]))
        self._w = (float(state[4]), float(state[5]), float(state[6]))
        self._correction = float(state[7])
        self._k += done
        self._t = self._t0 + (self._k - self._k0) * self._dt

    def step_rows(self, n: int, out) -> None:
        """:meth:`step` ``n`` times with the history row after each step written into ``out[i]`` (an array of
        at least ``n`` rows of :func:`sim.model.rows.history_columns_of` the settings): row ``i`` is
        :meth:`row` after step ``i + 1``.  A body of :func:`sim.core.advance.covers` writes them in the
        compiled loop (:func:`sim.core.row_formula.plain_row`, the formula :meth:`row` calls: the same bits), a
        spacecraft of :func:`sim.model.advance_craft.covers` without CMGs in the craft's
        (:func:`sim.model.craft_row.craft_row`, likewise), every other body one step and one :meth:`row` at a time.

        Raises
        ------
        SimulationFault
            As :meth:`step`; the rows of the steps taken before the fault are written (:attr:`steps` counts them).
        """
        while n > 0:
            if self._cmg is None and (packed := self._packed(n)) is not None:
                left = self._step_plain(packed, n, out)
                out, n = out[n - left:], left
            elif (craft := self._rows_packed()) is not None and craft_kernels.advance_craft.wanted(n):
                left = self._step_craft(craft, n, out)  # sim.model.craft_row.craft_row, the formula row() calls
                out, n = out[n - left:], left
            sliding, i = self._cmd.path is not None, 0
            while i < n:  # one step and one row at a time; a SLERP under way only until it ends (as step)
                self.step(1)
                out[i] = self.row()
                i += 1
                if sliding and self._cmd.path is None:
                    break
            out, n = out[i:], n - i

    def _step_python(self, n: int, sliding: bool = False) -> int:
        """Up to ``n`` steps in Python, all of them, or with ``sliding`` only until the SLERP under way ends (the
        rest of a call then goes compiled where a kernel covers the body: one call of many steps that began in a
        SLERP stepped all of them in Python, 80x a compiled step); the steps taken."""
        integrate, norm, torque, body, cmd = self._integrate, self._norm, self._step_torque, self._gyrostat, self._cmd
        dt = self._dt
        wheels = len(self._w) > 3
        nav = self._nav
        held = self._law if self._law is not self._torque else None
        thr = self._thr
        for i in range(n):
            if thr is not None:  # the thrusters' torque held over the step (sim.model.thruster_drive)
                self._load.thrust = thr.step(self._q, self._w, self._law, self._torque.qc)
            if nav is not None:  # the sensors due in [t, t + dt) and the estimate of t (sim.model.navigation)
                nav.start_step(self._t, dt, self._q, self._world_state, held)
            w0 = self._w
            try:
                q, w, p = integrate(self._q, self._w, self._p, dt, torque, body, self._t)
                q, correction = norm(q)
                if p is not None:
                    w = self._rates(q, p) + w[3:] if wheels else self._rates(q, p)
            except (OverflowError, ZeroDivisionError) as exc:  # a stage overflowed in float math
                raise SimulationFault(f"the state is no longer finite ({exc} in a stage of the step); "
                                      "paused at the last good state", self._t) from None
            except ValueError as exc:
                if "math domain error" not in str(exc):  # math.sin(inf) and the like; anything else is no fault
                    raise
                raise SimulationFault(f"the state is no longer finite ({exc} in a stage of the step); "
                                      "paused at the last good state", self._t) from None
            if not math.isfinite(q[0] + q[1] + q[2] + q[3] + sum(w) + correction):  # the wheels' speeds too
                raise SimulationFault("the state is no longer finite; paused at the last good state",
                                      self._t)
            if self._unit and not 0.0 < q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] < math.inf:
                raise SimulationFault(f"|Q| = {math.hypot(*q):.3g} is beyond what Q / |Q| can be computed from "
                                      "(|Q|^2 overflows or vanishes) with norm handling 'elimination'; paused at "
                                      "the last good state", self._t)
            if self._norm_is_none:
                err = math.sqrt(norm2_Q(q)) - 1.0
                if abs(err) > NORM_FAULT:
                    raise SimulationFault(
                        f"norm error |Q|-1 = {err:.3g} ran away beyond {NORM_FAULT:g} "
                        "with norm handling 'none'", self._t)
            self._q, self._w, self._p, self._correction = q, w, p, correction
            self._k += 1
            self._t = self._t0 + (self._k - self._k0) * dt
            if cmd.path is not None:
                cmd.update(self._t)
                self._sync_command()
            if nav is not None:
                nav.end_step(w0[:3], w[:3], dt)
            if self._world is not None:
                self._update_world()
            if sliding and cmd.path is None:
                return i + 1
        return n

    # ------------------------------------------------------------- snapshots
    def _derived(self) -> tuple:
        """``(p, angles_deg, norm, multiplier, energy, h, torque, command_deg, q_dot_p, more)`` of the current state.

        The state's part is :func:`sim.core.row_formula.body_readout`, the formula the compiled rows take.
        ``more`` is None for a body without wheels or gravity gradient, else the
        keyword arguments of :class:`Snapshot` for them.  With norm handling
        ``elimination`` the Cayley matrix, the angles, the momentum in inertial
        axes, the orbit angles and the multiplier are those of the normalised
        attitude ``Q/|Q|`` and its rate (Joshi (25)); the norm and ``Q . P``
        are the carried state's.
        """
        q, w = self._q, self._w
        p = self._p if self._p is not None else qdot(q, w)
        jr = self._rigid.j_rows
        angles, norm, mult, c, lb, q_dot_p = body_readout(q, w, p, self._unit, jr)
        qa = unit(q) if self._unit else q
        cpsi, ctheta, cphi = self._cmd.angles
        load = self._load
        more = None
        if not load.active:
            energy, h, torque = energy_of(w, lb), inertial_momentum(c, lb), self._law(q, w)
        else:
            command = self._law(q, w)
            wheels = load.wheels
            forces = load(q, w, self._t)
            torque = load.body_torque(forces, w)
            locked = energy_of(w, lb)
            if wheels is None:
                energy, h = locked, inertial_momentum(c, lb)
                more = {"command_torque": command}
            else:
                energy = gyrostat_energy(w, jr, wheels)
                h = inertial_momentum(c, total_momentum(w, jr, wheels))
                more = {"wheel_speeds": w[3:], "wheel_torques": tuple(forces[3:]),
                        "command_torque": command, "locked_energy": locked, "body_h": inertial_momentum(c, lb)}
            if load.gravity_gradient:
                ws = self._world_state
                o = aircraft_angles(to_orbit_frame(qa, self._t, load.rate) if ws is None else
                                    to_lvlh(qa, ws.r_km, ws.v_kms))
                more["orbit_angles_deg"] = (o[0] * _DEG, o[1] * _DEG, o[2] * _DEG)
        if self._cmg is not None:  # the cluster's momentum in h, its torque made, its columns (sim.model.cmg_step)
            hc, torque, command, values = self._cmg.derived(q, w, self._law, load, self._t)
            h = inertial_momentum(c, (lb[0] + hc[0], lb[1] + hc[1], lb[2] + hc[2]))
            more = dict(more or {}, command_torque=command, cmg=values)
        return (p, angles, norm, mult, energy, h, torque, (cpsi * _DEG, ctheta * _DEG, cphi * _DEG), q_dot_p, more)
