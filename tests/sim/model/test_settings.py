"""Settings (sim.model.settings): the record refuses every bad value at construction, not later.

Issue 12: ``Settings(dt=-1, integrator="bogus")`` used to be accepted and to
fail later with a bare KeyError.  Every field is checked here with values of
each hostile class: wrong type, NaN and infinities, denormals, tiny and huge
magnitudes, wrong counts, unknown names.
"""

import math

import pytest

from sim.core.body import MAX_MOMENT, MIN_MOMENT
from sim.model.settings import KEYS, MIN_DT, Settings, SettingsError
from sim.model.simulation import Simulation

NUMBERS = [None, True, "abc", "", math.nan, math.inf, -math.inf, 1e999, [1.0], "1,,2"]
VECTORS = [None, 1.0, "abc", (1.0, 2.0), (1.0, 2.0, 3.0, 4.0), (1.0, math.nan, 0.0),
           (math.inf, 0.0, 0.0), ("a", "b", "c"), (True, 0.0, 0.0), (1e300, 0.0, 0.0)]
NAMES = [None, 3, "bogus", "", "HALF-QUAT", ("half-quat",)]
FLAGS = [None, 1, 0, "true", "yes", 1.0]

BAD = {
    "inertia": [1.0, (1.0, 1.0, 1.0), (1.0, 1.0, 1.0, 2.0, 0.0, 0.0),   # not positive definite
                (1.0, 1.0, 5.0, 0.0, 0.0, 0.0),                               # triangle inequality
                (1e-300,) * 3 + (0.0,) * 3, (1e300,) * 3 + (0.0,) * 3,
                (5e-324,) * 3 + (0.0,) * 3, (1e-9,) * 3 + (0.0,) * 3, (2e12,) * 3 + (0.0,) * 3,
                (1.0, 1.0, 1.0, 1e300, 0.0, 0.0), (1.0, math.nan, 1.0, 0.0, 0.0, 0.0),
                (1.0, 1.0, 1.0, 0.0, 0.0, math.inf)],
    "body": [None, 3, "", "no_such_body", "AIRCRAFT", ("aircraft",), "/dev/zero", "/no/such/mesh.stl"],
    "mass": [True, "abc", "", math.nan, math.inf, -math.inf, 1e999, 0.0, -1.0, -5e-324, 1e300],
    "mesh_units": NAMES + ["MM", "km", "metres", 0.001],
    "integrator": NAMES,
    "full_quat_form": NAMES,
    "norm": NAMES,
    "dt": NUMBERS + [-1.0, 0.0, -0.0, 5e-324, 1e-320, 1e-300, 1e-10, 1.0000001, 1e300],
    "angles_deg": VECTORS + [(1e5, 0.0, 0.0)],
    "rates": VECTORS + [(0.0, -1e5, 0.0)],
    "torque": VECTORS + [(0.0, 0.0, 1e7)],
    "dampers_on": FLAGS,
    "dampers": VECTORS + [(-1.0, 0.0, 0.0), (0.0, 0.0, -5e-324)],
    "controller": NAMES + ["pid"],
    "gains": VECTORS + [(-1e-300, 0.0, 0.0)],
    "axes": [None, True, (True, True), (1, 0, 1), ("true", True, True), (True, True, True, True)],
    "shortest_path": FLAGS,
    "limiter_on": FLAGS,
    "limits": VECTORS + [(0.0, 1.0, 1.0), (-1.0, 1.0, 1.0)],
    "slerp_time": NUMBERS + [-1.0, -5e-324, 1e7],
    "command_deg": [1.0, "abc", (1.0, 2.0), (math.nan, 0.0, 0.0), (1e5, 0.0, 0.0)],
    "wheels": [3, "bogus", "", "PYRAMID", (1.0, 0.0, 0.0), ((0.0, 0.0, 0.0),), ((1.0, 0.0),),
               ((math.nan, 0.0, 1.0),), ((math.inf, 0.0, 0.0),), ((1e300, 0.0, 0.0),), "1,0,0;0,1",
               "1,0,0;0,0,0", ((1.0, 0.0, 0.0),) * 33, (), "1,a,0"],
    "wheel_inertia": NUMBERS[:-2] + [0.0, -0.01, 1e-9, 1e13, "0.1,abc", (0.1, math.nan), (0.1,) * 33],
    "wheel_torque_limit": NUMBERS[:-2] + [0.0, -1.0, 1e7, (1.0, 0.0)],
    "wheel_speed_limit": NUMBERS[:-2] + [0.0, -600.0, 1e6, (600.0, -1.0)],
    "wheel_friction": NUMBERS[:-2] + [-1e-3, 1e7, (0.0, -1.0)],
    "wheel_speeds": [True, "abc", math.nan, (0.0, math.inf), (1e6, 0.0), ("a",), (0.0,) * 33, ()],
    "wheel_torques": [True, "abc", math.nan, (0.0, -math.inf), (1e7,), (None,), ()],
    # issue 45: a pyramid needs rk4 (the default integrator is half-quat); the rest each on its own
    "cmg": NAMES + ["PYRAMID", "pyramid", "orthogonal"],
    "cmg_h0": NUMBERS + [0.0, -1.0, 1e6],
    "cmg_skew": NUMBERS + [0.0, 90.0, -54.7],
    "cmg_law": NAMES + ["MP", "moore_penrose", "pinv"],
    "cmg_lambda0": NUMBERS + [-0.01, 2.0],
    "cmg_mu": NUMBERS + [-1.0, 1e4],
    "cmg_null_gain": NUMBERS + [-0.1, 1e4],
    "cmg_dither": NUMBERS + [-0.1, 0.5],
    "cmg_dither_rate": NUMBERS + [-1.0, 1e4],
    "cmg_rate_limit": NUMBERS + [0.0, -1.0, 1e3],
    "cmg_angles": [True, "abc", (math.nan,), (0.0, 400.0), ("a", 0.0), (0.0, math.inf)],
    "gravity_gradient": FLAGS,
    "altitude_km": NUMBERS + [-500.0, 0.0, 99.9, 1e7],
    "disturbance": VECTORS + [(2e6, 0.0, 0.0)],
    "disturbance_axes": NAMES + ["orbit"],
    "disturbance_period": NUMBERS + [-1.0, 2e7],
    "epoch": [None, 3, "", "bogus", "1949-12-31T23:59:59Z", "2051-01-01", "2024-13-01"],
    "orbit": [1.0, "abc", (500.0, 0.0, 0.0), (500.0, 1.0, 0, 0, 0, 0), (500.0, -0.1, 0, 0, 0, 0),
              (500.0, 0.2, 0, 0, 0, 0), (50.0, 0.0, 0, 0, 0, 0), (500.0, math.nan, 0, 0, 0, 0),
              (500.0, 0.0, 400.0, 0, 0, 0)],
    "tle": [3, "", "1 25544U\n2 25544", "hello\nworld"],
    "j2": FLAGS,
    "pointing": NAMES + ["nadir", "sun", "target", "velocity"],   # all but inertial need an orbit
    "target": [None, "abc", (1.0,), (91.0, 0.0), (0.0, 400.0), (0.0, 0.0, 500.0), (0.0, 0.0, 0.0, 0.0)],
    "pointing_axis": VECTORS + [(0.0, 0.0, 0.0)],
    # issue 32: each of these also needs an orbit, a field or rods, which a bare Settings lacks
    "magnetic_field": NAMES + ["IGRF", "igrf", "dipole"],
    "magnetorquers": NUMBERS[:-2] + [-0.1, 2e4, 0.2],
    "magnetorquer_axes": [3, "abc", ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0)), ((1.0, 0.0, 0.0),) * 3,
                          ((1.0, 0.0), (0.0, 1.0), (0.0, 0.0)), ((math.nan, 0.0, 1.0),) * 3, "1,0,0;0,1,0;1,0,0"],
    "residual_dipole": VECTORS + [(2e4, 0.0, 0.0), (0.01, 0.0, 0.0)],
    "bdot_law": NAMES + ["on", "proportional", "bang-bang"],
    "bdot_gain": NUMBERS + [0.0, -1.0, 1e13],
    "bdot_period": NUMBERS + [0.0, -1.0, 1e-4, 1e4],
    "dumping_gain": NUMBERS + [-0.1, 2.0, 0.01],
    "srp": FLAGS + [True],
    "drag": FLAGS + [True],
    "surfaces": [3, "", "/no/such/surfaces.toml", "/dev/null/x.toml"],
    "center_of_mass": VECTORS[1:] + [(2e3, 0.0, 0.0)],  # None: the body's own
    "atmosphere": NAMES + ["MSIS", "jacchia"],
    # issue 33: an estimator needs its sensors, the sensors of vectors an orbit (the default has none)
    "estimator": NAMES + ["triad", "quest", "mekf", "ekf"],
    "gyro": [1.0, "abc", (1e-5,), (0.0, 0.0), (-1e-5, 0.0), (1e-5, -1.0), (1e-5, 0.0, 1.0), (1e-5, 0.0, 0.0, 0.0),
             (math.nan, 0.0)],
    "star_tracker": [1.0, "abc", (5.0,), (0.0, 10.0), (5.0, 0.0), (5.0, -1.0), (5.0, 10.0, 1.0), (1e4, 10.0)],
    "sun_sensors": FLAGS + [True],
    "magnetometer": [True, "abc", 0.0, -1e-7, 1.0, math.nan],
    "fly_on": NAMES + ["estimate"],
    "sensor_seed": [True, "abc", -1, 1.5, 2**63],
    "filter_gyro": [1.0, (0.0, 0.0), (1e-5, 0.0, 0.0), (1e-5, -1.0)],
    # issue 45: the thrusters' own checks (their combinations: tests/sim/model/test_thruster_drive.py)
    "thrusters": [3, "bogus", "", "CUBE", (1.0, 0.0, 0.0), ((math.nan, 0.0, 1.0),), ((1e4, 0.0, 0.0),),
                  ((0.0, 0.0, 1.0),) * 65, "1,a,0", ()],
    "thruster_directions": [3, "abc", ((0.0, 0.0, 0.0),), ((math.nan, 0.0, 1.0),), (1.0, 0.0, 0.0), ()],
    "thruster_force": NUMBERS[:-2] + [0.0, -1.0, 1e5, (1.0, 0.0), "1,abc"],
    "thruster_isp": NUMBERS[:-2] + [0.0, -220.0, 1e5, (220.0, -1.0)],
    "thruster_impulse_bit": NUMBERS[:-2] + [-1e-3, 1e4, (0.0, -1.0)],
    "thruster_modulation": NAMES + ["SCHMITT", "pwm"],
    "thruster_period": NUMBERS + [0.0, -0.1, 1e3],
    "thruster_on": NUMBERS + [0.0, -0.5, 11.0],
    "thruster_off": NUMBERS + [-0.1, 11.0],
    "pwpf_km": NUMBERS + [0.0, -1.0, 1e3],
    "pwpf_tau": NUMBERS + [0.0, -1.0, 1e3],
    "thruster_deadband_deg": NUMBERS + [0.0, -1.0, 91.0],
    "thruster_unloading": NUMBERS + [-0.1, 2.0],
}
CASES = [(key, value) for key in KEYS for value in BAD[key]]


def test_every_field_has_bad_cases():
    assert set(BAD) == set(KEYS)


@pytest.mark.parametrize("key, value", CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(CASES)])
def test_settings_refuses_bad_value_at_construction(key, value):
    with pytest.raises(SettingsError) as info:
        Settings(**{key: value})
    assert str(info.value).startswith(key), "the message names the setting first"
    with pytest.raises(SettingsError):
        Settings().replace(**{key: value})


def test_settings_bogus_integrator_and_negative_dt_never_keyerror():
    # the exact case of issue 12
    with pytest.raises(SettingsError, match="unknown value 'bogus'"):  # the first bad field named
        Settings(dt=-1, integrator="bogus")
    with pytest.raises(SettingsError, match="dt: -1 must be > 0"):
        Settings(dt=-1)
    with pytest.raises(SettingsError, match="unknown value 'bogus'"):
        Settings(integrator="bogus")


def test_settings_unknown_field_in_replace():
    with pytest.raises(SettingsError, match="unknown setting 'bogus'"):
        Settings().replace(bogus=1)


def test_settings_normalises_at_construction():
    s = Settings(rates=[1, 2, 3], dt="0.01", inertia=[1, 2, 2.5, 0, 0, 0], command_deg=[0, 30, 0])
    assert s.rates == (1.0, 2.0, 3.0) and all(type(x) is float for x in s.rates)
    assert s.dt == 0.01
    assert s.inertia == (1.0, 2.0, 2.5, 0.0, 0.0, 0.0)
    assert s.command_deg == (0.0, 30.0, 0.0)


@pytest.mark.parametrize("dt", [MIN_DT, 1e-6, 1.0])
def test_dt_range_boundaries_accepted(dt):
    assert Settings(dt=dt).dt == dt


@pytest.mark.parametrize("moment", [MIN_MOMENT, MAX_MOMENT])
def test_inertia_range_boundaries_accepted_and_run(moment):
    # a sphere at either end of the range: torque-free spin keeps its rate exactly
    s = Settings(inertia=(moment,) * 3 + (0.0,) * 3, rates=(0.0, 0.0, 1.0), dampers_on=False)
    sim = Simulation(s)
    sim.step(100)
    assert sim.snapshot().w == pytest.approx((0.0, 0.0, 1.0), abs=1e-12)


def test_inertia_message_gives_the_reason():
    with pytest.raises(SettingsError, match=r"outside the physical range.*\[1e-08, 1e\+12\]"):
        Settings(inertia=(1e-300,) * 3 + (0.0,) * 3)
    with pytest.raises(SettingsError, match=r"Jxx=1e\+300 kg m\^2 is beyond the physical range"):
        Settings(inertia=(1e300,) * 3 + (0.0,) * 3)


def test_denormal_dt_message_states_the_minimum():
    with pytest.raises(SettingsError, match=r"below the smallest step 1e-09 s"):
        Settings(dt=1e-320)


@pytest.mark.parametrize("pointing, controller", [("nadir", "quaternion"), ("inertial", "quaternion"),
                                                  ("inertial", "euler"), ("inertial", "none")])
def test_command_followed_says_whether_the_command_angles_move_the_body(pointing, controller):
    """The window disables the command angles by it: the oracle is the run itself, with and without a command
    dragged after 10 s (the same steps otherwise)."""
    import dataclasses

    import numpy as np

    from sim.model.controls import Control
    from sim.run.scenario import load

    settings = dataclasses.replace(load("nadir_pointing").settings, pointing=pointing, controller=controller)
    ends = []
    for command in (None, (0.0, 30.0, 0.0)):
        sim = Simulation(settings)
        for _ in range(100):
            sim.step()
        if command is not None:
            sim.apply(Control("command_deg", command))
        for _ in range(300):
            sim.step()
        ends.append(np.array(sim.q))
    moved = float(np.max(np.abs(ends[0] - ends[1]))) > 1e-6
    assert settings.command_followed == moved
