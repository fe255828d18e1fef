"""The ensemble's body loop through the compiled step of one body, on every core (issue 42).

:func:`advance_bodies` takes ``n`` steps of every body of an :class:`~sim.ensemble.Ensemble` in one call:
a ``numba.prange`` loop over the bodies, each stepping with :func:`sim.core.advance.checked_step`, the
step (integrator, torque law, norm mode) and fault checks of the single body's compiled
:func:`sim.core.advance.advance`, so the scheme exists once and each body is bit for bit its
:class:`~sim.model.simulation.Simulation`.  It writes the ensemble's state columns in place and keeps the
per-step metrics of :class:`sim.ensemble.metrics.Tracker` (peak ``|w|`` and ``|T|``, path length, the
detumble step, the last step outside the settle band) with the same operations in the same order, so
the results do not depend on the path either.  It covers what :func:`sim.core.advance.covers` covers,
with a fixed command (no SLERP in progress) and no navigation; bodies on an orbit step through
:mod:`sim.ensemble.orbit_loop` (their world and the spacecraft's step), and the ensemble steps everything else
as before.

Each body has its own ``par`` row (:func:`pack_bodies`: :func:`sim.core.advance.pack`'s layout, with the
per-body gains, command and inertia of the ensemble); ``flags`` are shared.  A body that faults is frozen
at its last good state; ``done[j]`` says how many good steps it took in the call.

Where it pays: on one core it beats the numpy kernels for rk4 and loses to the fused half-quat kernels
of :mod:`sim.ensemble.kernels` (:data:`AUTO`; docs/PERFORMANCE.md).  The single body's compiled step costs
about 56 ns where the same arithmetic written inline costs 17: numba compiles each ``jitable`` as a function
of its own and the step calls them (``_rates_rhs`` five times in rk4's code) rather than inlining them.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from sim.core import advance as single
from sim.core.advance import OK, as_tuples, checked_step, inertia, step_torque
from sim.core.algebra import dot_QQ, norm2_Q
from sim.core.jit import DISABLED, jitable, kernel, numba_module, prange

__all__ = ["advance_bodies", "pack_bodies", "body_rows", "Switches", "CompiledSteps", "WARM_AFTER", "AUTO", "CHUNK", "track_body",
           "on_threads"]

#: Body-steps a process takes through the numpy kernels before it loads the compiled body loop (from the
#: disk cache, about 0.3 s; compiling it, 5-20 s, once; the rule of :class:`sim.core.jit.Kernel`): a short run
#: never pays for it.  The results are the same either way.
WARM_AFTER = 20_000_000

#: The integrators an ensemble steps compiled unless told (``Ensemble(compiled=None)``): where the compiled
#: loop beat the numpy kernels on one core (docs/PERFORMANCE.md, "ensemble compiled"; measured at N = 10,000,
#: CPU time: rk4 110 ns against 114 torque-free, 183 against 217 with dampers, the controller and the
#: metrics).  Half-quat stays on the fused numpy kernels, which beat it (47 ns against 110 with the controller).
AUTO = ("rk4",)

#: Most body-steps in one call of :func:`advance_bodies` (tens of milliseconds): Ctrl-C is seen between calls.
CHUNK = 2_000_000

def _sample() -> tuple:
    """Arguments of :func:`advance_bodies` of the types it is compiled for (no step taken)."""
    x, par, flags = np.zeros((8, 1)), np.zeros((1, 35)), np.zeros(9, dtype=np.int64)
    track, i1, f1 = np.zeros(4, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1)
    return (x, par, flags, 0, np.zeros(1, dtype=np.bool_), i1, track, 0, np.zeros((4, 1)), f1, 0.0, f1, i1, f1, f1,
            i1)


def pack_bodies(torque, j_rows, j_inv_rows, qc, dt: float, integrator: str, norm: str, n: int) -> tuple:
    """``(par, flags)`` for ``n`` bodies: ``par`` (n, 35) in :data:`sim.core.advance.PAR`'s layout, one row per
    body, from a column :class:`~sim.core.control.TorqueModel` (each entry one float for all or one row per
    body), the inertia rows, the command ``qc`` (4, n) or (4, 1); ``flags`` as :func:`sim.core.advance.pack`."""
    _, flags = single.pack(Switches(torque), (0.0,) * 9, (0.0,) * 9, dt, integrator, norm)
    return body_rows(torque, j_rows, j_inv_rows, qc, dt, n, 35), flags


def body_rows(torque, j_rows, j_inv_rows, qc, dt: float, n: int, width: int) -> np.ndarray:
    """``(n, width)`` rows whose first 35 entries are :data:`sim.core.advance.PAR`'s, one row per body (the rest
    zeros): :func:`pack_bodies`'s, and the head of :data:`sim.model.advance_craft.PAR`'s."""
    par = np.zeros((n, width))
    entries = (*torque.command, *torque.dampers, *qc, *torque.gains, *torque.limits, *j_rows, *j_inv_rows, dt)
    for i, value in enumerate(entries):
        par[:, i] = value
    return par


class Switches:
    """The switches of a column torque model, for :func:`sim.core.advance.pack`'s ``flags`` (its floats are
    packed per body by :func:`pack_bodies`)."""

    def __init__(self, torque):
        self.command = self.dampers = self.gains = self.limits = (0.0, 0.0, 0.0)
        self.qc = (0.0, 0.0, 0.0, 1.0)
        self.dampers_on, self.controller, self.axes = torque.dampers_on, torque.controller, torque.axes
        self.shortest_path, self.limiter_on = torque.shortest_path, torque.limiter_on


@kernel(parallel=True)
def advance_bodies(x, par, flags, n, faulted, done, track, k0, qc, threshold, rate_under,
                   peak_ww, first_under, travel, peak_tt, last_out):
    """Up to ``n`` steps of each body (column ``j`` of ``x``, (8, m): q, w, correction), in place, in parallel.

    ``faulted`` (m,) bodies are frozen from the start; a body whose step faults (a status of
    :func:`sim.core.advance.checked_step`) is set in ``faulted`` and frozen at its last good state.
    ``done[j]``: the good steps body ``j`` took.  ``k0``: the ensemble's step count before the call.

    ``track = (on, torque, norm_none, -)``: with ``on`` the metrics of
    :meth:`sim.ensemble.metrics.Tracker.track` after each step ``k``: ``peak_ww`` ``max |w|^2``,
    ``first_under`` the first step with ``|w| < rate_under``, ``travel`` ``+= |w| dt`` and (with ``torque``)
    ``peak_tt`` ``max |T|^2`` of the torque at the start of the step, both for bodies not faulted, and
    ``last_out`` the last step outside the settle band, :func:`sim.ensemble.metrics.outside`:
    ``(Q.Qc)^2 < threshold`` (times ``|Q|^2`` with ``norm_none``), ``qc`` (4, m) and
    ``threshold`` (m,).
    """
    m = x.shape[1]
    for j in prange(m):
        p, fl = as_tuples(par[j], flags)
        jr, jir = inertia(p)
        dt = p[34]
        q = (x[0, j], x[1, j], x[2, j], x[3, j])
        w = (x[4, j], x[5, j], x[6, j])
        correction = x[7, j]
        qc1, qc2, qc3, qc4 = qc[0, j], qc[1, j], qc[2, j], qc[3, j]
        thr = threshold[j]
        alive = not faulted[j]
        good = 0
        for i in range(n):
            tt = 0.0
            if alive:
                if track[0] != 0 and track[1] != 0:  # |T|^2 of the torque at the start of the step
                    t = step_torque(q, w, p, fl)
                    tt = t[0] * t[0] + t[1] * t[1] + t[2] * t[2]
                status, q1, w1, c1 = checked_step(q, w, p, fl, jr, jir)
                if status == OK:
                    q, w, correction = q1, w1, c1
                    good += 1
                else:
                    alive = False
                    faulted[j] = True
            if track[0] != 0:  # Tracker.track after step k, on the state now (frozen when faulted)
                k = k0 + i + 1
                ww = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
                if not ww <= peak_ww[j]:  # np.maximum: a nan wins
                    peak_ww[j] = ww
                s = math.sqrt(ww)
                if s < rate_under and first_under[j] < 0:
                    first_under[j] = k
                if alive:
                    travel[j] += s * dt
                    if track[1] != 0 and not tt <= peak_tt[j]:
                        peak_tt[j] = tt
                d = q[0] * qc1 + q[1] * qc2 + q[2] * qc3 + q[3] * qc4
                d *= d
                bound = thr
                if track[2] != 0:
                    bound = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) * thr
                if d < bound:
                    last_out[j] = k
            if not alive and track[0] == 0:
                break
        x[0, j], x[1, j], x[2, j], x[3, j] = q
        x[4, j], x[5, j], x[6, j] = w
        x[7, j] = correction
        done[j] = good


class CompiledSteps:
    """The part of :class:`~sim.ensemble.Ensemble` that steps through :func:`advance_bodies`: when it may
    (:meth:`_packed_bodies`) and the bookkeeping of a call (:meth:`_compiled_steps`: time, faults, metrics)."""

    _compiled: bool | None = None
    _bodies_key: tuple | None = None
    _threshold: tuple | None = None  # (the ensemble's settle threshold, it for each body)

    def _packed_bodies(self, k: int):
        """``(par, flags)`` of :func:`advance_bodies` for the next ``k`` steps, or None when they go through
        the numpy step: the settings are not covered (:func:`sim.core.advance.covers`, no wheels, full-quat's
        ``P``, world, navigation, user torque or rate reference), a SLERP is in progress, ``compiled`` is
        False, or (``compiled`` None) the integrator is not one of :data:`AUTO`, or the body loop is not wanted
        yet (:meth:`sim.core.jit.Kernel.wanted`, its :data:`WARM_AFTER` body-steps: these go through numpy while
        a thread loads it; one call of ``WARM_AFTER`` body-steps or more waits for it)."""
        s, torque = self._settings, self._torque
        if (self._compiled is False or self._compiled is None and s.integrator not in AUTO
                or self._cmd.path is not None or self._nav is not None or self._world is not None
                or self._p is not None or self._step_torque is not torque or torque.rate_ref is not None
                or len(self._x) != 8 or not single.covers(s)):
            return None
        if self._compiled is None and not advance_bodies.wanted(k * self.n):  # numpy steps while it loads
            return None
        advance_bodies.wait()  # compiled=True: now (with the JIT off, its path as Python)
        key = (s, self._controls, self._qc, self._dt, self._jr, torque.gains, torque.command)
        old = self._bodies_key
        if old is not None and all(a is b for a, b in zip(old[:-1], key)):
            return old[-1]
        qc = np.ascontiguousarray(np.broadcast_to(self._qc, (4, self.n)), dtype=float)
        par, flags = pack_bodies(torque, self._jr, self._jir, qc, self._dt, s.integrator, s.norm, self.n)
        packed = (par, flags, qc)
        self._bodies_key = (*key, packed)
        return packed

    def _compiled_steps(self, packed, k: int) -> int:
        """Up to ``k`` steps of every body through :func:`advance_bodies` (at most :data:`CHUNK` body-steps),
        then what ``_commit`` does after each: the step count and time, the faults (frozen bodies, ``fault_t``
        the time of the last good state) and the metrics of :class:`~sim.ensemble.metrics.Tracker`.
        Returns the steps taken."""
        k = min(k, max(1, CHUNK // self.n))
        par, flags, qc = packed
        tr, track = self._tracker, self.track
        threshold = qc[0]  # not read without tracking
        if track:
            if self._settle_threshold is None:
                self._outside()  # makes the settle threshold
            held = self._threshold
            if held is None or held[0] is not self._settle_threshold:
                held = (self._settle_threshold, np.ascontiguousarray(np.broadcast_to(
                    np.asarray(self._settle_threshold, dtype=float).reshape(-1), (self.n,))))
                self._threshold = held
            threshold = held[1]
        switches = np.array([track, self._const_tt is None, self._settings.norm == "none" or self._unit, 0],
                            dtype=np.int64)
        before = self.faulted.copy()
        done = np.empty(self.n, dtype=np.int64)
        advance_bodies(self._x, par, flags, k, self.faulted, done, switches, self._k, qc, threshold,
                       float(tr.rate_under), tr.peak_ww, tr.first_under, tr.travel, tr.peak_tt, tr.last_out)
        self._called(before, done, k)
        self._tracked_call(track)
        return k

    def _called(self, before, done, k: int) -> None:
        """After a compiled call of ``k`` steps (this loop's, :mod:`~sim.ensemble.orbit_loop`'s or
        :mod:`~sim.ensemble.nav_bodies`'): the time of each body's fault that the call found (faulted now, not
        ``before``; after its ``done`` good steps), and the ensemble's step count and time."""
        new = self.faulted & ~before
        if new.any():
            self.fault_t[new] = self._t0 + (self._k + done[new] - self._k0) * self._dt
        self._k += k
        self._t = self._t0 + (self._k - self._k0) * self._dt

    def _tracked_call(self, track) -> None:
        """After a compiled call, what ``_commit`` keeps of the metrics: none tracked when ``track`` was off, else
        the constant torque's peak."""
        if not track:
            self._tracked = False
        elif self._const_tt is not None:
            tr = self._tracker
            tr.peak_const_tt = max(tr.peak_const_tt, self._const_tt)


advance_bodies.warms(_sample, WARM_AFTER)  # the warm-up rule of sim.core.jit.Kernel


@jitable
def track_body(metrics, k, q, w, c, c2, alive, tt, dt, norm_none, rate_under):
    """:meth:`sim.ensemble.metrics.Tracker.track` of a body after step ``k``: ``metrics`` its ``(peak_ww,
    first_under, travel, peak_tt, last_out)`` returned updated for its state ``(q, w)`` (frozen when faulted),
    ``alive`` (not faulted: its ``|w| dt`` and the step's ``|T|^2 = tt`` counted), the command ``c`` with the
    settle band :func:`sim.ensemble.metrics.outside` of ``c2 |c|^2``, each in the order of numpy's columns."""
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


def on_threads(fn, args: tuple, m: int) -> None:
    """The kernel ``fn`` ``(*args, lo, hi)`` over the bodies ``0..m``, split into numba's thread count of equal
    ranges run on as many threads (this one and ``threads - 1`` started for the call), as
    a ``prange`` would take them; one thread when ``fn`` runs as Python (not loaded, or the JIT off).  An error in
    a range is raised here; Ctrl-C is seen once every range has ended (no body left half-stepped)."""
    threads = 1 if DISABLED or not fn.ready else min(m, numba_module().get_num_threads())
    if threads <= 1:
        fn(*args, 0, m)
        return
    cuts = [m * i // threads for i in range(threads + 1)]
    errors = []

    def bodies(lo: int, hi: int) -> None:
        try:
            fn(*args, lo, hi)
        except BaseException as error:  # raised in the caller's thread below
            errors.append(error)

    others = [threading.Thread(target=bodies, args=(lo, hi), daemon=True) for lo, hi in zip(cuts[1:-1], cuts[2:])]
    for thread in others:
        thread.start()
    bodies(cuts[0], cuts[1])
    interrupted = None
    for thread in others:
        while thread.is_alive():
            try:
                thread.join()
            except KeyboardInterrupt as error:
                interrupted = error
    if errors:
        raise errors[0]
    if interrupted is not None:
        raise interrupted
