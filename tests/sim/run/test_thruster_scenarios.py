"""Thrusters in scenario files (issue 45): positions and directions given in TOML load, write back the same
settings, and a list that does not fit the thrusters is refused naming its line; an event cannot change the
number of thrusters (each has a column)."""

import pytest

from sim.run.scenario import ScenarioError, loads
from sim.run.scenario_toml import dumps

TEXT = """[scenario]
title = "two couples about x"
duration = 1.0

[settings]
inertia = [100.0, 100.0, 100.0, 0.0, 0.0, 0.0]
thrusters = [[0.0, 1.0, 0.0], [0.0, -1.0, 0.0], [0.0, 1.0, 0.0], [0.0, -1.0, 0.0]]
thruster_directions = [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [0.0, 0.0, -1.0], [0.0, 0.0, 2.0]]
thruster_force = [1.0, 1.0, 0.5, 0.5]
axes = [true, false, false]
"""


def test_positions_and_directions_load_and_write_back():
    scenario = loads(TEXT)
    s = scenario.settings
    assert s.thruster_count == 4
    assert s.thruster_directions[3] == (0.0, 0.0, 1.0)  # made unit
    assert loads(dumps(scenario)).settings == s


def test_a_list_that_does_not_fit_is_refused_at_its_line():
    with pytest.raises(ScenarioError, match=r"line 9: \[settings\] thruster_force: 3 values for 4"):
        loads(TEXT.replace("thruster_force = [1.0, 1.0, 0.5, 0.5]", "thruster_force = [1.0, 1.0, 0.5]"))


def test_an_event_keeps_the_thrusters():
    text = TEXT + '\n[[events]]\nat = 0.5\nthrusters = "cube"\nthruster_directions = "0,0,1"\n'
    with pytest.raises(ScenarioError):
        loads(text)
    cube = TEXT.replace(TEXT[TEXT.index("thrusters ="):TEXT.index("axes")], 'thrusters = "cube"\n')
    with pytest.raises(ScenarioError, match="keeps or goes without its thrusters"):
        loads(cube + '\n[[events]]\nat = 0.5\nthrusters = "none"\n')
