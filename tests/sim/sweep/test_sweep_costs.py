"""A sweep's measured estimate: costs per body set up and per body-step, and the wall time they give.

The clock is the test's (``least_seconds`` replaced by fixed timings), so what is checked is the arithmetic
of the estimate (per body, per body-step, over the workers) and what is timed: a few bodies of the sweep
itself, its own settings and spec.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import sim.sweep as sweep_module
from sim.ensemble import Ensemble, EnsembleSpec
from sim.run.scenario import loads
from sim.sweep import Sweep

SCENARIO = """
[scenario]
duration = 2.0

[settings]
dt = 0.02
controller = "quaternion"
dampers_on = true

[ensemble]
bodies = 13
seed = 9
rate_spread = 0.2
inertia_spread = 5.0
"""
SETUP_SECONDS, STEP_SECONDS = 0.5, 0.25  # what the fake clock says each timing took


@pytest.fixture
def timed(monkeypatch):
    """Every Ensemble the estimate makes and every step it times, on a fake clock."""
    made, steps, timings = [], [], iter([SETUP_SECONDS, STEP_SECONDS])

    class Timed(Ensemble):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

        def step(self, k=1):
            steps.append(k)
            super().step(k)

    def least_seconds(work):
        work()
        return next(timings)

    monkeypatch.setattr(sweep_module, "Ensemble", Timed)
    monkeypatch.setattr(sweep_module, "least_seconds", least_seconds)
    return made, steps


@pytest.mark.parametrize("bodies, timed_bodies", [(13, 13), (1000, 400)])
def test_costs_are_per_body_and_per_body_step_of_a_few_of_the_sweeps_bodies(timed, bodies, timed_bodies):
    scenario = loads(SCENARIO, name="costs")
    spec = replace(scenario.ensemble, bodies=bodies)
    setup, step = Sweep(scenario, spec).costs()
    made, steps = timed
    [ens] = made
    assert ens.index.tolist() == list(range(timed_bodies)), "the sweep's first bodies, at most 400"
    assert ens.spec == spec and ens.settings == scenario.settings
    assert len(steps) == 1 and steps[0] >= 1
    assert setup == pytest.approx(SETUP_SECONDS / timed_bodies, rel=1e-15)
    assert step == pytest.approx(STEP_SECONDS / (steps[0] * timed_bodies), rel=1e-15)


@pytest.mark.parametrize("workers, share", [(0, 1.0), (1, 1.0), (4, 0.25)])
def test_seconds_is_the_work_at_the_measured_costs_over_the_workers(monkeypatch, workers, share):
    scenario = loads(SCENARIO, name="costs")
    sweep = Sweep(scenario, EnsembleSpec(bodies=300))
    monkeypatch.setattr(sweep, "costs", lambda: (2e-4, 3e-7))
    steps = 100  # 2 s at 0.02 s
    assert sweep.seconds(workers) == pytest.approx(share * (300 * 2e-4 + 300 * steps * 3e-7), rel=1e-12)
    if workers == 0:
        assert sweep.seconds() == sweep.seconds(0)
