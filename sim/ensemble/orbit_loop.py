"""The ensemble's body loop on an orbit: each body's world and spacecraft step compiled, on every core (issue 42).

:func:`advance_orbit_bodies` takes ``n`` steps of every body of an :class:`~sim.ensemble.Ensemble` whose
bodies fly on an orbit (one shared, or one per body: ``orbit_spread``, ``epoch_spread``) in one call: a
loop over the bodies ``lo..hi``, each making, at the start of every step, its world at the step's
time, as :meth:`sim.model.simulation.Simulation._update_world` does (:func:`sim.ensemble.orbit_world.world_into`:
its orbit at ``t``, and at ``t -+ 0.5 s`` for a moving pointing mode's rate feed-forward and ``t + 1 s`` for the
dipole, :func:`sim.world.orbit.mean_elements_state`'s bits; IGRF's samples every 10 s taken by the body itself;
the numbers of :func:`sim.model.world_kernel.world_values` with ``ops=None``, or of its parts the step reads;
the torquers' dipole of :func:`sim.gnc.magnetic.torquer_command` with the body's B-dot state,
:func:`sim.ensemble.orbit_world.torquers_into`; the command's sign kept as
:meth:`sim.core.command.CommandInterpolator.follow` keeps it), then the spacecraft's step
:func:`sim.model.advance_craft.craft_step` (reaction wheels, the gravity gradient on the orbit at each stage's
time, SRP and drag on the facets, the torquers' ``m x B``, the disturbance torque, the torque law with the rate
feed-forward) with the norm mode and the fault checks of :func:`sim.model.advance_craft.advance_craft`.  The same
kernels as one body's, so each body is bit for bit its :class:`~sim.model.simulation.Simulation`, including
where the bodies' orbits and epochs differ (each body's field model then at its own epoch's year, as its
World takes it; the numpy path's worlds on rows, with one model, agree with it to about 1e-12 only:
:mod:`sim.ensemble.engine`).  The per-step metrics of :class:`sim.ensemble.metrics.Tracker` are kept as in
:func:`sim.ensemble.compiled.advance_bodies`, on the command of the new step as ``Ensemble._commit`` does.

Covered (:func:`covers`): a Kepler orbit (elements; not a TLE), any pointing mode, half-quat, rk4, rkmk4 or
full-quat (its ``P`` each body's: :func:`sim.model.advance_craft.full_quat_step`) with the norm modes and torque laws of :func:`sim.model.advance_craft.covers`, reaction wheels (any layout,
direct motor torques), the gravity gradient, SRP and drag (exponential atmosphere) on the facets, a dipole or
IGRF field with the torquers (B-dot, momentum dumping, a residual dipole), the disturbance torque.  Not covered,
stepping through the numpy columns as before: NRLMSIS (its samples are pymsis's, called from Python: the single
body's loop returns to Python for them), full-quat's ``kane`` form, thrusters, a SLERP under way; a navigation steps through
:func:`sim.ensemble.nav_bodies.advance_nav_bodies` (on the shared orbit).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.advance import OK, inertia, law_torque, normed, status_of
from sim.core.equations import quasi_rates, rates
from sim.core.algebra import dot_QQ
from sim.core.jit import DISABLED, kernel
from sim.core.wheel_program import program
from sim.ensemble import compiled
from sim.ensemble.compiled import on_threads, track_body
from sim.ensemble.orbit_world import (NO_SUN, SAMPLES, body_elements, fixed_part, new_kept, renew_kept, sun_at,
                                      torquers_into, world_into)
from sim.gnc.pointing import INERTIAL, MODE_CODES
from sim.model import advance_craft as craft
from sim.model import world_kernel as wk
from sim.model.craft_row import wheel_reaction
from sim.model.craft_steps import torquer_arrays
from sim.model.world import decimal_year
from sim.world.magnetic import IGRF_DEGREE, gauss
from sim.world.orbit import KeplerOrbit
from sim.world.time import parse_epoch

#: The lengths of :data:`sim.model.advance_craft.FLAGS` and :data:`~sim.model.advance_craft.WORLD`.
_FLAGS, _WORLDS = max(craft.FLAGS.values()) + 1, sum(craft.WORLD["torque"])

__all__ = ["advance_orbit_bodies", "run_bodies", "covers", "pack_orbits", "ORBIT", "CHUNK", "OrbitSteps"]

#: Layout of a body's row of ``orbit``: the nine mean elements and rates of
#: :func:`sim.world.orbit.mean_elements_state`, then the epoch's Julian day and fraction, and the field model's
#: dipole at the epoch (T, ECEF: :attr:`sim.world.magnetic.Gauss.dipole`).
ORBIT = {"elements": (0, 9), "jd_day": (9, 1), "jd_frac": (10, 1), "dipole": (11, 3)}
_ORBIT = 14

#: Most body-steps in one call of :func:`advance_orbit_bodies` (under a second at the 1.7 us of a Sun-pointing
#: body-step with one orbit each; :data:`sim.ensemble.compiled.CHUNK` is sized for steps of tens of ns): Ctrl-C
#: is seen between calls.  After each call Python makes the world once (on rows, one orbit per body: about
#: 1.3 us a body), a few percent of the call.
CHUNK = 500_000

def _sample() -> tuple:
    """Arguments of :func:`advance_orbit_bodies` of the types it is compiled for (no step taken)."""
    x, par, flags = np.zeros((8, 1)), np.zeros((1, 58)), np.zeros(_FLAGS, dtype=np.int64)
    track, i1, f1 = np.zeros(4, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1)
    orbit = np.zeros((1, _ORBIT))
    orbit[0, 0], orbit[0, 8] = 7000.0, 1e-3
    wheels, groups = program(None)
    return (x, par, flags, craft.NO_SURFACES, orbit, wk.new_input(), np.zeros((4, 1)), 0, 0, 0.0,
            np.zeros(1, dtype=np.bool_), i1, track, 0, 0.0, 0.0, f1, i1, f1, f1, i1, wheels, groups,
            np.zeros((1, craft.MAG_SIZE)), np.zeros((1, 0, craft.NO_RODS.shape[1])), np.zeros((1, 1, 4)), np.zeros((4, 0)),
            0, 0)


def covers(settings) -> bool:
    """True when :func:`advance_orbit_bodies` steps an ensemble of ``settings`` on its orbit (module docstring;
    the ensemble's own state is checked by :meth:`OrbitSteps._packed_orbits`)."""
    s = settings
    return (s.has_orbit and s.tle is None and craft.covers(s) and s.thrusters == "none"
            and (not s.drag or s.atmosphere == "exponential"))


@kernel
def advance_orbit_bodies(x, par, flags, table, orbit, shared, qc, n, s0, t0, faulted, done, track, k0, c2,
                         rate_under, peak_ww, first_under, travel, peak_tt, last_out, wheels, groups, mags, rods, terms,
                         pq, lo, hi):
    """Up to ``n`` steps of each body ``lo <= j < hi`` (column ``j`` of ``x``, (8 + wheels, m): q, w, correction,
    the wheels' speeds) on its orbit, in place; it holds no GIL, so :func:`run_bodies` runs ranges of the bodies
    on threads side by side.

    ``par`` (m, 58) and ``flags`` are :func:`sim.model.advance_craft.pack`'s, one ``par`` row per body;
    ``table`` the facets' table, ``wheels`` and ``groups`` the wheels' (:func:`sim.core.wheel_program.program`);
    ``orbit`` (m, 11) each body's orbit and epoch (:data:`ORBIT`), or (1, 11) one orbit for all (its world then
    made once a step, for every body); ``shared`` the world's input of :data:`sim.model.world_kernel.INPUTS`
    for what the bodies share (the pointing axes, the target, the dipole, the mode, field and atmosphere codes);
    ``terms`` IGRF's terms (:func:`sim.ensemble.orbit_world.field_sample`), one table for all (1, T, 4) or one a
    body (m, T, 4) when their epochs differ; ``mags`` (m, :data:`sim.model.advance_craft.MAG_SIZE`) and
    ``rods`` (m, rods, 8) each body's torquers (:data:`sim.model.advance_craft.MAG`, the B-dot state and the
    held rods followed in place); ``pq`` (4, m) full-quat's ``P = dQ/dt`` of each body, in place ((4, 0) for
    the other integrators); ``qc`` (4, m) each body's command, followed in place by a moving mode.  The
    step ``k0 + i`` (``i`` from 0) is at ``t = t0 + (s0 + i) dt``, the ensemble's time base.

    ``faulted``, ``done`` and the metrics (``track = (on, torque, norm_none, -)``, ``peak_ww``, ``first_under``,
    ``travel``, ``peak_tt``, ``last_out``) as :func:`sim.ensemble.compiled.advance_bodies`, the torque of a
    step that of its first stage on the body (``Ensemble._general_step``: with wheels ``T_ext`` plus their
    reaction), the settle band ``(Q.Qc)^2 < c2 |Qc|^2`` on the command of the new step.
    """
    mode, field = int(shared[36]), int(shared[37])
    srp = flags[12] != 0
    one = orbit.shape[0] == 1  # one orbit shared: its world made once a step for every body
    worlds = np.zeros((n + 1 if one else 0, _WORLDS))
    if one:
        orb = fixed_part(orbit[0])
        fs = np.full(SAMPLES, np.nan)
        kept = new_kept(par[0, 34])
        for i in range(n + 1):
            world_into(worlds[i], orbit[0], orb, t0 + (s0 + i) * par[0, 34], shared, srp, fs, terms[0], kept, NO_SUN,
                       False)
    # one epoch for all the orbits (no epoch spread): the Sun once a step for every body, when a step reads it
    epoch = not one and int(shared[38]) == 0 and (mode != INERTIAL or srp)
    for j in range(orbit.shape[0]):
        epoch = epoch and orbit[j, 9] == orbit[0, 9] and orbit[j, 10] == orbit[0, 10]
    suns = np.empty((n + 1 if epoch else 0, 4))
    for i in range(suns.shape[0]):
        suns[i, 0], suns[i, 1], suns[i, 2], suns[i, 3] = sun_at(orbit[0, 9], orbit[0, 10], t0 + (s0 + i) * par[0, 34])
    nw = wheels.shape[0]
    kept = new_kept(par[0, 34])  # (each body's: renewed for it)
    for j in range(lo, hi):
        # each body's own copies of par's row, the flags, the tables and the input, its metrics in locals: an
        # array passed to a function costs atomic reference counts, on a counter the threads share when the array
        # is shared.  Arrays, not tuples: the craft step's formulas then have advance_craft's types, compiled once
        # for both kernels (docs/PERFORMANCE.md, compile time)
        p, fl = par[j].copy(), flags.copy()
        tab, wh, gr = table.copy(), wheels.copy(), groups.copy()
        inp = shared.copy()
        mag, rd = mags[j].copy(), rods[j].copy()
        tm = terms[0 if terms.shape[0] == 1 else j].copy()
        el = orbit[0 if one else j].copy()
        orb = fixed_part(el)  # its orbit's shape and axes, once (the same bits as at every step)
        fs = np.full(SAMPLES, np.nan)  # its IGRF samples
        renew_kept(kept, p[34])  # its orbit states, read again at later steps
        world = np.zeros(_WORLDS)
        buf = np.zeros((9, nw))
        speeds = buf[6]
        for a in range(nw):
            speeds[a] = x[8 + a, j]
        jr, jir = inertia(p)
        jfi = (p[40], p[41], p[42], p[43], p[44], p[45], p[46], p[47], p[48])
        dt, norm = p[34], fl[1]
        full = fl[0] == 2
        pw = (pq[0, j], pq[1, j], pq[2, j], pq[3, j]) if full else (0.0, 0.0, 0.0, 0.0)
        q = (x[0, j], x[1, j], x[2, j], x[3, j])
        w = (x[4, j], x[5, j], x[6, j])
        correction = x[7, j]
        c = (qc[0, j], qc[1, j], qc[2, j], qc[3, j])
        alive = not faulted[j]
        good = 0
        tt = 0.0
        metrics = (peak_ww[j], first_under[j], travel[j], peak_tt[j], last_out[j])
        for i in range(n + 1):
            # the world at the step's start (Simulation._update_world, after the last step or at reset)
            t = t0 + (s0 + i) * dt
            if one:
                for a in range(_WORLDS):
                    world[a] = worlds[i, a]
            else:
                given = (suns[i, 0], suns[i, 1], suns[i, 2], suns[i, 3]) if epoch else NO_SUN
                world_into(world, el, orb, t, inp, srp, fs, tm, kept, given, False)
            if field != 0:  # the torquers' dipole at the step's start (again at a call's first: the same bits)
                torquers_into(world, q, t, speeds, norm, wh, mag, rd)
            if mode != INERTIAL:  # CommandInterpolator.follow: the sign continuous with the present command
                qw = (world[24], world[25], world[26], world[27])
                sign = -1.0 if dot_QQ(qw, c) < 0.0 else 1.0
                c = (sign * qw[0], sign * qw[1], sign * qw[2], sign * qw[3])
            if i > 0 and track[0] != 0:  # Tracker.track after step k0 + i, on the command of the new step
                metrics = track_body(metrics, k0 + i, q, w, c, c2, alive, tt, dt, track[2] != 0, rate_under)
            if i == n:
                break
            for a in range(4):
                world[24 + a] = c[a]
            if alive:
                if track[0] != 0 and track[1] != 0:  # |T|^2 of the step's first stage (Ensemble._general_step)
                    ws = w
                    if full:  # full-quat's torque law sees the rates of (Q, P) (sim.core.integrators.full_quat)
                        ws = quasi_rates(q, pw) if norm == 3 else rates(q, pw)
                    if nw > 0:  # the body's torque: T_ext and the wheels' reaction (LoadModel.body_torque)
                        tq = craft.craft_load(q, ws, speeds, t, world, p, fl, jr, wh, tab, buf[0])
                        r = wheel_reaction(buf[0], speeds, wh, gr, buf[1])
                        tq = (tq[0] + r[0], tq[1] + r[1], tq[2] + r[2])
                    else:  # craft_load's T_cmd + T_ext, without its array arguments' cost (about 100 ns a step)
                        wd = (ws[0] - world[29], ws[1] - world[30], ws[2] - world[31]) if world[28] != 0.0 else ws
                        tq = law_torque(q, wd, c, p, fl)
                        if fl[16] != 0:
                            e, have = craft.external(q, t, world, p, fl, jr, tab)
                            if have:
                                tq = (tq[0] + e[0], tq[1] + e[1], tq[2] + e[2])
                    tt = tq[0] * tq[0] + tq[1] * tq[1] + tq[2] * tq[2]
                p1 = pw
                if full:  # (Q, P), the rates read back from them after the norm mode (advance_craft's)
                    q1, p1 = craft.full_quat_step(q, pw, speeds, t, world, p, fl, jr, jir, jfi, wh, gr, tab, buf)
                    q1, c1 = normed(q1, norm)
                    w1 = quasi_rates(q1, p1) if norm == 3 else rates(q1, p1)
                else:
                    q1, w1 = craft.craft_step(q, w, speeds, t, world, p, fl, wh, gr, tab, buf)
                    q1, c1 = normed(q1, norm)
                sw = 0.0 + w1[0] + w1[1] + w1[2]  # Python's sum(w), left to right from 0, the wheels after the body
                for a in range(nw):
                    sw = sw + buf[7, a]
                status = status_of(q1, sw, c1, norm)
                if status == OK:
                    q, w, correction, pw = q1, w1, c1, p1
                    for a in range(nw):
                        speeds[a] = buf[7, a]
                    good += 1
                else:
                    alive = False
                    faulted[j] = True
        x[0, j], x[1, j], x[2, j], x[3, j] = q
        x[4, j], x[5, j], x[6, j] = w
        x[7, j] = correction
        for a in range(nw):
            x[8 + a, j] = speeds[a]
        if full:
            pq[0, j], pq[1, j], pq[2, j], pq[3, j] = pw
        qc[0, j], qc[1, j], qc[2, j], qc[3, j] = c
        for a in range(mags.shape[1]):
            mags[j, a] = mag[a]
        for a in range(rd.shape[0]):
            rods[j, a, 7] = rd[a, 7]
        done[j] = good
        peak_ww[j], first_under[j], travel[j], peak_tt[j], last_out[j] = metrics


def run_bodies(args: tuple, m: int) -> None:
    """:func:`advance_orbit_bodies` ``(*args, lo, hi)`` over the bodies ``0..m``, split into numba's thread count
    (``numba.get_num_threads()``, as a ``prange`` would take it) of equal ranges run on as many threads (this one
    and ``threads - 1`` started for the call).  Not a
    ``prange``: numba compiled the craft step's formulas again for the ``prange``'s body, about 5 s of CPU more
    (docs/PERFORMANCE.md); the bodies share nothing, so each is the same bits on any thread.  One thread when
    the kernel runs as Python (not loaded, or the JIT off)."""
    on_threads(advance_orbit_bodies, args, m)


class _Inertia:
    """Placeholder inertia for :func:`sim.model.advance_craft.pack`'s flags (the rows are packed per body)."""

    j_rows = j_inv_rows = (0.0,) * 9


def pack_orbits(ens) -> tuple:
    """``(par, flags, table, orbit, shared, wheels, groups, mags, rods, terms)`` of :func:`advance_orbit_bodies`
    for the bodies of the ensemble ``ens`` (one ``par`` row per body; one ``orbit`` row per body,
    :data:`ORBIT`: the elements, epoch and field each body's :class:`~sim.model.world.World` is built from, or
    one row for one shared orbit; ``mags`` and ``rods`` the torquers' tables of one body, B-dot's state to fill
    per body: :meth:`OrbitSteps._torquers`)."""
    s, torque, load, world, n = ens._settings, ens._torque, ens._load, ens._world, ens.n
    one, flags = craft.pack(compiled.Switches(torque), load, _Inertia(), ens._dt, s.integrator, s.norm, None,
                            s.full_quat_form)
    par = compiled.body_rows(torque, ens._jr, ens._jir, np.broadcast_to(ens._qc, (4, n)), ens._dt, n, len(one))
    par[:, 35:40] = one[35:40]  # the orbit rate, the disturbance and its period
    if ens._jfir is not None:  # the inverse of each body's inertia with the wheels free (sim.model.loads.Gyrostat)
        par[:, 40:49] = np.array(np.broadcast_arrays(*ens._jfir, np.zeros(n))[:9]).T
    orbit = np.empty((n, _ORBIT))
    models = [world.model]
    if ens._orbits is None:  # one orbit for all: the world's own floats, one row
        orbit = np.empty((1, _ORBIT))
        orbit[:, 0:9] = world.orbit.elements_and_rates
    else:
        orbit[:, 0:9] = body_elements(s, ens._orbits)
        if world.model is not None and ens.spec.epoch_spread > 0.0:
            # each body's field at its own epoch's year, as its World takes it (one set for the numpy columns)
            models = [gauss(decimal_year(parse_epoch(text).days_utc(0.0)), IGRF_DEGREE) for text in ens._orbits.epochs]
    orbit[:, 9], orbit[:, 10] = world.epoch.jd_day, world.epoch.jd_frac
    orbit[:, 11:14] = 0.0 if world.model is None else np.array([m.dipole for m in models])
    terms = np.zeros((1, 1, 4))
    if world.field == "igrf":
        terms = np.array([np.array(m.terms, dtype=float).reshape(-1, 4) for m in models])
    par[:, 49:58] = orbit[:, 0:9]
    table = load.surfaces.table if load.surfaces is not None else craft.NO_SURFACES
    shared = wk.new_input()
    shared[12:15], shared[15:18] = world.b1, world.b2
    shared[18:21], shared[21:24] = world.target_ecef, world.target_up_ecef
    shared[36], shared[37], shared[38] = MODE_CODES[world.mode], wk.FIELD_CODES[world.field], wk.AIR_CODES[world.air]
    wheels, groups = program(load.wheels, load.direct)
    mag, rods = torquer_arrays(ens._magnetic)
    return (par, flags, np.ascontiguousarray(table), orbit, shared, wheels, groups, mag, rods,
            np.ascontiguousarray(terms))


class OrbitSteps(compiled.CompiledSteps):
    """:class:`~sim.ensemble.compiled.CompiledSteps`, and on an orbit the steps through
    :func:`advance_orbit_bodies`: when it may (:meth:`_packed_orbits`) and the bookkeeping of a call."""

    _orbits_key: tuple | None = None

    def _packed_bodies(self, k: int):
        if self._world is None:
            return super()._packed_bodies(k)
        return self._packed_orbits(k)

    def _compiled_steps(self, packed, k: int) -> int:
        if self._world is None:
            return super()._compiled_steps(packed, k)
        return self._orbit_steps(packed, k)

    def _packed_orbits(self, k: int):
        """The packed arguments (:func:`pack_orbits`) for the next ``k`` steps, or None when they go through the
        numpy columns: the settings are not covered (:func:`covers`; or a TLE, navigation, a
        SLERP under way), ``compiled`` is False, or ``compiled`` is None and the bodies share one orbit (the
        numpy columns make its world once for all, on floats: Simulation's bits too, and faster on one core:
        docs/PERFORMANCE.md) or the JIT is off (the loop then runs as Python: only after its ``wait()``).

        One orbit per body steps through the loop from the first step, whatever the process did before (unless
        ``compiled`` is False): the numpy columns' worlds on rows may round an ulp off it, so a switch half-way,
        as :mod:`sim.ensemble.compiled` makes after its ``WARM_AFTER`` body-steps, would make a body's numbers
        depend on the process it ran in (a sweep's chunks on other workers).  The first such ensemble of a
        process waits for it (:meth:`sim.core.jit.Kernel.wait`: from the disk cache about 0.3 s; a first compile,
        announced, in a child process, 10-30 s)."""
        s = self._settings
        if (self._compiled is False or self._compiled is None and (self._orbits is None or DISABLED and not advance_orbit_bodies.ready)
                or self._cmd.path is not None or self._nav is not None
                or self._law is not self._torque or not covers(s)
                or not isinstance(self._world.orbit, KeplerOrbit)):
            return None
        advance_orbit_bodies.wait()  # (nothing once it is ready)
        torque = self._torque
        key = (s, self._controls, self._dt, self._jr, torque.gains, torque.command, self._world)
        old = self._orbits_key
        if old is not None and all(a is b for a, b in zip(old[:-1], key)):
            return old[-1]
        packed = pack_orbits(self)
        self._orbits_key = (*key, packed)
        return packed

    def _torquers(self, packed) -> tuple:
        """``(mags, rods)`` of :func:`advance_orbit_bodies`: the torquers' tables of :func:`pack_orbits`, one row
        a body, with each body's B-dot state and held rods (:class:`sim.gnc.magnetic.Bdot` on rows)."""
        n, bdot = self.n, self._magnetic.bdot
        mags, rods = np.repeat(packed[7][None, :], n, axis=0), np.repeat(packed[8][None, :, :], n, axis=0)
        if bdot is not None:  # as before the present step's sample (in the numpy world's field), made again here
            k, state, us = getattr(self, "_bdot_before", None) or (None, None, None)
            if k != self._k:
                state, us = bdot.state, bdot.u
            mags[:, 11:20] = np.array(np.broadcast_arrays(*state, np.zeros(n))[:9]).T
            for i, u in enumerate(us):
                rods[:, i, 7] = u
        return mags, rods

    def _orbit_steps(self, packed, k: int) -> int:
        """Up to ``k`` steps of every body through :func:`advance_orbit_bodies` (at most
        :data:`CHUNK` body-steps), then what ``_commit`` does after each: the step count
        and time, the faults, the command (a moving mode's, followed by the kernel) and the world of the new
        step (:meth:`~sim.ensemble.environment.Surroundings._update_world`, for its readers).  Returns the
        steps taken."""
        k = min(k, max(1, CHUNK // self.n))
        par, flags, table, orbit, shared, wheels, groups = packed[:7]
        mags, rods = self._torquers(packed)
        tr, track, cmd = self._tracker, self.track, self._cmd
        qc = np.array(np.broadcast_to(self._qc, (4, self.n)), dtype=float)
        c = math.cos(math.radians(self.spec.settle_deg) / 2.0)  # Ensemble._outside's band
        switches = np.array([track, self._const_tt is None, self._settings.norm == "none" or self._unit, 0],
                            dtype=np.int64)
        before = self.faulted.copy()
        done = np.empty(self.n, dtype=np.int64)
        pq = np.zeros((4, 0)) if self._p is None else np.array(np.broadcast_to(self._p, (4, self.n)), dtype=float)
        run_bodies((self._x, par, flags, table, orbit, shared, qc, k, self._k - self._k0, self._t0, self.faulted,
                    done, switches, self._k, c * c, float(tr.rate_under), tr.peak_ww, tr.first_under, tr.travel,
                    tr.peak_tt, tr.last_out, wheels, groups, mags, rods, packed[9], pq), self.n)
        if self._p is not None:  # full-quat's P, followed by the kernel
            self._p = pq
        bdot = self._magnetic.bdot
        if bdot is not None:  # each body's B-dot state back (its time, the same for all, as floats)
            bdot.state[:] = [*mags[0, 11:14].tolist(), *(mags[:, 14 + i].copy() for i in range(6))]
            bdot.u[:] = [rods[:, i, 7].copy() for i in range(rods.shape[1])]
        self._called(before, done, k)
        moving = self._world.mode != "inertial"
        if moving:  # the kernel's command of the new step: the sign the world's command is followed from
            cmd.qc = tuple(float(v) for v in qc[:, 0]) if cmd.shared else qc
        self._update_world()
        if moving and not cmd.shared:  # and the command itself (Simulation's bit for bit; rows of the numpy
            cmd.qc = qc  # world may differ from it by an ulp: sim.ensemble.engine)
            self._sync_command()
        self._tracked_call(track)
        return k


advance_orbit_bodies.warms(_sample, 0)  # its samples for sim.core.jit.load_all; loaded at an ensemble's first step
