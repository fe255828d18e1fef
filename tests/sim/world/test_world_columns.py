"""An ensemble's World (COLUMN ops, one orbit per body) in target pointing: each row is the one-body World of that
row's orbit (the one-body target elevation is checked against textbook geodesy in tests/sim/world/test_target_elevation.py)."""

import numpy as np
import pytest

from sim import api
from world_columns import three_orbits


def test_each_row_of_a_column_world_in_target_mode_is_its_own_one_body_world():
    world, ones = three_orbits(api.load_scenario("target_tracking").settings)
    for t in (0.0, 300.0, 700.0):
        state = world.state(t)
        for k, one_world in enumerate(ones):
            one = one_world.state(t)
            assert state.target_elevation[k] == pytest.approx(one.target_elevation, abs=1e-12)
            assert np.allclose([x[k] for x in state.qc], one.qc, atol=1e-12)
