"""QUEST in the navigation loop weighs each vector by 1/sigma^2 (issue 40, planted bug 4).

Wahba's loss ``sum_i a_i |b_i - C r_i|^2`` has its maximum-likelihood (minimum-variance) solution at
``a_i = 1 / sigma_i^2`` (Shuster & Oh 1981, section V; Markley & Crassidis 2014, §5.5), and the covariance
the loop reports for QUEST, ``P = (sum_i sigma_i^-2 (I - b_i b_i^T))^-1``, is that solution's.  So the
estimate the loop flies must be the Wahba optimum for the very sigmas it reports.

Read back through the loop: the loop's one navigation call a step runs as Python
(:func:`sim.gnc.sensing.navigation_step`'s source), and the vectors and sigmas handed to its Wahba solve
(:func:`sim.gnc.sensing.wahba_update`: QUEST and the covariance) are recorded as the run goes; the estimate
is compared with scipy's Wahba solver (Rotation.align_vectors,
an SVD: Markley 1988) weighted by 1/sigma^2.  The two weightings' estimates are 0.1 deg apart on
``sun_mag_triad``, invisible to an accuracy bound (the error itself is about 0.5 deg either way).
"""

import numpy as np
from scipy.spatial.transform import Rotation

import sim.model.navigation as navigation
from oracle import scipy_rotation
from sim.gnc import sensing
from sim.model.simulation import Simulation
from sim.run.scenario import load


def test_the_loops_quest_estimate_is_wahbas_optimum_for_the_sigmas_it_reports(monkeypatch):
    calls = []
    solve = sensing.wahba_update

    def recording(b, r, sigma, valid, kind, qe, pe):
        calls.append({"b": np.array(b), "r": np.array(r), "sigma": np.array(sigma), "valid": np.array(valid)})
        return solve(b, r, sigma, valid, kind, qe, pe)

    monkeypatch.setattr(navigation, "navigation_step", sensing.navigation_step.py_func)  # the loop as Python
    monkeypatch.setattr(sensing, "wahba_update", recording)
    sim = Simulation(load("sun_mag_triad").settings.replace(estimator="quest"))
    worst, spread = 0.0, []
    for _ in range(5):                                      # 1 s steps, a QUEST solution at each step's start
        sim.step(1)
        seen = calls[-1]
        b, r, sigma = seen["b"][0], seen["r"][0], seen["sigma"][0]
        assert seen["valid"][0].all()
        spread.append(sigma.max() / sigma.min())
        body_to_eci, _ = Rotation.align_vectors(r, b, weights=1.0 / sigma ** 2)
        estimate = scipy_rotation(sim.navigation.q[0])
        worst = max(worst, (estimate.inv() * body_to_eci).magnitude())
    assert len(calls) == 5
    assert min(spread) > 2.0           # the case is meaningful: the two sensors' sigmas differ (by a factor 3.1)
    assert worst < 1e-10               # rad: the same attitude (weighted by 1/sigma: 1.7e-3 rad away)
