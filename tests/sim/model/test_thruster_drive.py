"""Thrusters wired into the Simulation (issue 45, sim.model.thruster_drive): against closed forms and definitions.

* the dead-band limit cycle's rate, amplitude and period, measured from the rows of a wired run, against the
  closed form derived here (Wie ch. 6: one pulse of torque T for t_p at each wall of the band +-theta_d);
* the fuel against the total impulse of the pulses counted in the rows, over Isp g0 (Sutton and Biblarz ch. 2);
* PWPF's on-time, off-time and duty for a constant command against Krovel's (2005) published formula;
* momentum unloading drives the wheels' |h_w| down (and the opposite sign would drive it up);
* the cube's couples: pure torques, no net force; the minimum impulse bit suppresses short firings.
"""

import math

import numpy as np
import pytest

from sim import api
from sim.core import thrusters as th
from sim.core.quaternion import from_aircraft_angles
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation

G0 = 9.80665  # standard gravity, m/s^2 (3rd CGPM, 1901)
J = 100.0  # kg m^2, a symmetric body: one axis moves alone
F = 1.0  # N per thruster; the cube's couples have arms of 1 m: T = 2 F about each axis
T_AXIS = 2.0 * F * 1.0
T_PULSE = 0.1  # s, one control period
THETA_D = math.radians(1.0)


def _run_limit_cycle(duration=300.0, dt=0.001, isp=220.0):
    """Roll only: the body starts inside the band at the symmetric cycle's rate w = T t_p / (2 J)."""
    w = T_AXIS * T_PULSE / (2.0 * J)
    sim = Simulation(inertia=(J, J, J, 0.0, 0.0, 0.0), dt=dt, rates=(w, 0.0, 0.0), thrusters="cube",
                     thruster_force=F, thruster_isp=isp, thruster_modulation="deadband", thruster_period=T_PULSE,
                     thruster_deadband_deg=math.degrees(THETA_D))
    cols = sim.columns()
    rows = []
    for _ in range(round(duration / dt)):
        sim.step(1)
        rows.append(sim.row()[:len(cols)])
    a = np.array(rows)
    return {c: a[:, i] for i, c in enumerate(cols)}, w


@pytest.mark.jit_speed  # 30,000-80,000 single steps: over a minute as Python
def test_limit_cycle_rate_amplitude_and_period_against_the_closed_form():
    r, w = _run_limit_cycle(duration=160.0, dt=0.002)
    # derived here: a pulse turns +w into -w (2 w = T t_p / J); while it lasts the angle goes on by
    # the mean rate over the pulse times t_p minus the way back: w t_p / 2 - w t_p / 4 = w t_p / 4 past the wall;
    # across the band (2 theta_d) at w, twice a period, and two pulses of t_p each.
    amplitude = THETA_D + w * T_PULSE / 4.0
    period = 4.0 * THETA_D / w + 2.0 * T_PULSE
    lc = th.limit_cycle(J, T_AXIS, T_PULSE, THETA_D)
    assert lc["rate"] == pytest.approx(w, rel=1e-12)
    assert lc["amplitude"] == pytest.approx(amplitude, rel=1e-12)
    assert lc["period"] == pytest.approx(period, rel=1e-12)
    phi = np.radians(r["phi_deg"])
    dt = r["t"][1] - r["t"][0]
    # the rate turns between +-w only (the pulse a whole number of steps)
    assert np.max(r["wx"]) == pytest.approx(w, rel=1e-6) and np.min(r["wx"]) == pytest.approx(-w, rel=1e-6)
    # the amplitude, reached at both walls, within w dt (the wall is seen at the step after crossing it; the
    # overshoot past it, w t_p / 4 = 12.5 w dt here, is what is checked)
    assert np.max(phi) == pytest.approx(amplitude, abs=w * dt * 1.01)
    assert -np.min(phi) == pytest.approx(amplitude, abs=w * dt * 1.01)
    # the period: twice the time between zero crossings of the angle (the cycle is symmetric)
    crossings = r["t"][1:][np.sign(phi[:-1]) != np.sign(phi[1:])]
    assert len(crossings) >= 4
    assert 2.0 * np.diff(crossings) == pytest.approx(period, abs=4.0 * dt)  # each crossing seen within a step
    assert 2.0 * np.mean(np.diff(crossings)) == pytest.approx(period, abs=2.0 * dt)
    # the other axes stay at rest
    assert np.max(np.abs(r["wy"])) < 1e-12 and np.max(np.abs(r["wz"])) < 1e-12


@pytest.mark.jit_speed  # 30,000-80,000 single steps: over a minute as Python
def test_fuel_is_the_total_impulse_over_isp_g0():
    isp = 180.0
    r, w = _run_limit_cycle(duration=150.0, dt=0.005, isp=isp)
    # pulses counted from the rows: each turns the sign of the roll rate once
    pulses = int(np.sum(np.sign(r["wx"][1:]) * np.sign(r["wx"][:-1]) < 0.0))
    assert pulses == 4  # at 17.5, 52.5, 87.6 and 122.6 s
    impulse = pulses * 2 * F * T_PULSE  # a couple of two thrusters, each F for one period
    assert r["fuel_kg"][-1] == pytest.approx(impulse / (isp * G0), rel=1e-9)
    # while a pulse fires, exactly its couple is on, at full level, and the force is zero (a couple)
    on = np.array([r[f"thr_on{i}"] for i in range(1, 13)])
    firing = on.sum(axis=0) > 0
    assert set(np.unique(on.sum(axis=0))) <= {0.0, 2.0}
    assert np.all(np.abs(np.array([r["thr_fx"], r["thr_fy"], r["thr_fz"]])) < 1e-15)
    assert np.sum(firing) * (r["t"][1] - r["t"][0]) == pytest.approx(pulses * T_PULSE, rel=1e-9)


def test_pwpf_on_off_times_against_the_published_static_characteristic():
    """A constant command r (normalised to the thrusters' authority) through PWPF every step (Krovel 2005)."""
    km, tau, u_on, u_off, ratio = 4.5, 0.35, 0.45, 0.15, 0.5
    dt = 0.0005
    sim = Simulation(inertia=(J, J, J, 0.0, 0.0, 0.0), dt=dt, thrusters="cube", thruster_force=F,
                     thruster_modulation="pwpf", thruster_period=dt, pwpf_km=km, pwpf_tau=tau,
                     thruster_on=u_on, thruster_off=u_off, torque=(ratio * T_AXIS, 0.0, 0.0))
    on = []
    for _ in range(round(3.0 / dt)):
        sim.step(1)
        on.append(sim.snapshot().thrusters[0] > 0.0)
    on = np.array(on[round(0.5 / dt):])  # past the first pulse, which starts from a filter at zero
    edges = np.flatnonzero(np.diff(on.astype(int)))
    lengths = np.diff(edges) * dt
    first_on = bool(on[edges[0] + 1])
    t_on = lengths[0 if first_on else 1::2].mean()
    t_off = lengths[1 if first_on else 0::2].mean()
    h = u_on - u_off  # Krovel (2005), eqs. for the static characteristic with U_m = 1
    want_on = -tau * math.log(1.0 - h / (u_on - km * (ratio - 1.0)))
    want_off = -tau * math.log(1.0 - h / (km * ratio - u_on + h))
    assert t_on == pytest.approx(want_on, abs=2 * dt)
    assert t_off == pytest.approx(want_off, abs=2 * dt)
    assert t_on / (t_on + t_off) == pytest.approx(th.pwpf_static(ratio, km, tau, u_on, u_off, 1.0)[2], abs=0.02)


def test_pwpf_dead_zone_never_fires():
    km, u_on = 4.5, 0.45
    sim = Simulation(dt=0.01, thrusters="cube", thruster_modulation="pwpf", pwpf_km=km, thruster_on=u_on,
                     torque=(0.9 * u_on / km * T_AXIS, 0.0, 0.0), inertia=(J, J, J, 0.0, 0.0, 0.0))
    sim.step(2000)
    assert sim.snapshot().thrusters[-1] == 0.0 and sim.w == (0.0, 0.0, 0.0)


def _wheel_momentum(r, inertia):
    return np.linalg.norm(inertia * np.array([r["wheel1"], r["wheel2"], r["wheel3"]]), axis=0)


def test_unloading_drives_the_wheels_momentum_down():
    r = api.run("thruster_unloading", duration=60.0, every=20)
    h = _wheel_momentum(r, 0.05)
    k, a, u_off = 0.05, 0.5, 0.15  # the scenario's gain, the couples' authority (2 x 0.25 N x 1 m), U_off
    assert h[0] == pytest.approx(math.sqrt(10.0**2 + 7.5**2 + 5.0**2))
    # each axis stops firing below U_off a / k; the wheels end within that of zero on every axis
    assert h[-1] < math.sqrt(3.0) * u_off * a / k
    assert h[-1] < 0.25 * h[0]
    assert r["fuel_kg"][-1] > 0.0
    # the torque the thrusters make goes into the wheels: the total momentum falls by it (the body held)
    assert np.max(np.abs([r["psi_deg"][-1], r["theta_deg"][-1], r["phi_deg"][-1]])) < 0.1


def test_without_unloading_the_wheels_keep_their_momentum():
    base = api.run("thruster_unloading", duration=20.0, every=20)
    held = api.run("thruster_unloading", duration=20.0, every=20, thruster_unloading=1e-9)
    assert _wheel_momentum(held, 0.05)[-1] == pytest.approx(_wheel_momentum(base, 0.05)[0], rel=1e-3)
    assert held["fuel_kg"][-1] == 0.0


def test_the_minimum_impulse_bit_suppresses_pulses_below_it():
    common = dict(inertia=(J, J, J, 0.0, 0.0, 0.0), dt=0.01, rates=(0.001, 0.0, 0.0), thrusters="cube",
                  thruster_modulation="deadband", thruster_period=T_PULSE)
    fired = Simulation(**common, thruster_impulse_bit=0.99 * F * T_PULSE)
    fired.step(3000)
    assert fired.snapshot().thrusters[-1] > 0.0
    blocked = Simulation(**common, thruster_impulse_bit=1.01 * F * T_PULSE)
    blocked.step(3000)
    assert blocked.snapshot().thrusters[-1] == 0.0 and blocked.w[0] == pytest.approx(0.001)


def test_thrusters_fly_the_controller_and_hold_a_command():
    """PWPF on the quaternion controller: the slew ends within the dead zone's error of the command."""
    r = api.run("pwpf_slew", every=50)
    assert r["psi_deg"][-1] == pytest.approx(30.0, abs=1.0)
    assert abs(r["wz"][-1]) < 1e-9  # at rest: no firing inside the dead zone
    # the torque applied is the thrusters' alone: a whole number of couples (1 N m each) at every row
    assert np.all(np.isin(np.round(np.abs(r["tz"]), 12), [0.0, 1.0]))


def test_fuel_and_firings_start_again_at_reset():
    sim = Simulation(load_scenario_settings("pwpf_slew"))
    sim.step(500)
    assert sim.snapshot().thrusters[-1] > 0.0
    sim.reset()
    assert sim.snapshot().thrusters[-1] == 0.0 and not any(sim.snapshot().thrusters[:12])
    sim.step(500)
    burnt = sim.snapshot().thrusters[-1]
    sim.set("thruster_isp", 300.0)  # a new drive mid-run carries on the fuel used
    assert sim.snapshot().thrusters[-1] == burnt
    sim.step(500)
    assert sim.snapshot().thrusters[-1] > burnt


def load_scenario_settings(name):
    from sim.run.scenario import load
    return load(name).settings


@pytest.mark.parametrize("changes, fragment", [
    (dict(thrusters="cube", thruster_off=0.45), "thruster_off: 0.45 is not below thruster_on"),
    (dict(thrusters="cube", wheels="orthogonal"), "thruster_unloading: with reaction wheels"),
    (dict(thrusters="cube", thruster_unloading=0.1), "thruster_unloading: unloads the momentum"),
    (dict(thrusters="cube", wheels="orthogonal", thruster_unloading=0.1, thruster_modulation="deadband"),
     "thruster_modulation: deadband"),
    (dict(thrusters="cube", thruster_period=0.0005, dt=0.001), "thruster_period: 0.0005 s is shorter"),
    (dict(thrusters=((0.0, 1.0, 0.0), (0.0, -1.0, 0.0)), thruster_directions=((0.0, 0.0, 1.0), (0.0, 0.0, -1.0))),
     "thrusters: no firing makes torque about -x, +y, -y, +z, -z"),
    (dict(thrusters=((0.0, 1.0, 0.0),)), "thruster_directions: give one direction"),
    (dict(thrusters=((0.0, 1.0, 0.0),) * 2, thruster_directions=((0.0, 0.0, 1.0),)), "2 thrusters"),
    (dict(thrusters="cube", thruster_force=(1.0, 2.0)), "thruster_force: 2 values for 12"),
])
def test_combinations_refused_in_one_line(changes, fragment):
    with pytest.raises(SettingsError) as info:
        Settings(**changes)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_a_set_that_serves_only_the_controllers_axes_is_accepted():
    """Two couples about x only: accepted when the controller drives x alone (axes), refused otherwise."""
    pos = ((0.0, 1.0, 0.0), (0.0, -1.0, 0.0), (0.0, 1.0, 0.0), (0.0, -1.0, 0.0))
    dirs = ((0.0, 0.0, 1.0), (0.0, 0.0, -1.0), (0.0, 0.0, -1.0), (0.0, 0.0, 1.0))
    with pytest.raises(SettingsError, match="no firing makes torque about"):
        Settings(thrusters=pos, thruster_directions=dirs)
    s = Settings(thrusters=pos, thruster_directions=dirs, axes=(True, False, False), inertia=(J, J, J, 0, 0, 0))
    sim = Simulation(s, torque=(1.0, 0.0, 0.0))
    sim.step(200)
    assert sim.w[0] > 0.0 and sim.w[1] == 0.0 and sim.w[2] == 0.0


def test_the_cubes_couples_are_pure_torques():
    pos, dirs = th.cube_layout(1.0)
    torques = np.cross(pos, dirs)  # numpy's cross product: the torque of each unit thruster about the centre
    for k in range(3):
        for j, sign in enumerate((1.0, -1.0)):
            pair = slice(4 * k + 2 * j, 4 * k + 2 * j + 2)
            e = np.zeros(3)
            e[k] = 2.0 * sign
            assert torques[pair].sum(axis=0) == pytest.approx(e)
            assert dirs[pair].sum(axis=0) == pytest.approx(np.zeros(3))


def test_the_deadband_error_follows_the_attitude_sign():
    """A body rolled past the band and moving out is pushed back (the error angle's sign is the attitude's);
    the band is about the command (which starts at the initial attitude: here commanded to zero)."""
    q = tuple(float(x) for x in from_aircraft_angles(0.0, 0.0, math.radians(2.0)))
    assert q[0] < 0.0  # Hoffmann: a rotation by a about n is cos(a/2) - n sin(a/2)
    sim = Simulation(inertia=(J, J, J, 0.0, 0.0, 0.0), dt=0.01, angles_deg=(0.0, 0.0, 2.0), rates=(1e-4, 0.0, 0.0),
                     thrusters="cube", thruster_modulation="deadband", command_deg=(0.0, 0.0, 0.0), slerp_time=0.0)
    sim.step(1)
    assert sim.snapshot().torque[0] == pytest.approx(-T_AXIS)


def test_the_drive_kernel_fires_the_dead_bands_couple_against_an_attitude_error():
    """:func:`drive_kernel` (the compiled step of :meth:`ThrusterDrive.step`; with the JIT off its Python text),
    called on a cube of thrusters in dead-band mode with the body 10 deg about +x from its command and at rest:
    it fires, and the torque it holds is the firing thrusters' ``sum r x F`` (levels times force along each
    direction), about -x only, the same bits as :func:`drive_step`."""
    from sim.model.thruster_drive import X, drive_kernel, drive_step

    sim = Simulation(thrusters="cube", thruster_modulation="deadband", controller="quaternion", dampers_on=False)
    x0, c, groups, pos, dirs, force, impulse_bit = sim._thr.arrays
    half = math.radians(10.0) / 2
    q, qc = (-math.sin(half), 0.0, 0.0, math.cos(half)), (0.0, 0.0, 0.0, 1.0)   # Hoffmann's Q: scipy's conjugate
    x = x0.copy()
    drive_kernel(x, c, q, qc, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), groups, pos, dirs, force, impulse_bit)
    head = X["force"][0] + 3
    levels = x[head:head + len(force)]
    assert levels.max() > 0.0  # beyond the 1 deg dead band: thrusters fire
    couple = np.sum(levels[:, None] * np.cross(pos, dirs * np.asarray(force)[:, None]), axis=0)
    t0, t1 = X["torque"][0], X["torque"][0] + 3
    np.testing.assert_allclose(x[t0:t1], couple, rtol=1e-15, atol=1e-15)
    assert x[t0] < 0.0 and x[t0 + 1] == 0.0 and x[t0 + 2] == 0.0  # against the error, about x alone
    y = x0.copy()
    drive_step(y, c, q, qc, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), groups, pos, dirs, force, impulse_bit)
    assert np.array_equal(x.view(np.uint64), y.view(np.uint64))
