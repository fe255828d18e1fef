"""sim.model.loads.LoadModel.external: torques superpose, so the external torque is the sum of the
environment's torques one by one (LoadModel.parts: gravity gradient, SRP, drag, magnetic), whichever are on."""

import numpy as np
import pytest

from sim.model.simulation import Simulation
from sim.run.scenario import load

ON = {"gg": {"gravity_gradient": True}, "srp": {"srp": True}, "drag": {"drag": True}}


@pytest.mark.parametrize("also", [("gg",), ("gg", "srp", "drag"), ("srp",), ()])
def test_the_external_torque_is_the_sum_of_its_parts(also):
    overrides = {k: v for name in also for k, v in ON[name].items()}
    settings = load("detumble").settings.replace(residual_dipole=(0.01, -0.02, 0.005), **overrides)  # + magnetic
    sim = Simulation(settings)
    sim.step(3)  # a world state of a step under way
    loads = sim._load
    parts = np.array(loads.parts(sim._q, sim._t))
    total = np.array(loads.external(sim._q, sim.w, sim._t))
    assert np.all(parts[3] != 0.0)  # the magnetic torque acts
    for name, i in (("gg", 0), ("srp", 1), ("drag", 2)):
        assert (np.any(parts[i] != 0.0)) == (name in also)
    assert total == pytest.approx(parts.sum(axis=0), rel=1e-12, abs=1e-30)
