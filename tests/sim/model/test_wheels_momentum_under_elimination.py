"""The inertial momentum of a body with reaction wheels under Joshi's elimination (issue 40, planted bug 1).

With norm handling ``elimination`` the carried Q drifts off |Q| = 1 and the attitude is read as Q/|Q|.  The
inertial momentum a user reads (the readout, the CSV's hx..hz, the Momentum plot) is then
``H = C(Q/|Q|)^T (J w + sum a_i J_s,i W_i)``: a rotation of the body momentum, whose length it keeps however
far |Q| drifted.  Read through C(Q) of the carried Q it would be scaled by |Q|^2.

References, independent of the code under test: the pyramid's axes and the gyrostat's momentum written
here from their definitions (sim/core/wheels.py's docstring: four wheels tilted acos(1/sqrt 3) from z at
azimuths 0, 90, 180, 270 deg; W relative to the body); scipy's Rotation for C(Q/|Q|) (tests/oracle.py).
"""

import math

import numpy as np
import pytest

from oracle import scipy_rotation
from sim.model.simulation import Simulation

AIRCRAFT = (0.6, 1.0, 1.5, 0.0, 0.2, 0.0)   # Jxx, Jyy, Jzz, Jxy, Jxz, Jyz (kg m^2), the wheels locked
J_S = 0.01                                  # each wheel's axial inertia, kg m^2
C, S = 1.0 / math.sqrt(3.0), math.sqrt(2.0 / 3.0)
PYRAMID = np.array([(S, 0.0, C), (0.0, S, C), (-S, 0.0, C), (0.0, -S, C)])


def _inertia_matrix(comps):
    jxx, jyy, jzz, jxy, jxz, jyz = comps
    return np.array([[jxx, -jxy, -jxz], [-jxy, jyy, -jyz], [-jxz, -jyz, jzz]])


def test_elimination_with_wheels_reads_the_inertial_momentum_of_the_unit_attitude():
    # half-quat at dt = 0.05 s, 2,000 steps: |Q| drifts by 0.17; a free body, one wheel spinning, all coasting
    sim = Simulation(integrator="half-quat", norm="elimination", dt=0.05, inertia=AIRCRAFT, rates=(0.4, 0.1, -0.3),
                     wheels="pyramid", wheel_inertia=J_S, wheel_speeds=(10.0, 0.0, 0.0, 0.0))
    h0 = np.linalg.norm(sim.snapshot().h)
    sim.step(2000)
    s = sim.snapshot()
    assert abs(np.linalg.norm(s.q) - 1.0) > 0.1                       # |Q| drifted far (0.17)
    body_h = _inertia_matrix(AIRCRAFT) @ np.array(s.w) + J_S * PYRAMID.T @ np.array(s.wheel_speeds)
    want = scipy_rotation(np.array(s.q) / np.linalg.norm(s.q)).apply(body_h)
    np.testing.assert_allclose(s.h, want, rtol=1e-12, atol=1e-13)
    assert np.linalg.norm(s.h) == pytest.approx(np.linalg.norm(body_h), rel=1e-12)
    # what a physicist checks first: no torque, so |H| stays where it started, to the integrator's accuracy
    # at this large step (4.1 %; read through C(Q) it would grow with |Q|^2, by 42 %)
    assert np.linalg.norm(s.h) == pytest.approx(h0, rel=0.1)
