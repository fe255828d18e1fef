"""Sherif's augmented system (sim.core.multiplier.augmented_system) from single-precision inputs.

A state read from a float32 file is a set of exactly representable float64
values: the system built from it must be the float64 system of those values,
checked against Sherif (39) written out here with numpy in float64.
"""

import numpy as np
import pytest

from sim.core import multiplier as mult
from sim.core.quaternion import v_matrix


def v3(q):
    """First three rows of Hoffmann's V(Q) (3.26): Sherif's L (V itself is tested in test_quaternion.py)."""
    return v_matrix(np.asarray(q, dtype=float))[:3]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_float32_state_gives_the_float64_system(seed):
    rng = np.random.default_rng(seed)
    q32, p32 = rng.normal(size=4).astype(np.float32), rng.normal(size=4).astype(np.float32)
    J = np.array([[0.6, 0.0, -0.2], [0.0, 1.0, 0.0], [-0.2, 0.0, 1.5]])
    torque, shift = np.array([0.3, -0.2, 0.1]), 0.7
    q, p = q32.astype(float), p32.astype(float)
    L, Ld = v3(q), v3(p)
    a, b = mult.augmented_system(q32, p32, J, torque, shift)
    want_b = np.append(-8.0 * Ld.T @ J @ L @ p + 2.0 * L.T @ torque + shift * q, -(p @ p))
    np.testing.assert_allclose(a[:4, :4], 4.0 * L.T @ J @ L, rtol=1e-14, atol=1e-14)
    np.testing.assert_array_equal(a[:4, 4], q)
    np.testing.assert_allclose(b, want_b, rtol=1e-14, atol=1e-14)
