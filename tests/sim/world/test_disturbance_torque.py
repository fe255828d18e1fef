"""The disturbance torque (sim.world.environment.disturbance_torque): D, or D sin(2 pi t / period), any period.

The limits allow periods from 1e-9 s (sim.io.limits, disturbance_period);
a short period is as periodic as a long one.
"""

import math

import pytest

from sim.world.environment import disturbance_torque

D = (1e-3, -2e-3, 5e-4)
IDENTITY = (0.0, 0.0, 0.0, 1.0)


@pytest.mark.parametrize("period", [0.01, 0.5, 0.999, 1.0, 7.0, 5400.0])
def test_a_periodic_disturbance_is_the_sine_at_any_period(period):
    for fraction in (0.0, 0.125, 0.25, 0.6):
        t = fraction * period + 3.0 * period                # three whole periods later: the same phase
        k = math.sin(2.0 * math.pi * fraction)
        got = disturbance_torque(IDENTITY, t, D, period, inertial=False)
        assert got == pytest.approx(tuple(k * x for x in D), rel=1e-9, abs=1e-15)


def test_period_zero_is_constant():
    assert disturbance_torque(IDENTITY, 123.4, D, 0.0, inertial=False) == D
