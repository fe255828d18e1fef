"""The rods' own residual dipole (:attr:`sim.gnc.magnetic.Magnetorquers.residual`, ``MAG["rods_residual"]``) in
the compiled loop's world (:func:`sim.model.advance_craft.next_world`): the torquers' dipole the craft reads is
``m = sum_i u_i a_i + residual`` (:meth:`Magnetorquers.body_dipole`), each axis its own component, by numpy from
the held rod commands."""

import dataclasses

import numpy as np

from sim.model import advance_craft as craft
from sim.model.simulation import Simulation
from sim.model.settings import Settings

RESIDUAL = (0.004, 0.03, -0.01)  # three different components: an axis read twice shows


def test_loop_dipole_is_the_rods_plus_their_residual():
    s = Settings(integrator="rk4", orbit=(520.0, 0.01, 51.6, 30.0, 20.0, 10.0), epoch="2024-03-20T03:06:00Z",
                 rates=(0.05, -0.04, 0.03), dt=0.5, controller="none", dampers_on=False, magnetic_field="dipole",
                 bdot_law="bang-bang", magnetorquers=1.0, bdot_period=1.0, bdot_gain=2e4)
    craft.advance_craft.wait()  # the loop, not the Python step (with the JIT off too)
    sim = Simulation(s)
    control = sim._magnetic
    control.rods = dataclasses.replace(control.rods, residual=RESIDUAL)
    assert sim._craft_packed() is not None, "these settings should step in the craft's loop"
    sim.step(6)  # the last world made by the loop
    u = np.array(control.bdot.u, dtype=float)
    axes = np.array(control.rods.axes, dtype=float)
    assert np.all(np.abs(u) == 1.0)  # bang-bang: each rod at its limit
    np.testing.assert_allclose(sim.dipole, u @ axes + np.array(RESIDUAL), rtol=0.0, atol=1e-15)
