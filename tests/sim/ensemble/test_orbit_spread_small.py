"""sim.ensemble.spec: an orbit spread of less than one unit in every element (0.5 km of altitude, 0.001 of
eccentricity) still spreads the orbits; only all zeros mean every body on the settings' orbit."""

import pytest

from sim.ensemble.spec import EnsembleSpec


@pytest.mark.parametrize("spread", [(0.5, 0, 0, 0, 0, 0), (0, 0.001, 0, 0, 0, 0), (0, 0, 0, 0, 0, 0.25)])
def test_a_small_orbit_spread_is_kept(spread):
    spec = EnsembleSpec(bodies=2, orbit_spread=spread)
    assert spec.spreads_orbits and spec.orbit_spread == pytest.approx(spread)


def test_an_all_zero_orbit_spread_is_none():
    spec = EnsembleSpec(bodies=2, orbit_spread=(0, 0, 0, 0, 0, 0))
    assert spec.orbit_spread is None and not spec.spreads_orbits
