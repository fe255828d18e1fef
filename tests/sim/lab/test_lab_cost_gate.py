"""sim.lab.check_cost: the lab's estimate is (measured seconds per step) x steps x runs, refused past the gate.

The clock is replaced by one that charges exactly 1 ms per simulated step, so the estimate has a closed form
(runs x steps x 1 ms) and the gate's limit LIMITS["run_seconds"].high can be straddled to a fraction of a second.
"""

import pytest

import sim.lab as lab
from sim.io.limits import LIMITS, RunTooLong
from sim.model.simulation import Simulation

PER_STEP = 1e-3


@pytest.fixture
def clock(monkeypatch):
    """A Simulation that counts its steps and records its settings, and a least_seconds charging PER_STEP a step."""
    seen = {"steps": 0, "settings": []}

    class Counting(Simulation):
        def __init__(self, settings, *args, **kwargs):
            seen["settings"].append(settings)
            super().__init__(settings, *args, **kwargs)

        def step(self, n=1, *args, **kwargs):
            seen["steps"] += n
            return super().step(n, *args, **kwargs)

    def least_seconds(work):
        before = seen["steps"]
        work()
        return (seen["steps"] - before) * PER_STEP

    monkeypatch.setattr(lab, "Simulation", Counting)
    monkeypatch.setattr(lab, "least_seconds", least_seconds)
    return seen


def _steps_at_limit(runs):
    return LIMITS["run_seconds"].high / (runs * PER_STEP)


@pytest.mark.parametrize("margin_s", [-0.2, 0.2])
def test_two_runs_are_refused_exactly_past_the_limit(clock, margin_s):
    combos = lab.combinations()[:2]
    steps = int(round(_steps_at_limit(2) + margin_s / (2 * PER_STEP)))
    if margin_s < 0:
        lab.check_cost(steps, combos)
        return
    with pytest.raises(RunTooLong) as err:
        lab.check_cost(steps, combos)
    msg = str(err.value)
    assert "2 runs" in msg and f"{steps:,}" in msg
    assert msg.endswith("--steps")   # the hint ends the message and names the option to lower


def test_each_run_is_measured_on_its_own_settings_at_the_labs_step(clock):
    combos = lab.combinations()[:3]
    lab.check_cost(10, combos)
    assert [s.dt for s in clock["settings"]] == [lab.DT] * 3
    assert [(s.integrator, s.norm) for s in clock["settings"]] == [(c.integrator, c.norm) for c in combos]


@pytest.mark.parametrize("margin_s", [-0.5, 0.5])
def test_by_default_every_combination_counts(clock, margin_s):
    runs = len(lab.combinations())
    steps = int(round(_steps_at_limit(runs) + margin_s / (runs * PER_STEP)))
    if margin_s < 0:
        lab.check_cost(steps)
        return
    with pytest.raises(RunTooLong, match=f"{runs} runs"):
        lab.check_cost(steps)
