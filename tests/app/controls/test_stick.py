"""The gamepad's mapping (app.controls.stick), without SDL: the dead zone, the expo curve, which axis flies what."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.controls.stick import StickMapping, axis_value, dead_zone, expo, shape

unit = st.floats(-1.0, 1.0)


def test_sdl_readings_span_minus_one_to_one():
    assert (axis_value(-32768), axis_value(0), axis_value(32767), axis_value(16384)) == (-1.0, 0.0, 1.0,
                                                                                          16384 / 32767)


@given(unit, st.floats(0.0, 0.9))
def test_the_dead_zone_is_odd_continuous_and_reaches_full_deflection(x, zone):
    y = dead_zone(x, zone)
    assert dead_zone(-x, zone) == -y
    if abs(x) <= zone:
        assert y == 0.0
    else:
        assert y == pytest.approx(math.copysign((abs(x) - zone) / (1 - zone), x))
    assert dead_zone(1.0, zone) == 1.0 and abs(dead_zone(zone + 1e-12, zone)) < 1e-9  # no jump at the edge


@given(unit, st.floats(0.0, 1.0))
def test_expo_is_odd_monotonic_and_fixes_the_ends(x, e):
    assert expo(-x, e) == -expo(x, e)
    assert expo(1.0, e) == pytest.approx(1.0) and expo(0.0, e) == 0.0
    h = 1e-6
    assert (expo(x + h, e) - expo(x, e)) / h >= -1e-9               # never turns back (e <= 1)
    assert (expo(h, e) - expo(0.0, e)) / h == pytest.approx(1.0 - e, abs=1e-6)  # finer near the centre


def test_the_default_mapping_flies_as_the_keys_do():
    """Body axes x nose, y right wing, z down: stick right rolls right (+x), stick pulled back (SDL's y grows
    downwards) lifts the nose (+y), the right trigger turns the nose right (+z), the left one left."""
    m = StickMapping(zone=0.0, curve=0.0)
    assert m.torque({"leftx": 0.5}, 10.0) == (5.0, 0.0, 0.0)
    assert m.torque({"lefty": 1.0}, 10.0) == (0.0, 10.0, 0.0)
    assert m.torque({"righttrigger": 1.0, "lefttrigger": 0.25}, 10.0) == (0.0, 0.0, 7.5)
    assert m.torque({"lefttrigger": 1.0}, 10.0) == (0.0, 0.0, -10.0)
    assert m.torque({}, 10.0) == (0.0, 0.0, 0.0)


def test_remapped_inverted_shaped_and_command_mode():
    m = StickMapping(sources=("rightx", "none", "leftx"), signs=(-1.0, 1.0, 1.0), zone=0.2, curve=0.5,
                     mode="command", command_deg=40.0)
    axes = {"rightx": 0.6, "leftx": -1.0, "lefty": 1.0}
    roll = -shape(0.6, 0.2, 0.5)
    assert m.fractions(axes) == (roll, 0.0, -1.0)
    assert m.command(axes) == (-40.0, 0.0, 40.0 * roll)              # psi from yaw, theta from pitch, phi from roll
    assert m.fractions({"rightx": 0.15}) == (0.0, 0.0, 0.0)          # inside the dead zone


@pytest.mark.parametrize("changes", [{"sources": ("leftx", "lefty")}, {"sources": ("leftx", "lefty", "wheel")},
                                     {"signs": (1.0, 2.0, 1.0)}, {"zone": 1.0}, {"zone": -0.1}, {"curve": 1.5},
                                     {"mode": "rates"}, {"command_deg": 0.0}])
def test_a_bad_mapping_is_refused(changes):
    with pytest.raises(ValueError):
        StickMapping(**changes)
