"""Issue 41: typed inputs end to end.

A runner's queue carries Control, SettingChange, Reset and EnsembleChange; each value is validated once, where
it enters (its constructor, or sim.run.inputs.typed for the callers that speak in (key, value) pairs), and the
runner dispatches on the type. Counted here with the validators, the settings records and the model rebuilds
wrapped: a torque tick costs 1 validation, 0 records and 0 rebuilds; a dampers change at most 2 validations of the
key (where it enters, and the body's own set) and no full record (61 fields validated again).
"""

from __future__ import annotations

import pytest

import sim.model.controls
import sim.model.settings
import sim.model.stepping
from sim.ensemble import EnsembleSpec
from sim.model.controls import Control, SettingChange, input_of
from sim.model.settings import Settings, SettingsError
from sim.model.stepping import Stepper
from sim.run.inputs import INPUT_TYPES, EnsembleChange, Reset, typed
from sim.run.runner import ENSEMBLE, RESET, Runner
from sim.run.scenario import load


@pytest.fixture
def counts(monkeypatch):
    """Wraps every validate a module of the input path holds, new records, records changed, model rebuilds."""
    seen = {"validate": [], "records": 0, "changed": 0, "rebuilds": 0}
    for module in (sim.model.controls, sim.model.settings):
        real = module.validate
        monkeypatch.setattr(module, "validate", lambda k, v, real=real: seen["validate"].append(k) or real(k, v))

    def wrap(cls, name, what):
        real = getattr(cls, name)

        def counted(*args, **kwargs):
            seen[what] += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(cls, name, counted)

    wrap(Settings, "__post_init__", "records")        # a whole record: every field validated
    wrap(Settings, "replace_validated", "changed")    # a record of changed, already validated keys
    wrap(Stepper, "_configure", "rebuilds")           # the torque model, loads and integrator made again
    return seen


def _reset(seen):
    seen["validate"].clear()
    seen.update(records=0, changed=0, rebuilds=0)


def test_a_torque_tick_costs_one_validation_no_record_no_rebuild(counts):
    runner = Runner(load("default"))
    runner.advance(5)
    _reset(counts)
    runner.send((input_of("torque", (0.5, 0.0, -0.25)),))   # the slider's edge: the control panel
    runner.advance(1)
    assert counts == {"validate": ["torque"], "records": 0, "changed": 0, "rebuilds": 0}
    assert runner.sim.settings.torque == (0.5, 0.0, -0.25)


def test_a_dampers_change_validates_the_key_at_most_twice_and_makes_no_full_record(counts):
    runner = Runner(load("default"))
    runner.advance(5)
    _reset(counts)
    runner.send((input_of("dampers", (1.0, 2.0, 3.0)),))
    runner.advance(1)
    assert counts["validate"].count("dampers") <= 2 and set(counts["validate"]) == {"dampers"}
    assert counts["records"] == 0
    assert runner.sim.settings.dampers == (1.0, 2.0, 3.0)


def test_the_queue_carries_typed_inputs_made_once_at_the_edge():
    runner = Runner(load("default"))
    spec = EnsembleSpec(bodies=3)
    runner.send((("torque", (1, 0, 0)), ("dt", "0.01"), (ENSEMBLE, spec), (RESET, None)))
    entry = runner._inbox.get_nowait()
    assert [type(item) for item in entry] == [Control, SettingChange, EnsembleChange, Reset]
    assert all(isinstance(item, INPUT_TYPES) for item in entry)
    assert entry[0].value == (1.0, 0.0, 0.0) and entry[1].value == 0.01 and entry[2].spec is spec
    assert [(item.key, item.value) for item in entry] == [("torque", (1.0, 0.0, 0.0)), ("dt", 0.01),
                                                          (ENSEMBLE, spec), (RESET, None)]


def test_each_kind_refuses_what_is_not_its_own():
    with pytest.raises(SettingsError, match="is a control"):
        SettingChange("torque", (0.0, 0.0, 0.0))
    with pytest.raises(SettingsError, match="dampers"):
        SettingChange("dampers", (-1.0, 0.0, 0.0))
    with pytest.raises(SettingsError, match="unknown setting"):
        input_of("bogus", 1)
    with pytest.raises(SettingsError, match="EnsembleSpec"):
        typed((ENSEMBLE, 12))
    assert isinstance(input_of("torque", (0, 0, 0)), Control) and isinstance(input_of("dt", 0.01), SettingChange)


def test_a_refused_entry_queues_nothing():
    runner = Runner(load("default"))
    with pytest.raises(SettingsError, match="pointing"):     # a combination: pointing needs an orbit
        runner.send((SettingChange("dampers", (1.0, 1.0, 1.0)), SettingChange("pointing", "sun")))
    assert runner._inbox.empty()
