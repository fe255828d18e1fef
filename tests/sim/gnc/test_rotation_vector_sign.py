"""sim.gnc.attitude.rotation_vector: Q and -Q are one attitude, so they have one rotation vector, of length the
rotation angle 2 acos|q4| <= pi (Markley & Crassidis (2014), (2.122)); checked against scipy's rotvec."""

import numpy as np
from scipy.spatial.transform import Rotation

from sim.gnc.attitude import rotation_vector


def test_q_and_minus_q_give_one_rotation_vector_of_length_at_most_pi():
    rng = np.random.default_rng(7)
    q = rng.normal(size=(200, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    for sign in (1.0, -1.0):
        a = rotation_vector(sign * q)
        angle = np.linalg.norm(a, axis=1)
        assert np.all(angle <= np.pi + 1e-12)
        np.testing.assert_allclose(angle, 2.0 * np.arccos(np.abs(q[:, 3])), atol=1e-12)
        # scipy's rotvec of the scalar-last Q, with the opposite sense (rotation_vector's delta-Q(a) convention)
        np.testing.assert_allclose(a, -Rotation.from_quat(q).as_rotvec(), atol=1e-12)
