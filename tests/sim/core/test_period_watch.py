"""PeriodWatch (sim/core/tumble.py) fed in chunks: the crossings between two chunks count as any other."""

import math

import numpy as np

from sim.core.tumble import PeriodWatch


def test_period_watch_measures_a_known_period_with_crossings_between_chunks():
    # the rate about the intermediate axis (y of diag(1, 2, 3)) is sin(pi t): period 2 s, zeros at whole
    # seconds; samples at 0.05 + 0.1 k, so each zero lies midway between two samples (the linear
    # interpolation finds it exactly), and chunks of 10 samples put every zero between two chunks
    watch = PeriodWatch(np.diag([1.0, 2.0, 3.0]))
    t = 0.05 + 0.1 * np.arange(60)
    w = np.zeros((60, 3))
    w[:, 1] = np.sin(math.pi * t)
    for k in range(0, 60, 10):
        watch.add(t[k:k + 10], w[k:k + 10])
    assert abs(watch.measured - 2.0) < 1e-12
