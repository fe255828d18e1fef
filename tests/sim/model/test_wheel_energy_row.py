"""The craft row's gyrostat energy (:func:`sim.model.craft_row.wheel_energy`) against its closed form.

``E = 1/2 w^T J w + sum J_s,i W_i (a_i . w + W_i / 2)`` equals ``1/2 w^T (J - sum J_s a a^T) w + sum h_i^2 /
(2 J_s,i)`` with ``h_i = J_s,i (W_i + a_i . w)`` (Hoffmann (5.1)); the reference is computed here in that second
form, with every product of inertia non-zero so that each off-diagonal term of ``J`` counts.
"""

import numpy as np
import pytest

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
