"""Independent references shared by the tests: scipy's Rotation as the oracle.

Hoffmann's Q (scalar last, inertial -> body coordinate transformation) is the
conjugate of scipy's quaternion of the body's attitude (checked in
tests/test_quaternion.py against the Cayley matrix).
"""

import numpy as np
from scipy.spatial.transform import Rotation


def scipy_rotation(q):
    """scipy Rotation for Hoffmann's Q (body -> inertial attitude)."""
    q = np.asarray(q, dtype=float)
    return Rotation.from_quat(np.array([-q[0], -q[1], -q[2], q[3]]))


def attitude_error(p, q):
    """Angle (rad) of the rotation between attitudes p and q, from scipy."""
    return float((scipy_rotation(p).inv() * scipy_rotation(q)).magnitude())


def unit(v):
    """``v`` scaled to unit length."""
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)
