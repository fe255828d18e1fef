"""Control moment gyros wired into the Simulation (issue 45, sim/model/cmg_step.py): the physics through the
whole stepping path, not the kernel alone.

* without external torque, the inertial total momentum ``C(Q)^T (J w + h)`` (the ``hx, hy, hz`` columns) is
  conserved to RK4's order while the cluster makes a torque command on the body (Wie ch. 7: the cluster's
  torque is internal);
* the torque the rows say the cluster makes, ``-A ddelta/dt - w x h``, is what turns the body:
  ``J dw/dt + w x J w`` by finite differences of the rates;
* the pyramid at rest has ``m / h0^6 = 32/27`` (Wie's closed form of ``A``) and makes exactly the torque asked
  (Moore-Penrose, away from singularities and the rate limit);
* a mid-run change of settings keeps the gimbal angles; reset puts them back (an ensemble's clusters:
  tests/sim/ensemble/test_ensemble_cmgs.py).
"""

import math

import numpy as np
import pytest

from cmg_oracle import CRAFT, hoffmann_inertia, wie_pyramid_momentum
from sim.core.quaternion import cayley
from sim.model import cmg_step
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation
from sim.run.scenario import load

J = CRAFT["inertia"]
BASE = dict(integrator="rk4", inertia=J, cmg="pyramid", cmg_h0=CRAFT["h0"], cmg_angles=CRAFT["angles"],
            rates=CRAFT["rates"], torque=(0.05, -0.02, 0.03))


def _inertial_momentum(sim):
    """``C(Q)^T (J w + h)`` from the state and the cluster's own formula (Wie ch. 7: ``h = h0 sum_i s_i``)."""
    sn = sim.snapshot()
    s = sim.settings
    c = s.cmg_set
    h = wie_pyramid_momentum(s.cmg_h0, math.radians(s.cmg_skew), np.radians(sn.cmg[:4]))
    assert c.h0 == s.cmg_h0
    total = cayley(np.array(sn.q)).T @ (hoffmann_inertia(J) @ np.array(sn.w) + h)
    return total, np.array(sn.h)


@pytest.mark.parametrize("law", ["mp", "sr", "null", "gsr"])
def test_total_momentum_is_conserved_to_rk4s_order_through_the_simulation(law):
    errors = []
    for dt in (0.2, 0.1):  # a fast tumble, a large command and a loose rate limit: the error well above rounding
        sim = Simulation(Settings(**{**BASE, "rates": (0.3, -0.2, 0.25), "torque": (0.5, -0.2, 0.3)}, dt=dt,
                                  cmg_law=law, cmg_rate_limit=5.0))
        h0, h0_row = _inertial_momentum(sim)
        np.testing.assert_allclose(h0_row, h0, rtol=0, atol=1e-12)  # the row's hx..hz: the same momentum
        sim.step(round(20.0 / dt))
        h1, h1_row = _inertial_momentum(sim)
        np.testing.assert_allclose(h1_row, h1, rtol=0, atol=1e-12)
        errors.append(np.linalg.norm(h1 - h0))
    # the body turned and the gimbals moved: the momentum changed hands
    assert np.linalg.norm(sim.snapshot().cmg[:4] - np.array(BASE["cmg_angles"])) > 1.0
    assert errors[1] < 1e-8 * np.linalg.norm(h0)
    assert errors[0] / errors[1] > 10.0, errors  # RK4: 16 per halving or more (34-36 measured per law)


def test_the_torque_made_is_what_turns_the_body():
    dt = 1e-4
    sim = Simulation(Settings(**BASE, dt=dt, cmg_law="sr"))
    sim.step(100)
    sn0 = sim.snapshot()
    made = np.array(sn0.cmg[-3:])
    asked = np.array(sn0.cmg[-6:-3])
    np.testing.assert_allclose(sn0.torque, made, rtol=0, atol=0)  # no external torque: the body's is the cluster's
    np.testing.assert_allclose(asked, BASE["torque"], rtol=0, atol=0)  # the torque law's command
    sim.step(1)
    w0, w1 = np.array(sn0.w), np.array(sim.snapshot().w)
    jm = hoffmann_inertia(J)
    euler = jm @ ((w1 - w0) / dt) + np.cross(w0, jm @ w0)   # Euler's equation: J dw/dt + w x J w = torque
    np.testing.assert_allclose(euler, made, rtol=0, atol=1e-5 * np.abs(made).max())


def test_the_pyramid_at_rest_makes_the_torque_asked():
    sim = Simulation(Settings(integrator="rk4", cmg="pyramid", cmg_law="mp", torque=(0.01, -0.02, 0.005)))
    sn = sim.snapshot()
    delta, rates, m = sn.cmg[:4], sn.cmg[4:8], sn.cmg[8]
    assert delta == (0.0, 0.0, 0.0, 0.0)
    # A = h0 [t_i] at zero: rows (0, -1, 0, 1) c, (1, 0, -1, 0) c, (s, s, s, s); A A^T = diag(2c^2, 2c^2, 4s^2)
    c2, s2 = 1.0 / 3.0, 2.0 / 3.0
    assert m == pytest.approx(4 * c2 * c2 * 4 * s2, rel=1e-14)  # 32/27
    np.testing.assert_allclose(sn.cmg[-3:], sn.cmg[-6:-3], rtol=1e-12, atol=1e-16)
    assert max(abs(r) for r in rates) < sim.settings.cmg_rate_limit


def test_a_change_of_settings_keeps_the_gimbals_and_reset_restores_them():
    sim = Simulation(Settings(**BASE, dt=0.05))
    sim.step(100)
    before = sim.snapshot().cmg[:4]
    sim.set("cmg_law", "gsr")
    assert sim.snapshot().cmg[:4] == before
    sim.reset()
    np.testing.assert_allclose(sim.snapshot().cmg[:4], BASE["cmg_angles"], rtol=1e-15)


def test_the_cluster_keeps_to_its_rate_limit():
    sim = Simulation(Settings(**{**BASE, "torque": (5.0, 0.0, 0.0)}, dt=0.05, cmg_rate_limit=0.3, cmg_law="mp"))
    for _ in range(20):
        sim.step(5)
        rates = sim.snapshot().cmg[4:8]
        assert max(abs(r) for r in rates) <= 0.3 * (1 + 1e-12)


@pytest.mark.parametrize("changes, words", [
    (dict(integrator="half-quat"), "steps by rk4"),
    (dict(wheels="pyramid"), "both reaction wheels and CMGs"),
    (dict(thrusters="cube"), "thruster_unloading: with CMGs the thrusters unload them"),  # (with it: they fly)
    (dict(cmg_angles=(90.0, 0.0, -90.0, 0.0)), "singular at its design angles"),
    (dict(cmg_angles=(1.0, 2.0)), "cmg_angles: 2 values for 4"),
])
def test_combinations_are_refused_in_one_line(changes, words):
    with pytest.raises(SettingsError, match=words) as info:
        Settings(**{**BASE, **changes})
    assert "\n" not in str(info.value)


def test_an_external_torque_changes_the_total_momentum_by_its_impulse():
    # a constant disturbance in inertial axes: H(t) = H(0) + D t (Euler's law for the whole craft); the torque is
    # held over each step in body axes, so the impulse is right to first order in dt (the body turns ~0.2 rad)
    d = np.array([0.02, -0.01, 0.015])
    sim = Simulation(Settings(**BASE, dt=0.01, disturbance=tuple(d), disturbance_axes="inertial"))
    h0, _ = _inertial_momentum(sim)
    sim.step(1000)
    h1, row = _inertial_momentum(sim)
    np.testing.assert_allclose(row, h1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(h1 - h0, d * 10.0, rtol=0, atol=2e-3 * np.linalg.norm(d) * 10.0)
    assert np.linalg.norm(np.array(sim.snapshot().torque) - np.array(sim.snapshot().cmg[-3:])) > 0.01  # ext in tx..tz


@pytest.mark.parametrize("law", ["mp", "sr", "null", "gsr"])
@pytest.mark.parametrize("norm", ["hoffmann", "elimination"])
def test_many_steps_in_one_compiled_call_are_the_steps_one_by_one(law, norm, monkeypatch):
    # cmg_fast_slew's quaternion controller (dampers, limiter) after a 30 deg command: sim.model.cmg_step.cmg_run
    # (the torque law compiled, many steps a call) against the step of one cmg_advance call a step, the torque
    # law in Python: bit for bit, the clock included
    settings = load("cmg_fast_slew").settings.replace(cmg_law=law, norm=norm)

    def fly():
        sim = Simulation(settings)
        sim.set("command_deg", (30.0, 0.0, 0.0))
        sim.step(150)
        sim.step(250)   # a second call: from the Simulation's clock at step 150
        sn = sim.snapshot()
        return sn.q, sn.w, sn.cmg, sn.t

    sim = Simulation(settings)
    cmg_step.cmg_run.wait(*sim._cmg._sample())   # loaded, as after WARM_AFTER steps (with the JIT off: its Python)
    sim.set("command_deg", (30.0, 0.0, 0.0))
    assert sim._cmg.packed(sim, 150) is not None                  # the compiled loop takes these steps
    compiled = fly()
    monkeypatch.setattr(cmg_step.CmgStep, "packed", lambda self, sim, n: None)
    one_by_one = fly()
    assert compiled == one_by_one
    assert abs(compiled[2][0]) > 5.0                                 # the gimbals turned


def test_a_call_that_begins_in_a_slerp_goes_compiled_when_it_ends(monkeypatch):
    # cmg_fast_slew with a 2 s SLERP to its command (100 steps at dt 0.02 s): one call of 400 steps takes the
    # SLERP's steps one cmg_advance call each, then the rest through cmg_run (it took all 400 one by one), bit for
    # bit the steps one by one (as Simulation.step's plain body: tests/sim/model/test_advance.py)
    settings = load("cmg_fast_slew").settings.replace(slerp_time=2.0)
    calls = []
    run = cmg_step.cmg_run

    class Counted:
        def __getattr__(self, name):
            return getattr(run, name)

        def __call__(self, *args):
            calls.append(args[18])  # n, the steps asked
            return run(*args)

    def fly():
        sim = Simulation(settings)
        sim.set("command_deg", (30.0, 20.0, 0.0))
        assert sim._cmd.path is not None
        sim.step(400)
        sn = sim.snapshot()
        return sn.q, sn.w, sn.cmg, sn.t

    sim = Simulation(settings)
    cmg_step.cmg_run.wait(*sim._cmg._sample())   # loaded, as after WARM_AFTER steps (with the JIT off: its Python)
    monkeypatch.setattr(cmg_step, "cmg_run", Counted())
    compiled = fly()
    assert calls == [300]
    monkeypatch.setattr(cmg_step.CmgStep, "packed", lambda self, sim, n: None)
    assert fly() == compiled
    assert abs(compiled[2][0]) > 5.0                                 # the gimbals turned


def test_the_compiled_loop_leaves_a_world_and_an_external_torque_to_the_step_in_python(monkeypatch):
    monkeypatch.setattr(cmg_step, "WARM_AFTER", 1)
    sim = Simulation(load("cmg_fast_slew").settings)
    assert sim._cmg.packed(sim, 10) is not None
    for changes in (dict(orbit=(500.0, 0.0, 51.6, 0.0, 0.0, 0.0)), dict(disturbance=(0.001, 0.0, 0.0))):
        other = Simulation(load("cmg_fast_slew").settings.replace(**changes))
        assert other._cmg.packed(other, 10) is None, changes


def test_the_torque_shown_on_a_cmg_craft_is_the_clusters_plus_a_constant_disturbance():
    """cmg_fast_slew with a constant disturbance in body axes: torques superpose, so the snapshot's torque on the
    body is the cluster's torque made (the last three CMG columns) plus the disturbance, axis by axis."""
    disturbance = (0.001, -0.002, 0.003)
    sim = Simulation(load("cmg_fast_slew").settings.replace(disturbance=disturbance))
    sim.step(3)
    s = sim.snapshot()
    made = np.asarray(s.cmg[-3:], float)
    assert np.all(made != 0.0)  # the cluster acts on every axis
    assert np.asarray(s.torque) == pytest.approx(made + np.asarray(disturbance), rel=1e-12, abs=1e-15)
