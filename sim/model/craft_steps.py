"""A spacecraft's steps through the compiled kernel (:mod:`sim.model.advance_craft`), for
:class:`sim.model.simulation.Simulation`.

:class:`CraftSteps` packs what the settings fix once per change of them (the torque law, the loads, the
wheels' and the facets' tables) and, before each call, what changes between steps: the world of the step
(:class:`~sim.model.world.WorldState`), the torquers' dipole and the command quaternion with its rate.  On a
Kepler orbit the kernel makes each step's world itself and takes many steps a call (up to a field sample's
boundary, where Python makes the world and the next samples); after each call Python rebuilds what readers
see from the kernel's last outputs (:meth:`CraftSteps._loop_done`).  During a SLERP, or on an orbit the kernel
does not propagate, it calls the kernel one step at a time and makes, between the steps, what Python makes
(the next command, the world, the B-dot sample: :meth:`Simulation._update_world`); without a world, many steps in
one call.  With sensors the navigation runs inside the loop between two steps (the sensors' samples, the
estimate and the torque held at it: :mod:`sim.model.craft_nav`), the loop returning when a block of the noise
runs out; Python ends the last step of a call and starts the next (:class:`sim.model.navigation.Navigation`).  The numbers are those of the Python step, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from sim.model import advance_craft as craft
from sim.model.craft_nav import NO_NAV
from sim.model.craft_row import LOOK_SIZE, NO_ROWS, craft_row
from sim.core.equations import qdot
from sim.model.rows import history_columns_of
from sim.core import advance as plain
from sim.core.wheel_program import program
from sim.gnc.magnetic import BDOT_LAWS
from sim.world.orbit import KeplerOrbit
from sim.world.surfaces import pressure

__all__ = ["CraftSteps", "CHUNK", "torquer_arrays"]

#: Most steps in one call without a world (about 10 ms and more): a Python signal (Ctrl-C) waits no longer.
CHUNK = 20_000
_ZERO3 = (0.0, 0.0, 0.0)
_ZERO4 = (0.0, 0.0, 0.0, 0.0)


def torquer_arrays(control) -> tuple:
    """``(mag, rods)`` of the compiled loop for the torquers of a :class:`~sim.gnc.magnetic.MagneticControl`
    (:data:`sim.model.advance_craft.MAG`, its B-dot state zeros; :attr:`sim.gnc.magnetic.Magnetorquers.table`):
    one body's (:meth:`CraftSteps._loop_arrays`) and each ensemble body's (:mod:`sim.ensemble.orbit_loop`)."""
    mag = np.zeros(craft.MAG_SIZE)
    rods = craft.NO_RODS if control.rods is None else control.rods.table
    mag[0] = control.kind
    if control.bdot is not None:
        mag[1], mag[2], mag[3] = BDOT_LAWS.index(control.bdot.law), control.bdot.period, control.bdot.gain
    mag[4] = control.dumping_gain
    if control.rods is not None:
        mag[5:8] = control.rods.residual
    mag[8:11] = control.residual
    return mag, rods


class CraftSteps:
    """The compiled spacecraft step of a :class:`~sim.model.simulation.Simulation` (module docstring)."""

    _craft_key = None
    _loop_key = None
    _row_lists = None

    def _craft_packed(self):
        """``(par, flags, wheels, groups, table)`` of :func:`sim.model.advance_craft.advance_craft` for these
        settings, or None when they step in Python (:func:`sim.model.advance_craft.covers`, a user's torque,
        a TLE's orbit) or are a plain body's (:func:`sim.core.advance.covers`: its own kernel,
        and Python during a SLERP, where one compiled step a call would cost more than the Python step).  Packed again when the settings, the controls or ``dt`` change."""
        s, load = self._settings, self._load
        if load.user is not None:
            return None
        key = self._craft_key
        if key is not None and key[0] is s and key[1] is self._controls and key[2] == self._dt:
            return key[3]
        packed = None
        world = self._world
        if (craft.covers(s) and not plain.covers(s)  # a body without wheels and world: sim.core.advance's
                and (world is None or isinstance(world.orbit, KeplerOrbit))):
            elements = None
            if world is not None:
                o = world.orbit
                elements = tuple(float(x) for x in (o.a, o.e, o.i, o.raan, o.argp, o.m0, *o.rates))
            par, flags = craft.pack(self._torque, load, self._gyrostat, self._dt, s.integrator, s.norm, elements,
                                    s.full_quat_form)
            wheels, groups = program(load.wheels, load.direct)
            table = load.surfaces.table if load.surfaces is not None else craft.NO_SURFACES
            packed = (par, flags, wheels, groups, table)
        self._craft_key = (s, self._controls, self._dt, packed)
        return packed

    def _world_values(self) -> np.ndarray:
        """The kernel's ``world`` (:data:`sim.model.advance_craft.WORLD`) of the step to come."""
        torque, ws, load = self._torque, self._world_state, self._load
        ref = torque.rate_ref
        feed = (0.0, *_ZERO3) if ref is None else (1.0, *ref)
        law = self._law
        held = (0.0, *_ZERO3) if law is torque else (1.0, *law.value)  # fly_on = estimate: the torque held
        head = (self._t0, float(self._k - self._k0))
        if ws is None:  # (the thrusters' torque, the three before ``held``, is the kernel's to write)
            return np.array((*head, 0.0, *_ZERO3, *_ZERO3, *_ZERO3, 0.0, 0.0, *_ZERO3, *_ZERO3, 0.0, *_ZERO3,
                             *torque.qc, *feed, *_ZERO3, *held))
        return np.array((*head, ws.t, *ws.r_km, *ws.v_kms, *ws.sun,
                         pressure(ws.sun_km * 1e3, ws.sunlit) if load.srp else 0.0, ws.sunlit,
                         *(ws.b_eci or _ZERO3), *(ws.b_rate or _ZERO3),
                         ws.density if ws.density is not None else 0.0, *load.dipole, *torque.qc, *feed, *_ZERO3,
                         *held),
                        dtype=float)

    def _loop_arrays(self) -> tuple:
        """``(mag, rods)`` of :func:`sim.model.advance_craft.advance_craft` for this run's torquers
        (:data:`sim.model.advance_craft.MAG`, :attr:`sim.gnc.magnetic.Magnetorquers.table`), made once per
        :class:`~sim.gnc.magnetic.MagneticControl`; the B-dot state is copied in before each call."""
        control = self._magnetic
        key = self._loop_key
        if key is not None and key[0] is control:
            return key[1], key[2]
        mag, rods = torquer_arrays(control)
        self._loop_key = (control, mag, rods)
        return mag, rods

    def _step_craft(self, packed, n: int, into=None) -> int:
        """Up to ``n`` steps through the kernel, with ``into`` (or None) the history row after each step written
        into ``into[i]`` (by the kernel where it makes the worlds or there is none, :func:`sim.model.craft_row.craft_row`;
        else after each call by :meth:`row`, the same formula); the steps left (not 0 after a fault: the caller takes the
        faulting step again in Python, which raises today's SimulationFault; the sensors' samples of that step
        are not taken again, :meth:`sim.model.navigation.Navigation.start_step`'s ``taken``).

        On a Kepler orbit the kernel makes each step's world (:func:`sim.model.advance_craft.next_world`) and
        returns at a field sample's boundary, where Python makes the world (:meth:`_update_world`); after
        each call what readers see (the world, the field in body axes, the torquers' dipole, the command and
        its rate) is that of the last step, as the Python step leaves it.  During a SLERP, or on an orbit the
        kernel does not propagate, one step a call and Python makes the world between them.  With sensors the
        loop runs the navigation between two steps (:mod:`sim.model.craft_nav`: the end of the step taken, the
        start of the next, the torque held at the estimate written into ``world``) and returns when a block of
        noise runs out; between two calls Python's navigation (:meth:`sim.model.navigation.Navigation.step`)
        ends the last step and starts the next, taking the next blocks."""
        par, flags, wheels, groups, table = packed
        cmd, world, nav, dt = self._cmd, self._world, self._nav, self._dt
        held = self._law if self._law is not self._torque else None
        q, w, p = self._q, self._w, self._p
        full = p is not None
        state = np.array((*q, w[0], w[1], w[2], self._correction, *(p if full else _ZERO4), *w[3:]))
        mag, rods = self._loop_arrays()
        bdot = self._magnetic.bdot
        thr = self._thr  # the thrusters fire in the kernel (sim.model.thruster_drive.drive_step)
        thr_arrays = craft.NO_THRUSTERS if thr is None else thr.arrays
        values = self._world_values()
        if nav is not None:  # the sensors due in [t, t + dt) and the estimate of t, as the Python step
            nav.step(self._t, dt, self._q, self._world_state, craft=self._held(values, par, flags, held))
        while n > 0:
            w0 = self._w
            looped = cmd.path is None  # a SLERP under way: one step a call, the command made in Python between
            inp = world.loop_input(self._t) if world is not None and looped else None
            if inp is None:
                inp = out = craft.NO_WORLD
                steps = 1 if world is not None or not looped else min(n, CHUNK)
            else:
                out = world.output
                steps = min(n, CHUNK)
                if bdot is not None:
                    mag[11:20] = bdot.state
                    rods[:, 7] = bdot.u
            rows = NO_ROWS
            if into is not None and (inp is not craft.NO_WORLD or world is None) and (nav is None or steps > 1):
                rows = (into[:steps], self._look())
            arrays = NO_NAV
            if nav is not None and steps > 1:
                arrays = nav.loop_arrays(dt, world is not None, held is not None, world is not None and world.field is None)
            status, done, made = craft.advance_craft(state, values, par, flags, wheels, groups, table, steps,
                                                     thr_arrays, inp, out, mag, rods, arrays, rows)
            lacking = not made  # the last step's world (and row) made in Python
            if arrays is not NO_NAV:  # the streams where the loop left them, the torque it held last
                nav.loop_taken(arrays)
                w0 = tuple(arrays[0][9:12].tolist())  # the last step's start (craft_nav.CTL's w0)
                if held is not None:
                    held.value = tuple(values[36:39].tolist())
            if thr is not None:
                self._load.thrust = thr.torque  # held over the last step (the rows' applied torque)
            n -= done
            if done:
                x = state.tolist()
                self._q, self._w, self._correction = tuple(x[0:4]), (x[4], x[5], x[6], *x[12:]), x[7]
                if full:
                    self._p = tuple(x[8:12])
                self._k += done
                self._t = self._t0 + (self._k - self._k0) * dt
                ending = nav is not None and status == craft.OK
                if ending:  # the last step's end (and so its row) is Python's: the loop ends a step before the next
                    nav.step(None, dt, w0=w0[:3], w1=self._w[:3])
                if out is not craft.NO_WORLD:
                    if not made:  # a field sample's boundary: the next samples, and the loop makes this world
                        values[0], values[1], values[2] = self._t0, float(self._k - self._k0), math.nan
                        last = NO_ROWS if rows is NO_ROWS or ending else (into[done - 1:done], self._look())
                        made = craft.advance_craft(state, values, par, flags, wheels, groups, table, 0, thr_arrays,
                                                   world.loop_input(self._t), out, mag, rods, NO_NAV, last)[2]
                        lacking = not made  # its row written by the kernel with its world
                    self._loop_done(values, out, mag, rods, made)
                else:
                    if cmd.path is not None:
                        cmd.update(self._t)
                        self._sync_command()
                    if world is not None:
                        self._update_world()
                if into is not None:
                    if rows is NO_ROWS or lacking or ending:
                        into[done - 1] = self.row()
                    into = into[done:]
                more = n > 0 and status == craft.OK
                if more:
                    values = self._world_values()
                    if nav is not None:  # the next step's start
                        nav.step(self._t, dt, self._q, self._world_state, craft=self._held(values, par, flags, held))
            if status != craft.OK:
                if nav is not None:
                    nav.taken = True  # the Python step that raises the fault finds this step's samples taken
                break
        return n

    def _loop_done(self, values, out, mag, rods, made: bool) -> None:
        """After a call that made worlds: the B-dot state and the followed command back into Python, then
        the present step's world, field in body axes, dipole, command and rate from the kernel's last
        outputs (``made``), or made in Python (``made`` False: samples the loop could not take)."""
        bdot = self._magnetic.bdot
        if bdot is not None:
            bdot.state[:] = mag[11:20].tolist()
            bdot.u[:] = rods[:, 7].tolist()
        moving = self._world.mode != "inertial"
        if moving:  # the kernel chose each command's sign against the last: follow keeps this one's (q . q > 0)
            qc = self._cmd.qc = tuple(values[24:28].tolist())
            self._cmd.follow(qc)
        if not made:
            self._update_world()
            return
        ws = self._world_state = self._world.state_of(self._t, out)
        self._load.set_world(ws)
        if ws.b_eci is not None:
            self._b_body, self._dipole_cmd = tuple(mag[20:23].tolist()), tuple(mag[23:26].tolist())
            self._load.dipole = tuple(values[21:24].tolist())
        if moving:
            self._torque.rate_ref = ws.wc
            self._sync_command()

    def _look(self) -> np.ndarray:
        """The ``look`` of :func:`sim.model.craft_row.craft_row` now (:data:`sim.model.craft_row.LOOK`)."""
        ws, s, thr = self._world_state, self._settings, self._thr
        look = np.zeros(LOOK_SIZE + (0 if thr is None else len(thr.set.isp)))
        look[17] = self._nav is not None
        if thr is not None:
            look[18], look[19], look[LOOK_SIZE:] = len(thr.set.isp), thr.fuel_before, thr.set.isp
        look[0] = self._cmd.sign
        look[1:4] = s.pointing_axis
        look[4], look[5], look[6] = ws is not None, s.magnetic_on, s.torques_on
        if ws is not None and ws.reference is not None:
            look[7], look[8:11] = 1.0, ws.reference
        if self._b_body is not None:
            look[11:14], look[14:17] = self._b_body, self._dipole_cmd
        return look

    def _rows_packed(self):
        """:meth:`_craft_packed` when the kernel writes this body's rows (:func:`sim.model.craft_row.craft_row`:
        no CMGs), else None."""
        if self._cmg is not None:
            return None
        return self._craft_packed()

    def _craft_row(self, compiled: bool = True):
        """The history row now by :func:`sim.model.craft_row.craft_row` (an array), or None where
        :meth:`_rows_packed` is: compiled, through a call of :func:`sim.model.advance_craft.advance_craft` that takes
        no step, once that kernel is loaded (about 15 us; the formula as Python costs 0.1-10 ms, most of it the
        facets' sums and the NEES's elimination on numpy's scalars), else (or ``compiled`` False) as Python."""
        packed = self._rows_packed()
        if packed is None:
            return None
        par, flags, wheels, groups, table = packed
        q, w, m = self._q, self._w, len(self._w) - 3
        rows = np.empty((1, len(history_columns_of(self._settings))))
        thr, nav = self._thr, self._nav
        if compiled and craft.advance_craft.ready:  # a call of the loop with no step writes the present row
            values = self._world_values()
            if thr is not None:  # the thrusters' torque held over the step just taken
                values[32:35] = thr.torque
            p = self._p
            state = np.array((*q, w[0], w[1], w[2], self._correction, *(p if p is not None else _ZERO4), *w[3:]))
            craft.advance_craft(state, values, par, flags, wheels, groups, table, 0,
                                craft.NO_THRUSTERS if thr is None else thr.arrays, craft.NO_WORLD, craft.NO_WORLD,
                                *self._loop_arrays(), NO_NAV if nav is None else nav.row_arrays(), (rows, self._look()))
            return rows[0]
        lists = self._row_lists  # the formula in Python on lists of floats: numpy's scalars cost 5x
        if lists is None or lists[0] is not par:
            lists = self._row_lists = (par, par.tolist(), flags.tolist())
        world = self._world_values().tolist()
        if thr is not None:  # the thrusters' torque held over the step just taken (the kernel's to write)
            world[32:35] = thr.torque
        craft_row(rows, 0, q, w[:3], self._p if self._p is not None else qdot(q, w[:3]), self._correction,
                  list(w[3:]), self._t, world, lists[1], lists[2], wheels, groups, table,
                  [0.0] * m, [0.0] * m, self._look().tolist(), None if nav is None else nav.row_arrays(),
                  None if thr is None else thr.arrays)
        return rows[0]

    @staticmethod
    def _held(world, par, flags, held):
        """What :meth:`sim.model.navigation.Navigation.step` takes to write the torque held at the estimate
        into ``world`` (fly_on = estimate), or None."""
        return None if held is None else (world, par, flags, held)
