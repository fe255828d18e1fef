"""sim.ensemble.metrics.Tracker: the peak torque of each body is the largest |T| it met, whatever its size
(small torques of a fine-pointing craft, N m well under 1), computed here with numpy's norm."""

import numpy as np

from sim.ensemble.kernels import Scratch
from sim.ensemble.metrics import Tracker


def test_peak_torque_is_the_largest_torque_norm_of_each_body():
    rng = np.random.default_rng(11)
    n, steps = 5, 20
    torques = rng.uniform(-0.02, 0.02, size=(steps, 3, n))
    tracker, sc = Tracker(n), Scratch(n)
    tracker.reset(rng.normal(size=(3, n)), None, np.zeros(n, dtype=bool))
    for k, tq in enumerate(torques, start=1):
        tracker.track(rng.normal(size=(3, n)), tq, None, 0.1, None, k, np.zeros(n, dtype=bool), sc)
    expected = np.linalg.norm(torques, axis=1).max(axis=0)
    got = tracker.tracked([(0, 0.0, 0.1)], steps)["peak_torque"]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
