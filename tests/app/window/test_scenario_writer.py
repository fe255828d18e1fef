"""Scenario files saved by sim.run.scenario_writer (text by sim.run.scenario_toml) load back to the same scenario."""

import dataclasses
import tomllib

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from sim.run.scenario import Event, Scenario, builtin_names, load, loads
from sim.run.scenario_toml import dumps
from sim.run.scenario_writer import save
from sim.model.settings import Settings


@pytest.mark.parametrize("name", builtin_names())
def test_every_builtin_round_trips(name):
    scenario = load(name)
    assert loads(dumps(scenario), name=name) == scenario


def test_saved_file_loads_with_its_name_and_same_settings(tmp_path):
    settings = Settings(dt=0.0025, integrator="rk4", angles_deg=(10.0, -89.999, 0.1 + 0.2), rates=(1e-17, -3.0, 7.25),
                        controller="quaternion", command_deg=(30.0, 60.0, -120.0), axes=(True, False, True),
                        limiter_on=True, limits=(0.5, 2.0, 1e-6), slerp_time=0.0, dampers_on=True)
    scenario = Scenario(name="x", title='My "setup"\\ with Ünïcode', caption="line one\nline two\ttab",
                        duration=12.5, pause_at_end=True, settings=settings,
                        events=(Event(1.5, {"torque": (1.0, 2.0, 3.0)}), Event(4.0, {"controller": "euler"})),
                        compare=(("rk4 body", {"integrator": "rk4"}), ("renorm", {"norm": "renormalize"})))
    path = tmp_path / "my setup.toml"
    assert save(scenario, path) == str(path)
    again = load(str(path))
    assert again.settings == settings
    assert again == dataclasses.replace(scenario, name="my setup")
    assert not list(tmp_path.glob("my setup.toml*part"))


def test_command_none_is_left_out_and_reads_back_as_none():
    text = dumps(load("default"))
    assert "command_deg" not in tomllib.loads(text)["settings"]
    assert loads(text).settings.command_deg is None


def test_save_to_a_missing_folder_raises_and_leaves_nothing(tmp_path):
    with pytest.raises(OSError):
        save(load("default"), tmp_path / "nope" / "x.toml")
    assert not (tmp_path / "nope").exists()


finite = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False, allow_infinity=False)


@hsettings(max_examples=60, deadline=None)
@given(angles=st.tuples(finite, finite, finite), rates=st.tuples(finite, finite, finite),
       dt=st.floats(min_value=1e-6, max_value=1.0), title=st.text(max_size=40))
def test_any_valid_setup_round_trips_bit_for_bit(angles, rates, dt, title):
    scenario = Scenario(name="s", title=title or "s", settings=Settings().replace(
        angles_deg=angles, rates=rates, dt=dt))
    assert loads(dumps(scenario), name="s") == scenario


@pytest.mark.gl
def test_window_saves_the_current_setup(qtbot, main_window, tmp_path):
    window = main_window("hoffmann_controller")
    window.worker.submit("integrator", "rk4")
    window.worker.submit("gains", (1.0, 2.0, 3.0))
    qtbot.waitUntil(lambda: window.worker.settings.integrator == "rk4")
    path = tmp_path / "saved.toml"
    assert window.save_scenario(path)
    saved = load(str(path))
    original = load("hoffmann_controller")
    angles, rates = window.controls.body.reset_state()
    expected = window.worker.settings.replace(angles_deg=angles, rates=rates)
    assert saved.settings == expected
    assert saved.settings.integrator == "rk4" and saved.settings.gains == (1.0, 2.0, 3.0)
    assert (saved.events, saved.compare, saved.title, saved.duration) == \
        (original.events, original.compare, original.title, original.duration)
    assert window.open_scenario(str(path))
    qtbot.waitUntil(lambda: window.worker.settings == expected)
