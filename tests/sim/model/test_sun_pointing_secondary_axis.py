"""Sun pointing's roll about the Sun line: the secondary axis toward the orbit normal (issue 40, planted bug 3).

The sun mode (docs and sim/gnc/pointing.py's table) points body +z at the Sun and turns body x toward the
orbit normal: x lies in the plane of the Sun and the normal, on the normal's side.  Pointing +z at the Sun
alone leaves the roll about the Sun line free, and a roll about the velocity would pass that check.

References, independent of the code under test: the orbit normal from the elements alone,
``n = (sin i sin RAAN, -sin i cos RAAN, cos i)`` (Vallado, *Fundamentals of Astrodynamics*, 4th ed., (2-90)
inverted: the angular momentum's direction in the frame of the elements); the command's matrix by scipy's
Rotation (tests/oracle.py).  The Sun's direction is the world's, itself checked against astropy in
tests/sim/core/test_sun.py.
"""

import math

import numpy as np
import pytest

from oracle import scipy_rotation, unit
from sim.model.simulation import Simulation

INCLINATION, RAAN = 97.4, 40.0
ORBIT = (500.0, 0.0, INCLINATION, RAAN, 0.0, 0.0)
EPOCH = "2024-03-20T03:06:00Z"


def _orbit_normal():
    i, o = math.radians(INCLINATION), math.radians(RAAN)
    return np.array([math.sin(i) * math.sin(o), -math.sin(i) * math.cos(o), math.cos(i)])


@pytest.mark.parametrize("t", [0.0, 100.0])
def test_sun_mode_points_z_at_the_sun_and_x_toward_the_orbit_normal(t):
    sim = Simulation(body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), integrator="rk4", dt=0.5,
                     epoch=EPOCH, orbit=ORBIT, pointing="sun", pointing_axis=(0.0, 0.0, 1.0),
                     controller="quaternion", dampers_on=True, rates=(0.01, -0.015, 0.012))
    sim.step(round(t / 0.5))
    snap = sim.snapshot()
    assert snap.t == t
    sun = np.array(snap.world.sun)
    body_to_eci = scipy_rotation(snap.qc)             # the command's attitude: body axes -> ECI
    z, x = body_to_eci.apply([0.0, 0.0, 1.0]), body_to_eci.apply([1.0, 0.0, 0.0])
    normal = _orbit_normal()
    np.testing.assert_allclose(normal, unit(np.cross(snap.world.r_km, snap.world.v_kms)), atol=1e-12)
    assert np.linalg.norm(np.cross(z, sun)) < 1e-12 and z @ sun > 0.0  # +z at the Sun
    assert abs(x @ unit(np.cross(sun, normal))) < 1e-12               # x in the plane of the Sun and the normal
    assert x @ normal > 0.0                                           # on the normal's side
    assert x @ normal == pytest.approx(math.sqrt(1.0 - (sun @ normal) ** 2), rel=1e-12)  # as near it as can be

