"""Regression pin (issue 31): today's gravity-gradient runs (the circular orbit of ``altitude_km``)
give, after the orbit work, what they gave before it (numbers recorded on main at dcbcd54 before any
change; a pin, not an oracle: the oracle tests of the libration are in tests/sim/model/test_environment.py)."""

from sim.model.simulation import Simulation
from sim.run.scenario import load


def _close(a, b, tol=1e-9):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert abs(x - y) <= tol, (a, b)


def test_gravity_gradient_scenario_unchanged():
    sim = Simulation(load("gravity_gradient").settings)
    sim.step(3000)
    s = sim.snapshot()
    _close(s.q, (0.0, 0.9865543251632329, 0.0, -0.16343366697751807))
    _close(s.w, (0.0, -0.0009964853092200503, 0.0))
    _close(s.torque, (0.0, 2.7076958316394484e-05, 0.0))
    _close(s.orbit_angles_deg, (0.0, -8.570449219613149, -0.0))


def test_gravity_gradient_with_wheels_and_controller_unchanged():
    sim = Simulation(load("gravity_gradient").settings, wheels="orthogonal", controller="quaternion",
                     gains=(0.01, 0.01, 0.01), dampers_on=True, dampers=(1.0, 1.0, 1.0), dt=0.5,
                     altitude_km=700.0, angles_deg=(5.0, -20.0, 30.0))
    sim.step(2000)
    s = sim.snapshot()
    _close(s.q, (-0.25886745624892243, 0.16070842710852787, -0.08393196235182385, 0.9487443634864385))
    _close(s.w, (9.984097941880952e-06, 9.07803907434765e-06, -4.003478647472908e-06))
    _close(s.wheel_speeds, (-9.440269410805865, -15.263793493436564, -0.6440270674003302))
    _close(s.orbit_angles_deg, (5.710825298352339, 40.15362235816792, 35.00051745213927))
