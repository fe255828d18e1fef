"""The calendar epoch of a run's t = 0 (sim.run.aem.run_epoch): the scenario's own, else its settings', else
DEFAULT_EPOCH; an ISO 8601 text with Z, or a naive time, is UTC."""

import dataclasses
from datetime import UTC, datetime
from types import SimpleNamespace

from sim.run.aem import DEFAULT_EPOCH, run_epoch
from sim.run.scenario import load


def test_without_a_scenario_or_an_epoch_the_run_starts_at_the_default_epoch():
    assert run_epoch() == DEFAULT_EPOCH
    assert run_epoch(load("default")) == DEFAULT_EPOCH


def test_the_epoch_of_a_scenarios_settings_is_the_runs():
    scenario = load("default")
    dated = dataclasses.replace(scenario, settings=scenario.settings.replace(epoch="2030-03-20T12:00:00Z"))
    assert run_epoch(dated) == datetime(2030, 3, 20, 12, 0, 0, tzinfo=UTC)


def test_an_epoch_of_the_scenario_itself_comes_before_its_settings():
    settings = SimpleNamespace(epoch="2031-01-01T00:00:00Z")
    holder = SimpleNamespace(epoch="2029-06-30T23:59:59", settings=settings)   # naive: UTC
    assert run_epoch(holder) == datetime(2029, 6, 30, 23, 59, 59, tzinfo=UTC)
    assert run_epoch(SimpleNamespace(settings=settings)) == datetime(2031, 1, 1, tzinfo=UTC)
