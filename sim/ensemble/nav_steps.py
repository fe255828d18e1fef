"""The ensemble's side of :func:`sim.ensemble.nav_bodies.advance_nav_bodies` (issue 42): when an ensemble with an
estimator steps through it (:meth:`NavSteps._nav_covered`, :meth:`NavSteps._packed_nav`: the warm-up rule of
its ``Kernel``) and the bookkeeping of a call (:meth:`NavSteps._steps_with_nav`: the start of the
first step's navigation and the end of the last in Python, the time, the faults, the metrics, and on an orbit the
command, the torquers' state and the world after it).  Python only: no kernel here, so no edit of it changes the
kernels' cache key (keyed on the modules that import the jit module, sim/core/jit.py)."""

from __future__ import annotations

import math

import numpy as np

from sim.core import advance as plain_body
from sim.core import jit
from sim.ensemble import compiled
from sim.ensemble.compiled import on_threads
from sim.ensemble.nav_bodies import CHUNK, LOAD_AT_ONCE, advance_nav_bodies, no_orbit
from sim.ensemble.orbit_loop import covers as orbit_covers
from sim.ensemble.orbit_loop import pack_orbits
from sim.model import advance_craft as craft
from sim.world.orbit import KeplerOrbit

__all__ = ["NavSteps"]

#: The length of the craft's ``world`` (:data:`sim.model.advance_craft.WORLD`).
_WORLD = sum(craft.WORLD["torque"])


class _Inertia:
    """Placeholder inertia for :func:`sim.model.advance_craft.pack`'s flags (the rows are packed per body)."""

    j_rows = j_inv_rows = (0.0,) * 9


class NavSteps:
    """The part of :class:`~sim.ensemble.Ensemble` (through :class:`~sim.ensemble.environment.Surroundings`) that
    steps bodies with an estimator through :func:`advance_nav_bodies`: when it may (:meth:`_packed_nav`) and the
    bookkeeping of a call (:meth:`_steps_with_nav`); anything else goes on to the next stepper of the ensemble."""

    _nav_packed: tuple | None = None

    def _packed_bodies(self, k: int):
        if getattr(self, "_nav", None) is None:
            return super()._packed_bodies(k)
        return self._packed_nav(k)

    def _compiled_steps(self, packed, k: int) -> int:
        if getattr(self, "_nav", None) is None:
            return super()._compiled_steps(packed, k)
        return self._steps_with_nav(packed, k)

    def _nav_covered(self) -> bool:
        """Whether :func:`advance_nav_bodies` steps these bodies (the module docstring): without an orbit no
        wheels, environment torque or sensors of the world; on the one orbit the bodies share (an estimator flies
        on no other: :meth:`~sim.ensemble.environment.Surroundings._configure_navigation`) what
        :func:`sim.ensemble.orbit_loop.covers` covers, on a Kepler orbit, but full-quat."""
        s, nav = self._settings, self._nav
        if (self._cmd.path is not None or self._p is not None or self._thr is not None or self._cmgs is not None
                or self._unit or not craft.covers(s) or s.integrator not in ("half-quat", "rk4", "rkmk4")):
            return False
        if self._world is None:
            return (len(self._x) == 8 and not self._load.active and self._torque.rate_ref is None
                    and nav.sun is None and nav.mag is None)
        return self._orbits is None and orbit_covers(s) and isinstance(self._world.orbit, KeplerOrbit)

    def _packed_nav(self, k: int):
        """``(par, flags, orbits)`` of :func:`advance_nav_bodies` (``orbits``
        :func:`sim.ensemble.orbit_loop.pack_orbits`' on an orbit, else None), or None when the steps go through the
        numpy columns: not covered (:meth:`_nav_covered`), ``compiled`` False, or ``compiled`` None and either the
        bodies on an orbit (the one they share: the numpy columns make its world once for all, Simulation's bits
        too, and cost less CPU on one core, 1.2-1.7x less: docs/PERFORMANCE.md, "The remaining ensembles compiled
        (issue 42, stop 50)"; as :meth:`sim.ensemble.orbit_loop.OrbitSteps._packed_orbits` keeps a shared orbit)
        or the kernel not wanted yet (:data:`sim.ensemble.nav_bodies.WARM_AFTER` body-steps: numpy's while a
        thread loads it; with the JIT off, only when asked)."""
        if self._compiled is False or not self._nav_covered():
            return None
        if self._compiled is None and (jit.DISABLED or self._world is not None or not self._nav_wanted(k)):
            return None
        advance_nav_bodies.wait()
        s, torque = self._settings, self._torque
        key = (s, self._controls, self._dt, self._jr, torque.gains, torque.command, self._world,
               self._qc if self._world is None else None)  # (on an orbit the command is the world's)
        old = self._nav_packed
        if old is not None and all(a is b for a, b in zip(old[:-1], key)):
            return old[-1]
        if self._world is not None:
            orbits = pack_orbits(self)
            packed = (orbits[0], orbits[1], orbits)
        else:
            one, flags = craft.pack(compiled.Switches(torque), self._load, _Inertia(), self._dt, s.integrator, s.norm,
                                    None, s.full_quat_form)
            qc = np.broadcast_to(self._qc, (4, self.n))
            par = compiled.body_rows(torque, self._jr, self._jir, qc, self._dt, self.n, len(one))
            par[:, 35:49] = one[35:49]
            packed = (par, flags, None)
        self._nav_packed = (*key, packed)
        return packed

    def _nav_wanted(self, k: int) -> bool:
        """The warm-up rule of the kernel (its ``Kernel``) for the next ``k`` steps
        (:data:`sim.ensemble.nav_bodies.WARM_AFTER`), the load
        started at once for :data:`sim.ensemble.nav_bodies.LOAD_AT_ONCE` bodies or more."""
        kernel = advance_nav_bodies
        if not kernel.ready and self.n >= LOAD_AT_ONCE:
            kernel.start()
        return kernel.wanted(k * self.n)

    def _steps_with_nav(self, packed, k: int) -> int:
        """Up to ``k`` steps of every body through :func:`advance_nav_bodies` (at most
        :data:`sim.ensemble.nav_bodies.CHUNK` body-steps,
        fewer where a block of noise ends): the start of the first step's navigation before (Python's, taking the
        next blocks), the end of the last after, then what ``_commit`` does after each step: the step count and
        time, the faults, the metrics, and on an orbit the command (a moving mode's, followed by the kernel), the
        torquers' B-dot state and the world of the new step (:meth:`_update_world`, for its readers).  Returns the
        steps taken."""
        k = min(k, max(1, CHUNK // self.n))
        par, flags, orbits = packed
        nav, dt, n = self._nav, self._dt, self.n
        held = self._law if self._law is not self._torque else None
        s = self._settings
        plain = (orbits is None and held is None and s.integrator in plain_body.INTEGRATORS
                 and s.controller in plain_body.CONTROLLERS and s.norm in plain_body.NORMS)  # the plain body's step
        # (advance.covers but the estimator)
        self._navigate_before()  # the sensors and the estimate of t, the torque held at it (Python's)
        world = np.zeros((n, _WORLD))
        world[:, 24:28] = np.broadcast_to(self._qc, (4, n)).T
        if held is not None:
            world[:, 35] = 1.0
            world[:, 36:39] = np.array(np.broadcast_arrays(*held.value, self.index)[:3]).T
        if orbits is None:
            rest = no_orbit(n)
            arrays = nav.loop_arrays(dt, False, held is not None, False)
        else:
            table, orbit, shared, wheels, groups = orbits[2:7]
            rest = (table, orbit, shared, orbits[9], wheels, groups, *self._torquers(orbits))
            arrays = nav.loop_arrays(dt, True, held is not None, self._world.field is None)
        ctl = np.array(np.broadcast_to(arrays[0], (n, len(arrays[0]))), order="C")  # the kernel's loaded types
        tr, track = self._tracker, self.track
        c = math.cos(math.radians(self.spec.settle_deg) / 2.0)  # Ensemble._outside's band
        switches = np.array([track, self._const_tt is None, self._settings.norm == "none", 0], dtype=np.int64)
        before = self.faulted.copy()
        done, taken = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        on_threads(advance_nav_bodies, (self._x, par, flags, world, k, self._k - self._k0, self._t0, self.faulted,
                                        done, switches, self._k, c * c, float(tr.rate_under), tr.peak_ww,
                                        tr.first_under, tr.travel, tr.peak_tt, tr.last_out, (ctl, *arrays[1:]),
                                        nav.filter is not None, self._nav_sums, taken, plain, *rest), n)
        steps = int(taken[0])
        nav.loop_taken((ctl[0],))
        self._nav_steps += steps - 1  # the window's steps scored by the kernel
        self._called(before, done, steps)
        self._navigate_after(np.ascontiguousarray(ctl[:, 9:12].T), dt)  # the end of the last step (Python's)
        if orbits is not None:
            self._orbit_after(world, rest[6], rest[7])
        self._tracked_call(track)
        return steps

    def _orbit_after(self, world, mags, rods) -> None:
        """After a call on an orbit, what :meth:`sim.ensemble.orbit_loop.OrbitSteps._orbit_steps` does after its
        own: each body's B-dot state back, the kernel's command of the new step (its sign followed per body) and
        the world made again for its readers (:meth:`_update_world`)."""
        bdot, cmd = self._magnetic.bdot, self._cmd
        if bdot is not None:  # each body's B-dot state back (its time, the same for all, as floats)
            bdot.state[:] = [*mags[0, 11:14].tolist(), *(mags[:, 14 + i].copy() for i in range(6))]
            bdot.u[:] = [rods[:, i, 7].copy() for i in range(rods.shape[1])]
        moving = self._world.mode != "inertial"
        qc = np.ascontiguousarray(world[:, 24:28].T)
        if moving:  # the kernel's command of the new step: the sign the world's command is followed from
            cmd.qc = tuple(float(v) for v in qc[:, 0]) if cmd.shared else qc
        self._update_world()
        if moving and not cmd.shared:  # and the command itself (Simulation's bit for bit)
            cmd.qc = qc
            self._sync_command()
