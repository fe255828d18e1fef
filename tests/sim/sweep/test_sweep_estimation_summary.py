"""The sweep summary's estimation figures (sim.sweep.summary, issue 33's MEKF sweeps): the NEES check of the
bodies that flew to the end against the chi-square band of Bar-Shalom, Li & Kirubarajan (2001) §5.4.2, with
scipy's chi-square quantiles as the oracle, and the figures' absence when there is nothing to judge."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import chi2

from sim.ensemble import EnsembleSpec
from sim.sweep.chunk import SweepResult
from sim.sweep.summary import summary

KEYS = ("est_err_deg", "est_rms_deg", "nees_mean", "nees_check")


def _columns(nees, faulted=None, estimation=True):
    n = len(nees)
    c = {"index": np.arange(n, dtype=np.int64), "faulted": np.zeros(n, bool) if faulted is None else faulted,
         "settling_time": np.linspace(1.0, 2.0, n), "final_error_deg": np.zeros(n), "travelled_deg": np.zeros(n)}
    if estimation:
        c.update(nees=np.asarray(nees, float), est_err_deg=np.linspace(0.1, 0.2, n),
                 est_rms_deg=np.linspace(0.2, 0.3, n), nees_mean=np.asarray(nees, float))
    return SweepResult(c)


def _summary(result, estimator):
    return summary(result, EnsembleSpec(bodies=len(result.columns["index"])), estimator=estimator)


@pytest.mark.parametrize("estimator, dof", [("mekf", 6), ("triad", 3), ("quest", 3)])
def test_the_nees_check_is_the_mean_of_the_flying_bodies_against_the_chi_square_band(estimator, dof):
    nees = np.array([5.0, 7.0, 100.0, 6.0, 4.0])
    faulted = np.array([False, False, True, False, False])  # the faulted body's NEES is left out
    out = _summary(_columns(nees, faulted), estimator)
    check = out["nees_check"]
    n = 4
    assert check["bodies"] == n and check["dof"] == dof
    assert check["mean"] == pytest.approx(5.5)
    # N * mean NEES is chi-square of N dof degrees: the 95 % two-sided band of the mean (Wilson-Hilferty's
    # approximation, within 2.5 % of scipy's at k = 6 and closer for more degrees: sim.ensemble.metrics)
    assert check["low"] == pytest.approx(chi2.ppf(0.025, n * dof) / n, rel=0.025)
    assert check["high"] == pytest.approx(chi2.ppf(0.975, n * dof) / n, rel=0.025)
    assert check["inside"] == (check["low"] <= 5.5 <= check["high"])
    assert out["nees_mean"] is not None and out["est_err_deg"] is not None and out["est_rms_deg"] is not None


@pytest.mark.parametrize("edge", ["low", "high"])
def test_a_mean_on_the_bands_edge_is_inside(edge):
    band = dict(zip(("low", "high"), (chi2.ppf(0.025, 6) / 1.0, chi2.ppf(0.975, 6) / 1.0)))
    first = _summary(_columns([band[edge]]), "mekf")["nees_check"]  # one body: the mean is its NEES
    # the same value as the summary's own band edge, so the comparison is exact
    on_edge = _summary(_columns([first[edge]]), "mekf")["nees_check"]
    assert on_edge["mean"] == on_edge[edge]
    assert on_edge["inside"] is True
    outside = _summary(_columns([first[edge] * (0.999 if edge == "low" else 1.001)]), "mekf")["nees_check"]
    assert outside["inside"] is False


def test_with_every_body_faulted_the_check_is_nan_without_a_warning():
    result = _columns([5.0, 6.0, 7.0], faulted=np.ones(3, bool))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no mean of an empty set, no band of zero bodies
        check = _summary(result, "mekf")["nees_check"]
    assert check["bodies"] == 0
    assert math.isnan(check["mean"]) and math.isnan(check["low"]) and math.isnan(check["high"])
    assert check["inside"] is False


@pytest.mark.parametrize("estimation, estimator", [(False, "mekf"), (True, "truth"), (False, "truth")])
def test_without_an_estimator_or_its_columns_the_figures_are_none(estimation, estimator):
    out = _summary(_columns([5.0, 6.0], estimation=estimation), estimator)
    for key in KEYS:
        assert key in out and out[key] is None, key
