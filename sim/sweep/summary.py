"""The summary of a sweep: percentiles over the bodies, the worst bodies, one row per gains combination.

Computed from a :class:`sim.sweep.chunk.SweepResult`'s columns alone (``attitude-sim sweep`` prints it).
"""

from __future__ import annotations

import math

import numpy as np

from sim.ensemble import EnsembleSpec
from sim.ensemble.metrics import nees_band
from sim.ensemble.sampling import combination
from sim.model.navigation import DOF
from sim.sweep.chunk import SweepResult

__all__ = ["summary"]


def _by_gains(grid, index, settling) -> list:
    """One row per combination flown, in grid order: ``(gains, bodies, settled, median, max)``.

    Body ``i`` flew combination ``i mod C``; the bodies are grouped by that
    number (sorted), never by walking all C combinations (up to 10^9).  The
    median is numpy's ``percentile(method="nearest")`` of each group: the
    sorted group's element at ``(n - 1) / 2``, rounded half to even.
    """
    if not len(index):
        return []
    total = len(grid[0]) * len(grid[1]) * len(grid[2])
    number = np.asarray(index, dtype=np.int64) % total
    order = np.lexsort((settling, number))
    number, t = number[order], settling[order]
    starts = np.flatnonzero(np.r_[True, number[1:] != number[:-1]])
    ends = np.r_[starts[1:], len(number)]
    counts = ends - starts
    settled = np.add.reduceat(np.isfinite(t).astype(np.int64), starts)
    median = t[starts + np.around((counts - 1) * 0.5).astype(np.int64)]
    top = t[ends - 1]
    positions = combination(grid, number[starts])
    axes = [np.asarray(axis, dtype=float) for axis in grid]
    gains = zip(*(axis[k] for axis, k in zip(axes, positions)))
    return [(tuple(float(g) for g in combo), int(n), int(s), float(m), float(x))
            for combo, n, s, m, x in zip(gains, counts, settled, median, top)]


def _never_as_inf(settling: np.ndarray) -> np.ndarray:
    return np.where(np.isnan(settling), np.inf, settling)


def summary(result: SweepResult, spec: EnsembleSpec, worst: int = 5, estimator: str = "truth") -> dict:
    """The figures of the summary table, computed from the columns.

    Returns a dict: ``bodies``, ``faulted`` (count), ``flying`` (bodies not
    faulted), ``percentiles`` (the levels), ``settling_time`` and
    ``final_error_deg`` and ``travelled_deg`` (their percentiles over the
    bodies that did not fault, nearest rank, a never-settled body counting
    as ``inf``), ``point_err_deg`` (likewise with an orbit, else None),
    ``detumble_time`` (likewise with a magnetic field, else None; a body
    never under the rate counting as ``inf``), ``detumble_p95`` (its 95th
    percentile) and ``detumbled`` (count under the rate at some time),
    ``settled`` (count within ``spec.settle_deg`` at the end), ``unwinding``
    (count with ``travelled_deg > 180``), ``worst`` (global indices of the
    ``worst`` bodies: never settled first, by final error, then the longest
    settling times); with a gains grid, ``by_gains``: one tuple
    ``(gains, bodies, settled, median settling time, max settling time)``
    per combination flown, in grid order, over the bodies that did not fault.  With an ``estimator`` (the
    settings' ``estimator`` the sweep flew, :data:`sim.model.navigation.ESTIMATORS`) also
    ``est_err_deg``, ``est_rms_deg`` and ``nees_mean`` (their percentiles likewise) and ``nees_check``: the
    average of the final NEES over the bodies that did not fault (``mean``) against the 95 % band of a
    consistent filter (``low``, ``high``: :func:`sim.ensemble.metrics.nees_band` of ``dof``, 6 for the MEKF's
    attitude and bias, 3 for TRIAD's and QUEST's attitude), ``inside`` (bool); else all four None.
    """
    c = result.columns
    faulted = c["faulted"]
    pointing = c.get("point_err_deg")
    detumble = c.get("detumble_time")
    ok = ~faulted
    settling = _never_as_inf(c["settling_time"])
    error = c["final_error_deg"]
    levels = (0, 50, 90, 99, 100)

    def pct(x):
        if not x.size:
            return [math.nan] * len(levels)
        return [float(v) for v in np.percentile(x, levels, method="nearest")]

    def pct95(x):
        return float(np.percentile(x, 95, method="nearest")) if x.size else math.nan

    # Worst first: faulted bodies, then never settled (largest error first), then slowest to settle.
    order = np.lexsort((-error, -settling, ok))
    by_gains = _by_gains(spec.gains_grid, c["index"][ok], settling[ok]) if spec.gains_grid else []
    return {"bodies": result.bodies, "faulted": int(faulted.sum()), "flying": int(ok.sum()),
            "percentiles": levels, "settling_time": pct(settling[ok]), "final_error_deg": pct(error[ok]),
            "travelled_deg": pct(c["travelled_deg"][ok]),
            "point_err_deg": None if pointing is None else pct(pointing[ok]),
            "detumble_time": None if detumble is None else pct(_never_as_inf(detumble[ok])),
            "detumbled": None if detumble is None else int(np.isfinite(detumble[ok]).sum()),
            "detumble_p95": None if detumble is None else pct95(_never_as_inf(detumble[ok])),
            "settled": int(np.isfinite(settling[ok]).sum()),
            "unwinding": int((c["travelled_deg"] > 180.0).sum()),
            "worst": [int(c["index"][i]) for i in order[:worst]], "by_gains": by_gains,
            **_estimation(c, ok, pct, estimator)}


def _estimation(c, ok, pct, estimator) -> dict:
    """The summary's estimation figures (:func:`summary`)."""
    if "nees" not in c or estimator not in DOF:
        return dict.fromkeys(("est_err_deg", "est_rms_deg", "nees_mean", "nees_check"))
    dof = DOF[estimator]
    out = {key: pct(c[key][ok]) for key in ("est_err_deg", "est_rms_deg", "nees_mean")}
    flying = int(ok.sum())
    mean = float(np.mean(c["nees"][ok])) if flying else math.nan
    low, high = nees_band(dof, flying) if flying else (math.nan, math.nan)
    out["nees_check"] = {"mean": mean, "low": low, "high": high, "dof": dof, "bodies": flying,
                         "inside": bool(low <= mean <= high)}
    return out
