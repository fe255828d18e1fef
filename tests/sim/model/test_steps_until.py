"""sim.model.events.steps_until: the steps of ``dt`` from ``t`` to the first whose end is at or past ``at``,
counted by hand: ceil((at - t) / dt), none when ``at`` is already reached."""

import pytest

from sim.model.events import steps_until


@pytest.mark.parametrize("t, at, dt, steps", [
    (0.0, 1.0, 0.1, 10),      # 10 steps of 0.1 s end at 1.0 s (within the tolerance of sim.model.events)
    (0.0, 1.05, 0.1, 11),     # 10 steps end at 1.0 < 1.05: one more
    (2.0, 5.0, 0.5, 6),       # 3 s in steps of 0.5 s
    (0.0, 3.0, 0.001, 3000),  # the default dt: 3000 steps to 3 s
    (10.0, 10.5, 2.0, 1),     # less than a step ahead: one step
    (1.2, 1.0, 0.1, 0),       # already past: none
])
def test_steps_until_counts_the_steps_of_dt_to_the_time_at(t, at, dt, steps):
    assert steps_until(t, at, dt) == steps
