"""The window's plot history is sized from dt and the plotted window, and grows
when dt gets smaller, so the plotted window is always held in full."""

import numpy as np
import pytest

from app.plots.history import capacity_for

pytestmark = pytest.mark.gl


def test_fresh_window_holds_the_plotted_window_at_its_dt(main_window):
    window = main_window()
    seconds = window.plots.window_seconds
    assert window.history.capacity == capacity_for(window.worker.settings.dt, seconds)
    assert window.history.capacity >= seconds / window.worker.settings.dt + 1
    assert window.history.nbytes < 16 * 2**20  # was 128 MB with 2**18 samples per column


def test_a_scenario_with_a_long_step_gets_a_small_history(main_window):
    window = main_window("hoffmann")  # dt = 0.1 s
    seconds = window.plots.window_seconds
    assert window.history.capacity == capacity_for(0.1, seconds) < 300


def test_smaller_dt_grows_the_history_keeping_its_samples_and_reset_fits_it_again(qtbot, main_window):
    window = main_window()
    seconds = window.plots.window_seconds
    qtbot.waitUntil(lambda: window.history.count > 100)
    small = capacity_for(1e-4, seconds)
    window.worker.submit("dt", 1e-4)
    qtbot.waitUntil(lambda: window.history.capacity == small)
    qtbot.waitUntil(lambda: np.any(np.diff(window.history.column("t")) < 2e-4))
    t = window.history.column("t")
    assert window.history.count == len(window.history)  # nothing dropped: all since t = 0 is held
    assert t[0] <= 1e-3 + 1e-12 and np.all(np.diff(t) > 0)
    window.worker.submit("dt", 1e-3)
    qtbot.waitUntil(lambda: window.worker.settings.dt == 1e-3)
    assert window.history.capacity == small  # never shrinks while running
    window.reset()
    qtbot.waitUntil(lambda: window.history.capacity == capacity_for(1e-3, seconds))
