"""The symplectic splitting's parts (sim/core/geometric.py) against closed forms.

``principal_flow``: the exact rotation about one principal axis, ``L`` in body axes turned by
``-theta = -tau L_i / I_i`` about the axis (Rodrigues), checked against scipy's rotation.
``splitting``: a constant body torque from rest builds ``L = u dt + O(dt^3)`` over one step.
"""

import math

import numpy as np
from scipy.spatial.transform import Rotation

from sim.core.body import Body
from sim.core.geometric import principal_flow, splitting
from sim.core.ops import FLOAT


def test_principal_flow_turns_the_body_momentum_back_about_an_oblique_axis_by_rodrigues():
    axis = np.array([0.3, -0.5, 0.8]) / math.sqrt(0.98)
    lb = np.array([0.7, -1.1, 0.4])
    moment, tau = 1.7, 0.9
    theta = tau * float(axis @ lb) / moment
    q, out = principal_flow((0.0, 0.0, 0.0, 1.0), tuple(lb), tuple(axis), moment, tau, FLOAT)
    expected = Rotation.from_rotvec(-theta * axis).apply(lb)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-13)
    # the attitude quaternion (scalar last) is (-a sin(theta/2), cos(theta/2)): scipy's rotation vector -theta a,
    # the same turn that takes L's body components
    np.testing.assert_allclose(np.abs(np.dot(q, Rotation.from_rotvec(-theta * axis).as_quat())), 1.0, atol=1e-13)


def test_splitting_builds_the_momentum_of_a_constant_x_torque_from_rest():
    body = Body((1.2, 1.7, 2.1, 0.15, -0.25, 0.1))  # products of inertia: principal axes oblique
    dt, u = 1e-3, (0.8, -0.3, 0.5)
    _, w, _ = splitting((0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0), None, dt, lambda q, w: u, body)
    j = np.array(body.j_rows).reshape(3, 3)
    # dL/dt = u - w x L from rest: L(dt) = u dt + O(dt^3) (w x L is O(t^2))
    np.testing.assert_allclose(j @ np.array(w), np.array(u) * dt, rtol=0, atol=1e-10)
