"""The Thrusters control group (issue 45): enabled with thrusters, a value the settings refuse together is
marked in its field and never sent, a good one is sent."""

from sim.run.scenario import load

from app.controls.thrusters import ThrustersGroup


def _group(qtbot, settings):
    sent = []
    group = ThrustersGroup(lambda key, value: sent.append((key, value)), lambda: settings)
    qtbot.addWidget(group)
    group.show_settings(settings)
    return group, sent


def _type(field, text):
    field.setText(text)
    field.editingFinished.emit()


def test_values_refused_together_are_marked_and_not_sent(qtbot):
    settings = load("pwpf_slew").settings
    group, sent = _group(qtbot, settings)
    assert group.isEnabled() and group.modulation.currentText() == "pwpf"
    assert group.on.value == 0.45 and group.km.value == 4.5
    _type(group.off, "0.5")  # not below U_on = 0.45: refused by the settings together
    assert group.off.error is not None and "thruster_off" in group.off.error and sent == []
    _type(group.force, "-1")  # refused by its own range
    assert group.force.error is not None and sent == []
    _type(group.off, "0.2")
    assert group.off.error is None and sent == [("thruster_off", 0.2)]


def test_without_thrusters_the_group_is_disabled(qtbot):
    group, _ = _group(qtbot, load("default").settings)
    assert not group.isEnabled() and "No thrusters" in group.note.text()
