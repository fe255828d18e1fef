"""Per-body results of an ensemble run: error, travel, peaks, settling time, energy drift.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  The
angles are Hoffmann's bivector angle (Appendix C) of :mod:`sim.core.algebra` on
columns; the peaks and the settling test are kept step by step by a
:class:`Tracker`, in preallocated rows.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from sim.core.algebra import norm2_Q, path_angle, rotation_angle
from sim.core.angles import cayley_entries
from sim.core.ops import COLUMN

__all__ = ["Results", "Tracker", "TRACKED", "rotation_angle_deg", "nose", "outside", "chi2_quantile", "nees_band"]

_DEG = 180.0 / math.pi
#: Metrics that are only known when they are kept at every step.
TRACKED = ("settling_time", "peak_torque", "peak_rate", "path_deg", "detumble_time")


def chi2_quantile(p: float, k: float) -> float:
    """The ``p`` quantile of the chi-square distribution of ``k`` degrees of freedom, by Wilson and Hilferty's
    cube-root normal approximation (Wilson & Hilferty 1931; Johnson, Kotz & Balakrishnan, *Continuous
    Univariate Distributions* vol. 1, 2nd ed., (18.24)): ``k (1 - 2/(9k) + z_p sqrt(2/(9k)))^3``, ``z_p`` the
    standard normal quantile.  Its error shrinks as ``k`` grows: at the 2.5 % point about 2.5 % at ``k = 6``,
    0.2 % at ``k = 18`` and under 1e-5 from ``k = 600`` (tests/: scipy.stats.chi2 the oracle); a NEES check over
    N bodies takes ``k = N dof``, hundreds at least."""
    z = NormalDist().inv_cdf(p)
    c = 2.0 / (9.0 * k)
    return k * (1.0 - c + z * math.sqrt(c)) ** 3


def nees_band(dof: int, bodies: int, level: float = 0.95) -> tuple:
    """The two-sided ``level`` band of the average NEES over ``bodies`` independent bodies of a consistent
    filter: ``N * avg`` is chi-square of ``N dof`` degrees (Bar-Shalom, Li & Kirubarajan 2001, §5.4.2), so the band
    is ``chi2_quantile((1 -+ level) / 2, N dof) / N`` (:func:`chi2_quantile`)."""
    k = bodies * dof
    tail = 0.5 * (1.0 - level)
    return chi2_quantile(tail, k) / bodies, chi2_quantile(1.0 - tail, k) / bodies


def rotation_angle_deg(p, q, fold: bool = True) -> np.ndarray:
    """:func:`sim.core.algebra.rotation_angle` of columns, in degrees (``Q`` and ``-Q`` agree, [0, 180]); without
    ``fold`` :func:`sim.core.algebra.path_angle`, the angle along the quaternion path ([0, 360])."""
    return (rotation_angle if fold else path_angle)(tuple(p), tuple(q), COLUMN) * _DEG


def nose(q) -> np.ndarray:
    """Body x axis (the nose) in inertial axes, shape (3, n).

    The first row of the Cayley matrix ``C(Q)``, Hoffmann (2.12), over
    ``|Q|^2`` (``C`` of a non-unit ``Q`` is ``|Q|^2`` times a rotation).
    """
    c11, c12, c13 = cayley_entries(q)[0:3]
    return np.array([c11, c12, c13]) / norm2_Q(q)


class Tracker:
    """Peak ``|w|`` and ``|T|``, the angle travelled (sum of ``|w| dt``), the last step outside the settle band and
    the first step whose ``|w|`` is under the detumble rate.

    Parameters
    ----------
    n : int
        Number of bodies.
    """

    def __init__(self, n: int):
        self.n = n

    def reset(self, w0, const_tt, outside, rate_under: float = 0.0) -> None:
        """Start again at step 0 from rates ``w0``.

        ``const_tt``: ``|T|^2`` of a torque the same for every body and
        state (None when it is not); ``outside``: the bodies outside the
        settle band at the start; ``rate_under``: the detumble rate (rad/s),
        ``|w| = sqrt(wx wx + wy wy + wz wz) < rate_under``.
        """
        self.peak_ww = w0[0] * w0[0] + w0[1] * w0[1] + w0[2] * w0[2]
        self.rate_under = rate_under
        self.first_under = np.where(np.sqrt(self.peak_ww) < rate_under, 0, -1).astype(np.int64)
        self.peak_tt = np.zeros(self.n)
        self.peak_const_tt = const_tt if const_tt is not None else 0.0
        self.travel = np.zeros(self.n)
        self.last_out = np.where(outside, 0, -1).astype(np.int64)

    def track(self, w, tq, const_tt, dt: float, ok, k: int, outside, sc) -> None:
        """After step ``k``: rates ``w`` (3, n) and the step's torque.

        The torque is ``tq`` (3, n), or with ``const_tt`` not None the same
        for every body, of ``|T|^2 = const_tt``.  ``ok``: bodies not faulted
        (None: all); ``outside``: bodies outside the settle band now.
        ``sc``: a :class:`~sim.ensemble.kernels.Scratch`.
        """
        s1, sq = sc.s1, sc.c3
        np.multiply(w, w, out=sq)
        np.add(sq[0], sq[1], out=s1)
        s1 += sq[2]
        np.maximum(self.peak_ww, s1, out=self.peak_ww)
        np.sqrt(s1, out=s1)
        np.copyto(self.first_under, k, where=(s1 < self.rate_under) & (self.first_under < 0))
        s1 *= dt
        if ok is not None:  # a faulted body adds nothing (not s1 * 0: a frozen |w| may be inf, and inf * 0 is nan)
            s1[~ok] = 0.0
        self.travel += s1
        if const_tt is not None:
            self.peak_const_tt = max(self.peak_const_tt, const_tt)
        else:
            np.multiply(tq, tq, out=sq)
            np.add(sq[0], sq[1], out=s1)
            s1 += sq[2]
            if ok is not None:
                s1[~ok] = 0.0
            np.maximum(self.peak_tt, s1, out=self.peak_tt)
        np.copyto(self.last_out, k, where=outside)

    def settling_time(self, segments, k: int) -> np.ndarray:
        """Time of the step after the last one outside the band (0 if none; nan if outside at step ``k``).

        ``segments``: ``(k0, t0, dt)`` per time base, ``t`` of step ``k`` being ``t0 + (k - k0) dt``.
        """
        t = _time_of(self.last_out + 1, segments)
        t[self.last_out < 0] = 0.0
        t[self.last_out >= k] = np.nan
        return t

    def detumble_time(self, segments) -> np.ndarray:
        """Time of the first state whose ``|w|`` was under the detumble rate (0 if the first; nan if none yet),
        whatever came after: the time to detumble."""
        t = _time_of(self.first_under, segments)
        t[self.first_under == 0] = 0.0
        t[self.first_under < 0] = np.nan
        return t

    def tracked(self, segments, k: int) -> dict:
        """The tracked metrics (see :meth:`sim.ensemble.Ensemble.metrics`)."""
        return {"settling_time": self.settling_time(segments, k),
                "peak_torque": np.sqrt(np.maximum(self.peak_tt, self.peak_const_tt)),
                "peak_rate": np.sqrt(self.peak_ww), "path_deg": np.degrees(self.travel),
                "detumble_time": self.detumble_time(segments)}


def _time_of(step, segments) -> np.ndarray:
    """The time of each step index in ``step`` (n,): ``t0 + (step - k0) dt`` of the time base it falls in
    (``segments``: ``(k0, t0, dt)`` per time base)."""
    t = np.zeros(len(step))
    ends = [seg[0] for seg in segments[1:]] + [np.iinfo(np.int64).max]
    for (k0, t0, dt), end in zip(segments, ends):
        sel = (step > k0) & (step <= end)
        t[sel] = t0 + (step[sel] - k0) * dt
    return t


def outside(q, qc, threshold, norm_none: bool, sc) -> np.ndarray:
    """Bodies farther than the settle angle ``a`` from the command: ``(Q.Qc)^2 < cos^2(a/2) |Q|^2 |Qc|^2``.

    ``threshold`` is ``cos^2(a/2) |Qc|^2`` per body; ``|Q| = 1`` is taken
    except where ``|Q|`` drifts (``norm_none``: norm handling ``none`` or ``elimination``).  Returns ``sc.mask``.
    """
    s1, s2, prod = sc.s1, sc.s2, sc.d4
    np.multiply(q, qc, out=prod)
    np.add(prod[0], prod[1], out=s1)
    s1 += prod[2]
    s1 += prod[3]
    s1 *= s1
    if norm_none:
        np.multiply(q[0], q[0], out=s2)
        s2 += q[1] * q[1]
        s2 += q[2] * q[2]
        s2 += q[3] * q[3]
        s2 *= threshold
        threshold = s2
    return np.less(s1, threshold, out=sc.mask)


class Results:
    """The per-body results of an :class:`~sim.ensemble.Ensemble` (a part of it, as
    :class:`~sim.ensemble.environment.Surroundings` is): its readouts of the error, the nose and the metrics."""

    # ------------------------------------------------------------ readouts
    def error_deg(self) -> np.ndarray:
        """Rotation angle between each ``Q`` and its command ``Qc``, degrees in [0, 180].

        Hoffmann's bivector angle (Appendix C) folded so ``Q`` and ``-Q``
        agree: ``2 atan2(|Q^Qc|, |Q.Qc|)`` (:func:`sim.core.algebra.rotation_angle`).
        """
        return rotation_angle_deg(self.q, self._qc, fold=True)

    def nose(self) -> np.ndarray:
        """Body x axis (the nose) in inertial axes, shape (3, n) (:func:`sim.ensemble.metrics.nose`)."""
        return nose(self.q)

    def metrics(self) -> dict:
        """Per-body results of the run so far.

        Returns
        -------
        dict of ndarray, shape (n,)
            ``final_error_deg``: :meth:`error_deg` now.  ``settling_time``: s,
            the first time from which on the error stayed within
            ``spec.settle_deg`` up to now (0 if it always was; nan if it is
            outside now).  ``peak_torque``: N m, largest ``|T|`` applied at
            the start of a step.  ``peak_rate``: rad/s, largest ``|w|`` of the
            states so far.  ``travelled_deg``: the rotation angle travelled
            from the initial attitude, measured on the quaternion's own
            continuous path without folding ``Q`` and ``-Q``: ``2 atan2(|Q0^Q|,
            Q0.Q)`` in [0, 360] (Hoffmann's bivector angle, Appendix C).  A
            body that comes to rest at its command turned the short way when
            this is <= 180 and the long way round (unwinding) when > 180.
            ``path_deg``: the length of the path, the sum of ``|w_new| dt``
            over the steps (a body that wobbles or overshoots travels farther
            than its net turn).
            ``detumble_time``: s, the first time ``|w|`` was under
            ``spec.detumble_deg_s`` (0 if at the start, nan if never so far),
            whatever it did after: B-dot's time to detumble.
            ``energy_drift``: ``T/T0 - 1`` (meaningful for torque-free runs;
            nan when ``T0 = 0``).  ``faulted`` (bool) and ``fault_t`` (s, nan
            while fine).  With an orbit also ``point_err_deg`` (the pointing
            axis's error now, :meth:`pointing_error_deg`) and ``sunlit`` (the
            visible fraction of the solar disc now, 0 to 1).  With a moving
            pointing mode the command is the mode's, so ``final_error_deg``
            and ``settling_time`` measure the attitude against it.  With an estimator (issue 33) also
            :meth:`~sim.ensemble.environment.Surroundings.estimation_metrics`: ``qe1..qe4``, ``est_err_deg``,
            ``est_rms_deg``, ``nees``, ``nees_mean``.
        """
        e0 = self._energy0
        with np.errstate(all="ignore"):
            drift = np.where(e0 != 0.0, self.energy() / np.where(e0 != 0.0, e0, 1.0) - 1.0, np.nan)
        tracked = self._tracker.tracked(self._segments, self._k)
        out = {"final_error_deg": self.error_deg(), "settling_time": tracked["settling_time"],
               "peak_torque": tracked["peak_torque"], "peak_rate": tracked["peak_rate"],
               "travelled_deg": rotation_angle_deg(self._sample.q0, self.q, fold=False),
               "path_deg": tracked["path_deg"], "detumble_time": tracked["detumble_time"],
               "energy_drift": drift, "faulted": self.faulted.copy(), "fault_t": self.fault_t.copy()}
        if not self._tracked:
            for key in TRACKED:
                out[key] = np.full(self.n, np.nan)
        if self._world_state is not None:
            out["point_err_deg"] = self.pointing_error_deg()
            out["sunlit"] = np.broadcast_to(np.asarray(self._world_state.sunlit, dtype=float), (self.n,)).copy()
        out.update(self.estimation_metrics())
        return out
