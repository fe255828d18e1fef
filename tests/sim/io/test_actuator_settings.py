"""CMG clusters and thrusters as a user gives them (sim/model/actuator_settings.py): bad values refused in one line."""

import dataclasses
import math

import numpy as np
import pytest

from sim.io.limits import Limit, SettingsError
from sim.io.limits_actuators import actuator_limits
from sim.model.actuator_settings import cmg_cluster, thruster_set
from sim.model.settings import Settings


def refused(match, fn, *args, **kwargs):
    with pytest.raises(SettingsError, match=match) as info:
        fn(*args, **kwargs)
    assert "\n" not in str(info.value)
    return str(info.value)


def test_the_default_pyramid_is_accepted():
    c = cmg_cluster(2.5)
    assert c.g.shape == (4, 3) and c.h0 == 2.5
    np.testing.assert_array_equal(c.delta0, np.zeros(4))


@pytest.mark.parametrize("h0", [0.0, -1.0, "nan", None, True])
def test_zero_or_bad_h0_is_refused(h0):
    refused("cmg_h0", cmg_cluster, h0)


def test_a_singular_design_is_refused():
    # the pyramid at (90, 0, -90, 0) deg is singular about x (Wie, ch. 7)
    msg = refused("singular at its design angles", cmg_cluster, 1.0, angles=(90, 0, -90, 0))
    assert "(1.000, 0.000, 0.000)" in msg or "(-1.000, 0.000, 0.000)" in msg.replace("-0.000", "0.000")
    # four gimbals on parallel axes: the cluster never makes torque along them, whatever the angles
    g = [(0, 0, 1)] * 4
    s = [(1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0)]
    msg = refused("singular", cmg_cluster, 1.0, g, s, angles=(10, 20, 30, 40))
    assert "0.000, 0.000, 1.000" in msg.replace("-", "")
    # the same cluster with the gimbals at other angles than singular ones is fine
    assert cmg_cluster(1.0, angles=(10, 20, 30, 40)).delta0[0] == pytest.approx(math.radians(10))


def test_axes_that_are_not_axes_are_refused():
    refused("perpendicular", cmg_cluster, 1.0, [(1, 0, 0), (0, 1, 0), (0, 0, 1)], [(1, 0, 0), (0, 0, 1), (1, 0, 0)])
    refused("zero", cmg_cluster, 1.0, [(0, 0, 0), (0, 1, 0), (0, 0, 1)], [(0, 1, 0), (0, 0, 1), (1, 0, 0)])
    refused("3 or more", cmg_cluster, 1.0, [(1, 0, 0), (0, 1, 0)], [(0, 1, 0), (0, 0, 1)])
    refused("cmg_skew", cmg_cluster, 1.0, skew_deg=90.0)
    refused("cmg_angles", cmg_cluster, 1.0, angles=(1, 2, 3))


def _twelve(drop=()):
    pos, dirs = [], []
    for k in range(3):
        a, b = (k + 1) % 3, (k + 2) % 3
        for sense in (1.0, -1.0):
            for side in (1.0, -1.0):
                r, d = np.zeros(3), np.zeros(3)
                r[a], d[b] = side * 0.8, sense * side
                pos.append(r)
                dirs.append(d)
    keep = [i for i in range(12) if i not in drop]
    return np.array(pos)[keep], np.array(dirs)[keep]


def test_thrusters_accepted_and_refused():
    pos, dirs = _twelve()
    t = thruster_set(pos, dirs, 1.0, 220.0, 0.01)
    assert t.force.shape == (12,)
    pos, dirs = _twelve(drop=(10, 11))                   # the couple about -z taken away
    refused(r"about -z", thruster_set, pos, dirs, 1.0, 220.0)
    assert thruster_set(pos, dirs, 1.0, 220.0, needed="+x -x +y -y +z").force.shape == (10,)
    pos, dirs = _twelve()
    refused("thruster_force", thruster_set, pos, dirs, 0.0, 220.0)
    refused("thruster_isp", thruster_set, pos, dirs, 1.0, [220.0] * 11)
    refused("thruster_impulse_bit", thruster_set, pos, dirs, 1.0, 220.0, -0.1)
    refused("thruster_positions", thruster_set, pos[:5], dirs, 1.0, 220.0)


# Named by the validators per item, not fields: a wheel or thruster count, one wheel axis, one thruster position.
_PER_ITEM_KEYS = {"wheel_count", "wheel_axis", "thruster_count", "thruster_position"}


def test_each_actuator_limit_is_named_as_the_user_names_its_setting():
    # the table of sim.io.limits takes these entries by key; a key a user never types checks nothing
    made = actuator_limits(Limit, 1e6)
    keys = [lim.key for lim in made]
    assert len(set(keys)) == len(keys)
    settings = {f.name for f in dataclasses.fields(Settings)}
    assert set(keys) - settings == _PER_ITEM_KEYS
    assert {"cmg_h0", "cmg_angles", "thruster_on", "thruster_off", "wheel_speeds"} <= set(keys)
    by_key = {lim.key: lim for lim in made}
    # a gimbal angle refused beyond a full turn, a trigger's off threshold of 0 accepted: refusals name the setting
    assert by_key["cmg_angles"].check(-360.0) == -360.0
    assert refused("^cmg_angles: 361 is too large", by_key["cmg_angles"].check, 361.0)
    assert by_key["thruster_off"].check(0.0) == 0.0
    assert refused("^thruster_off: -0.1 must be >= 0", by_key["thruster_off"].check, -0.1)


def test_each_actuator_limit_is_a_closed_range_of_finite_numbers_its_ends_accepted_beyond_refused():
    # LIMITS is made at import; its actuators' entries are made again here, so that a mutant of them is met
    for lim in actuator_limits(Limit, 1e6):
        assert math.isfinite(lim.low) and math.isfinite(lim.high) and lim.low < lim.high, lim.key
        step = max(1.0, abs(lim.high)) * 1e-9 if not lim.integer else 1
        assert lim.number(lim.high) == lim.high
        refused(f"^{lim.key}: .*(too large|at most|in \\[)", lim.number, lim.high + step)
        if lim.low_open:
            refused(f"^{lim.key}: .* must be > ", lim.number, lim.low)
        else:
            assert lim.number(lim.low) == lim.low
        refused(f"^{lim.key}: ", lim.number, lim.low - (max(1.0, abs(lim.low)) * 1e-9 if not lim.integer else 1))


def test_each_actuator_unit_measures_its_physical_quantity():
    """The unit a user reads in a refusal, parsed by astropy, has the dimension of what the setting is."""
    u = pytest.importorskip("astropy.units")
    quantity = {  # the physics of each setting, written here
        "wheel_inertia": u.kg * u.m**2, "wheel_torque_limit": u.N * u.m, "wheel_speed_limit": u.rad / u.s,
        "wheel_friction": u.N * u.m * u.s, "wheel_speeds": u.rad / u.s, "wheel_torques": u.N * u.m,
        "cmg_h0": u.N * u.m * u.s, "cmg_skew": u.deg, "cmg_null_gain": u.rad / u.s, "cmg_dither_rate": u.rad / u.s,
        "cmg_rate_limit": u.rad / u.s, "cmg_angles": u.deg, "thruster_position": u.m, "thruster_force": u.N,
        "thruster_isp": u.s, "thruster_impulse_bit": u.N * u.s, "thruster_period": u.s, "pwpf_tau": u.s,
        "thruster_deadband_deg": u.deg, "thruster_unloading": u.s**-1,
    }
    made = {lim.key: lim for lim in actuator_limits(Limit, 1e6)}
    for key, lim in made.items():
        if key not in quantity:  # a count, an axis, a gain or a threshold of a normalised command: no unit
            assert lim.unit == "", key
            continue
        unit = u.Unit(lim.unit, format="generic")
        assert unit.is_equivalent(quantity[key]), key
