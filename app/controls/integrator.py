"""Numerics: integrator, Full-Quat form, norm handling and the step dt."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel

from app.controls.widgets import SettingField
from sim import FULL_QUAT_FORMS, INTEGRATORS, LIMITS, NORM_MODES, stability_warning

__all__ = ["IntegratorGroup"]


class IntegratorGroup(QGroupBox):
    """How the equations of motion are integrated; switching keeps the attitude.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("integrator", "full_quat_form", "norm", "dt")

    def __init__(self, submit, parent=None):
        super().__init__("Integrator", parent)
        self.integrator = self._combo("combo_integrator", tuple(INTEGRATORS), "integrator", submit,
                                      "half-quat: Hoffmann's, Q from w; full-quat: Q and dQ/dt "
                                      "as the state; rk4: the reference; rkmk4: Lie-group Runge-Kutta, "
                                      "|Q| = 1 by construction; splitting: symplectic, exact rotations "
                                      "about the principal axes, |h| exact")
        self.form = self._combo("combo_full_quat_form", FULL_QUAT_FORMS, "full_quat_form", submit,
                                "Full-Quat only: hoffmann (with his manipulation), raw, "
                                "lagrange (Sherif's multiplier term), or kane (Kane's equations, "
                                "the norm constraint embedded)")
        self.norm = self._combo("combo_norm", tuple(NORM_MODES), "norm", submit,
                                "hoffmann: his correction; renormalize: divide by |Q|; "
                                "none: let |Q| drift (a fault beyond 1e-3); elimination (Joshi): "
                                "|Q| drifts freely, the attitude is read as Q/|Q|")
        self.dt = SettingField("dt", f"the fixed step, {LIMITS['dt'].describe()}")
        self.dt.committed.connect(lambda value: submit("dt", value))
        self.warning = QLabel(wordWrap=True, objectName="label_stability")
        self.warning.setProperty("warning", "true")
        self.warning.hide()
        layout = QFormLayout(self)
        layout.addRow("Method", self.integrator)
        layout.addRow("Full-Quat form", self.form)
        layout.addRow("Norm", self.norm)
        layout.addRow("dt", self.dt)
        layout.addRow(self.warning)

    @staticmethod
    def _combo(name, items, key, submit, tip):
        combo = QComboBox(objectName=name, toolTip=tip)
        combo.addItems(items)
        combo.currentTextChanged.connect(lambda text: submit(key, text))
        return combo

    def show_settings(self, settings) -> None:
        """Show the model's numerics (signals blocked) and Hoffmann's stability warning."""
        for combo, text in ((self.integrator, settings.integrator), (self.form, settings.full_quat_form),
                            (self.norm, settings.norm)):
            with QSignalBlocker(combo):
                combo.setCurrentText(text)
        self.form.setEnabled(settings.integrator == "full-quat")
        self.dt.show_value(settings.dt)
        warning = stability_warning(settings)
        self.warning.setText(warning or "")
        self.warning.setVisible(warning is not None)
