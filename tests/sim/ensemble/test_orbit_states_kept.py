"""An ensemble body's orbit states kept and its Sun made once for every body (sim/ensemble/orbit_world.py, issue 42).

:func:`sim.ensemble.orbit_world.orbit_kept` hands back a state made before at the same time instead of solving
Kepler's equation again: the references are :func:`~sim.ensemble.orbit_world.orbit_at` itself (the same bits at
every time asked) and a count of its solves.  Bodies on orbits of their own sharing one epoch take the Sun made once
a step for all of them: each is still its own :class:`Simulation`, stepped in Python, to the bit.
"""

import math

import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble import orbit_loop, orbit_world
from sim.model.settings import Settings
from sim.model.simulation import Simulation
from sim.world.sun import AU_KM, sun_direction
from sim.world.time import days_tt_of

SAT = dict(body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), dampers_on=True, dampers=(14.0, 17.0, 7.0),
           controller="quaternion", gains=(1.0, 1.2, 0.5), orbit=(500.0, 0.01, 97.4, 0.0, 20.0, 0.0),
           epoch="2024-03-20T03:06:00Z")


def _row(m0=0.3):
    el = np.zeros(14)  # a, e, i, RAAN, argp, M0, the rates (M: n), the epoch
    el[0], el[1], el[2], el[3], el[4], el[5], el[8] = 6878.0, 0.01, 1.7, 0.2, 0.4, m0, 1.1e-3
    el[9], el[10] = 2460389.0, 0.129
    return el


def _bits(x):
    return np.asarray(x, dtype=float).view(np.uint64)


@pytest.fixture
def solves(monkeypatch):
    """Counts :func:`orbit_at`'s calls made by :func:`orbit_kept` (run as Python)."""
    count = [0]
    made = orbit_world.orbit_at

    def counted(*args):
        count[0] += 1
        return made(*args)

    monkeypatch.setattr(orbit_world, "orbit_at", counted)
    return count, made


# (dt, the dipole's t + 1 s read too, the most solves a step): about one a step wherever a later step's times are
# the sums of earlier ones (the feed-forward's t -+ 0.5 s, the dipole's t + 1 s; at dt 0.05 s a state is read again
# 20 steps after it was made), two at dt 1 s (t -+ 0.5 s between the steps), and at dt 0.01 s none found again
@pytest.mark.parametrize("dt, dipole, most", [(0.1, False, 1.1), (0.5, False, 1.1), (0.25, False, 1.1),
                                              (0.1, True, 1.1), (0.05, True, 1.2), (1.0, True, 2.05),
                                              (0.01, False, 3.0)])
def test_kept_states_are_the_orbit_at_each_time_with_about_one_solve_a_step(solves, dt, dipole, most):
    count, made = solves
    el = _row()
    orb = orbit_world.fixed_part(el)
    kept = orbit_world.new_kept(dt)
    steps = 1000
    for i in range(steps):
        t = 0.0 + i * dt
        for x in (t, t - 0.5, t + 0.5) + ((t + 1.0,) if dipole else ()):  # a moving mode's three (world_into)
            assert np.array_equal(_bits(orbit_world.orbit_kept(el, orb, x, kept)), _bits(made(el, orb, x)))
    assert count[0] <= most * steps  # 1.05 at dt 0.1 s, 1.07 with the dipole's, 1.13 at dt 0.05 s (the first steps' extra)


def test_a_body_s_states_renewed_are_not_read_for_the_next_body(solves):
    count, made = solves
    el, other = _row(), _row(m0=1.3)
    kept = orbit_world.new_kept(0.1)
    orbit_world.orbit_kept(el, orbit_world.fixed_part(el), 0.5, kept)
    orbit_world.renew_kept(kept, 0.1)
    got = orbit_world.orbit_kept(other, orbit_world.fixed_part(other), 0.5, kept)
    assert count[0] == 2
    assert np.array_equal(_bits(got), _bits(made(other, orbit_world.fixed_part(other), 0.5)))


def test_a_minus_zero_time_is_not_the_plus_zero_state(solves):
    count, made = solves
    el = _row(m0=-0.0)  # M = -0.0 + n t: the sign of a zero time reaches the anomaly
    orb = orbit_world.fixed_part(el)
    kept = orbit_world.new_kept(0.1)
    orbit_world.orbit_kept(el, orb, 0.0, kept)
    got = orbit_world.orbit_kept(el, orb, -0.0, kept)
    assert count[0] == 2
    assert np.array_equal(_bits(got), _bits(made(el, orb, -0.0)))
    got = orbit_world.orbit_kept(el, orb, 0.0, kept)  # (one slot for both: made again)
    assert np.array_equal(_bits(got), _bits(made(el, orb, 0.0)))


def test_the_shared_sun_is_the_worlds_own():
    el = _row()
    for t in (0.0, 0.1, 5400.3):
        sun, au = sun_direction(days_tt_of(el[9], el[10], t), None)
        assert orbit_world.sun_at(el[9], el[10], t) == (*sun, au * AU_KM)
    assert math.isnan(orbit_world.NO_SUN[3])


# bodies on orbits of their own at one epoch: the Sun once a step for all (a moving mode's command, the solar
# pressure), the orbit states kept (the feed-forward's, the dipole's)
CASES = {
    "sun-half-quat-gg": dict(pointing="sun", gravity_gradient=True, dt=0.1),
    "velocity-rk4-srp": dict(pointing="velocity", srp=True, integrator="rk4", dt=0.5),
    "dipole-bdot-inertial": dict(body="cubesat_3u", inertia=None, controller="none", dampers_on=False,
                                 magnetic_field="dipole", magnetorquers=0.2, bdot_law="proportional",
                                 bdot_gain=2.4e4, bdot_period=1.0, dt=0.1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bodies_at_one_epoch_are_bit_for_bit_their_simulations(case):
    orbit_loop.advance_orbit_bodies.wait()
    settings = Settings(**{k: v for k, v in {**SAT, **CASES[case]}.items() if v is not None})
    spec = EnsembleSpec(bodies=6, seed=3, rate_spread=0.05, orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0))
    ens = Ensemble(settings, spec, compiled=True)
    assert ens._packed_bodies(1) is not None
    ens.step(40)
    ens.step(60)
    for j in range(ens.n):
        sim = Simulation(ens.body_settings(j))
        sim._step_python(100)  # the Python step and world
        assert np.array_equal(_bits(ens.q[:, j]), _bits(sim.q)), j
        assert np.array_equal(_bits(ens.w[:, j]), _bits(sim.snapshot().w)), j
