"""The control groups of one shape, a switch and a per-axis field, made from one table.

The rate dampers (``-k w`` per body axis, Hoffmann's dampP, dampQ, dampR)
and the torque limiter (the total torque clipped to +-limit per body axis)
are the same group: a check box for an on/off setting and a
:class:`~app.controls.widgets.SettingField` for its three numbers.  Each is
a row of :data:`SWITCHED`; :class:`SwitchedGroup` builds any of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QFormLayout, QGroupBox

from app.controls.widgets import SettingField

__all__ = ["Switched", "SWITCHED", "SwitchedGroup"]


@dataclass(frozen=True)
class Switched:
    """One group: its title, the switch (setting, label, object name, tool tip), the field (setting, hint, label)
    and the attribute the field is found under (``group.gains``, ``group.limits``)."""

    title: str
    switch: str
    switch_label: str
    object_name: str
    tip: str
    field: str
    hint: str
    field_label: str
    attribute: str


#: The groups of this shape.
SWITCHED = {
    "dampers": Switched("Rate dampers", "dampers_on", "Dampers on", "check_dampers",
                        "Damp the body rates: T = -k w on each axis",
                        "dampers", "kx, ky, kz; damper gains, N m s", "Gains", "gains"),
    "limiter": Switched("Torque limiter", "limiter_on", "Limiter on", "check_limiter",
                        "Clip the total torque on each axis",
                        "limits", "Lx, Ly, Lz; torque limits > 0, N m", "Limits", "limits"),
}


class SwitchedGroup(QGroupBox):
    """A switch and a per-axis field (a row of :data:`SWITCHED`).

    Parameters
    ----------
    spec : Switched
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional

    Attributes
    ----------
    enabled : QCheckBox
        The switch.
    KEYS : tuple
        The two settings shown.  The field is also the attribute ``spec.attribute``.
    """

    def __init__(self, spec: Switched, submit, parent=None):
        super().__init__(spec.title, parent)
        self.spec = spec
        self.KEYS = (spec.switch, spec.field)
        self.enabled = QCheckBox(spec.switch_label, objectName=spec.object_name)
        self.enabled.setToolTip(spec.tip)
        self.enabled.toggled.connect(lambda on: submit(spec.switch, on))
        field = SettingField(spec.field, spec.hint)
        field.committed.connect(lambda value: submit(spec.field, value))
        setattr(self, spec.attribute, field)
        layout = QFormLayout(self)
        layout.addRow(self.enabled)
        layout.addRow(spec.field_label, field)

    def show_settings(self, settings) -> None:
        """Show the model's two settings (signals blocked)."""
        with QSignalBlocker(self.enabled):
            self.enabled.setChecked(getattr(settings, self.spec.switch))
        getattr(self, self.spec.attribute).show_value(getattr(settings, self.spec.field))

