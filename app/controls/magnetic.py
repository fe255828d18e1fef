"""Magnetic control and the surface torques (issue 32): the torquers, B-dot, momentum dumping, SRP and drag."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton

from app.controls.widgets import SettingField
from sim import Body, BDOT_LAWS, avanzini_giulietti_gain, orbit_rate

__all__ = ["MagneticGroup", "recommended_gain"]


def recommended_gain(settings, b_rms: float | None):
    """``(k_w, k)``: Avanzini & Giulietti's gain ``k_w = 2 n (1 + sin xi) J_min`` (N m s,
    :func:`sim.gnc.magnetic.avanzini_giulietti_gain`) for the settings' orbit and body, and the law's
    ``k = k_w / |B|^2`` (A m^2 s/T) at the field's RMS ``b_rms`` (T) seen so far (None before any).

    ``n`` is the circular orbit rate at the elements' altitude and ``xi`` their inclination (to the
    geographic equator: the geomagnetic one is tilted by about 10 degrees); None without orbit elements.
    """
    if settings.orbit is None:
        return None
    altitude, _, inclination = settings.orbit[:3]
    j_min = float(np.linalg.eigvalsh(Body(settings.mass_properties.inertia).J)[0])
    k_w = avanzini_giulietti_gain(orbit_rate(altitude), math.radians(inclination), j_min)
    return k_w, (k_w / b_rms ** 2 if b_rms else None)


class MagneticGroup(QGroupBox):
    """The magnetorquers' limit, the B-dot law and gain (with the recommended gain), the dumping gain,
    and the SRP and drag toggles; enabled while the run has an orbit.

    Parameters
    ----------
    submit : callable
        ``submit(key, value)`` sends a validated input to the simulation.
    parent : QWidget, optional
    """

    KEYS = ("magnetic_field", "magnetorquers", "bdot_law", "bdot_gain", "bdot_period", "dumping_gain", "srp",
            "drag", "orbit", "tle")

    def __init__(self, submit, parent=None):
        super().__init__("Magnetic control", parent)
        self._submit = submit
        self.torquers = SettingField("magnetorquers", "A m^2; each rod's dipole limit (0: no torquers)")
        self.torquers.committed.connect(lambda value: submit("magnetorquers", value))
        self.law = QComboBox(objectName="combo_bdot_law", toolTip="B-dot: m = -k dB/dt (proportional, "
                             "saturated) or every rod at its limit (bang-bang); off")
        self.law.addItems(("off", *BDOT_LAWS))
        self.law.currentTextChanged.connect(lambda text: submit("bdot_law", text))
        self.gain = SettingField("bdot_gain", "A m^2 s/T; the B-dot gain k of m = -k dB/dt")
        self.gain.committed.connect(lambda value: submit("bdot_gain", value))
        self.recommended = QLabel(objectName="note", wordWrap=True)
        self.use = QPushButton("Use", objectName="button_use_gain", enabled=False,
                               toolTip="Set the B-dot gain to Avanzini & Giulietti's")
        self.use.clicked.connect(self._use_recommended)
        self.dumping = SettingField("dumping_gain", "1/s; momentum dumping m = k (h x B)/|B|^2 (0: off)")
        self.dumping.committed.connect(lambda value: submit("dumping_gain", value))
        self.srp = QCheckBox("Solar radiation pressure", objectName="check_srp")
        self.srp.toggled.connect(lambda on: submit("srp", on))
        self.drag = QCheckBox("Drag", objectName="check_drag")
        self.drag.toggled.connect(lambda on: submit("drag", on))
        self._k = None
        row = QHBoxLayout()  # the note on a row of its own: beside the button it was cut (issue 43)
        row.addStretch(1)
        row.addWidget(self.use)
        layout = QFormLayout(self)
        layout.addRow("Torquers", self.torquers)
        layout.addRow("B-dot", self.law)
        layout.addRow("Gain", self.gain)
        layout.addRow(self.recommended)
        layout.addRow(row)
        layout.addRow("Dumping", self.dumping)
        layout.addRow(self.srp)
        layout.addRow(self.drag)
        self.setEnabled(False)

    def fields(self) -> list:
        """The group's :class:`~app.controls.widgets.SettingField` s."""
        return [self.torquers, self.gain, self.dumping]

    def show_settings(self, settings) -> None:
        """Show the model's settings (signals blocked); enabled only with an orbit."""
        self.setEnabled(settings.has_orbit)
        with QSignalBlocker(self.law):
            self.law.setCurrentText(settings.bdot_law)
        for box, on in ((self.srp, settings.srp), (self.drag, settings.drag)):
            with QSignalBlocker(box):
                box.setChecked(on)
        self.torquers.show_value(settings.magnetorquers)
        self.gain.show_value(settings.bdot_gain)
        self.dumping.show_value(settings.dumping_gain)

    def show_recommended(self, settings, b_rms: float | None) -> None:
        """Say Avanzini & Giulietti's gain for the run (:func:`recommended_gain`) at the field seen so far."""
        gains = recommended_gain(settings, b_rms) if settings.magnetic_on else None
        self._k = None if gains is None else gains[1]
        self.use.setEnabled(self._k is not None)
        if gains is None:
            self.recommended.setText("Recommended gain: needs a field and orbit elements")
            return
        k_w, k = gains
        text = f"Avanzini & Giulietti: k_w = 2n(1 + sin i) J_min = {k_w:.3g} N m s"
        if k is not None:
            text += f"; k = k_w/|B|² = {k:.3g} at |B| = {b_rms * 1e6:.3g} µT (RMS so far)"
        self.recommended.setText(text)

    def _use_recommended(self) -> None:
        if self._k is not None:
            self._submit("bdot_gain", float(f"{self._k:.3g}"))
