"""The switch-and-field control groups (the dampers, the limiter), made from one table (issue 41):
each sends its switch and its field under its own settings and shows the model's."""

import pytest
from PySide6.QtCore import Qt

from app.controls.switched import SWITCHED, SwitchedGroup
from sim.model.settings import Settings


@pytest.mark.parametrize("name, switch, field, attribute, value", [
    ("dampers", "dampers_on", "dampers", "gains", (1.0, 2.0, 3.0)),
    ("limiter", "limiter_on", "limits", "limits", (0.5, 0.25, 2.0)),
])
def test_a_group_sends_and_shows_its_two_settings(qtbot, name, switch, field, attribute, value):
    sent = []
    group = SwitchedGroup(SWITCHED[name], lambda key, v: sent.append((key, v)))
    qtbot.addWidget(group)
    assert group.KEYS == (switch, field)
    group.show_settings(Settings(**{switch: True, field: value}))      # shown with signals blocked: nothing sent
    assert group.enabled.isChecked() and sent == []
    shown = getattr(group, attribute)
    assert shown.text() == ", ".join(f"{x:g}" for x in value)
    group.enabled.click()                                              # as the user turns it off
    shown.selectAll()
    qtbot.keyClicks(shown, "4, 5, 6")                                   # typed over the old numbers
    qtbot.keyClick(shown, Qt.Key.Key_Return)
    assert sent == [(switch, False), (field, (4.0, 5.0, 6.0))]
