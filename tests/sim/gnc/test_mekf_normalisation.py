"""sim.gnc.estimation.Mekf: after each update the estimate is a unit quaternion (Markley & Crassidis (2014),
Table 6.3: the reset ``Q̂ <- δQ(â) Q̂`` followed by normalisation), even from an estimate that was slightly off
unit length (e.g. read from a file with few digits)."""

import numpy as np
import pytest

from sim.gnc.estimation import Mekf


@pytest.mark.parametrize("update", ["attitude", "vector"])
def test_estimate_is_unit_after_an_update_from_a_non_unit_start(update):
    q_true = np.array([0.1, -0.2, 0.3, 0.9])
    q_true /= np.linalg.norm(q_true)
    q0 = 1.002 * np.array([0.12, -0.19, 0.31, 0.89]) / np.linalg.norm([0.12, -0.19, 0.31, 0.89])
    f = Mekf(q0, np.zeros(3), np.diag([1e-3] * 3 + [1e-8] * 3), 1e-6, 1e-9)
    if update == "attitude":
        f.update_attitude(q_true, 1e-8 * np.eye(3))
    else:
        f.update_vector((0.0, 0.0, 1.0), (0.0, 0.0, 1.0), 1e-6)
    assert np.linalg.norm(f.q) == pytest.approx(1.0, abs=1e-12)
    if update == "attitude":  # an accurate tracker pulls the estimate onto the measured attitude
        assert min(np.abs(f.q - q_true).max(), np.abs(f.q + q_true).max()) < 1e-3
