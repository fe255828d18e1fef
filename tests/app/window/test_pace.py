"""Frames yield to the simulation: the window draws fewer frames (down to 33 a second) while the simulation
cannot keep up, and goes back to 60 once it has kept up for a while (:mod:`app.window.pace`)."""

from __future__ import annotations

import dataclasses

import pytest

from app.window.pace import CALM_SECONDS, FASTEST_MS, SLOWER_MS, SLOWEST_MS, FramePace
from sim.run.scenario import load


def running(speed=1.0) -> FramePace:
    """A pace past its run's first second (which is not counted) at ``speed``."""
    pace = FramePace()
    pace.update(speed, speed, False)
    return pace


def test_a_run_falling_behind_slows_the_frames_step_by_step_and_far_behind_at_once():
    pace = running()
    assert pace.interval == FASTEST_MS == 16            # 60 frames a second while it keeps up
    assert [pace.update(0.95, 1.0, False) for _ in range(2)] == [16 + SLOWER_MS, 16 + 2 * SLOWER_MS]
    assert [pace.update(0.95, 1.0, False) for _ in range(4)][-1] == SLOWEST_MS == 30  # never under 33 fps
    far = running()
    assert far.update(0.5, 1.0, False) == SLOWEST_MS
    # the speed asked for is the yardstick: 9.5x at 10x is behind, 0.99x at 1x is not
    assert running(10.0).update(9.5, 10.0, False) > FASTEST_MS
    assert running().update(0.99, 1.0, False) == FASTEST_MS


def test_the_frames_speed_up_again_only_after_a_calm_spell_and_a_pause_changes_nothing():
    pace = running()
    pace.update(0.2, 1.0, False)
    intervals = [pace.update(1.0, 1.0, False) for _ in range(CALM_SECONDS * 20)]
    assert intervals[CALM_SECONDS - 2] == SLOWEST_MS and intervals[CALM_SECONDS - 1] < SLOWEST_MS
    assert intervals[-1] == FASTEST_MS and sorted(intervals, reverse=True) == intervals
    pace.update(0.2, 1.0, False)
    assert pace.update(0.0, 1.0, True) == SLOWEST_MS    # paused: a factor of 0 is no news
    # ... nor the second after it (partly paused); then a calm spell
    assert [pace.update(1.0, 1.0, False) for _ in range(CALM_SECONDS + 1)][-1] < SLOWEST_MS


@pytest.mark.parametrize("change", ["new run", "speed", "pause"])
def test_a_second_that_straddles_a_change_does_not_slow_the_frames(change):
    """The first second of a run (the window built, the kernels loading), the first at a new speed (measured
    partly at the old one) and the first after a pause are no news: counted, each left the frames at 33 a
    second for about a minute (issue 42)."""
    pace = running()
    if change == "new run":
        pace.restart()
        assert pace.update(0.3, 1.0, False) == FASTEST_MS
    elif change == "speed":
        assert pace.update(1.0 + 0.3 * 99.0, 100.0, False) == FASTEST_MS   # 0.3 s at 1x, 0.7 s at 100x
    else:
        assert pace.update(0.0, 1.0, True) == FASTEST_MS
        assert pace.update(0.4, 1.0, False) == FASTEST_MS
    speed = 100.0 if change == "speed" else 1.0
    assert pace.update(0.3 * speed, speed, False) == SLOWEST_MS, "the next second counts"


@pytest.mark.gl
def test_the_window_slows_its_frames_when_its_simulation_cannot_keep_up(qtbot, main_window):
    # dt 10 us at 1000x: 100 million steps a second, more than a core can take (the default aircraft at its
    # own dt of 1 ms, a million steps a second at 1000x, keeps up since its kernel writes its rows: issue 42)
    default = load("default")
    win = main_window(dataclasses.replace(default, settings=default.settings.replace(dt=1e-5)), speed=1000.0)
    qtbot.waitUntil(lambda: win.frame_interval == SLOWEST_MS, timeout=10_000)
    assert win.status.labels["speed"].text().startswith("cannot keep up")
