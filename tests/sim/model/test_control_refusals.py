"""Controls refused with a message that says what is wrong: an unknown key lists the controls there are;
wheel torques that do not fit the body's wheels (one per wheel) are refused by Simulation.set."""

import pytest

from sim.model.controls import CONTROLS, Control
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation


def test_an_unknown_control_lists_the_controls_there_are():
    with pytest.raises(SettingsError) as caught:
        Control("thrust", 1.0)
    text = str(caught.value)
    assert "'thrust'" in text
    listed = text.split("controls: ", 1)[1].rstrip(")").split(", ")
    assert sorted(listed) == sorted(CONTROLS)


@pytest.mark.parametrize("wheels, count", [("pyramid", 4), ("orthogonal", 3)])
def test_wheel_torques_must_be_one_per_wheel(wheels, count):
    sim = Simulation(Settings(wheels=wheels))
    wrong = (0.001,) * (count + 1)
    with pytest.raises(SettingsError) as caught:
        sim.set("wheel_torques", wrong)
    text = str(caught.value)
    assert "wheel_torques" in text and f"{count} wheels" in text
    sim.set("wheel_torques", (0.001,) * count)  # one per wheel: taken
    assert sim.settings.wheel_torques == pytest.approx((0.001,) * count)
