"""sim.gnc.magnetic: the momentum-dumping step and the torquers' checks.

The dumping law (Markley & Crassidis (2014), 7.5.1): the wheels' momentum ``h = sum J_s,i W_i a_i`` (body axes),
the dipole ``m = k (h x B) / |B|^2``, whose torque ``m x B = -k h_perp`` removes the part of ``h`` across the field.
"""

import numpy as np
import pytest

from sim.core.quaternion import cayley
from sim.gnc.magnetic import MagneticControl, Magnetorquers
from sim.model.settings import Settings


def test_dumping_torque_is_minus_gain_times_wheel_momentum_across_the_field():
    settings = Settings(wheels="pyramid", wheel_inertia=(0.01, 0.02, 0.03, 0.04), magnetorquers=1e4, magnetic_field="dipole",
                        orbit=(450.0, 0.0, 51.6, 30.0, 0.0, 0.0),
                        dumping_gain=0.05)
    control = MagneticControl(settings)
    q = np.array([0.2, -0.3, 0.4, 0.8])
    q = tuple(q / np.linalg.norm(q))
    b_eci = (2e-5, -1e-5, 3e-5)
    speeds = (300.0, -200.0, 100.0, 50.0)
    wheels = settings.wheel_set
    h = sum(j * w * np.array(a) for a, j, w in zip(wheels.axes, wheels.inertia, speeds))
    b = np.array(cayley(q)).reshape(3, 3) @ np.array(b_eci)
    b_got, m_cmd, dipole = control(0.0, q, b_eci, speeds)
    np.testing.assert_allclose(b_got, b, rtol=1e-12)
    h_perp = h - (h @ b) * b / (b @ b)
    np.testing.assert_allclose(np.cross(m_cmd, b), -0.05 * h_perp, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(dipole, m_cmd, rtol=0, atol=0)  # no residual dipole


@pytest.mark.parametrize("axes, limits", [
    (((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), (1.0, 1.0)),                      # two rods
    (((1.0, 0.0), (0.0, 1.0), (1.0, 1.0)), (1.0, 1.0, 1.0)),                # two components
    (((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0)), (1.0, 1.0, 1.0)),  # not spanning space
    (((1.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)), (1.0, 1.0, 1.0)),  # a zero axis
    (((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), (1.0, 1.0)),       # a limit missing
    (((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), (1.0, -1.0, 1.0)),  # a negative limit
])
def test_bad_torquers_are_refused_with_a_message_that_starts_with_their_name(axes, limits):
    # the one-line convention of sim's refusals: "<what>: <why>"
    with pytest.raises(ValueError) as err:
        Magnetorquers(axes, limits)
    assert str(err.value).startswith("magnetorquers: ")
