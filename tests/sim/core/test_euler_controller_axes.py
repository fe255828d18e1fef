"""Hoffmann's aircraft-angle controller (sim.core.control.euler_controller_torque): an axis switched off
(RCon/PCon/YCon false) gives no torque on that axis, whatever its angle error; the others -K sin(error)."""

import itertools
import math

import pytest

from sim.core.control import euler_controller_torque


@pytest.mark.parametrize("axes", list(itertools.product((True, False), repeat=3)))
def test_only_switched_on_axes_get_torque(axes):
    angles, command, gains = (0.3, -0.2, 0.5), (-0.1, 0.4, 0.2), (2.0, 3.0, 5.0)
    # (x, y, z) torques act on (phi, theta, psi) errors
    expected = (-2.0 * math.sin(0.5 - 0.2), -3.0 * math.sin(-0.2 - 0.4), -5.0 * math.sin(0.3 + 0.1))
    got = euler_controller_torque(angles, command, gains, axes)
    for on, g, e in zip(axes, got, expected):
        assert g == (pytest.approx(e, rel=1e-15) if on else 0.0)
