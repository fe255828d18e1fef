"""The thrusters' plumes on the body (issue 45): while a couple fires, a line from each of its thrusters against
its push, as long as its level; none while none fires."""

import numpy as np
import pytest

from app.view3d.plumes import PLUME_LENGTH
from gui_waits import caught_up

pytestmark = pytest.mark.gl


def test_the_plumes_follow_the_firing_thrusters(main_window, qtbot):
    win = main_window("pwpf_slew", speed=1.0)
    # paused, reset and run to t = 0.6 s exactly (the slew's first second: full firing about z); pausing on
    # the fly lands wherever a busy machine has got to, after the firing maybe
    win.worker.pause(True)
    qtbot.waitUntil(lambda: win.worker.paused)
    win.worker.pause_at(0.6)
    win.worker.reset(win.worker.settings.angles_deg, win.worker.settings.rates)
    qtbot.waitUntil(lambda: caught_up(win) and win.last_snapshot.t == 0.0)
    win.worker.pause(False)
    qtbot.waitUntil(lambda: win.worker.at_end and caught_up(win), timeout=30_000)
    win.show_frame()
    last = win.last_snapshot
    assert last.t == pytest.approx(0.6)
    levels = np.asarray(last.thrusters[:12])
    assert levels.sum() > 0.0  # the slew's first seconds: full firing about z
    plumes = win.viewer.scene.plumes
    assert plumes.item is not None and plumes.item.visible()
    thr = win.worker.settings.thruster_set
    on = np.flatnonzero(levels > 0.0)
    points = np.asarray(plumes.item.pos, dtype=float)
    size = plumes.size
    assert np.allclose(points[0::2], thr.pos[on], atol=1e-6)
    assert np.allclose(points[1::2], thr.pos[on] - thr.dirs[on] * (PLUME_LENGTH * size * levels[on])[:, None],
                       atol=1e-6)
    plumes.show(np.zeros(12))
    assert not plumes.item.visible()
