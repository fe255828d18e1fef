"""Wheels added or taken away in flight: every body of an ensemble goes on as its own run does, bit for bit.

The ensemble's state grows a row per wheel (:meth:`sim.ensemble.Ensemble.set`); the reference is one
:class:`~sim.model.simulation.Simulation` per body (:meth:`sim.ensemble.Ensemble.body_settings`), given the
same changes at the same step.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings
from sim.model.simulation import Simulation

SETTINGS = Settings(dt=0.01, inertia=(10.0, 12.0, 15.0, 0.0, 0.5, 0.0), controller="quaternion",
                    command_deg=(30.0, -10.0, 20.0), slerp_time=0.0)
SPEC = EnsembleSpec(bodies=5, seed=11, rate_spread=0.3, inertia_spread=10.0)
# wheel_speeds first: new wheels start at the speeds set when they are added (Simulation.set, in dict order).
ORTHOGONAL = {"wheel_speeds": (30.0, -20.0, 10.0), "wheels": "orthogonal", "wheel_inertia": 0.01}
PYRAMID = {"wheel_speeds": None, "wheels": "pyramid", "wheel_inertia": 0.01}  # from any other count: at rest
NONE = {"wheel_speeds": None, "wheels": "none"}


@pytest.mark.parametrize("start, changes", [
    ({}, [ORTHOGONAL]),                       # none -> 3 wheels
    (ORTHOGONAL, [PYRAMID]),                  # 3 -> 4 wheels
    (ORTHOGONAL, [NONE, ORTHOGONAL]),         # 3 -> none -> 3
])
def test_every_body_follows_its_own_run_through_a_change_of_wheels(start, changes):
    ens = Ensemble(dataclasses.replace(SETTINGS, **start), SPEC)
    sims = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    for change in (*changes, None):
        ens.step(25)
        for sim in sims:
            sim.step(25)
        q_before, w_before = np.array(ens.q), np.array(ens.w)
        if change is None:
            break
        ens.update(change)
        for sim in sims:
            sim.update(change)
        # The attitude and rates go on untouched; the new wheels start at their speeds.
        assert np.array_equal(ens.q, q_before) and np.array_equal(ens.w, w_before)
        count = len(sims[0].wheel_speeds)
        speeds = np.array(change["wheel_speeds"] or (0.0,) * count).reshape(-1, 1)
        assert ens.wheel_speeds.shape == (count, ens.n)
        assert np.array_equal(ens.wheel_speeds, np.repeat(speeds, ens.n, axis=1))
    mine = np.vstack([ens.q, ens.w, ens.wheel_speeds])
    theirs = np.array([(*sim.q, *sim.w, *sim.wheel_speeds) for sim in sims]).T
    assert np.array_equal(mine, theirs)
