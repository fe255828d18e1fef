"""Body rates from sampled attitudes (sim.core.quaternion.rates_from_samples): what a file's samples may look like.

References: a body at rest has zero rates whatever the signs of its samples
(Q and -Q are one attitude, Hoffmann section 2); a steady spin about a fixed
axis, Q(t) = rotation by |w| t (Hoffmann (2.1)), has the constant rate w.
"""

import math

import numpy as np
import pytest

from sim.core.quaternion import from_axis_angle, rates_from_samples


def test_integer_quaternions_with_sign_flips_are_a_body_at_rest():
    # exact samples as a file may hold them: whole numbers, the sign changing from sample to sample
    t = [0.0, 1.0, 2.0, 3.0]
    q = [[0, 0, 1, 0], [0, 0, -1, 0], [0, 0, -1, 0], [0, 0, 1, 0]]
    w = rates_from_samples(t, q)
    assert w.shape == (4, 3)
    assert np.array_equal(w, np.zeros((4, 3)))


def test_a_spin_sampled_with_integer_times_and_flipped_signs():
    w = np.array([0.03, -0.02, 0.05])
    t = np.arange(0, 40)                       # whole seconds, an integer array
    q = np.array([from_axis_angle(w, np.linalg.norm(w) * x) for x in t])
    q[1::2] *= -1.0
    assert np.allclose(rates_from_samples(t, q)[1:-1], w, rtol=0, atol=1e-4)  # central differences: ~|w|^3 dt^2 / 6


@pytest.mark.parametrize("t, q", [
    (np.arange(3.0), np.zeros((3, 3))),        # quaternions of 3 components
    (np.arange(4.0), np.zeros(4)),             # one quaternion, not a row of them
    (np.arange(2.0), np.zeros((3, 4))),        # fewer times than samples
    (np.arange(1.0), np.array([[0.0, 0.0, 0.0, 1.0]])),  # a single sample has no derivative
], ids=["three-components", "one-dimensional", "times-short", "single-sample"])
def test_bad_sample_shapes_name_both_shapes(t, q):
    with pytest.raises(ValueError) as err:
        rates_from_samples(t, q)
    message = str(err.value)
    assert str(np.shape(t)) in message and str(np.shape(q)) in message


def test_sign_continuity_is_from_sample_to_sample():
    # a slow turn through a half turn of the quaternion: each sample given with the sign that keeps q4 >= 0
    t = np.linspace(0.0, 10.0, 101)
    rate = 0.5                                  # rad/s about z: 5 rad, past pi, so q4 changes sign
    q = np.array([from_axis_angle((0.0, 0.0, 1.0), rate * x) for x in t])
    q[q[:, 3] < 0] *= -1.0
    w = rates_from_samples(t, q)
    assert np.allclose(w[:, 2], rate, rtol=0, atol=1e-3) and np.allclose(w[:, :2], 0.0, atol=1e-12)
    assert math.isclose(float(np.mean(w[1:-1, 2])), rate, rel_tol=1e-3)
