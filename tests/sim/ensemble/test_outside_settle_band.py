"""sim.ensemble.metrics.outside: a body is outside its settle band exactly when its rotation angle from the
command (scipy's Rotation the oracle) exceeds the settle angle, whatever axes the error turns about."""

import math

import numpy as np
from scipy.spatial.transform import Rotation

from sim.ensemble.kernels import Scratch
from sim.ensemble.metrics import outside


def test_outside_matches_the_rotation_angle_about_oblique_axes():
    rng = np.random.default_rng(5)
    n, settle = 40, math.radians(5.0)
    qc = Rotation.random(n, random_state=7)
    # errors of 0.5 to 10 deg about random axes: about half in the band, half out
    axes = rng.normal(size=(n, 3))
    axes /= np.linalg.norm(axes, axis=1)[:, None]
    angles = np.radians(rng.uniform(0.5, 10.0, size=n))
    q = Rotation.from_rotvec(axes * angles[:, None]) * qc
    expected = (q.inv() * qc).magnitude() > settle  # scipy: scalar last, as sim's quaternions
    qa, qca = q.as_quat().T.copy(), qc.as_quat().T.copy()
    threshold = np.full(n, math.cos(settle / 2.0) ** 2)  # |Qc| = 1
    assert 5 < expected.sum() < n - 5
    got = outside(qa, qca, threshold, False, Scratch(n))
    np.testing.assert_array_equal(got, expected)
    # unnormalised Q (norm handling none): the band is the same angle of Q / |Q|
    got = outside(qa * 1.3, qca, threshold, True, Scratch(n))
    np.testing.assert_array_equal(got, expected)
