"""An ensemble's CMG clusters (issue 45): each body's gimbal angles a row, each body stepped as its own run.

The bodies of an :class:`~sim.ensemble.Ensemble` whose settings have a cluster (``cmg = "pyramid"``) share
the cluster's settings (rotor momentum, axes, steering law and its gains) and differ as the ensemble
makes them differ (attitude, rates, inertia, gains).  :class:`CmgColumns` holds what they step with: the
gimbal angles of every body as the rows of ``delta`` (n, k), one :class:`~sim.model.cmg_step.CmgStep`'s
constants (the SR weight and the null motion's gain scaled by ``h0`` as there), each body's inertia.

A step is the one of :meth:`sim.model.cmg_step.CmgStep._step_python`, on columns: the torque law
(:class:`~sim.core.control.TorqueModel` over rows) and the environment's torque (``LoadModel.external``) at
the step's start, held, then :func:`cmg_bodies`, a ``numba.prange`` loop over the bodies, each taking one
:func:`sim.core.cmg.cmg_rk4_step` (Wie ch. 7; the text :func:`sim.model.cmg_step.cmg_run` and
:func:`sim.core.cmg.cmg_advance` step) and the norm mode :func:`sim.core.advance.normed`.  The column torque law is
the float one's operations on rows (:data:`sim.core.ops.COLUMN`), so each body is bit for bit its
:class:`~sim.model.simulation.Simulation` (``Ensemble.body_settings``).  A body whose new state is not finite
is left with a non-finite correction, which the ensemble's commit turns into a fault (frozen at its last good
state, gimbals too).

Besides the state, each body's most singular ``m = det(A A^T)`` seen (over its initial state and the state
after every good step) is kept, for a sweep's ``cmg_m_min`` column beside the final ``cmg_m``.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core import cmg
from sim.core.advance import NORMS, normed
from sim.core.jit import kernel, prange
from sim.model.cmg_step import CmgStep

__all__ = ["CmgBodies", "CmgColumns", "WARM_BODIES", "cmg_bodies", "bodies_measure", "columns_for", "CMG_SWEEP_COLUMNS",
           "sweep_columns"]


@kernel(parallel=True)
def cmg_bodies(x, xn, delta, faulted, j, j_inv, h0, g, s0, command, external, law, lam0, mu, k, rate_max, t, eps0,
               omega, dt, mode, least):
    """One step of every body not ``faulted`` (column ``b`` of ``x``, (8, m): q, w, correction) into ``xn``, its gimbal
    angles the row ``delta[b]`` advanced in place when the new state is finite: :func:`sim.core.cmg.cmg_rk4_step`
    with the torque law's ``command[:, b]`` and the external torque ``external[:, b]`` held from time ``t``, body
    ``b``'s inertia ``j[b]`` and its inverse ``j_inv[b]`` (3 x 3), then :func:`sim.core.advance.normed` of mode
    ``mode``.  A new state that is not finite gets a nan correction (the commit's fault test); a finite one
    lowers ``least[b]`` to its ``m = det(A A^T)`` if smaller."""
    m = x.shape[1]
    nc = delta.shape[1]
    for b in prange(m):
        if faulted[b]:
            continue
        q = np.empty(4)
        w = np.empty(3)
        tc = np.empty(3)
        te = np.empty(3)
        for c in range(4):
            q[c] = x[c, b]
        for c in range(3):
            w[c] = x[4 + c, b]
            tc[c] = command[c, b]
            te[c] = external[c, b]
        d = np.empty(nc)
        for i in range(nc):
            d[i] = delta[b, i]
        rates = np.empty(nc)
        finite = cmg.cmg_rk4_step(q, w, d, j[b], j_inv[b], h0, g, s0, tc, te, law, lam0, mu, k, rate_max, t, eps0,
                                  omega, dt, rates)
        qn, correction = normed((q[0], q[1], q[2], q[3]), mode)
        for c in range(4):
            xn[c, b] = qn[c]
        for c in range(3):
            xn[4 + c, b] = w[c]
        if finite and math.isfinite(qn[0] + qn[1] + qn[2] + qn[3] + correction):
            xn[7, b] = correction
            for i in range(nc):
                delta[b, i] = d[i]
            measure = cmg.singularity_measure(cmg.jacobian(h0, g, s0, d))
            if not measure >= least[b]:
                least[b] = measure
        else:
            xn[7, b] = math.nan


def _sample() -> tuple:
    """Arguments of :func:`cmg_bodies` of the types it is compiled for (one body, a pyramid at rest; no step taken)."""
    g, s0 = cmg.pyramid()
    x, eye = np.zeros((8, 1)), np.eye(3).reshape(1, 3, 3)
    return (x, x.copy(), np.zeros((1, 4)), np.zeros(1, dtype=np.bool_), eye, eye.copy(), 1.0, g, s0, np.zeros((3, 1)),
            np.zeros((3, 1)), 1, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.1, 0, np.zeros(1))


#: Bodies from which an ensemble's step waits for :func:`cmg_bodies` to load (:meth:`sim.core.jit.Kernel.prepare`;
#: from the disk cache about 0.3 s, a first compile once): its text as Python costs about 1-2 ms a body-step, a
#: step of this many bodies a third of a second or more, and a sweep's cost estimate times up to 400 bodies.
#: Fewer bodies run its Python text (the same numbers) until a thread has loaded it (the one rule of
#: :class:`sim.core.jit.Kernel`, after :data:`sim.core.jit.WARM_SECONDS` of Python).
WARM_BODIES = 256
cmg_bodies.warms(_sample, WARM_BODIES)


@kernel
def bodies_measure(h0, g, s0, delta, out):
    """``out[b] = det(A A^T)`` at each body's gimbal angles ``delta[b]`` (Wie ch. 7)."""
    for b in range(delta.shape[0]):
        out[b] = cmg.singularity_measure(cmg.jacobian(h0, g, s0, delta[b]))


def _matrices(rows, n: int) -> np.ndarray:
    """Nine inertia rows (each a float for all bodies or one value per body) as ``(n, 3, 3)``, row major."""
    entries = np.broadcast_arrays(*(np.asarray(r, dtype=float) for r in rows), np.empty(n))[:9]
    return np.ascontiguousarray(np.array(entries, dtype=float).T.reshape(n, 3, 3))


class CmgColumns:
    """The CMG clusters of ``n`` bodies flying the same settings (see the module docstring).

    Parameters
    ----------
    settings : Settings
        With a cluster (``settings.cmg_set``).
    n : int
        Bodies.
    j_rows, j_inv_rows : 9-tuples
        The ensemble's inertia rows and their inverses (floats or one value per body).
    old : CmgColumns or None
        The clusters before a change of settings mid-run: their gimbal angles carry on (as
        :class:`~sim.model.cmg_step.CmgStep`'s) when the cluster has as many gimbals.
    """

    def __init__(self, settings, n: int, j_rows, j_inv_rows, old=None):
        eye = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
        self.one = one = CmgStep(settings, eye, eye)  # its constants (its own inertia is not read)
        self.mode = NORMS[settings.norm]
        self.j, self.j_inv = _matrices(j_rows, n), _matrices(j_inv_rows, n)
        self.n = n
        k = len(one.delta0)
        if old is not None and old.delta.shape == (n, k):
            self.delta, self.least = old.delta, old.least
        else:
            self.delta, self.least = np.empty((n, k)), np.empty(n)
            self.reset()

    def reset(self) -> None:
        """Every body's gimbals at the initial angles; the most singular ``m`` seen: theirs."""
        self.delta[:] = self.one.delta0
        self.least[:] = self.measure()

    def measure(self) -> np.ndarray:
        """Each body's ``m = det(A A^T)`` now (n,)."""
        out = np.empty(self.n)
        one = self.one
        bodies_measure(one.h0, one.g, one.s0, self.delta, out)
        return out

    def step(self, ens) -> None:
        """One step of the ensemble ``ens`` into its next state (``ens._xn``), the gimbal rows in place; the torque
        of the step (the law's, plus the external torque) into ``ens._tq`` for the metrics.  The ensemble's commit
        follows (faults, time, world)."""
        one, n = self.one, self.n
        q, w = tuple(ens._x[0:4]), tuple(ens._x[4:7])
        cmg_bodies.prepare(n)  # loaded now for WARM_BODIES bodies or more
        command = np.array(np.broadcast_arrays(*ens._torque(q, w), np.empty(n))[:3], dtype=float)
        load = ens._load
        external = load.external(q, w, ens._t) if load.active else None
        outside = np.zeros((3, n)) if external is None else np.array(
            np.broadcast_arrays(*external, np.empty(n))[:3], dtype=float)
        cmg_bodies(ens._x, ens._xn, self.delta, ens.faulted, self.j, self.j_inv, one.h0, one.g, one.s0, command,
                   outside, one.law, one.lam0, one.mu, one.k, one.rate_max, ens._t, one.eps0, one.omega, ens._dt,
                   self.mode, self.least)
        if ens._const_tt is None:
            np.add(command, outside, out=ens._tq)

    def values(self) -> dict:
        """The sweep's columns (:data:`CMG_SWEEP_COLUMNS`): each body's final gimbal angles ``cmg_delta1..k`` (deg),
        its final ``cmg_m`` and its most singular ``cmg_m_min`` seen, both ``m / h0^6`` as the run's ``cmg_m``."""
        h6 = self.one.h0 ** 6
        out = {f"cmg_delta{i}": np.degrees(row) for i, row in enumerate(self.delta.T, start=1)}
        out["cmg_m"] = self.measure() / h6
        out["cmg_m_min"] = self.least / h6
        return out


#: A sweep's columns of a cluster after the gimbal angles ``cmg_delta1..k``: the final ``m / h0^6`` and the least seen.
CMG_SWEEP_COLUMNS = ("cmg_m", "cmg_m_min")


def sweep_columns(k: int) -> tuple:
    """The sweep's columns of a cluster of ``k`` CMGs (none for ``k = 0``): ``cmg_delta1..k`` (deg, final), ``cmg_m``,
    ``cmg_m_min`` (:meth:`CmgColumns.values`)."""
    return tuple(f"cmg_delta{i}" for i in range(1, k + 1)) + CMG_SWEEP_COLUMNS if k else ()


def columns_for(settings, n: int, j_rows, j_inv_rows, old=None):
    """The :class:`CmgColumns` of ``n`` bodies of ``settings`` (None without a cluster), carrying on ``old``'s
    angles."""
    if settings.cmg_set is None:
        return None
    return CmgColumns(settings, n, j_rows, j_inv_rows, old)


class CmgBodies:
    """The part of :class:`~sim.ensemble.Ensemble` that holds its bodies' clusters (:class:`CmgColumns`)."""

    _cmgs: CmgColumns | None = None
    _thr = None

    @property
    def cmgs(self) -> CmgColumns | None:
        """The bodies' CMG clusters (their gimbal angles ``cmgs.delta``, (n, k), rad), None without."""
        return self._cmgs

    def _reset_actuators(self) -> None:
        """The thrusters (no firing, no fuel used) and the CMG clusters (the initial angles) of a new run."""
        for actuators in (self._thr, self._cmgs):
            if actuators is not None:
                actuators.reset()
