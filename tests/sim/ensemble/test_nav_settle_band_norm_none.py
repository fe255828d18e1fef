"""The settle band of an ensemble flying an estimator with the norm mode "none" (sim.ensemble.nav_bodies): a
body is outside the band when the angle between its attitude and the command exceeds ``settle_deg``, i.e.
``(q . qc)^2 < cos^2(settle/2) |q|^2 |qc|^2`` (sim.ensemble.metrics.outside): with no normalisation ``|q|`` drifts
from 1 (up to the norm fault's 1e-3) and must be divided out.

A fast tumble without normalisation faults on the norm's runaway: the body freezes at its last good attitude,
whose ``|q|`` is off 1 by almost 1e-3.  A band just wider than its true angle to the command (computed here by
hand from ``q / |q|``) holds it, and it settles; a test that forgot ``|q|`` would see it outside at every step."""

from __future__ import annotations

import math

import numpy as np

from sim.ensemble import Ensemble, EnsembleSpec
from sim.run.scenario import load

SETTINGS = load("mekf").settings.replace(norm="none", rates=(6.0, 4.2, 3.0), dt=0.1)


def _spec(settle_deg):
    return EnsembleSpec(bodies=8, seed=2, rate_spread=1.0, settle_deg=settle_deg)


def test_a_body_frozen_unnormalised_inside_its_true_band_settles_as_on_the_numpy_path():
    probe = Ensemble(SETTINGS, _spec(120.0), compiled=False)
    probe.step(40)
    frozen = np.flatnonzero(probe.faulted)
    assert frozen.size  # the norm's runaway froze some bodies
    q, qc = probe.q[:, frozen[0]], probe.qc[:, frozen[0]]
    qq, cc, d = float(q @ q), float(qc @ qc), float(q @ qc) ** 2
    assert abs(qq - 1.0) > 1e-4  # its |q| is off 1: the band's test must divide it out
    true_half = math.acos(math.sqrt(d / (qq * cc)))  # half the true angle to the command
    wrong_half = math.acos(min(1.0, math.sqrt(d / cc)))  # what |q| = 1 taken for granted would say
    settle = math.degrees(true_half + wrong_half)  # twice the mean: between the two angles
    runs = [Ensemble(SETTINGS, _spec(settle), compiled=c) for c in (True, False)]
    for ens in runs:
        ens.step(40)
    assert np.array_equal(runs[0].faulted, probe.faulted)
    new, old = (ens.metrics()["settling_time"] for ens in runs)
    assert np.array_equal(new, old, equal_nan=True)
    inside = true_half < wrong_half  # inside the band by its true angle
    assert math.isfinite(new[frozen[0]]) == inside
