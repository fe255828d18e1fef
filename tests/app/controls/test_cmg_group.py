"""The Control moment gyros group (issue 45, app/controls/cmg.py): it shows the model's cluster, sends what the user
chooses (the pyramid with what it needs: rk4 and no wheels, in one input), and a bad value is marked in its field and
never sent."""

import pytest
from PySide6.QtCore import Qt

from app.controls.cmg import CmgGroup
from sim.model.settings import Settings


@pytest.fixture
def group(qtbot):
    sent, state = [], {"settings": Settings(wheels="orthogonal")}
    group = CmgGroup(sent.append, lambda: state["settings"])
    qtbot.addWidget(group)
    group.show_settings(state["settings"])
    return group, sent, state


def test_choosing_the_pyramid_sends_what_it_needs_in_one_input(group):
    group, sent, _ = group
    assert sent == [] and group.cluster.currentText() == "none" and not group.h0.isEnabled()
    group.cluster.activated.emit(group.cluster.findText("pyramid"))
    assert sent == [(("integrator", "rk4"), ("wheels", "none"), ("cmg", "pyramid"))]
    Settings().replace(**dict(sent[0]))  # together they make a valid model


def test_the_group_shows_and_sends_the_clusters_settings(group, qtbot):
    group, sent, _ = group
    s = Settings(integrator="rk4", cmg="pyramid", cmg_h0=3.0, cmg_law="gsr", cmg_rate_limit=0.7)
    group.show_settings(s)
    assert sent == []                                    # shown with signals blocked
    assert group.cluster.currentText() == "pyramid" and group.law.currentData() == "gsr"
    assert group.h0.text() == "3" and group.rate_limit.text() == "0.7" and group.h0.isEnabled()
    group.law.activated.emit(group.law.findData("mp"))
    group.h0.selectAll()
    qtbot.keyClicks(group.h0, "2.5")
    qtbot.keyClick(group.h0, Qt.Key.Key_Return)
    assert sent == [(("cmg_law", "mp"),), (("cmg_h0", 2.5),)]


@pytest.mark.parametrize("field, text", [("h0", "0"), ("h0", "-1"), ("rate_limit", "0"), ("skew", "95"),
                                         ("dither", "0.5"), ("angles", "1, abc")])
def test_a_bad_value_is_marked_and_never_sent(group, qtbot, field, text):
    group, sent, _ = group
    group.show_settings(Settings(integrator="rk4", cmg="pyramid"))
    widget = getattr(group, field)
    with qtbot.waitSignal(widget.rejected) as blocker:
        widget.setText(text)
        widget.textEdited.emit(text)
        widget.editingFinished.emit()
    assert widget.error is not None and blocker.args[0].startswith(widget.key)
    assert sent == []
