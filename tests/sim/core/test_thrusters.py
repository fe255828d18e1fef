"""Thrusters (sim/core/thrusters.py) and the thruster mapping (sim/gnc/thruster_mapping.py).

Torque r x F and force against numpy's cross product, fuel against impulse / (Isp g0), the
minimum impulse bit, the Schmitt trigger's switching points, PWPF's duty cycle simulated against
its published static characteristic (Krovel 2005), the dead-band limit cycle's rate, amplitude,
period and fuel against its closed form (Wie ch. 6), and the mapping against scipy's linprog.
"""

import math

import numba
import numpy as np
import pytest
from scipy.optimize import linprog

from sim.core import jit
from sim.core import thrusters as th
from sim.gnc.thruster_mapping import on_times, torque_authority

# The jitable formulas are registered with numba when sim.core.jit imports it (numba_module), not by this
# file's own ``import numba``: without this, alone, this file's compiled loops cannot call th.pwpf_step.
jit.numba_module()


def twelve_thrusters(arm=0.8, f=1.0):
    """Six pairs of thrusters, each pair a couple about one body axis in one sense (pure torques)."""
    pos, dirs = [], []
    for k in range(3):
        a, b = (k + 1) % 3, (k + 2) % 3            # the couple about axis k: arm along a, push along b
        for sense in (1.0, -1.0):
            for side in (1.0, -1.0):
                r = np.zeros(3)
                r[a] = side * arm
                d = np.zeros(3)
                d[b] = sense * side
                pos.append(r)
                dirs.append(d)
    return np.array(pos), np.array(dirs), np.full(12, f)


def test_wrench_is_r_cross_f():
    rng = np.random.default_rng(1)
    pos = rng.normal(size=(5, 3))
    dirs = rng.normal(size=(5, 3))
    dirs /= np.linalg.norm(dirs, axis=1)[:, None]
    force = rng.uniform(0.5, 20.0, 5)
    level = rng.uniform(0.0, 1.0, 5)
    cm = rng.normal(size=3) * 0.1
    torque, total = th.thruster_wrench(pos, dirs, force, level, cm)
    f_i = (level * force)[:, None] * dirs
    np.testing.assert_allclose(torque, np.cross(pos - cm, f_i).sum(axis=0), atol=1e-13)
    np.testing.assert_allclose(total, f_i.sum(axis=0), atol=1e-13)


def test_couples_make_pure_torque():
    pos, dirs, force = twelve_thrusters()
    b = th.torque_matrix(pos, dirs, force, np.zeros(3))
    for i in range(0, 12, 2):
        level = np.zeros(12)
        level[i] = level[i + 1] = 1.0
        torque, total = th.thruster_wrench(pos, dirs, force, level, np.zeros(3))
        np.testing.assert_allclose(total, 0.0, atol=1e-15)
        assert np.linalg.norm(torque) == pytest.approx(2 * 0.8)
    np.testing.assert_allclose(b, th.torque_matrix(pos, dirs, force, np.zeros(3)))


def test_fuel_is_impulse_over_isp_g0():
    force = np.array([1.0, 22.0, 0.5])
    isp = np.array([70.0, 220.0, 290.0])
    t = np.array([3.0, 0.02, 100.0])
    impulse = force * t
    # g0 = 9.80665 m/s^2 exactly (standard gravity)
    assert th.fuel_used(force, isp, t) == pytest.approx(np.sum(impulse / (isp * 9.80665)), rel=1e-15)
    assert th.fuel_used(force, isp, np.zeros(3)) == 0.0


def test_minimum_impulse_bit():
    force = np.array([1.0, 1.0, 10.0])
    mib = np.array([0.01, 0.01, 0.01])
    out = th.minimum_on_times(np.array([0.005, 0.02, 0.0015]), force, mib)
    np.testing.assert_array_equal(out, [0.0, 0.02, 0.0015])


def test_schmitt_switches_on_at_u_on_and_off_at_u_off():
    u_on, u_off = 0.5, 0.3
    up = np.linspace(0.0, 1.0, 1001)
    ramp = np.concatenate([up, up[::-1], -up, -up[::-1]])
    out, outs = 0.0, []
    for u in ramp:
        out = th.schmitt(u, out, u_on, u_off, 1.0)
        outs.append(out)
    outs = np.array(outs)
    on = ramp[np.flatnonzero(np.diff(np.abs(outs)) > 0) + 1]
    off = ramp[np.flatnonzero(np.diff(np.abs(outs)) < 0) + 1]
    np.testing.assert_allclose(np.abs(on), u_on, atol=1e-3)
    np.testing.assert_allclose(np.abs(off), u_off, atol=1e-3)
    assert set(np.unique(outs)) == {-1.0, 0.0, 1.0}


def krovel_static(r, km, tau, u_on, u_off, um=1.0):
    """Krovel (2005), the PWPF's on-time and off-time for a constant input, typed from the paper."""
    h = u_on - u_off
    t_on = -tau * math.log(1 - h / (u_on - km * (r - um)))
    t_off = -tau * math.log(1 - h / (km * r - u_on + h))
    return t_on, t_off


@numba.njit(cache=False)
def _pwpf_outputs(r, km, tau, u_on, u_off, dt, steps):
    """The PWPF's output at every step, compiled (th.pwpf_step is a jitable formula)."""
    f, out = 0.0, 0.0
    outs = np.empty(steps)
    for n in range(steps):
        f, out = th.pwpf_step(r, f, out, km, tau, u_on, u_off, 1.0, dt)
        outs[n] = out
    return outs


@pytest.mark.parametrize("r", [0.15, 0.3, 0.5, 0.7])
def test_pwpf_duty_cycle_is_the_static_characteristic(r):
    km, tau, u_on, u_off = 4.5, 0.3, 0.45, 0.15   # inside the rules of thumb
    t_on, t_off = krovel_static(r, km, tau, u_on, u_off)
    assert th.pwpf_static(r, km, tau, u_on, u_off, 1.0)[:2] == pytest.approx((t_on, t_off), rel=1e-14)
    dt = 2e-6
    outs = _pwpf_outputs(r, km, tau, u_on, u_off, dt, round(8.0 / dt))
    starts = np.flatnonzero(np.diff(outs) > 0) + 1
    stops = np.flatnonzero(np.diff(outs) < 0) + 1
    assert len(starts) > 5
    # a switch is seen at the first step past its threshold, so the filter overshoots it by up to a
    # step of its slope, and the next phase is longer by that overshoot over the next phase's slope:
    # per cycle the error is at most dt (2 + k + 1/k), k the ratio of the two slopes at U_off
    k = (u_off - km * (r - 1.0)) / (km * r - u_off)
    tol = dt * (2 + k + 1 / k)
    s0, s1 = starts[1], starts[-1]
    cycles = len(starts) - 2
    period = (s1 - s0) * dt / cycles
    duty = outs[s0:s1].mean()
    on = np.mean([(stops[stops > a][0] - a) * dt for a in starts[1:-1]])
    assert on == pytest.approx(t_on, abs=tol)
    assert period == pytest.approx(t_on + t_off, abs=tol)
    assert duty == pytest.approx(t_on / (t_on + t_off), abs=2 * tol / period)


def test_pwpf_dead_zone_and_saturation():
    km, tau, u_on, u_off = 4.5, 0.3, 0.45, 0.15
    assert th.pwpf_static(0.9 * u_on / km, km, tau, u_on, u_off, 1.0) == (0.0, math.inf, 0.0)
    assert th.pwpf_static(1.0 + u_off / km, km, tau, u_on, u_off, 1.0)[2] == 1.0
    f, out = 0.0, 0.0
    for _ in range(100_000):
        f, out = th.pwpf_step(0.9 * u_on / km, f, out, km, tau, u_on, u_off, 1.0, 1e-3)
        assert out == 0.0


def test_pwpf_rules_of_thumb_hold_for_the_tested_parameters():
    rules = th.PWPF_RULES
    assert rules["km"][0] <= 4.5 <= rules["km"][1] and rules["tau_m"][0] <= 0.3 <= rules["tau_m"][1]
    assert 0.45 > rules["u_on_min"] and 0.15 < rules["u_off_over_u_on_max"] * 0.45


@pytest.mark.slow
@pytest.mark.parametrize("theta_d_deg, t_pulse", [(0.5, 0.02), (1.0, 0.05)])
def test_limit_cycle_against_its_closed_form(theta_d_deg, t_pulse):
    # one axis, J = 50 kg m^2, a couple of two 1 N thrusters on a 0.8 m arm (1.6 N m), Isp 220 s;
    # started on the ideal cycle (rate w at the centre), the body drifts across the band and turns
    # round in one minimum pulse at each wall (Wie, ch. 6)
    j, torque, isp, force = 50.0, 1.6, 220.0, 2.0
    theta_d = math.radians(theta_d_deg)
    ref = th.limit_cycle(j, torque, t_pulse, theta_d)
    dt = 1e-4
    theta, rate, left, on_time = 0.0, ref["rate"], 0.0, 0.0
    thetas, cross = [], []
    t_end = 2.5 * ref["period"]
    for n in range(round(t_end / dt)):
        u, left = th.deadband_pulse(theta, rate, left, theta_d, t_pulse, dt)
        acc = u * torque / j
        before = theta
        theta += rate * dt + 0.5 * acc * dt * dt        # exact over a step of constant torque
        rate += acc * dt
        on_time += abs(u) * dt
        thetas.append(theta)
        if before < 0.0 <= theta and rate > 0:
            cross.append((n + 1) * dt)
    assert max(np.abs(thetas)) == pytest.approx(ref["amplitude"], rel=1e-3)
    # a pulse starts at the first step past the wall, up to dt late, a distance of up to w dt further
    # out, which the body crosses twice more: up to 2 dt per wall, 4 dt per period, +-dt of sampling
    assert np.diff(cross).mean() == pytest.approx(ref["period"], abs=5 * dt)
    # the fuel: impulse / (Isp g0) of the pulses fired, two a period
    pulses = on_time / t_pulse
    assert pulses == pytest.approx(round(t_end / ref["period"] * 2), abs=1)
    fuel = th.fuel_used(np.array([force]), np.array([isp]), np.array([on_time]))
    assert fuel == pytest.approx(force * pulses * t_pulse / (isp * 9.80665), rel=1e-9)


def test_mapping_makes_the_torque_with_non_negative_on_times():
    pos, dirs, force = twelve_thrusters()
    b = th.torque_matrix(pos, dirs, force, np.zeros(3))
    forces = (force[:, None] * dirs).T
    rng = np.random.default_rng(5)
    for _ in range(10):
        cmd = rng.uniform(-1.0, 1.0, 3)
        t = on_times(b, cmd, 0.5, forces=forces)
        assert np.all(t >= 0.0) and np.all(t <= 0.5)
        np.testing.assert_allclose(b @ (t / 0.5), cmd, atol=1e-9)
        np.testing.assert_allclose(forces @ (t / 0.5), 0.0, atol=1e-9)
        # scipy's linprog as the oracle that the torque is reachable within the duties
        lp = linprog(np.ones(12), A_eq=b, b_eq=cmd, bounds=(0, 1))
        assert lp.status == 0


def test_mapping_saturates_to_the_nearest_torque():
    pos, dirs, force = twelve_thrusters()
    b = th.torque_matrix(pos, dirs, force, np.zeros(3))
    t = on_times(b, [10.0, 0.0, 0.0], 1.0)
    np.testing.assert_allclose(b @ t, [2 * 0.8, 0.0, 0.0], atol=1e-9)   # both +x thrusters fully on


def test_torque_authority_finds_a_missing_axis():
    pos, dirs, force = twelve_thrusters()
    b = th.torque_matrix(pos, dirs, force, np.zeros(3))
    assert torque_authority(b) == []
    keep = [i for i in range(12) if i not in (10, 11)]      # the couple about -z taken away
    assert torque_authority(b[:, keep]) == ["-z"]
    assert torque_authority(b[:, :4]) == ["+y", "-y", "+z", "-z"]


def test_unloading_decays_the_wheel_momentum_and_counts_its_fuel():
    # the wheels hold the attitude, so the thrusters' torque goes into them: dh_w/dt = T; with
    # T = -k h_w mapped to on-times over each period P, h_w shrinks by (1 - k P) a period, and the
    # fuel is the impulse fired over Isp g0
    pos, dirs, force = twelve_thrusters(f=2.0)
    isp = np.full(12, 220.0)
    b = th.torque_matrix(pos, dirs, force, np.zeros(3))
    h = np.array([0.8, -0.5, 0.3])
    k, period, fuel, impulse = 0.05, 1.0, 0.0, 0.0
    for _ in range(30):
        t = on_times(b, th.unloading_torque(h, k), period)
        h = h + b @ t                       # the torque of t seconds of firing, into the wheels
        fuel += th.fuel_used(force, isp, t)
        impulse += float(force @ t)
    np.testing.assert_allclose(h, np.array([0.8, -0.5, 0.3]) * (1 - k * period) ** 30, atol=1e-9)
    assert fuel == pytest.approx(impulse / (220.0 * 9.80665), rel=1e-12)
    # each couple's two thrusters make |T_k| / (2 F arm) seconds: the impulse is the momentum removed / arm
    assert impulse == pytest.approx(np.abs(np.array([0.8, -0.5, 0.3])).sum() * (1 - (1 - k) ** 30) / 0.8, rel=1e-9)


def test_an_on_time_of_exactly_the_minimum_impulse_bit_is_fired():
    # I_min / F = 1.0 / 2.0 = 0.5 s: an on-time of exactly 0.5 s delivers the minimum impulse bit, not below it
    force, bit = np.array([2.0, 2.0, 2.0]), np.array([1.0, 1.0, 1.0])
    out = th.minimum_on_times(np.array([0.5, 0.25, 0.75]), force, bit)
    np.testing.assert_array_equal(out, [0.5, 0.0, 0.75])
