"""The beta angle (sim.world.eclipse.beta_angle) with the Sun exactly along the orbit normal, any orbit.

beta = asin(s . h / |h|) (Rickman, NASA 2014): with s = +-h/|h| it is +-90 deg.
Rounding puts s . h / |h| a few ulps past +-1 for about a quarter of random
orbits; the answer must still be +-pi/2, not a math domain error or NaN.
"""

import math

import numpy as np
import pytest

from sim.core.ops import COLUMN
from sim.world.eclipse import beta_angle


def orbits(n=64, seed=5):
    rng = np.random.default_rng(seed)
    r, v = rng.normal(size=(n, 3)) * 7000.0, rng.normal(size=(n, 3)) * 7.0
    h = np.cross(r, v)
    return r, v, h / np.linalg.norm(h, axis=1)[:, None]


@pytest.mark.parametrize("side", [1.0, -1.0], ids=["sun-on-the-normal", "sun-opposite"])
def test_sun_along_the_normal_is_ninety_degrees(side):
    r, v, normal = orbits()
    for rk, vk, nk in zip(r, v, normal):
        beta = beta_angle(tuple(rk), tuple(vk), tuple(side * nk))
        assert beta == pytest.approx(side * math.pi / 2, abs=1e-7)   # asin near 1: sqrt of a few ulps
    sun = tuple(side * normal[0])
    beta = beta_angle(tuple(r.T), tuple(v.T), sun, COLUMN)
    assert np.isfinite(beta[0])
    for k in range(len(r)):   # each orbit on its own column, with its own Sun along its own normal
        column = beta_angle(tuple(r.T), tuple(v.T), tuple(side * normal[k]), COLUMN)[k]
        assert column == pytest.approx(side * math.pi / 2, abs=1e-7)
