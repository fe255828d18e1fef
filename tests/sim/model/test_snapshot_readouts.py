"""Readouts of :meth:`Simulation.snapshot` on the Python path (no craft row): the orbit angles of a body without a
world and the pointing error of a body in a world, both stepped in Python (a torque of the user's keeps them off the
craft kernel's row); against a closed form and scipy's rotations."""

import math

import numpy as np
import pytest

from oracle import scipy_rotation
from sim.model.simulation import Simulation
from sim.run.scenario import load


def test_orbit_angles_without_a_world_of_a_still_sphere_pitch_at_the_orbit_rate():
    """A sphere at rest in inertial space (no gravity-gradient torque on it, and a zero torque of the user's) seen from the circular orbit's frame,
    which turns at -n about its y axis: yaw and roll 0, pitch n t."""
    sim = Simulation(inertia=(5.0, 5.0, 5.0, 0.0, 0.0, 0.0), rates=(0.0, 0.0, 0.0), dt=1.0, integrator="rk4",
                     gravity_gradient=True, altitude_km=500.0, dampers_on=False,
                     user_torque=lambda t, q, w: (0.0, 0.0, 0.0))
    assert sim._world_state is None and sim._rows_packed() is None   # the Python snapshot (a torque of the user's)
    sim.step(100)
    yaw, pitch, roll = sim.snapshot().orbit_angles_deg
    n = math.sqrt(3.986004418e14 / ((6378.137 + 500.0) * 1e3) ** 3)
    assert pitch == pytest.approx(math.degrees(n * 100.0), rel=1e-12)
    assert abs(yaw) < 1e-12 and abs(roll) < 1e-12


def test_pointing_error_of_a_body_in_a_world_stepped_in_python_is_the_axis_angle_to_the_reference():
    """nadir_pointing with a torque of the user's (so no craft row: the Python snapshot): the error is the angle
    between the body's pointing axis, turned into inertial axes by scipy, and the nadir reference."""
    sim = Simulation(load("nadir_pointing").settings, user_torque=lambda t, q, w: (0.0, 0.0, 0.0))
    assert sim._rows_packed() is None
    sim.step(3)
    s = sim.snapshot()
    axis = scipy_rotation(s.q).apply(np.asarray(sim.settings.pointing_axis, float))
    ref = np.asarray(s.world.reference, float)
    expected = math.degrees(math.acos(np.dot(axis, ref) / (np.linalg.norm(axis) * np.linalg.norm(ref))))
    assert s.pointing_error_deg == pytest.approx(expected, abs=1e-9)
    assert s.pointing_error_deg > 1.0   # the start is off nadir: a zero would pass for any axis



def test_the_snapshot_of_a_detumbling_craft_shows_the_field_in_body_axes_and_the_torquers_dipole():
    """detumble (IGRF, B-dot torquers, no residual dipole) with a torque of the user's (so no craft row: the
    Python snapshot), stepped past its first B-dot sample: the snapshot's field in body axes is the world's
    inertial field turned into body axes by scipy, and its magnetic torque is the dipole it shows crossed with
    that field, tau = m x B (Wertz 1978, eq. 17-46)."""
    sim = Simulation(load("detumble").settings, user_torque=lambda t, q, w: (0.0, 0.0, 0.0))
    assert sim._rows_packed() is None
    sim.step(18)
    s = sim.snapshot()
    b = scipy_rotation(s.q).inv().apply(np.asarray(s.world.b_eci, float))
    assert np.asarray(s.b_body) == pytest.approx(b, rel=1e-9, abs=1e-15)
    assert np.linalg.norm(s.dipole) > 0.0  # the torquers act: a zero dipole would pass any field
    assert np.asarray(s.t_mag) == pytest.approx(np.cross(s.dipole, s.b_body), rel=1e-9, abs=1e-18)
