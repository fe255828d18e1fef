"""A run with TRIAD or QUEST from coarse sun sensors and a magnetometer: the history row carries the
estimate's -3 sigma band (the negatives of sig3_*) and the sensors' timeline (sensor k of SENSOR_NAMES at
level 3 - k + 0.6 while available, nan when there is none); TRIAD trusts its more accurate vector
exactly (Markley & Crassidis (5.38): C r1 = b1), QUEST weighs both (the least-squares Wahba solution)."""

import math

import numpy as np
import pytest

from sim.core.quaternion import cayley
from sim.model import navigation
from sim.model.navigation import SENSOR_NAMES
from sim.model.rows import history_columns_of
from sim.model.simulation import Simulation
from sim.run.scenario import load


def _sim(kind):
    settings = load("sun_mag_triad").settings.replace(estimator=kind)  # in the Sun until t = 1769 s
    sim = Simulation(settings)
    sim.step(3)
    return settings, sim


@pytest.mark.parametrize("kind", ["triad", "quest"])
def test_the_history_row_has_the_band_and_the_sensor_timeline(kind):
    settings, sim = _sim(kind)
    names = history_columns_of(settings)
    values = sim.snapshot().row()
    assert len(names) == len(values)
    row = dict(zip(names, values))
    assert row["sunlit"] == 1.0
    for axis in "xyz":
        assert row[f"nsig3_{axis}_deg"] == -row[f"sig3_{axis}_deg"] < 0.0
    level = {name: row[f"timeline_{name}"] for name in SENSOR_NAMES}
    assert math.isnan(level["gyro"]) and math.isnan(level["star_tracker"])  # no such sensors
    assert level["sun_sensors"] == pytest.approx(3 - 2 + 0.6)  # in the Sun: available
    assert level["magnetometer"] == pytest.approx(3 - 3 + 0.6)


def test_triad_maps_its_more_accurate_reference_onto_its_measurement_exactly(monkeypatch):
    calls = []
    real_triad = navigation.triad

    def spy(b1, b2, r1, r2):
        calls.append((np.array(b1), np.array(r1)))
        return real_triad(b1, b2, r1, r2)

    monkeypatch.setattr(navigation, "triad", spy)
    _, sim = _sim("triad")
    assert calls  # TRIAD solved
    b1, r1 = calls[-1]
    q = sim._nav.q[0]
    b, r = b1[0] / np.linalg.norm(b1[0]), r1[0] / np.linalg.norm(r1[0])  # directions
    assert np.array(cayley(tuple(q))) @ r == pytest.approx(b, abs=1e-12)


def test_quest_is_not_triad(monkeypatch):
    calls = []
    monkeypatch.setattr(navigation, "triad", lambda *args: calls.append(args))
    _sim("quest")
    assert calls == []
