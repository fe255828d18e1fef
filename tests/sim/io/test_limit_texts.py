"""The words a user reads about a limit (sim/io/limits.py, sim/io/limits_actuators.py, sim/io/numbers.py)."""

from sim.io.limits import Limit
from sim.io.limits_actuators import actuator_limits
from sim.io.numbers import short_repr


def test_a_range_without_a_unit_is_described_by_its_numbers_alone():
    assert Limit("n", 1, 10_000_000, integer=True).describe() == "1 to 10,000,000"
    assert Limit("f", 0.0, 2.5, low_open=True).describe() == "above 0, at most 2.5"
    assert Limit("g", 0.5, 2.5).describe() == "0.5 to 2.5"


def test_the_wheel_torque_limit_is_in_newton_metres():
    made = {entry.key: entry for entry in actuator_limits(Limit, 1e6)}
    assert made["wheel_torque_limit"].unit == "N m"
    assert made["wheel_torque_limit"].describe() == "above 0, at most 1e+06 N m"


def test_a_long_value_is_cut_to_the_most_characters_ending_in_dots():
    text = short_repr("x" * 100, most=20)
    assert text == "'" + "x" * 16 + "..."
    assert len(text) == 20
    assert short_repr("abc", most=20) == "'abc'"
