"""A wheel slowed by its bearing friction, one Half-Quat step of the spacecraft kernel (issue 42).

One wheel along body x (axial inertia J_s) spinning at W on a body at rest, friction torque -c W, no other load:
the gyrostat equations (sim/core/wheels.py's docstring; Hughes ch. 3) give dw_x/dt = c W / (J_xx - J_s) and
dW/dt = -c W / J_s - dw_x/dt.  Half-Quat steps the rates and the wheel speeds by Euler (Hoffmann's Half-Quat:
w_{n+1} = w_n + dt dw/dt), so after one step both are these rates times dt, exactly, and the body's and wheel's
momentum about x, J_xx w_x + J_s W, is unchanged (the friction is internal).  Run through
sim.model.advance_craft (its covers() holds for this body; waited for, else the first steps go the Python stepper's
way), compiled or as Python alike.
"""

import pytest

from sim.model import advance_craft
from sim.model.simulation import Simulation

JXX, JS, C, W0, DT = 2.0, 0.5, 0.01, 100.0, 0.01


@pytest.fixture(autouse=True, scope="module")
def _through_the_kernel():
    advance_craft.advance_craft.wait()   # else the first steps run the Python stepper (the warm-up rule)


def _body():
    return Simulation(integrator="half-quat", inertia=(JXX, 3.0, 4.0, 0.0, 0.0, 0.0), wheels=((1.0, 0.0, 0.0),),
                      wheel_inertia=JS, wheel_friction=C, wheel_speeds=(W0,), dampers_on=False, dt=DT)


def test_the_body_is_one_the_spacecraft_kernel_steps():
    assert advance_craft.covers(_body().settings)


def test_one_half_quat_step_of_a_wheel_slowed_by_friction_is_the_euler_step_of_the_gyrostat_equations():
    sim = _body()
    sim.step(1)
    s = sim.snapshot()
    dw = C * W0 / (JXX - JS)
    d_speed = -C * W0 / JS - dw
    assert s.w == pytest.approx((DT * dw, 0.0, 0.0), rel=1e-14, abs=1e-15)
    assert s.wheel_speeds == pytest.approx((W0 + DT * d_speed,), rel=1e-14)
    assert s.wheel_speeds[0] < W0   # friction slows the wheel
    assert JXX * s.w[0] + JS * s.wheel_speeds[0] == pytest.approx(JS * W0, rel=1e-14)
