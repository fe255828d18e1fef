"""The ensemble's body loop on an orbit: each body's world and spacecraft step compiled, on every core (issue 42).

:func:`advance_orbit_bodies` takes ``n`` steps of every body of an :class:`~sim.ensemble.Ensemble` whose
bodies fly on an orbit (one shared, or one per body: ``orbit_spread``, ``epoch_spread``) in one call: a
loop over the bodies ``lo..hi``, each making, at the start of every step, its world at the step's
time, as :meth:`sim.model.simulation.Simulation._update_world` does (its orbit at ``t``, and at ``t -+ 0.5 s``
for a moving pointing mode's rate feed-forward, :func:`sim.world.orbit.mean_elements_state`; the world's
numbers by :func:`sim.model.world_kernel.world_values` with ``ops=None``; the command's sign kept as
:meth:`sim.core.command.CommandInterpolator.follow` keeps it), then the spacecraft's step
:func:`sim.model.advance_craft.craft_step` (the gravity gradient on the orbit at each stage's time, drag
with the exponential atmosphere, the disturbance torque, the torque law with the rate feed-forward) with
the norm mode and the fault checks of :func:`sim.model.advance_craft.advance_craft`.  The same kernels as
one body's, so each body is bit for bit its :class:`~sim.model.simulation.Simulation`, including where the
bodies' orbits differ (the numpy path's worlds on rows agree with it to about 1e-12 only:
:mod:`sim.ensemble.engine`).  The per-step metrics of :class:`sim.ensemble.metrics.Tracker` are kept as in
:func:`sim.ensemble.compiled.advance_bodies`, on the command of the new step as ``Ensemble._commit`` does.

Covered (:func:`covers`): a Kepler orbit (elements; not a TLE), any pointing mode, half-quat, rk4 or rkmk4
with the norm modes and torque laws of :func:`sim.model.advance_craft.covers`, the gravity gradient, drag
(exponential atmosphere), the disturbance torque.  Not covered, stepping through the numpy columns as
before: reaction wheels, a magnetic field (the torquers' B-dot and dumping laws are Python classes over
:mod:`sim.core.ops`: :class:`sim.gnc.magnetic.MagneticControl`), solar radiation pressure, NRLMSIS,
full-quat, navigation, a SLERP under way.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from sim.core.advance import OK, law_torque, normed, status_of
from sim.core.algebra import dot_QQ, norm2_Q
from sim.core.jit import DISABLED, jitable, kernel, numba_module
from sim.ensemble import compiled
from sim.ensemble.environment import body_elements
from sim.gnc.pointing import INERTIAL, MODE_CODES
from sim.model import advance_craft as craft
from sim.model import world_kernel as wk
from sim.model.world_kernel import FEED_FORWARD_H, world_values
from sim.world.orbit import MU_KM, KeplerOrbit, axes_fixed, orbit_axes, orbit_shape, shape_state

#: The lengths of :data:`sim.model.advance_craft.FLAGS` and :data:`~sim.model.advance_craft.WORLD`.
_FLAGS, _WORLDS = max(craft.FLAGS.values()) + 1, sum(craft.WORLD["torque"])

__all__ = ["advance_orbit_bodies", "run_bodies", "covers", "pack_orbits", "ORBIT", "CHUNK", "OrbitSteps"]

#: Layout of a body's row of ``orbit``: the nine mean elements and rates of
#: :func:`sim.world.orbit.mean_elements_state`, then the epoch's Julian day and fraction.
ORBIT = {"elements": (0, 9), "jd_day": (9, 1), "jd_frac": (10, 1)}

#: Most body-steps in one call of :func:`advance_orbit_bodies` (under a second at the 1.7 us of a Sun-pointing
#: body-step with one orbit each; :data:`sim.ensemble.compiled.CHUNK` is sized for steps of tens of ns): Ctrl-C
#: is seen between calls.  After each call Python makes the world once (on rows, one orbit per body: about
#: 1.3 us a body), a few percent of the call.
CHUNK = 500_000

def _sample() -> tuple:
    """Arguments of :func:`advance_orbit_bodies` of the types it is compiled for (no step taken)."""
    x, par, flags = np.zeros((8, 1)), np.zeros((1, 58)), np.zeros(_FLAGS, dtype=np.int64)
    track, i1, f1 = np.zeros(4, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1)
    orbit = np.zeros((1, 11))
    orbit[0, 0], orbit[0, 8] = 7000.0, 1e-3
    return (x, par, flags, craft.NO_SURFACES, orbit, wk.new_input(), np.zeros((4, 1)), 0, 0, 0.0,
            np.zeros(1, dtype=np.bool_), i1, track, 0, 0.0, 0.0, f1, i1, f1, f1, i1, 0, 0)


def covers(settings) -> bool:
    """True when :func:`advance_orbit_bodies` steps an ensemble of ``settings`` on its orbit (module docstring;
    the ensemble's own state is checked by :meth:`OrbitSteps._packed_orbits`)."""
    s = settings
    return (s.has_orbit and s.tle is None and craft.covers(s) and s.integrator != "full-quat" and s.thrusters == "none"
            and s.wheel_count == 0 and s.magnetic_field == "none" and not s.srp
            and (not s.drag or s.atmosphere == "exponential"))


@kernel
def advance_orbit_bodies(x, par, flags, table, orbit, shared, qc, n, s0, t0, faulted, done, track, k0, c2,
                         rate_under, peak_ww, first_under, travel, peak_tt, last_out, lo, hi):
    """Up to ``n`` steps of each body ``lo <= j < hi`` (column ``j`` of ``x``, (8, m): q, w, correction) on its
    orbit, in place; it holds no GIL, so :func:`run_bodies` runs ranges of the bodies on threads side by side.

    ``par`` (m, 58) and ``flags`` are :func:`sim.model.advance_craft.pack`'s, one ``par`` row per body;
    ``table`` the facets' table; ``orbit`` (m, 11) each body's orbit and epoch (:data:`ORBIT`), or (1, 11)
    one orbit for all (its world then made once a step, for every body); ``shared`` the
    world's input of :data:`sim.model.world_kernel.INPUTS` for what the bodies share (the pointing axes, the
    target, the mode and atmosphere codes); ``qc`` (4, m) each body's command, followed in place by a moving
    mode.  The step ``k0 + i`` (``i`` from 0) is at ``t = t0 + (s0 + i) dt``, the ensemble's time base.

    ``faulted``, ``done`` and the metrics (``track = (on, torque, norm_none, -)``, ``peak_ww``, ``first_under``,
    ``travel``, ``peak_tt``, ``last_out``) as :func:`sim.ensemble.compiled.advance_bodies`, the torque of a
    step that of its first stage (``Ensemble._general_step``), the settle band ``(Q.Qc)^2 < c2 |Qc|^2`` on
    the command of the new step.
    """
    mode, air = int(shared[36]), int(shared[38])
    one = orbit.shape[0] == 1  # one orbit shared: its world made once a step for every body
    worlds = np.zeros((n + 1 if one else 0, _WORLDS))
    if one:
        orb = _fixed_part(orbit[0])
        for i in range(n + 1):
            _world_into(worlds[i], orbit[0], orb, t0 + (s0 + i) * par[0, 34], mode, air, shared)
    for j in range(lo, hi):
        # each body's own copies of par's row, the flags, the table and the input, its metrics in locals: an
        # array passed to a function costs atomic reference counts, on a counter the threads share when the array
        # is shared.  Arrays, not tuples: the craft step's formulas then have advance_craft's types, compiled once
        # for both kernels (docs/PERFORMANCE.md, compile time)
        p, fl = par[j].copy(), flags.copy()
        tab = table.copy()
        inp = shared.copy()
        if one:
            el = orbit[0].copy()
        else:
            el = orbit[j].copy()
        orb = _fixed_part(el)  # its orbit's shape and axes, once (the same bits as at every step)
        world = np.zeros(_WORLDS)
        wheels, groups, buf = np.zeros((0, 11)), np.zeros((0, 5)), np.zeros((9, 0))
        speeds = buf[6]
        jr = (p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23], p[24])
        dt, norm = p[34], fl[1]
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
                _world_into(world, el, orb, t, mode, air, inp)
            if mode != INERTIAL:  # CommandInterpolator.follow: the sign continuous with the present command
                qw = (world[24], world[25], world[26], world[27])
                sign = -1.0 if dot_QQ(qw, c) < 0.0 else 1.0
                c = (sign * qw[0], sign * qw[1], sign * qw[2], sign * qw[3])
            if i > 0 and track[0] != 0:  # Tracker.track after step k0 + i, on the command of the new step
                metrics = _track(metrics, k0 + i, q, w, c, c2, alive, tt, dt, track[2] != 0, rate_under)
            if i == n:
                break
            for a in range(4):
                world[24 + a] = c[a]
            if alive:
                if track[0] != 0 and track[1] != 0:  # |T|^2 of the step's first stage (Ensemble._general_step)
                    wd = (w[0] - world[29], w[1] - world[30], w[2] - world[31]) if world[28] != 0.0 else w
                    tq = law_torque(q, wd, c, p, fl)
                    if fl[16] != 0:
                        e, have = craft.external(q, t, world, p, fl, jr, tab)
                        if have:
                            tq = (tq[0] + e[0], tq[1] + e[1], tq[2] + e[2])
                    tt = tq[0] * tq[0] + tq[1] * tq[1] + tq[2] * tq[2]
                q1, w1 = craft.craft_step(q, w, speeds, t, world, p, fl, wheels, groups, tab, buf)
                q1, c1 = normed(q1, norm)
                status = status_of(q1, 0.0 + w1[0] + w1[1] + w1[2], c1, norm)  # Python's sum(w)
                if status == OK:
                    q, w, correction = q1, w1, c1
                    good += 1
                else:
                    alive = False
                    faulted[j] = True
        x[0, j], x[1, j], x[2, j], x[3, j] = q
        x[4, j], x[5, j], x[6, j] = w
        x[7, j] = correction
        qc[0, j], qc[1, j], qc[2, j], qc[3, j] = c
        done[j] = good
        peak_ww[j], first_under[j], travel[j], peak_tt[j], last_out[j] = metrics


def run_bodies(args: tuple, m: int) -> None:
    """:func:`advance_orbit_bodies` ``(*args, lo, hi)`` over the bodies ``0..m``, split into numba's thread count
    (``numba.get_num_threads()``, as a ``prange`` would take it) of equal ranges run on as many threads (this one
    and ``threads - 1`` started for the call).  Not a
    ``prange``: numba compiled the craft step's formulas again for the ``prange``'s body, about 5 s of CPU more
    (docs/PERFORMANCE.md); the bodies share nothing, so each is the same bits on any thread.  One thread when
    the kernel runs as Python (not loaded, or the JIT off)."""
    threads = 1 if DISABLED or not advance_orbit_bodies.ready else min(m, numba_module().get_num_threads())
    if threads <= 1:
        advance_orbit_bodies(*args, 0, m)
        return
    cuts = [m * i // threads for i in range(threads + 1)]
    errors = []

    def bodies(lo: int, hi: int) -> None:
        try:
            advance_orbit_bodies(*args, lo, hi)
        except BaseException as error:  # raised in the caller's thread below
            errors.append(error)

    others = [threading.Thread(target=bodies, args=(lo, hi), daemon=True) for lo, hi in zip(cuts[1:-1], cuts[2:])]
    for thread in others:
        thread.start()
    bodies(cuts[0], cuts[1])  # the first range in this thread
    interrupted = None
    for thread in others:
        while thread.is_alive():
            try:
                thread.join()
            except KeyboardInterrupt as error:  # seen once every range has ended: no body left half-stepped
                interrupted = error
    if errors:
        raise errors[0]
    if interrupted is not None:
        raise interrupted


@jitable
def _world_into(world, el, orb, t, mode, air, inp):
    """The world of :data:`sim.model.advance_craft.WORLD` at ``t`` into ``world``, as
    :meth:`sim.model.world.World.state` makes it (:func:`sim.model.world_kernel.world_values`, ``ops=None``) for
    an orbit row ``el`` (:data:`ORBIT`; ``orb`` its :func:`_fixed_part`): the time, the orbit's ``(r, v)``, the Sun, the shadow and the density,
    and a moving mode's command as the world gives it (its sign not yet followed) and its rate feed-forward.
    With inertial pointing and no drag a step reads the orbit alone: the rest is not made."""
    rv = _orbit_at(el, orb, t)
    world[2] = t
    r, v = rv
    for a in range(3):
        world[3 + a] = r[a]
        world[6 + a] = v[a]
    if mode == INERTIAL and air == 0:
        return
    rv_lo = rv_hi = rv
    if mode != INERTIAL:
        rv_lo = _orbit_at(el, orb, t - 0.5 * FEED_FORWARD_H)
        rv_hi = _orbit_at(el, orb, t + 0.5 * FEED_FORWARD_H)
    values = world_values(t, el[9], el[10], rv, rv_lo, rv_hi, rv, mode, (inp[12], inp[13], inp[14]),
                          (inp[15], inp[16], inp[17]), (inp[18], inp[19], inp[20]), (inp[21], inp[22], inp[23]),
                          0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.0, 0.0, 0.0, air, None)
    sun, qw, wc = values[3], values[10], values[11]  # (r, v) are rv's
    world[9], world[10], world[11] = sun[0], sun[1], sun[2]
    world[13], world[20] = values[5], values[16]
    if mode != INERTIAL:
        world[24], world[25], world[26], world[27] = qw[0], qw[1], qw[2], qw[3]
        world[28] = 1.0
        world[29], world[30], world[31] = wc[0], wc[1], wc[2]


@jitable
def _fixed_part(el):
    """What of a body's orbit (its ``orbit`` row, :data:`ORBIT`) stays the same at every step:
    ``(shape, axes, fixed)``, :func:`sim.world.orbit.orbit_shape` and, when ``fixed``
    (:func:`sim.world.orbit.axes_fixed`: no J2 drift), :func:`sim.world.orbit.orbit_axes`."""
    shape = orbit_shape(el[0], el[1], el[2], MU_KM)
    return shape, orbit_axes(el[3], el[4], shape[2], shape[3]), axes_fixed(el[3], el[4], el[6], el[7])


@jitable
def _orbit_at(el, orb, t):
    """``(r, v)`` (km, km/s, ECI) of a body's ``orbit`` row (:data:`ORBIT`) at ``t``: its
    :func:`sim.world.orbit.mean_elements_state` to the bit, from its :func:`_fixed_part` ``orb``
    (:func:`sim.world.orbit.shape_state`)."""
    x = shape_state(orb[0], orb[1], orb[2], el[1], el[3], el[4], el[5], el[6], el[7], el[8], t)
    return (x[0], x[1], x[2]), (x[3], x[4], x[5])


@jitable
def _track(metrics, k, q, w, c, c2, alive, tt, dt, norm_none, rate_under):
    """:meth:`sim.ensemble.metrics.Tracker.track` of a body after step ``k``: ``metrics`` its ``(peak_ww,
    first_under, travel, peak_tt, last_out)`` returned updated for its state ``(q, w)`` (frozen when faulted),
    ``alive`` (not faulted: its ``|w| dt`` and the step's ``|T|^2 = tt`` counted), the command ``c`` with the
    settle band :func:`sim.ensemble.metrics.outside` of ``c2 |c|^2``."""
    peak_ww, first_under, travel, peak_tt, last_out = metrics
    ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
    if not ww <= peak_ww:  # np.maximum: a nan wins
        peak_ww = ww
    s = math.sqrt(ww)
    if s < rate_under and first_under < 0:
        first_under = k
    if alive:
        travel += s * dt
        if not tt <= peak_tt:
            peak_tt = tt
    d = dot_QQ(q, c)
    d *= d
    bound = c2 * norm2_Q(c)
    if norm_none:
        bound = norm2_Q(q) * bound
    if d < bound:
        last_out = k
    return peak_ww, first_under, travel, peak_tt, last_out


class _Inertia:
    """Placeholder inertia for :func:`sim.model.advance_craft.pack`'s flags (the rows are packed per body)."""

    j_rows = j_inv_rows = (0.0,) * 9


def pack_orbits(ens) -> tuple:
    """``(par, flags, table, orbit, shared)`` of :func:`advance_orbit_bodies` for the bodies of the ensemble
    ``ens`` (one ``par`` row per body; one ``orbit`` row per body, :data:`ORBIT`: the elements and epoch each
    body's :class:`~sim.model.world.World` is built from, or one row for one shared orbit)."""
    s, torque, load, world, n = ens._settings, ens._torque, ens._load, ens._world, ens.n
    one, flags = craft.pack(compiled.Switches(torque), load, _Inertia(), ens._dt, s.integrator, s.norm, None,
                            s.full_quat_form)
    par = compiled.body_rows(torque, ens._jr, ens._jir, np.broadcast_to(ens._qc, (4, n)), ens._dt, n, len(one))
    par[:, 35:49] = one[35:49]  # the orbit rate, the disturbance and its period; no wheels
    orbit = np.empty((n, 11))
    if ens._orbits is None:  # one orbit for all: the world's own floats, one row
        orbit = np.empty((1, 11))
        orbit[:, 0:9] = world.orbit.elements_and_rates
    else:
        orbit[:, 0:9] = body_elements(s, ens._orbits)
    orbit[:, 9], orbit[:, 10] = world.epoch.jd_day, world.epoch.jd_frac
    par[:, 49:58] = orbit[:, 0:9]
    table = load.surfaces.table if load.surfaces is not None else craft.NO_SURFACES
    shared = wk.new_input()
    shared[12:15], shared[15:18] = world.b1, world.b2
    shared[18:21], shared[21:24] = world.target_ecef, world.target_up_ecef
    shared[36], shared[37], shared[38] = MODE_CODES[world.mode], 0, wk.AIR_CODES[world.air]
    return par, flags, np.ascontiguousarray(table), orbit, shared


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
        numpy columns: the settings are not covered (:func:`covers`; or a TLE, full-quat's ``P``, navigation, a
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
                or self._cmd.path is not None or self._nav is not None or self._p is not None
                or self._law is not self._torque or len(self._x) != 8 or not covers(s)
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

    def _orbit_steps(self, packed, k: int) -> int:
        """Up to ``k`` steps of every body through :func:`advance_orbit_bodies` (at most
        :data:`CHUNK` body-steps), then what ``_commit`` does after each: the step count
        and time, the faults, the command (a moving mode's, followed by the kernel) and the world of the new
        step (:meth:`~sim.ensemble.environment.Surroundings._update_world`, for its readers).  Returns the
        steps taken."""
        k = min(k, max(1, CHUNK // self.n))
        par, flags, table, orbit, shared = packed
        tr, track, cmd = self._tracker, self.track, self._cmd
        qc = np.array(np.broadcast_to(self._qc, (4, self.n)), dtype=float)
        c = math.cos(math.radians(self.spec.settle_deg) / 2.0)  # Ensemble._outside's band
        switches = np.array([track, self._const_tt is None, self._settings.norm == "none" or self._unit, 0],
                            dtype=np.int64)
        before = self.faulted.copy()
        done = np.empty(self.n, dtype=np.int64)
        run_bodies((self._x, par, flags, table, orbit, shared, qc, k, self._k - self._k0, self._t0, self.faulted,
                    done, switches, self._k, c * c, float(tr.rate_under), tr.peak_ww, tr.first_under, tr.travel,
                    tr.peak_tt, tr.last_out), self.n)
        new = self.faulted & ~before
        if new.any():
            self.fault_t[new] = self._t0 + (self._k + done[new] - self._k0) * self._dt
        self._k += k
        self._t = self._t0 + (self._k - self._k0) * self._dt
        moving = self._world.mode != "inertial"
        if moving:  # the kernel's command of the new step: the sign the world's command is followed from
            cmd.qc = tuple(float(v) for v in qc[:, 0]) if cmd.shared else qc
        self._update_world()
        if moving and not cmd.shared:  # and the command itself (Simulation's bit for bit; rows of the numpy
            cmd.qc = qc  # world may differ from it by an ulp: sim.ensemble.engine)
            self._sync_command()
        if not track:
            self._tracked = False
        elif self._const_tt is not None:
            tr.peak_const_tt = max(tr.peak_const_tt, self._const_tt)
        return k


advance_orbit_bodies.warms(_sample, 0)  # its samples for sim.core.jit.load_all; loaded at an ensemble's first step
