"""Scenario files: built-ins load, malformed files give their clear error, and
random or mutated input never raises anything but ScenarioError; a saved scenario loads back the same."""

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mutations import mutated
from sim.run.scenario import ScenarioError, builtin_names, load, loads, resolve
from sim.run.scenario_writer import save
from sim.model.settings import Settings

BAD = sorted((Path(__file__).parents[2] / "data" / "bad_scenarios").glob("*.toml"))


def _expectation(path: Path):
    first = path.read_bytes().split(b"\n", 1)[0].decode("utf-8", "replace")
    if not first.startswith("# expect: "):
        return None, "not UTF-8"
    line, fragment = first[len("# expect: "):].split("|", 1)
    return line, fragment


def test_builtins_are_listed_and_load():
    names = builtin_names()
    assert {"default", "hoffmann", "gimbal_lock", "shortest_path", "integrators",
            "intermediate_axis"} <= set(names)
    for name in names:
        scenario = load(name)
        assert scenario.title and scenario.caption
        assert isinstance(scenario.settings, Settings)


def test_at_least_fifteen_bad_files():
    assert len(BAD) >= 15


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_scenario_gives_file_line_and_reason(path):
    line, fragment = _expectation(path)
    with pytest.raises(ScenarioError) as info:
        load(str(path))
    message = str(info.value)
    assert message.startswith(str(path)), message
    assert fragment in message, message
    if line:
        assert line in message, message
    assert "\n" not in message


def test_unknown_name_lists_builtins():
    with pytest.raises(ScenarioError, match="unknown scenario 'nope'.*default"):
        resolve("nope")


def test_missing_file():
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load("/nonexistent/x.toml")


def test_events_are_sorted_and_validated():
    scenario = loads("""
[[events]]
at = 2.0
torque = [0, 0, 0]
[[events]]
at = 1.0
torque = [1, 2, 3]
""")
    assert [e.at for e in scenario.events] == [1.0, 2.0]
    assert scenario.events[0].changes == {"torque": (1.0, 2.0, 3.0)}


GOOD = (Path(__file__).parents[3] / "assets" / "scenarios" / "gimbal_lock.toml").read_bytes()


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_random_bytes_give_scenario_error_only(data):
    try:
        loads(data)
    except ScenarioError:
        pass


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_valid_file_gives_scenario_error_only(data):
    raw = mutated(GOOD, data, 4, [bytes([c]) for c in b"=[]\"'.,-0123456789e\n#ax"])
    try:
        loads(raw)
    except ScenarioError:
        pass


def test_pause_at_end_is_read_and_off_by_default():
    assert loads('[scenario]\nduration = 2.0\npause_at_end = true\n').pause_at_end is True
    assert loads('[scenario]\nduration = 2.0\n').pause_at_end is False
    assert load("hoffmann").pause_at_end and load("hoffmann").duration == 1.0   # his 10 steps of 0.1 s
    assert not load("default").pause_at_end                                     # free flight runs on


def test_an_unknown_ensemble_key_names_its_line_and_every_key_there_is():
    # a step belongs to [settings], not to [ensemble]: the line named is the one under [ensemble], not the first dt
    text = "[settings]\ndt = 0.01\n\n[ensemble]\nbodies = 10\ndt = 0.01\n"
    with pytest.raises(ScenarioError) as caught:
        loads(text, source="bad.toml")
    message = str(caught.value)
    head = "bad.toml, line 6: [ensemble]: unknown key 'dt' (known: "
    assert message.startswith(head) and message.endswith(")"), message
    assert set(message[len(head):-1].split(", ")) == {
        "bodies", "seed", "attitudes", "rate_spread", "inertia_spread", "gains_grid", "settle_deg", "detumble_deg_s",
        "orbit_spread", "epoch_spread"}                                   # the keys of docs/ENSEMBLES.md


def test_a_saved_scenario_replaces_the_old_file_and_loads_back_the_same(tmp_path):
    # File > Save scenario over a file already there: the reader finds the saved scenario whole, named by the file
    original = load("hoffmann_controller")
    assert original.events
    path = tmp_path / "mine.toml"
    path.write_text("[scenario]\ntitle = 'the old one'\n")
    assert save(original, path) == str(path)
    assert load(str(path)) == replace(original, name="mine")
    assert b"\r" not in path.read_bytes() and list(tmp_path.iterdir()) == [path]
