"""sim.core.command.CommandInterpolator: what is written out after a step command, and a followed command.

A step of the command (slerp_time 0) is written with the target's own sign, whatever sign the previous SLERP
left (the class docstring); a followed command (a pointing mode) given as one 4-tuple stays one command for all
bodies (shared, a tuple), takes the sign continuous with the present command, and is the target.
"""

import math

import numpy as np
from scipy.spatial.transform import Rotation

from sim.core.command import CommandInterpolator
from sim.core.quaternion import cayley


def _c_of_angles(psi, theta, phi):
    """C = R1(phi) R2(theta) R3(psi), inertial -> body (aircraft angles, 3-2-1), from scipy."""
    return Rotation.from_euler("ZYX", [psi, theta, phi]).as_matrix().T


def test_a_step_command_is_written_with_the_targets_sign_after_a_slerp():
    ci = CommandInterpolator((0.0, 0.0, 0.0, 1.0))
    ci.command((math.radians(170.0), 0.2, -0.1), 0.0, 2.0)  # a long turn: shortest path may end on -target
    ci.update(2.5)
    angles = (0.4, -0.3, 0.2)
    ci.command(angles, 3.0, 0.0)
    written = ci.written
    assert written == ci.qc  # the step's own sign, not a leftover flip
    np.testing.assert_allclose(np.array(cayley(written)).reshape(3, 3), _c_of_angles(*angles), atol=1e-12)


def test_a_followed_tuple_stays_shared_with_a_continuous_sign():
    ci = CommandInterpolator((0.0, 0.0, 0.0, 1.0))
    q = (0.1, 0.2, -0.3, 0.9)
    n = math.sqrt(sum(x * x for x in q))
    q = tuple(x / n for x in q)
    ci.follow(tuple(-x for x in q))  # the same attitude, the far sign: flipped back toward the present command
    assert ci.shared and isinstance(ci.qc, tuple)
    assert ci.qc == q
    assert ci.target == ci.qc
    assert ci.written == q
