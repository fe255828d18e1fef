"""The craft row's gyrostat energy (:func:`sim.model.craft_row.wheel_energy`) against its closed form.

``E = 1/2 w^T J w + sum J_s,i W_i (a_i . w + W_i / 2)`` equals ``1/2 w^T (J - sum J_s a a^T) w + sum h_i^2 /
(2 J_s,i)`` with ``h_i = J_s,i (W_i + a_i . w)`` (Hoffmann (5.1)); the reference is computed here in that second
form, with every product of inertia non-zero so that each off-diagonal term of ``J`` counts.
"""

import math

import numpy as np
import pytest

from sim.core.wheels import WheelSet, gyrostat_energy
from sim.model.craft_row import wheel_energy


def test_wheel_energy_is_the_gyrostat_closed_form_with_products_of_inertia():
    j = np.array([[1.2, 0.15, -0.25], [0.15, 1.7, 0.1], [-0.25, 0.1, 2.1]])
    w = np.array([0.3, -0.7, 0.45])
    axes = np.array([[0.6, 0.0, 0.8], [0.0, 1.0, 0.0]])
    js = np.array([0.01, 0.02])
    speeds = np.array([50.0, -30.0])
    wheels = np.zeros((2, 10))
    wheels[:, 3:6], wheels[:, 6] = axes, js
    h = js * (speeds + axes @ w)
    j_free = j - sum(js[i] * np.outer(axes[i], axes[i]) for i in range(2))
    want = 0.5 * w @ j_free @ w + float(np.sum(h ** 2 / (2.0 * js)))
    assert wheel_energy(w, speeds, j.ravel(), wheels) == pytest.approx(want, rel=1e-13)


def test_wheel_energy_at_rest_is_the_python_paths_to_the_bit_even_a_zero_sign():
    """A craft and its wheel at rest, every zero of its state and products of inertia signed ``-0.0`` (as a
    component rounded to zero or entered as ``-0`` gives them): the row's energy is ``+0.0``, the bits of the
    Python path's :func:`sim.core.wheels.gyrostat_energy` (a CSV shows ``0.0``, not ``-0.0``); the axis's one
    non-zero component is the whole of ``a . w``, no ``0.0 +`` in front of it."""
    wheels_set = WheelSet(1, ((1.0, 0.0, 0.0),), (0.01,), (0.1,), (100.0,), (0.0,), ((-1.0, 0.0, 0.0),))
    jr = (1.0, -0.0, -0.0, -0.0, 1.0, -0.0, -0.0, -0.0, 1.0)
    want = gyrostat_energy((-0.0, -0.0, -0.0, -0.0), jr, wheels_set)
    wheels = np.zeros((1, 10))
    wheels[0, 3:6], wheels[0, 6] = (1.0, 0.0, 0.0), 0.01
    got = wheel_energy(np.array((-0.0, -0.0, -0.0)), np.array([-0.0]), np.array(jr), wheels)
    assert want == 0.0 and math.copysign(1.0, want) == 1.0
    assert np.float64(got).tobytes() == np.float64(want).tobytes()
