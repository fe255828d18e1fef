"""The ensemble engine: N bodies' state, inputs between steps, the step, faults.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`); body
``j`` is column ``j`` of ``q`` (4, N) and ``w`` (3, N), and with reaction
wheels of ``wheel_speeds`` (one row per wheel).  The step runs the
single-source formulas of :mod:`sim` on numpy rows (:data:`sim.core.ops.COLUMN`),
or, where :func:`sim.ensemble.kernels.covers` the settings (half-quat with
no controller or the quaternion controller, no wheels, no external
torque), the fused kernels (the same operations in the same order, without
allocating).

With an orbit (``settings.has_orbit``) the world of :mod:`sim.model.world`
is evaluated once per step, as :class:`~sim.model.simulation.Simulation`
does: one :class:`~sim.model.world.World` on floats shared by every body
when the bodies share the orbit and the epoch (each body then flies what
``Simulation`` flies bit for bit), or one world per body on numpy rows when
the spec spreads them (``orbit_spread``, ``epoch_spread``): the same
formulas, whose ``atan2`` numpy may round differently from libm by an ulp
(:mod:`sim.core.ops`), so a body agrees with its ``Simulation`` to about
1e-12 rather than bit for bit.  Where :mod:`sim.ensemble.orbit_loop` covers
the settings, the bodies on an orbit step through it instead (each body's
world and step compiled, on every core: bit for bit its ``Simulation``,
one orbit each or shared).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.algebra import norm2_Q
from sim.core.control import TorqueModel
from sim.core.energy import kinetic_energy
from sim.ensemble import cmg_bodies, kernels
from sim.ensemble.environment import Surroundings, bodies_world
from sim.ensemble.heap import keep_temporaries
from sim.ensemble.info import EnsembleFrame, EnsembleInfo, frozen_copy
from sim.ensemble.metrics import Results, Tracker, outside
from sim.ensemble.orbit_loop import OrbitSteps
from sim.ensemble.sampling import sample, sample_inertia, sample_orbits
from sim.ensemble.spec import EnsembleSpec
from sim.core.integrators import qdot
from sim.io.limits import as_integer
from sim.model.one_body import check_no_ensemble
from sim.model.thruster_drive import columns_for
from sim.model.loads import GyrostatRows, LoadModel
from sim.gnc.magnetic import MagneticControl
from sim.core.norm import unit
from sim.core.ops import COLUMN
from sim.model.settings import Settings
from sim.model.simulation import NORM_FAULT
from sim.model.stepping import Stepper
from sim.core.wheels import gyrostat_energy

__all__ = ["Ensemble"]


class Ensemble(Results, Surroundings, OrbitSteps, cmg_bodies.CmgBodies, Stepper):
    """N rigid bodies integrated at once, the column twin of :class:`~sim.model.simulation.Simulation`.

    Parameters
    ----------
    settings : Settings
        What the bodies share (integrator, norm, dt, torque, dampers,
        controller, limiter, command) and the nominal body the spec
        disperses around.
    spec : EnsembleSpec
        How the bodies differ.
    start, count : int
        This object holds the bodies with global indices ``start ..
        start+count-1`` (``count`` defaults to ``spec.bodies - start``).
    track : bool
        Keep the per-step metrics (peak torque and rate, path length,
        settling time; about a fifth of the cost of a torque-free half-quat
        step).  With False, :meth:`metrics` reports those four as nan.
    fused : bool
        Step half-quat (without a controller or with the quaternion
        controller) through the fused kernels of :mod:`sim.ensemble.kernels`
        (default).  False runs every step through the single-source
        formulas; the results are the same bit for bit, only slower (the
        bench compares the two).
    compiled : bool or None
        Step through :mod:`sim.ensemble.compiled` (every core) where it covers the settings: True at once, False
        never, None for :data:`~sim.ensemble.compiled.AUTO` after ``WARM_AFTER`` body-steps; the same bits anyway.

    Attributes
    ----------
    n : int
        Number of bodies held.
    index : ndarray, shape (n,)
        Their global indices.
    q : ndarray, shape (4, n)
        Attitude quaternions, scalar last (inertial -> body), one column per body.
    w : ndarray, shape (3, n)
        Body rates, rad/s.
    wheel_speeds : ndarray, shape (wheels, n)
        Each reaction wheel's speed relative to its body, rad/s (no rows without wheels).
    faulted : ndarray of bool, shape (n,)
        Bodies whose state became non-finite (or whose norm ran away with
        norm handling ``"none"``, :data:`sim.model.simulation.NORM_FAULT`): each is
        frozen at its last good state while the others go on.
    fault_t : ndarray, shape (n,)
        Time of the last good state of a faulted body (nan while fine), as
        :class:`~sim.model.simulation.SimulationFault` reports it.

    ``q`` and ``w`` are views of the current state, whose buffer alternates
    with the next state's at every step: read them after stepping, copy
    them to keep a state.  Writing into them changes the state.

    Examples
    --------
    >>> ens = Ensemble(Settings(dampers_on=True, controller="quaternion", command_deg=(0, 0, 0),
    ...                         slerp_time=0.0, dt=0.01), EnsembleSpec(bodies=100, seed=1))
    >>> ens.step(3000)
    >>> bool(ens.error_deg().max() < 1.0)
    True
    """

    def __init__(self, settings: Settings | None = None, spec: EnsembleSpec = EnsembleSpec(), *,
                 start: int = 0, count: int | None = None, track: bool = True, fused: bool = True,
                 compiled: bool | None = None):
        if not isinstance(spec, EnsembleSpec):
            raise TypeError(f"spec must be an EnsembleSpec, got {type(spec).__name__}")
        start = as_integer("start", start, 0, spec.bodies - 1)
        count = spec.bodies - start if count is None else as_integer("count", count, 1, spec.bodies - start)
        keep_temporaries()  # once per process: the column step's temporaries stay in the heap (sim.ensemble.heap)
        self._settings = settings or Settings()
        check_no_ensemble(self._settings)  # issue 45: CMGs with thrusters are one body's (sim.model.one_body)
        self.spec = spec
        self.index = np.arange(start, start + count, dtype=np.int64)
        self.n = n = count
        self.track = bool(track)
        self.fused = bool(fused)
        self._compiled = None if compiled is None else bool(compiled)
        rows = 8 + self._settings.wheel_count
        self._x = np.zeros((rows, n))       # q (4), w (3), norm correction, a row per wheel: the state
        self._xn = np.zeros((rows, n))      # the next state (the two swap after each step)
        self._p = None                      # full-quat's P (4, n)
        self.faulted = np.zeros(n, dtype=bool)
        self.fault_t = np.full(n, np.nan)
        self._tq = np.zeros((3, n))         # the torque of the step
        self._scratch = kernels.Scratch(n)
        self._tracker = Tracker(n)
        self._torque = TorqueModel(COLUMN)
        self._load = LoadModel(self._torque, COLUMN)
        self._sample = sample(self._settings, spec, self.index)
        self._inertia, self._jr, self._jir, self._jfir, self._mr, self._ar = sample_inertia(
            self._settings, spec, self.index)
        self._orbits = sample_orbits(self._settings, spec, self.index)  # None: one orbit for all
        self._world = self._world_state = None
        self._law = self._torque
        self._info: EnsembleInfo | None = None  # the record of the last frame, until a change
        self._configure()
        self.reset()

    # ------------------------------------------------------ initial samples
    def initial(self) -> dict:
        """Each body's initial sample.

        Returns
        -------
        dict of ndarray
            ``index`` (n,), ``q0`` (4, n), ``angles_deg0`` (3, n) aircraft
            angles (psi, theta, phi), ``rates0`` (3, n), ``inertia`` (6, n)
            (Jxx, Jyy, Jzz, Jxy, Jxz, Jyz), ``gains`` (3, n).  When the spec
            spreads orbits or epochs, also ``orbit`` (6, n) (each body's
            ``Settings.orbit``: alt_km, e, i_deg, raan_deg, argp_deg, nu_deg)
            and ``epoch_us`` (n,) (its epoch minus the settings', whole
            microseconds).
        """
        smp = self._sample
        gains = smp.gains if smp.gains is not None else np.repeat(
            np.array(self._settings.gains, dtype=float)[:, None], self.n, axis=1)
        out = {"index": self.index.copy(), "q0": smp.q0.copy(), "angles_deg0": smp.angles_deg.copy(),
               "rates0": smp.w0.copy(), "inertia": self._inertia.copy(), "gains": gains.copy()}
        if self._orbits is not None:
            out["orbit"], out["epoch_us"] = self._orbits.elements.copy(), self._orbits.epoch_us.copy()
        return out

    def body_settings(self, j: int) -> Settings:
        """Local body ``j``'s initial state as single-body :class:`Settings`.

        ``Simulation(ens.body_settings(j))`` given the same inputs flies
        exactly column ``j``.
        """
        j = as_integer("j", j, 0, self.n - 1)
        return EnsembleInfo.of(self).body_settings(j)

    # ------------------------------------------------------------- inputs
    def apply(self, *inputs) -> None:
        """Change shared settings between steps, as :meth:`Simulation.apply` (:meth:`set`, :meth:`update`).

        Validated the same way (a bad value raises SettingsError).
        ``command_deg`` starts a SLERP from each body's current command;
        ``integrator``, ``norm`` and ``dt`` switch without touching the
        state.  ``angles_deg`` and ``rates`` move the nominal body the
        samples disperse around (taking effect at the next :meth:`reset`);
        ``inertia``, ``body``, ``mass`` and ``mesh_units`` re-draw every body's
        inertia about the new nominal at once, and so do ``wheels`` and
        ``wheel_inertia`` (a draw must leave ``J - sum J_s a a^T`` positive
        definite); a new number of wheels starts them at ``wheel_speeds``.
        With a ``gains_grid`` the bodies keep their grid gains.  CMGs with thrusters are refused (one body's only).
        """
        self._refused(*inputs)  # CMGs with thrusters (issue 45), an estimator on spread orbits: before anything
        super().apply(*inputs)
        self._info = None

    def _changed(self, keys: tuple) -> None:
        if {"angles_deg", "rates"} & set(keys):
            self._sample = sample(self._settings, self.spec, self.index)
        if {"orbit", "tle", "epoch"} & set(keys):
            self._orbits = sample_orbits(self._settings, self.spec, self.index)
        if {"inertia", "body", "mass", "mesh_units", "wheels", "wheel_inertia"} & set(keys):
            self._inertia, self._jr, self._jir, self._jfir, self._mr, self._ar = sample_inertia(
                self._settings, self.spec, self.index)
        rows = 8 + self._settings.wheel_count
        if rows != len(self._x):  # a new number of wheels: at their reset speeds
            self._x, self._xn = self._resized(self._x, rows), np.zeros((rows, self.n))
            self._x[8:] = self._initial_wheel_speeds()
        self._configure()

    def _resized(self, x, rows):
        out = np.zeros((rows, self.n))
        out[:8] = x[:8]
        return out

    def _initial_wheel_speeds(self) -> np.ndarray:
        """``wheel_speeds`` (or zeros) as a column, one row per wheel."""
        s = self._settings
        speeds = s.wheel_speeds if s.wheel_speeds is not None else (0.0,) * s.wheel_count
        return np.array(speeds, dtype=float).reshape(-1, 1)

    def _new_time_base(self) -> None:
        self._segments.append((self._k0, self._t0, self._dt))

    def _configure(self, gains=None) -> None:
        s = self._settings
        smp = self._sample
        super()._configure(tuple(smp.gains) if smp.gains is not None else None, self._jr)
        tm = self._torque
        self._rows = GyrostatRows(self._jr, self._jir, self._settings.wheel_set, self._jfir, self._mr, self._ar)
        self._jterms = kernels.inertia_terms(self._jr)
        self._jiterms = kernels.inertia_terms(self._jir)
        self._g2 = 2.0 * np.array(tm.gains, dtype=float).reshape(3, -1)  # 2 K of (9.9), per body or shared
        self._fast = self.fused and kernels.covers(s) and not (s.estimator != "truth" and s.fly_on == "estimate")
        self._constant_torque()
        self._world = bodies_world(s, self._orbits) if s.has_orbit else None
        self._world_state = None
        self._magnetic = MagneticControl(s, COLUMN)  # issue 32: the torquers' step, Simulation's own
        self._thr = columns_for(s, self.n, getattr(self, "_thr", None))  # issue 45: each body's thrusters
        self._cmgs = cmg_bodies.columns_for(s, self.n, self._jr, self._jir, self._cmgs)  # and CMG clusters
        self._b_body = self._dipole_cmd = None
        tm.rate_ref = None
        if hasattr(self, "_cmd"):
            self._sync_command()
            if self._world is not None:
                self._update_world()
            self._configure_navigation()

    def _constant_torque(self) -> None:
        """The step's torque row when it is the same for all bodies and states (no dampers, no controller)."""
        tm = self._torque
        self._const_tt = None  # |T|^2 of a torque the same for all bodies and states, else None
        if tm.constant and not self._load.active:
            tq = self._tq
            tq[:] = np.array(tm(tuple(self.q), tuple(self.w)), dtype=float).reshape(3, 1)
            self._const_tt = float(tq[0, 0] ** 2 + tq[1, 0] ** 2 + tq[2, 0] ** 2)
        self._zero_torque = self._const_tt is not None and not self._tq.any()

    def _controlled(self, key: str) -> None:
        """A control changed (:meth:`Stepper.control`): a new frame record; a new torque row when it is constant."""
        self._info = None
        if key == "torque":
            self._constant_torque()

    def _derive_p(self, full: bool):
        return np.array(qdot(tuple(self.q), tuple(self.w))) if full else None

    def _sync_command(self) -> None:
        """Pass the command to the torque model (one float each when shared, one row per body otherwise)."""
        cmd, tm = self._cmd, self._torque
        qc = np.array(cmd.qc, dtype=float).reshape(4, -1)
        self._qc, self._qc_neg = qc, -qc
        self._settle_threshold = None  # made by _outside when a metric needs it (not every step of a SLERP)
        # One command for all bodies (a float each), or one per body (a row each): the choice
        # depends on the inputs only, never on how many bodies this chunk holds.
        tm.qc = cmd.qc if cmd.shared else tuple(qc)
        if tm.controller == "euler":  # its command angles (only when it is on)
            tm.command_angles = cmd.angles

    # ------------------------------------------------------------ stepping
    def reset(self) -> None:
        """Back to the initial samples at t = 0; each body's command starts at its attitude.

        A ``command_deg`` in the settings is then a change at t = 0, as in
        :meth:`Simulation.reset`.
        """
        smp = self._sample
        self._info = None
        self._x[0:4] = smp.q0
        self._x[4:7] = smp.w0
        self._x[7] = 0.0
        self._x[8:] = self._initial_wheel_speeds()
        self._p = self._derive_p(True) if self._full else None
        self._t = self._t0 = 0.0
        self._k = self._k0 = 0
        self.faulted[:] = False
        self.fault_t[:] = np.nan
        self._reset_command(smp.q0)
        self._magnetic.reset()
        self._reset_actuators()  # issue 45: no thruster fired, no fuel used, the gimbals at their start angles
        if self._world is not None:
            self._update_world()
        self._energy0 = self.energy()
        self._segments = [(0, 0.0, self._dt)]   # (k0, t0, dt): t of step k is t0 + (k - k0) dt
        self._tracker.reset(smp.w0, self._const_tt, self._outside(), math.radians(self.spec.detumble_deg_s))
        self._tracked = self.track
        self._nav_key = None
        self._configure_navigation()

    def frame(self) -> EnsembleFrame:
        """The state now as read-only copies another thread may keep (:class:`~sim.ensemble.info.EnsembleFrame`).

        Copies of ``q``, the command and the faults only (cheap beside a
        step); its :class:`~sim.ensemble.info.EnsembleInfo` is
        made again only after a change (:meth:`set`, :meth:`reset`), else
        the same record as the last frame's, so a reader can tell a new
        ensemble from a moved one by identity.
        """
        if self._info is None:
            self._info = EnsembleInfo.of(self)
        qc = self.qc
        if qc.strides[1] == 0:  # one command for every body (a broadcast view): keep its one column
            qc = qc[:, :1]
        return EnsembleFrame(t=self.t, q=frozen_copy(self.attitude), qc=frozen_copy(qc),
                             faulted=frozen_copy(self.faulted), info=self._info)

    @property
    def q(self) -> np.ndarray:
        """Attitude quaternions (4, n), scalar last (inertial -> body); a view of the current state."""
        return self._x[0:4]

    @property
    def w(self) -> np.ndarray:
        """Body rates (3, n), rad/s; a view of the current state."""
        return self._x[4:7]

    @property
    def wheel_speeds(self) -> np.ndarray:
        """Reaction-wheel speeds relative to each body (wheels, n), rad/s; a view of the current state."""
        return self._x[8:]

    @property
    def attitude(self) -> np.ndarray:
        """The quaternions the attitudes are read from (4, n): :attr:`q`, or a new array of ``q / |q|``
        with norm handling ``elimination`` (:func:`sim.core.norm.elimination`)."""
        return np.array(unit(tuple(self.q), COLUMN)) if self._unit else self.q

    @property
    def qc(self) -> np.ndarray:
        """Command quaternions (4, n) after SLERP, one column per body (read only)."""
        return np.broadcast_to(self._qc, (4, self.n))

    def energy(self) -> np.ndarray:
        """Kinetic energy ``T = 1/2 w^T J w`` of each body, Hoffmann (5.1) (:func:`sim.core.energy.kinetic_energy`);
        with wheels, theirs too (:func:`sim.core.wheels.gyrostat_energy`)."""
        wheels = self._settings.wheel_set
        if wheels is None:
            return kinetic_energy(tuple(self.w), self._jr)
        return gyrostat_energy(tuple(self._x[4:7]) + tuple(self._x[8:]), self._jr, wheels)

    def step(self, k: int = 1) -> None:
        """Advance every body ``k`` fixed steps (a faulted body stays frozen at its last good state)."""
        with np.errstate(all="ignore"):
            while k > 0:
                packed = self._packed_bodies(k)
                if packed is not None:  # sim.ensemble.compiled: on every core, a chunk of steps
                    k -= self._compiled_steps(packed, k)
                    continue
                k -= 1
                if self._thr is not None:  # each body's thrusters, held over the step (sim.model.thruster_drive)
                    self._load.thrust = self._thr.step(self._x[0:4], np.vstack((self._x[4:7], self._x[8:])),
                                                       self._law, self._qc)
                if self._nav is not None:  # the sensors and the estimate of t (sim.model.navigation)
                    self._navigate_before()
                if self._fast:
                    self._fused_step()
                else:
                    self._general_step() if self._cmgs is None else self._cmgs.step(self)  # issue 45: CMG clusters
                self._commit()

    def _fused_step(self) -> None:
        """Half-quat through the fused kernels (:mod:`sim.ensemble.kernels`)."""
        sc = self._scratch
        if self._const_tt is None:
            kernels.torque_into(self._tq, self.q, self.w, self._torque, self._g2, self._qc, self._qc_neg, sc)
        kernels.half_quat_into(self._x, self._xn, self._tq, self._dt, self._jterms, self._jiterms,
                               self._settings.norm, self._zero_torque, sc)

    def _general_step(self) -> None:
        """One step of :mod:`sim.core.integrators`, the torque model (or loads) and the norm mode on tuples of rows."""
        tm = self._step_torque
        first = []

        def torque(q, w, t=None):
            load = tm(q, w, t)
            if not first:
                first.append((load, w))
            return load

        x, xn = self._x, self._xn
        nw = len(x) - 8
        w0 = tuple(x[4:7]) + tuple(x[8:]) if nw else tuple(x[4:7])
        p = None if self._p is None else tuple(self._p)
        q, w, p = self._integrate(tuple(x[0:4]), w0, p, self._dt, torque, self._rows, self._t)
        q, correction = self._norm(q, COLUMN)
        if p is not None:
            w = self._rates(q, p) + tuple(w[3:])
            self._pn = np.array(np.broadcast_arrays(*p))
        for i in range(4):
            xn[i] = q[i]
        for i in range(3):
            xn[4 + i] = w[i]
        xn[7] = correction
        for i in range(nw):
            xn[8 + i] = w[3 + i]
        if self.track:  # the torque of the step, for the peak-torque metric
            load, w_first = first[0]
            t = self._load.body_torque(load, w_first) if self._load.active else load
            for i in range(3):
                self._tq[i] = t[i]

    def _bad(self):
        """Bodies whose next state is a fault (as :meth:`Simulation.step` decides), or None.

        A state is bad when ``q + w + correction`` is not finite, or with norm
        handling ``none`` when ``||Q| - 1|`` exceeds :data:`NORM_FAULT`.  The
        half-quat path checks only the correction (or the norm): its ``Q``
        is built from every component of the new ``w``, so a non-finite ``w``
        always reaches ``Q``.
        """
        xn = self._xn
        bad = None
        if self._settings.norm == "none":
            qn = xn[0:4]
            err = np.abs(np.sqrt(norm2_Q(qn)) - 1.0)
            if not (err <= NORM_FAULT).all():
                bad = ~(err <= NORM_FAULT)
            if self._fast:
                return bad
        elif self._fast:
            return None if math.isfinite(float(xn[7].sum())) else ~np.isfinite(xn[7])
        s = self._scratch.s3
        np.add.reduce(xn, axis=0, out=s)
        if not math.isfinite(float(s.sum())):
            nonfinite = ~np.isfinite(s)
            bad = nonfinite if bad is None else (bad | nonfinite)
        return bad

    def _commit(self) -> None:
        """Accept the next state where it is good; flag and freeze the bodies where it is not."""
        bad = self._bad()
        if bad is not None:
            new = bad & ~self.faulted
            self.faulted |= new
            self.fault_t[new] = self._t
        ok = None
        if self.faulted.any():
            ok = ~self.faulted
            np.copyto(self._xn, self._x, where=self.faulted)
            if self._p is not None:
                np.copyto(self._pn, self._p, where=self.faulted)
        self._x, self._xn = self._xn, self._x
        if self._p is not None:
            self._p = self._pn
        self._k += 1
        self._t = self._t0 + (self._k - self._k0) * self._dt
        if self._cmd.path is not None:
            self._cmd.update(self._t)
            self._sync_command()
        if self._nav is not None:  # the gyro over the step (the rates before it: the other buffer now)
            self._navigate_after(self._xn[4:7], self._dt)
        if self._world is not None:
            self._update_world()
        if self.track:
            self._tracker.track(self.w, self._tq, self._const_tt, self._dt, ok, self._k, self._outside(),
                                self._scratch)
        else:
            self._tracked = False

    def _outside(self) -> np.ndarray:
        if self._settle_threshold is None:
            qc = self._qc
            c = math.cos(math.radians(self.spec.settle_deg) / 2.0)
            self._settle_threshold = (c * c) * norm2_Q(qc)
        return outside(self.q, self._qc, self._settle_threshold, self._settings.norm == "none" or self._unit,
                       self._scratch)
