"""The refusals of spread orbits and epochs (sim.ensemble.sampling.check_orbit_spread) name the key the user wrote:
a user who spread only the epochs reads ``epoch_spread:`` first, not ``orbit_spread``."""

from __future__ import annotations

import pytest

from sim.ensemble import EnsembleSpec
from sim.ensemble.sampling import check_orbit_spread
from sim.io.limits import SettingsError
from sim.run.scenario import load

_ORBIT = (450.0, 0.0, 51.6, 10.0, 0.0, 0.0)


def test_an_estimator_on_spread_epochs_is_refused_naming_epoch_spread():
    settings = load("mekf").settings.replace(orbit=_ORBIT)
    with pytest.raises(SettingsError) as info:
        check_orbit_spread(settings, EnsembleSpec(bodies=4, seed=1, epoch_spread=3600.0))
    assert str(info.value).startswith("epoch_spread: an ensemble flies an estimator (mekf)")


def test_an_estimator_on_spread_orbits_is_refused_naming_orbit_spread():
    settings = load("mekf").settings.replace(orbit=_ORBIT)
    spec = EnsembleSpec(bodies=4, seed=1, orbit_spread=(1.0, 0.0, 0.0, 0.0, 0.0, 0.0), epoch_spread=3600.0)
    with pytest.raises(SettingsError) as info:
        check_orbit_spread(settings, spec)
    assert str(info.value).startswith("orbit_spread: an ensemble flies an estimator (mekf)")
