"""Reaction wheels under the seeds' other formulations (issues 21 x 22).

A torque-free gyrostat keeps its total angular momentum in inertial axes
(body and wheels, Hughes' gyrostat): an independent law that every
integrator and norm mode that keeps it for the rigid body must keep with
wheels too (Hoffmann's own full-quat forms leave out the constraint force,
(4.15), and drift without wheels already: docs/PHYSICS.md).  rkmk4 keeps ``|Q| = 1``
with no norm handling, wheels or not; splitting's exact principal rotations
are the rigid body's, so it refuses wheels.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation

SPIN = dict(wheels="pyramid", wheel_speeds=(40.0, -25.0, 10.0, 30.0), rates=(0.3, -0.2, 0.5),
            dampers_on=False, controller="none", body="satellite", dt=0.002)


def _h(sim):
    return np.array(sim.snapshot().h)


@pytest.mark.parametrize("integrator, norm, form, tol", [
    ("rk4", "hoffmann", "hoffmann", 1e-10),
    ("rkmk4", "none", "hoffmann", 1e-10),
    ("full-quat", "elimination", "kane", 1e-3),
    ("full-quat", "elimination", "lagrange", 1e-3),
    ("half-quat", "elimination", "hoffmann", 1e-2),
])
def test_a_free_gyrostat_keeps_its_total_momentum(integrator, norm, form, tol):
    sim = Simulation(Settings(integrator=integrator, norm=norm, full_quat_form=form, **SPIN))
    h0 = _h(sim)
    sim.step(1000)  # 2 s
    assert sim.wheel_speeds[0] != 40.0  # the wheels exchange momentum with the body
    assert np.linalg.norm(_h(sim) - h0) <= tol * np.linalg.norm(h0)


def test_rkmk4_keeps_the_unit_norm_with_wheels():
    sim = Simulation(Settings(integrator="rkmk4", norm="none", **SPIN))
    sim.step(2000)
    q = np.array(sim.q)
    assert abs(np.linalg.norm(q) - 1.0) < 1e-13


def test_rkmk4_and_rk4_fly_the_same_gyrostat():
    """Both fourth order: at dt = 2 ms they agree to far below the step's own error."""
    a = Simulation(Settings(integrator="rkmk4", norm="none", **SPIN))
    b = Simulation(Settings(integrator="rk4", norm="none", **SPIN))
    a.step(500)
    b.step(500)
    assert np.allclose(a.q, b.q, atol=1e-9) or np.allclose(a.q, -np.array(b.q), atol=1e-9)
    assert np.allclose(a.wheel_speeds, b.wheel_speeds, atol=1e-8)


def test_rkmk4_takes_a_time_dependent_torque_at_its_stages():
    """A torque of time only: rkmk4's rates are its integral to 4th order (not a held value)."""
    torque = lambda t, q, w: (0.0, 0.0, 2.0 * math.cos(3.0 * t))  # noqa: E731
    s = Settings(integrator="rkmk4", norm="none", dampers_on=False, body="satellite", dt=0.05,
                 inertia=(10.0, 10.0, 10.0, 0.0, 0.0, 0.0))
    sim = Simulation(s, user_torque=torque)
    sim.step(20)  # 1 s
    exact = 2.0 * math.sin(3.0) / 3.0 / 10.0  # w_z(1) for J = 10 I
    assert abs(sim.w[2] - exact) < 1e-6


def test_splitting_refuses_wheels_with_a_reason():
    with pytest.raises(SettingsError, match="splitting is for a body without reaction wheels"):
        Settings(integrator="splitting", wheels="pyramid")


def test_the_ensemble_flies_rkmk4_with_wheels_as_the_single_body():
    s = Settings(integrator="rkmk4", norm="none", **SPIN)
    ens = Ensemble(s, EnsembleSpec(bodies=3, seed=4, rate_spread=0.1, inertia_spread=5.0))
    ens.step(50)
    for j in range(3):
        one = Simulation(ens.body_settings(j))
        one.step(50)
        assert np.array_equal(ens.q[:, j], one.q)
        assert np.array_equal(ens.wheel_speeds[:, j], one.wheel_speeds)
