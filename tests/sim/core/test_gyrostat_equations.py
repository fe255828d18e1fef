"""The gyrostat's equations (sim.core.wheels.gyrostat_rhs) and the wheels' motor torques with direct commands.

References (sim/core/wheels.py's module docstring; Hughes, Spacecraft
Attitude Dynamics, ch. 3):
  (J - sum J_s a a^T) dw/dt = T - w x H - sum a_i v_i,   dW_i/dt = v_i / J_s,i - a_i . dw/dt,
  H = J w + sum a_i J_s,i W_i,  v_i = u_i - c_i W_i,
written here with numpy's solve, and the balance of angular momentum
dH/dt + w x H = T that they come from.  Motor torques: u = -A+ T + d, each
clipped to +-u_max, the side that drives a wheel beyond +-W_max cut to 0.
"""

import numpy as np
import pytest

from sim.core.body import Body
from sim.core.ops import FLOAT
from sim.core.wheels import free_inertia, gyrostat_rhs, wheel_motor_torques
from sim.model.settings import Settings

INERTIA = (2.0, 3.0, 4.0, 0.1, -0.2, 0.05)


def reference(w, load, J, wheels):
    n = wheels.n
    A = np.array(wheels.axes).T                              # 3 x n
    js, c = np.array(wheels.inertia), np.array(wheels.friction)
    body, speeds, ext, u = np.array(w[:3]), np.array(w[3:]), np.array(load[:3]), np.array(load[3:])
    v = u - c * speeds
    H = J @ body + A @ (js * speeds)
    jf = J - sum(js[i] * np.outer(A[:, i], A[:, i]) for i in range(n))
    dw = np.linalg.solve(jf, ext - np.cross(body, H) - A @ v)
    return np.concatenate([dw, v / js - A.T @ dw])


@pytest.mark.parametrize("layout", ["orthogonal", "pyramid", ((0.6, 0.8, 0.0),)])
def test_gyrostat_rhs_is_the_gyrostat_equations(layout):
    settings = Settings(inertia=INERTIA, wheels=layout, wheel_inertia=0.05, wheel_friction=0.002)
    wheels = settings.wheel_set
    J = Body(INERTIA).J
    jr = tuple(float(x) for x in J.ravel())
    jfi = tuple(float(x) for x in np.linalg.inv(free_inertia(J, wheels)).ravel())
    rng = np.random.default_rng(7)
    for _ in range(5):
        w = tuple(float(x) for x in np.concatenate([rng.normal(size=3), 100.0 * rng.normal(size=wheels.n)]))
        load = tuple(float(x) for x in np.concatenate([rng.normal(size=3), 0.1 * rng.normal(size=wheels.n)]))
        d = np.array(gyrostat_rhs(w, load, jr, jfi, wheels))
        np.testing.assert_allclose(d, reference(w, load, J, wheels), rtol=1e-12, atol=1e-12)
        # momentum balance of body and wheels: J dw/dt + sum a_i J_s,i dW_i/dt = T - w x H
        A, js = np.array(wheels.axes).T, np.array(wheels.inertia)
        H = J @ np.array(w[:3]) + A @ (js * np.array(w[3:]))
        np.testing.assert_allclose(J @ d[:3] + A @ (js * d[3:]), np.array(load[:3]) - np.cross(w[:3], H),
                                   rtol=1e-12, atol=1e-12)


def test_spin_up_of_one_wheel_from_rest_is_the_closed_form():
    # one wheel along x of axial inertia 0.5 on a box, at rest, motor torque u: the body turns the other way,
    # dw_x/dt = -u / (J_xx - J_s), dW/dt = u / J_s - dw_x/dt
    js, u = 0.5, 0.3
    wheels = Settings(inertia=(2.0, 3.0, 4.0, 0.0, 0.0, 0.0), wheels=((1.0, 0.0, 0.0),), wheel_inertia=js).wheel_set
    J = np.diag([2.0, 3.0, 4.0])
    jfi = tuple(float(x) for x in np.linalg.inv(free_inertia(J, wheels)).ravel())
    d = gyrostat_rhs((0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, u), tuple(J.ravel().tolist()), jfi, wheels)
    assert d == pytest.approx((-u / 1.5, 0.0, 0.0, u / js + u / 1.5), rel=1e-15, abs=0)


def test_direct_motor_commands_add_to_the_allocation_and_are_clipped():
    wheels = Settings(wheels="orthogonal", wheel_torque_limit=0.25, wheel_speed_limit=100.0).wheel_set
    # no body-torque command: the motors take the direct commands, each within +-u_max
    u = wheel_motor_torques((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), wheels, (0.1, -0.2, 0.3), FLOAT)
    assert tuple(u) == pytest.approx((0.1, -0.2, 0.25), abs=1e-15)
    # with a command: u = -T + d for the orthogonal layout (A = I)
    u = wheel_motor_torques((0.05, 0.0, -0.1), (0.0, 0.0, 0.0), wheels, (0.1, 0.1, 0.1), FLOAT)
    assert tuple(u) == pytest.approx((0.05, 0.1, 0.2), abs=1e-15)
    # a wheel at its speed limit is not driven further out by a direct command, only back
    u = wheel_motor_torques((0.0, 0.0, 0.0), (100.0, -100.0, 100.0), wheels, (0.1, -0.1, -0.1), FLOAT)
    assert tuple(u) == pytest.approx((0.0, 0.0, -0.1), abs=1e-15)
