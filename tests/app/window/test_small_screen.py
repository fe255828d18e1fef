"""The window at the smallest supported size, 1280x720 (docs/WINDOW.md), for every built-in scenario.

Stop 54: `cubesat_year`'s title with its legend made the window's least width 1468 px (on a 1280-px screen its
right side was off the screen), and its end, ``t = 3.15576e+07 s``, was cut at the run group's edge.  Qt's own
size hints are the oracle: what a widget needs against what it gets.
"""

import pytest
from PySide6.QtWidgets import QApplication

from sim.run.scenario import builtin_names


@pytest.mark.gl
def test_every_builtin_scenario_fits_1280_by_720_with_its_end_time_whole(qtbot, main_window):
    win = main_window("default", speed=1.0)
    too_wide, cut = [], []
    for name in builtin_names():
        assert win.open_scenario(name), name
        QApplication.processEvents()
        hint = win.minimumSizeHint()
        if hint.width() > 1280 or hint.height() > 720:
            too_wide.append((name, hint.width(), hint.height()))
        win.resize(1280, 720)
        QApplication.processEvents()
        box = win.controls.run.pause_at_end
        if box.width() < box.sizeHint().width():
            cut.append((name, box.text()))
    assert too_wide == [] and cut == []


def test_a_long_end_reads_in_words_and_a_short_one_in_seconds(qtbot):
    from app.controls.run import RunGroup

    group = RunGroup((0.01, 1000.0))
    qtbot.addWidget(group)
    group.show_end(5700.0, False)
    assert group.pause_at_end.text().endswith("t = 5700 s")
    group.show_end(365.25 * 86400, True)
    assert group.pause_at_end.text().endswith("t = 1 year") and group.pause_at_end.isChecked()
