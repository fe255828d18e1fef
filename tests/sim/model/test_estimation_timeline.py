"""A run with TRIAD or QUEST from coarse sun sensors and a magnetometer: the history row carries the
estimate's -3 sigma band (the negatives of sig3_*) and the sensors' timeline (sensor k of SENSOR_NAMES at
level 3 - k + 0.6 while available, nan when there is none); TRIAD trusts its more accurate vector
exactly (Markley & Crassidis (5.38): C r1 = b1), QUEST weighs both (the least-squares Wahba solution)."""

import math

import numpy as np
import pytest

from sim.core.quaternion import cayley
from sim.gnc import sensing
from sim.gnc.estimation import quest
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


def _two_vectors(seed=4, bodies=3):
    """Two noisy vectors per body, the magnetometer's slot (1) the more accurate on average over the bodies."""
    rng = np.random.default_rng(seed)
    r = rng.normal(size=(bodies, 2, 3))
    r /= np.linalg.norm(r, axis=-1, keepdims=True)
    b = r + 0.01 * rng.normal(size=(bodies, 2, 3))
    b[:, 1] *= 3.0                                       # any length: the magnetometer's b is B~ / |B|
    sigma = np.array([[0.01, 0.002]] * bodies)
    return b, r, sigma, np.ones((bodies, 2), bool)


def test_triad_maps_its_more_accurate_reference_onto_its_measurement_exactly():
    """The compiled loop's TRIAD (sim.gnc.sensing.wahba_update) takes the slot of the smaller mean sigma first:
    C(Q) r1 = b1 / |b1| exactly (Markley & Crassidis (5.38)), the other vector only within their plane."""
    b, r, sigma, valid = _two_vectors()
    q, p = np.zeros((3, 4)), np.zeros((3, 3, 3))
    sensing.wahba_update(b, r, sigma, valid, sensing.KINDS["triad"], q, p)
    for j in range(3):
        c = np.array(cayley(tuple(q[j])))
        assert c @ r[j, 1] == pytest.approx(b[j, 1] / np.linalg.norm(b[j, 1]), abs=1e-12)
        assert np.linalg.norm(c @ r[j, 0] - b[j, 0] / np.linalg.norm(b[j, 0])) > 1e-4
    sigma[:, 0] = 0.001                                  # now the sun sensors' slot is the more accurate
    sensing.wahba_update(b, r, sigma, valid, sensing.KINDS["triad"], q, p)
    c = np.array(cayley(tuple(q[0])))
    assert c @ r[0, 0] == pytest.approx(b[0, 0] / np.linalg.norm(b[0, 0]), abs=1e-12)


def test_quest_is_not_triad():
    """QUEST weighs both vectors by 1 / sigma^2 (Wahba's least squares): neither is matched exactly, and its
    solution is sim.gnc.estimation.quest's; a body without both vectors valid keeps its last solution."""
    b, r, sigma, valid = _two_vectors()
    valid[2, 0] = False
    q, p = np.zeros((3, 4)), np.zeros((3, 3, 3))
    q[2] = (0.0, 0.0, 0.0, 1.0)
    sensing.wahba_update(b, r, sigma, valid, sensing.KINDS["quest"], q, p)
    for j in range(2):
        c = np.array(cayley(tuple(q[j])))
        assert np.linalg.norm(c @ r[j, 1] - b[j, 1] / np.linalg.norm(b[j, 1])) > 1e-6
        want = quest(b[j, ::-1], r[j, ::-1], 1.0 / sigma[j, ::-1] ** 2)
        assert q[j] == pytest.approx(want, abs=1e-14)
        unit = b[j, ::-1] / np.linalg.norm(b[j, ::-1], axis=-1, keepdims=True)
        info = sum((np.eye(3) - np.outer(u, u)) / s ** 2 for u, s in zip(unit, sigma[j, ::-1]))
        assert p[j] == pytest.approx(np.linalg.inv(info), rel=1e-9)   # Wahba's covariance (Shuster & Oh V)
    assert np.array_equal(q[2], (0.0, 0.0, 0.0, 1.0)) and not p[2].any()
