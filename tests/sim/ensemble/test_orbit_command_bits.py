"""The command of an ensemble on spread orbits after a call of the compiled orbit loop
(sim.ensemble.orbit_loop.OrbitSteps._orbit_steps) is the one each body's own Simulation flies, to the bit: the
kernel's command, not the numpy world's rows (which may differ from it by an ulp)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings
from sim.model.simulation import Simulation

SAT = dict(body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), controller="quaternion",
           gains=(1.0, 1.2, 0.5), orbit=(500.0, 0.01, 97.4, 0.0, 20.0, 0.0), epoch="2024-03-20T03:06:00Z", dt=0.5)
SPREAD = EnsembleSpec(bodies=16, seed=8, orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0), epoch_spread=86400.0)


@pytest.mark.parametrize("mode", ["nadir", "sun", "velocity", "target"])
def test_each_body_s_command_after_a_call_is_its_simulation_s_to_the_bit(mode):
    settings = Settings(**SAT, pointing=mode, **({"target": (30.0, -60.0, 0.1)} if mode == "target" else {}))
    ens = Ensemble(settings, SPREAD, compiled=True)
    assert ens._packed_bodies(1) is not None  # the compiled orbit loop
    ens.step(2)
    for j in range(ens.n):
        sim = Simulation(ens.body_settings(j))
        sim._step_python(2)
        assert np.array_equal(np.asarray(ens._cmd.qc[:, j]).view(np.uint64),
                              np.asarray(sim._cmd.qc, dtype=float).view(np.uint64)), j
