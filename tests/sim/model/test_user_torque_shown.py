"""A refused user torque's message shows what the function returned as Python writes it (repr),
whole up to 80 characters and cut to 77 and "..." beyond (sim.model.loads), so that a 10,000-value
array names itself without flooding the terminal."""

import pytest

from sim import api
from sim.model.loads import UserTorqueError


def _got(value) -> str:
    """What the message shows after "got ", up to the reason in parentheses."""
    with pytest.raises(UserTorqueError) as info:
        api.run("default", duration=0.01, user_torque=lambda t, q, w: value)
    return str(info.value).partition(" got ")[2].rpartition(" (")[0]


@pytest.mark.parametrize("length", [3, 79, 80])
def test_a_value_up_to_80_characters_is_shown_whole(length):
    text = "x" * (length - 2)  # repr adds the two quotes
    assert _got(text) == repr(text) and len(_got(text)) == length


@pytest.mark.parametrize("length", [81, 82, 500])
def test_a_longer_value_shows_its_first_77_characters_and_an_ellipsis(length):
    text = "x" * (length - 2)
    assert _got(text) == "'" + "x" * 76 + "..."


def test_a_long_list_shows_its_first_values():
    assert _got(list(range(60))) == repr(list(range(60)))[:77] + "..."
