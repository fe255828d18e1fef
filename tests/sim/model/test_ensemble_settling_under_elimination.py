"""An ensemble's settling times under Joshi's elimination against each body's own run (issue 40, planted bug 2).

With norm handling ``elimination`` each body's carried Q drifts off |Q| = 1 and its attitude is Q/|Q|.
Whether a body is inside the settle band is a question about that attitude: the rotation angle between
Q/|Q| and the command.  Tested for a user's question, "which bodies settled, and when": the ensemble's
``settling_time`` of every body against the time read off its own single-body run, step by step, with the
angle measured by scipy's Rotation (tests/oracle.py), not by the ensemble's band test.
"""

import math

import numpy as np

from oracle import attitude_error
from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings
from sim.model.simulation import Simulation

# Hoffmann's quaternion controller with dampers, the command at once; half-quat at 50 ms: |Q| drifts by
# up to 0.05 in 10 s, enough to move a 1 deg band's edge by tens of degrees if |Q| were taken as 1
SETTINGS = Settings(dt=0.05, norm="elimination", dampers_on=True, controller="quaternion",
                    command_deg=(30.0, -20.0, 150.0), slerp_time=0.0)
SPEC = EnsembleSpec(bodies=10, seed=11, rate_spread=0.7, inertia_spread=15.0, settle_deg=1.0)


def test_the_settled_bodies_and_their_times_are_each_bodys_own_run():
    ens = Ensemble(SETTINGS, SPEC)
    sims = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    last_out = np.full(ens.n, -1)            # the last step each single run ended outside the band
    k = 0
    for part in (45, 155):                   # at 2.25 s some have settled, by 10 s all
        for _ in range(part):
            k += 1
            for j, sim in enumerate(sims):
                sim.step(1)
                if math.degrees(attitude_error(sim.attitude, sim.snapshot().qc)) >= SPEC.settle_deg:
                    last_out[j] = k
        ens.step(part)
        want = np.where(last_out == k, np.nan, (last_out + 1) * SETTINGS.dt)
        np.testing.assert_allclose(ens.metrics()["settling_time"], want, rtol=1e-12, atol=0.0)
        if part == 45:
            assert 0 < np.isnan(want).sum() < ens.n          # the case is meaningful: a share has settled
    assert np.abs(np.linalg.norm(ens.q, axis=0) - 1.0).max() > 0.03   # |Q| drifted
