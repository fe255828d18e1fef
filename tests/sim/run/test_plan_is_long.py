"""When a run gets a progress bar (sim.api.Plan.is_long): by default, when it is estimated to take more than
two seconds (and has more than 10,000 steps); the estimate is the measured costs times the counts."""

import pytest

from sim import api
from sim.run.scenario import load


@pytest.mark.parametrize("estimate, long", [(1.5, False), (2.5, True), (3.5, True)])
def test_by_default_a_run_is_long_beyond_two_seconds(monkeypatch, estimate, long):
    steps = 100_000
    monkeypatch.setattr(api, "_measure_costs", lambda scenario, repeats=3: (estimate / steps, 0.0))
    plan = api.Plan(load("default"), steps, 1)
    assert plan.seconds == pytest.approx(estimate)
    assert plan.is_long() is long
