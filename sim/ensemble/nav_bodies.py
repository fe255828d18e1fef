"""The ensemble's bodies with sensors and an estimator, each through the single body's compiled navigation (issue 42).

:func:`advance_nav_bodies` takes up to ``n`` steps of every body of an :class:`~sim.ensemble.Ensemble` flying an
estimator (a Monte Carlo of MEKFs, ``mekf_monte_carlo``) in one call: a loop over the bodies ``lo..hi`` (a nogil
kernel, run in ranges on threads by :func:`on_threads`), each taking its steps with
:func:`sim.model.advance_craft.craft_step` (the spacecraft's step :func:`~sim.model.advance_craft.advance_craft`
takes), the norm mode and the fault checks of that loop (flown on the truth, the plain body's
:func:`sim.core.advance.checked_step`, the same bits for a quarter of the call), and between two steps the navigation of
:func:`sim.gnc.sensing.navigation`, the formulas the single body's loop (:mod:`sim.model.craft_nav`) and Python's
:class:`~sim.model.navigation.Navigation` call, on that body's row of the ensemble's navigation: the end of the
step just taken (the gyro's sample of the mean of its true rates, the MEKF's propagation), the score of the new
state for the estimate window (the error and the NEES, :func:`score_of`), then the start of the next step (the star
tracker when due, its update, the torque law held at the estimate).  The order is the ensemble's own
(:meth:`sim.ensemble.environment.Surroundings._navigate_after`), so each body is bit for bit what the ensemble's
numpy path gives, and that is bit for bit its :class:`~sim.model.simulation.Simulation`.

The noise is not drawn here: body ``j``'s streams are the ensemble's (:class:`sim.gnc.sensors.Streams`, drawn from
``SeedSequence([sensor_seed, index[j], id])`` in blocks), read from their present blocks at the stream's index in
its row of ``ctl`` (:data:`sim.model.craft_nav.CTL`); every body samples at the same instants, so the blocks run
out at the same step for all: the loop stops before a step whose navigation would read past a block
(:func:`sim.model.craft_nav.ready`) and Python ends that step and starts the next, taking the next blocks
(:class:`NavSteps`).

Covered (:meth:`NavSteps._packed_nav`): an estimator, no orbit (so no sun sensors or magnetometer), no
wheels, thrusters or CMGs, no environment torque, half-quat, rk4 or rkmk4 with the norm modes that do not read
``Q / |Q|``, the torque laws of :func:`sim.model.advance_craft.covers`, no SLERP under way.  The rest steps
through the numpy columns as before.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core import advance as plain_body
from sim.core.advance import OK, as_tuples, checked_step, inertia, normed, status_of
from sim.core.jit import DISABLED, jitable, kernel
from sim.ensemble import compiled
from sim.ensemble.compiled import on_threads, track_body
from sim.gnc.sensing import INP_SIZE, estimate_error, navigation
from sim.gnc.sensors import sample_due
from sim.model import advance_craft as craft
from sim.model.craft_nav import CTL_SIZE, ready

__all__ = ["advance_nav_bodies", "score_of", "nav_end", "nav_start", "NavSteps",
           "WARM_AFTER", "LOAD_AT_ONCE", "CHUNK"]

#: Body-steps an ensemble with an estimator takes through the numpy columns before the process loads
#: :func:`advance_nav_bodies` (from the disk cache about 0.5 s; a first compile, in a child process, 20-40 s):
#: the rule of :class:`sim.core.jit.Kernel`.  The numbers are the same either way.
WARM_AFTER = 200_000
#: Bodies from which an ensemble with an estimator starts loading :func:`advance_nav_bodies` (in a thread) at its
#: first step: the navigation's kernels run as Python until they load, at about 0.1-0.5 ms a body-step, so a
#: Monte Carlo of 1,000 MEKFs in the window's ensemble process would crawl for seconds.
LOAD_AT_ONCE = 100
#: Most body-steps in one call (about 0.1-0.3 s): Ctrl-C is seen between calls.  The gyro's block of 256 samples
#: ends a call sooner (:mod:`sim.gnc.sensors`).
CHUNK = 500_000
_FLAGS, _WORLD = max(craft.FLAGS.values()) + 1, sum(craft.WORLD["torque"])


@jitable
def score_of(qt, qe, pe, true_bias, fbias, j, mekf, e):
    """``(|a|^2, NEES)`` of body ``j``'s estimate against the true attitude ``qt``: the error ``a`` and the NEES of
    :func:`sim.gnc.sensing.estimate_error` (the text of :func:`sim.gnc.sensing.estimate_columns`' readouts), ``a``
    squared and summed x, y, z in that order; ``e`` (6,) scratch."""
    a, nees = estimate_error(qt, qe, pe, true_bias, fbias, mekf, j, e)
    return a[0] * a[0] + a[1] * a[1] + a[2] * a[2], nees


@jitable
def nav_end(nav, ends, dt, world, par, flags):
    """The end of a step of the bodies of ``nav`` (their navigation, :data:`sim.model.craft_nav.NAV_FIELDS`, a
    row each): the gyro's sample of the mean of the true rates ``ends[0]``, ``ends[1]`` (N, 3) at both ends of
    the step and the MEKF's propagation (:func:`sim.gnc.sensing.navigation`'s ``end``, what
    :meth:`sim.model.navigation.Navigation.end_step` runs), the gyro's stream index moved on."""
    ctl, cfg = nav[0], nav[1]
    inp = np.zeros(INP_SIZE)
    inp[4] = dt
    if cfg[84] != 0.0:
        inp[0], inp[17] = 1.0, ctl[5]
        ctl[5] += 1.0
    navigation(nav[7], ends, inp, cfg, nav[2], nav[3], nav[4], nav[5], nav[6], nav[7], nav[8], nav[9], nav[10],
               nav[11], nav[12], world, par, flags)


@jitable
def nav_start(nav, q, t, dt, ends, world, par, flags):
    """The start of a step at ``t`` of the bodies of ``nav`` without a world (what
    :meth:`sim.model.navigation.Navigation.sample` runs: no Sun, no Earth, lit): the star tracker's sample of
    the true ``q`` (N, 4) when due in ``[t, t + dt)`` and its update (:func:`sim.gnc.sensing.navigation`'s
    ``start``), the tracker's stream index moved on."""
    ctl, cfg = nav[0], nav[1]
    inp = np.zeros(INP_SIZE)
    inp[4] = dt
    inp[1] = 1.0
    inp[5] = 1.0
    if cfg[85] != 0.0 and sample_due(t, dt, ctl[3]):
        inp[2], inp[18] = 1.0, ctl[6]
        ctl[6] += 1.0
    navigation(q, ends, inp, cfg, nav[2], nav[3], nav[4], nav[5], nav[6], nav[7], nav[8], nav[9], nav[10],
               nav[11], nav[12], world, par, flags)


@jitable
def nav_hold(nav, j, dt, ends, world, par, flags):
    """The torque law at body ``j``'s estimate written into its ``world`` (:func:`sim.gnc.sensing.navigation`'s
    ``hold`` on that body's rows, what :class:`sim.model.navigation.HeldTorque` holds over the step)."""
    inp = np.zeros(INP_SIZE)
    inp[4] = dt
    inp[1] = 1.0
    inp[21] = 1.0
    b = j + 1
    navigation(nav[7][j:b], ends, inp, nav[1], nav[2], nav[3], nav[4], nav[5], nav[6], nav[7][j:b], nav[8][j:b],
               nav[9][j:b], nav[10][j:b], nav[11][j:b], nav[12][j:b], world, par, flags)


@kernel
def advance_nav_bodies(x, par, flags, world0, qc, n, s0, t0, faulted, done, track, k0, c2, rate_under, peak_ww,
                       first_under, travel, peak_tt, last_out, nav, mekf, sums, taken, plain, lo, hi):
    """Up to ``n`` steps of the bodies ``lo <= j < hi`` (column ``j`` of ``x``, (8, m): q, w, correction) with their
    navigation (the module docstring), in place; it holds no GIL (:func:`on_threads`).  Step by step: the
    navigation over the range's rows (one call of :func:`sim.gnc.sensing.navigation` for them all, as the numpy
    path's), then each body's step.

    ``par`` (m, 58) and ``flags``: :func:`sim.model.advance_craft.pack`'s, one ``par`` row per body; ``world0``
    (m, 39) each body's ``world`` (:data:`sim.model.advance_craft.WORLD`: its command, and the torque held at its
    estimate of the first step's start when it flies on it); ``qc`` (4, m) the commands. The step ``k0 + i``
    (``i`` from 0) is at ``t = t0 + (s0 + i) dt``.  The start of the first step's navigation is taken (Python's);
    the end of the last is left to Python, with each body's rates at the start of that step in its ``ctl`` row.

    ``nav``: the ensemble's navigation (:data:`sim.model.craft_nav.NAV_FIELDS`, ``ctl`` one row per body, the
    stream indices read from row ``lo`` and written back there), updated in place; ``mekf`` whether the NEES is
    the MEKF's; ``sums`` (2, m) the estimate window's sums of ``|a|^2`` and of the NEES, each step's added after
    its end (:func:`score_of`).  ``faulted``, ``done`` and the metrics (``track = (on, torque, norm_none, -)``,
    ``peak_ww`` .. ``last_out``) as :func:`sim.ensemble.orbit_loop.advance_orbit_bodies`; ``taken[j]`` the steps
    the call took (the same for every body: the navigation's blocks end them).  ``plain``: the body's step is
    the plain body's :func:`sim.core.advance.checked_step` on the head of ``par`` and ``flags`` (their layouts
    begin with its own; the same bits, a quarter of the craft step's call), else
    :func:`sim.model.advance_craft.craft_step` (the torque held at the estimate, rkmk4).
    """
    r = hi - lo
    # the range's own copies (an array shared by the threads costs atomic reference counts on one counter)
    ctl = nav[0][lo].copy()
    one = (ctl, nav[1].copy(), nav[2].copy(), nav[3][lo:hi].copy(), nav[4][lo:hi].copy(), nav[5][lo:hi].copy(),
           nav[6][lo:hi].copy(), nav[7][lo:hi].copy(), nav[8][lo:hi].copy(), nav[9][lo:hi].copy(),
           nav[10][lo:hi].copy(), nav[11][lo:hi].copy(), nav[12][lo:hi].copy(), nav[13])
    fl = flags.copy()
    p = par[lo:hi].copy()
    world = world0[lo:hi].copy()
    state = x[:, lo:hi].copy()
    ends = np.zeros((2, r, 3))
    qa = np.zeros((r, 4))
    e = np.zeros(6)
    wheels, groups, table, buf = np.zeros((0, 11)), np.zeros((0, 5)), np.zeros((0, 13)), np.zeros((9, 0))
    speeds = buf[6]
    alive = np.empty(r, dtype=np.bool_)
    good = np.zeros(r, dtype=np.int64)
    for a in range(r):
        alive[a] = not faulted[lo + a]
    hold = ctl[1] != 0.0
    dt, norm = p[0, 34], fl[1]
    i = 0
    while i < n:
        t = t0 + (s0 + i) * dt
        if i > 0:  # the end of the step just taken, each body's score, the start of this one
            if not ready(one, t, dt):
                break
            for a in range(r):
                for c in range(3):
                    ends[1, a, c] = state[4 + c, a]
            nav_end(one, ends, dt, world[0], p[0], fl)
            for a in range(r):
                q = (state[0, a], state[1, a], state[2, a], state[3, a])
                ee, score = score_of(q, one[7], one[9], one[10], one[8], a, mekf, e)
                sums[0, lo + a] += ee
                sums[1, lo + a] += score
                for c in range(4):
                    qa[a, c] = q[c]
            nav_start(one, qa, t, dt, ends, world[0], p[0], fl)
            if hold:
                for a in range(r):
                    nav_hold(one, a, dt, ends, world[a], p[a], fl)
        for a in range(r):
            j = lo + a
            q = (state[0, a], state[1, a], state[2, a], state[3, a])
            w = (state[4, a], state[5, a], state[6, a])
            for c in range(3):
                ends[0, a, c] = w[c]
            tt = 0.0
            if alive[a]:
                if track[0] != 0 and track[1] != 0:  # |T|^2 of the step's first stage (Ensemble._general_step)
                    tq = craft.law_command(q, w, world[a], p[a], fl)
                    tt = tq[0] * tq[0] + tq[1] * tq[1] + tq[2] * tq[2]
                if plain:
                    pt, ft = as_tuples(p[a], fl)
                    jr, jir = inertia(pt)
                    status, q1, w1, c1 = checked_step(q, w, pt, ft, jr, jir)
                else:
                    q1, w1 = craft.craft_step(q, w, speeds, t, world[a], p[a], fl, wheels, groups, table, buf)
                    q1, c1 = normed(q1, norm)
                    status = status_of(q1, 0.0 + w1[0] + w1[1] + w1[2], c1, norm)  # Python's sum(w)
                if status == OK:
                    q, w = q1, w1
                    state[0, a], state[1, a], state[2, a], state[3, a] = q
                    state[4, a], state[5, a], state[6, a] = w
                    state[7, a] = c1
                    good[a] += 1
                else:
                    alive[a] = False
                    faulted[j] = True
            if track[0] != 0:
                m = track_body((peak_ww[j], first_under[j], travel[j], peak_tt[j], last_out[j]), k0 + i + 1, q, w,
                               (qc[0, j], qc[1, j], qc[2, j], qc[3, j]), c2, alive[a], tt, dt, track[2] != 0,
                               rate_under)
                peak_ww[j], first_under[j], travel[j], peak_tt[j], last_out[j] = m
        i += 1
    for a in range(r):
        j = lo + a
        for c in range(8):
            x[c, j] = state[c, a]
        done[j] = good[a]
        taken[j] = i
        nav[0][j, 9], nav[0][j, 10], nav[0][j, 11] = ends[0, a, 0], ends[0, a, 1], ends[0, a, 2]  # the last w0
    for c in range(9):
        nav[0][lo, c] = ctl[c]
    nav[7][lo:hi], nav[8][lo:hi], nav[9][lo:hi] = one[7], one[8], one[9]  # the estimate, its bias and covariance
    nav[10][lo:hi], nav[11][lo:hi], nav[12][lo:hi] = one[10], one[11], one[12]  # the gyro's bias, availability, rates


def _sample() -> tuple:
    """Arguments of :func:`advance_nav_bodies` of the types it is compiled for (no step taken)."""
    from sim.model.craft_nav import NO_NAV
    x, par, flags = np.zeros((8, 1)), np.zeros((1, 58)), np.zeros(_FLAGS, dtype=np.int64)
    track, i1, f1 = np.zeros(4, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1)
    nav = (np.zeros((1, CTL_SIZE)), *NO_NAV[1:])
    return (x, par, flags, np.zeros((1, _WORLD)), np.zeros((4, 1)), 0, 0, 0.0, np.zeros(1, dtype=np.bool_), i1,
            track, 0, 0.0, 0.0, f1, i1, f1, f1, i1, nav, True, np.zeros((2, 1)), i1, True, 0, 0)


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

    def _packed_nav(self, k: int):
        """``(par, flags)`` of :func:`advance_nav_bodies`, or None when the steps go through the numpy columns: not
        covered (the module docstring), ``compiled`` False, or ``compiled`` None and the kernel not wanted yet
        (:data:`WARM_AFTER` body-steps: numpy's while a thread loads it; with the JIT off, only when asked)."""
        s, nav = self._settings, self._nav
        if (self._compiled is False or self._world is not None or self._cmd.path is not None or self._p is not None
                or len(self._x) != 8 or self._thr is not None or self._cmgs is not None or self._unit
                or self._load.active or self._torque.rate_ref is not None or not craft.covers(s)
                or s.integrator not in ("half-quat", "rk4", "rkmk4") or nav.sun is not None or nav.mag is not None):
            return None
        if self._compiled is None and (DISABLED or not self._nav_wanted(k)):
            return None
        advance_nav_bodies.wait()
        torque = self._torque
        key = (s, self._controls, self._dt, self._jr, torque.gains, torque.command, self._qc)
        old = self._nav_packed
        if old is not None and all(a is b for a, b in zip(old[:-1], key)):
            return old[-1]
        one, flags = craft.pack(compiled.Switches(torque), self._load, _Inertia(), self._dt, s.integrator, s.norm,
                                None, s.full_quat_form)
        qc = np.ascontiguousarray(np.broadcast_to(self._qc, (4, self.n)), dtype=float)
        par = compiled.body_rows(torque, self._jr, self._jir, qc, self._dt, self.n, len(one))
        par[:, 35:49] = one[35:49]
        world = np.zeros((self.n, _WORLD))
        world[:, 24:28] = qc.T
        packed = (par, flags, qc, world)
        self._nav_packed = (*key, packed)
        return packed

    def _nav_wanted(self, k: int) -> bool:
        """The warm-up rule of :class:`sim.core.jit.Kernel` for the next ``k`` steps (:data:`WARM_AFTER`), the load
        started at once for :data:`LOAD_AT_ONCE` bodies or more."""
        kernel = advance_nav_bodies
        if not kernel.ready and self.n >= LOAD_AT_ONCE:
            kernel.start()
        return kernel.wanted(k * self.n)

    def _steps_with_nav(self, packed, k: int) -> int:
        """Up to ``k`` steps of every body through :func:`advance_nav_bodies` (at most :data:`CHUNK` body-steps,
        fewer where a block of noise ends): the start of the first step's navigation before (Python's, taking the
        next blocks), the end of the last after, then what ``_commit`` does after each step: the step count and
        time, the faults and the metrics.  Returns the steps taken."""
        k = min(k, max(1, CHUNK // self.n))
        par, flags, qc, world = packed
        nav, dt, n = self._nav, self._dt, self.n
        held = self._law if self._law is not self._torque else None
        s = self._settings
        plain = (held is None and s.integrator in plain_body.INTEGRATORS and s.controller in plain_body.CONTROLLERS
                 and s.norm in plain_body.NORMS)  # the plain body's step (advance.covers but the estimator)
        self._navigate_before()  # the sensors and the estimate of t, the torque held at it (Python's)
        arrays = nav.loop_arrays(dt, False, held is not None, False)
        ctl = np.array(np.broadcast_to(arrays[0], (n, len(arrays[0]))))
        if held is not None:
            world[:, 35] = 1.0
            world[:, 36:39] = np.array(np.broadcast_arrays(*held.value, self.index)[:3]).T
        tr, track = self._tracker, self.track
        c = math.cos(math.radians(self.spec.settle_deg) / 2.0)  # Ensemble._outside's band
        switches = np.array([track, self._const_tt is None, self._settings.norm == "none", 0], dtype=np.int64)
        before = self.faulted.copy()
        done, taken = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
        on_threads(advance_nav_bodies, (self._x, par, flags, world, qc, k, self._k - self._k0, self._t0,
                                        self.faulted, done, switches, self._k, c * c, float(tr.rate_under),
                                        tr.peak_ww, tr.first_under, tr.travel, tr.peak_tt, tr.last_out,
                                        (ctl, *arrays[1:]), nav.filter is not None, self._nav_sums, taken, plain), n)
        steps = int(taken[0])
        nav.loop_taken((ctl[0],))
        self._nav_steps += steps - 1  # the window's steps scored by the kernel
        self._called(before, done, steps)
        self._navigate_after(np.ascontiguousarray(ctl[:, 9:12].T), dt)  # the end of the last step (Python's)
        self._tracked_call(track)
        return steps


advance_nav_bodies.warms(_sample, WARM_AFTER)  # the warm-up rule of sim.core.jit.Kernel
