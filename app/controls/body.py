"""The body and its reset state: which body, its mass and inertia, reset angles and rates."""

from __future__ import annotations

import os

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from app.controls.widgets import SettingField
from sim import (
    LIMITS, SettingsError, carried_to, damper_warning, validate, BUILTINS, MESH_SUFFIXES, MESH_UNITS, ShapeError,
    load_shape as load, mass_properties,
)

__all__ = ["BodyGroup"]

_MESH_FILTER = f"Meshes ({' '.join('*' + s for s in MESH_SUFFIXES)});;All files (*)"


def _valid(carried: dict) -> dict:
    """The carried values the settings accept; one beyond its range (a body a million times heavier) stays as it was."""
    valid = {}
    for key, value in carried.items():
        try:
            valid[key] = validate(key, value)
        except SettingsError:
            pass
    return valid


class BodyGroup(QGroupBox):
    """The body (built-in or mesh file), its mass and inertia, and the state Reset goes back to.

    Choosing a body (or choosing it again) gives it its own mass and inertia;
    a typed inertia then wins until a body is chosen again.  A file that is
    not a usable mesh is refused with a message and the body stays.  The
    torque, dampers, controller gains and torque limits follow a new body's
    moments of inertia (:func:`sim.model.settings.carried_to`), so the tuning that
    flew the old body flies the new one with the same time constants.

    Parameters
    ----------
    send : callable
        ``send([(key, value), ...])`` sends inputs that take effect at the
        same step (one entry): a field's value, or a body and the tuning
        carried to it.
    current : callable, optional
        ``current()`` gives the settings as the user last set them (the
        model's, with the inputs still in flight): what a new body carries
        over.  Default: the settings this group last showed.
    parent : QWidget, optional

    Signals
    -------
    rejected(str)
        A body or mesh file was refused: why.
    """

    KEYS = ("body", "mass", "mesh_units", "inertia", "angles_deg", "rates", "dampers_on", "dampers", "dt")

    rejected = Signal(str)

    def __init__(self, send, current=None, parent=None):
        super().__init__("Body and reset state", parent)
        self._send_all = send  # a body and the tuning carried to it: at the same step (a step between can diverge)
        self._current = current or (lambda: self._settings)
        self._settings = None
        self._folder = ""
        self.chooser = QComboBox(objectName="combo_body", toolTip="The body flown: its mesh and mass properties")
        for builtin in BUILTINS.values():
            self.chooser.addItem(builtin.title, builtin.name)
        self.chooser.activated.connect(lambda index: self.choose(self.chooser.itemData(index)))
        self.load_button = QPushButton("Load mesh…", objectName="button_load_mesh",
                                       toolTip="A closed OBJ, STL, PLY or glTF file, in the units chosen beside "
                                               "it; its inertia is computed at uniform density for the mass (a "
                                               "mesh wound inside out is turned outward)")
        self.load_button.clicked.connect(self._ask_mesh)
        self.units = QComboBox(objectName="combo_mesh_units",
                               toolTip="The length unit of a mesh file's coordinates (CAD tools often write "
                                       "millimetres); the built-in bodies are in metres")
        self.units.addItems(tuple(MESH_UNITS))
        self.units.activated.connect(lambda index: self.set_units(self.units.itemText(index)))
        chooser = QWidget()
        row = QHBoxLayout(chooser)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.chooser, 1)
        row.addWidget(self.load_button)
        row.addWidget(self.units)
        mass = LIMITS["mass"]
        self.mass = SettingField("mass", f"the inertia is computed from the mesh at this mass, {mass.describe()}")
        self.mass.committed.connect(lambda value: send((("mass", value),)))
        inertia = LIMITS["inertia"]
        self.inertia = SettingField("inertia", f"Jxx, Jyy, Jzz, Jxy, Jxz, Jyz; kg m², principal moments "
                                    f"{inertia.low:g} to {inertia.high:g}; typed values win over the mesh's "
                                    "until a body is chosen again")
        self.inertia.committed.connect(lambda value: send((("inertia", value),)))
        self.source = QLabel(objectName="note", wordWrap=True)
        self.principal_axes = QCheckBox("Show principal axes", objectName="check_principal_axes",
                                        toolTip="Drawn through the body: orange the smallest moment, "
                                                "pink the intermediate, cyan the largest")
        self.warning = QLabel(objectName="label_damper_warning", wordWrap=True, visible=False)
        self.warning.setProperty("warning", "true")
        self.angles = SettingField("angles_deg", "ψ, θ, φ; reset attitude, degrees")
        self.rates = SettingField("rates", "wx, wy, wz; reset body rates, rad/s")
        layout = QFormLayout(self)
        layout.addRow("Body", chooser)
        layout.addRow("Mass", self.mass)
        layout.addRow("Inertia", self.inertia)
        layout.addRow(self.source)
        layout.addRow(self.principal_axes)
        layout.addRow(self.warning)
        layout.addRow("Reset angles", self.angles)
        layout.addRow("Reset rates", self.rates)

    def choose(self, body: str) -> bool:
        """Fly ``body`` (a built-in name or a mesh file) with its own mass and inertia.

        A body that cannot be used is refused with :attr:`rejected`; the
        current body stays.  A mesh that bounds no volume is accepted only
        while an inertia is typed in (which then stays).

        Returns
        -------
        bool
            True when the body was sent.
        """
        explicit = self._settings is not None and self._settings.inertia is not None
        units = self._settings.mesh_units if self._settings is not None else "m"
        try:
            body = validate("body", body)
            shape = load(body, units)
        except (SettingsError, ShapeError) as exc:
            return self._refuse(str(exc))
        own_inertia = shape.inertia is not None or shape.unit_inertia is not None
        if not own_inertia and not explicit:
            return self._refuse(f"body: {body}: {shape.problem}; type its inertia first")
        carried = {}
        if own_inertia:
            try:
                present = self._current()
                if present is not None:
                    carried = _valid(carried_to(present, mass_properties(body, units=units).inertia))
            except (SettingsError, ShapeError):  # no present inertia to carry from: keep the gains
                carried = {}
        self._send_all([("body", body), ("mass", None), *([("inertia", None)] if own_inertia else []),
                        *carried.items()])
        return True

    def set_units(self, units: str) -> bool:
        """Read the body's mesh file in ``units`` (m, cm, mm, in): a new size, so a new inertia.

        As choosing a body does, the torque, dampers, gains and limits follow
        the new moments of inertia.  A unit that gives an inertia out of
        range is refused with :attr:`rejected`, and the unit stays.

        Returns
        -------
        bool
            True when the unit was sent.
        """
        settings = self._current() or self._settings
        if settings is None or units == settings.mesh_units:
            return False
        try:
            new = settings.replace(mesh_units=units)
            carried = {} if settings.inertia is not None else _valid(carried_to(settings, new.mass_properties.inertia))
        except SettingsError as exc:
            if self._settings is not None:
                with QSignalBlocker(self.units):
                    self.units.setCurrentText(self._settings.mesh_units)
            self.rejected.emit(f"{exc} (keeping {settings.mesh_units})")
            return False
        self._send_all([("mesh_units", units), *carried.items()])
        return True

    def _refuse(self, message: str) -> bool:
        current = self._settings.body if self._settings is not None else "the current body"
        self.rejected.emit(f"{message} (keeping {os.path.basename(current)})")
        if self._settings is not None:
            self._show_body(self._settings.body)
        return False

    def _ask_mesh(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Load a body mesh", self._folder, _MESH_FILTER)
        if path:
            self._folder = os.path.dirname(path)
            self.choose(path)

    def reset_state(self) -> tuple:
        """The last valid reset angles (degrees) and rates (rad/s)."""
        return self.angles.value, self.rates.value

    def show_settings(self, settings) -> None:
        """Show the model's body, mass, inertia and reset state."""
        self._settings = settings
        self._show_body(settings.body)
        try:
            props = settings.mass_properties
        except SettingsError:  # a combination still in flight
            props = None
        if props is not None:
            if props.mass is None:  # Hoffmann's aircraft: no mass, only his tensor
                self.mass.setText("")
            else:
                self.mass.show_value(props.mass)
            self.mass.setEnabled(not props.explicit)
            self.inertia.show_value(props.inertia)
            self.source.setText("Inertia typed in (the mass is not used)" if settings.inertia is not None
                                else "Inertia: Hoffmann's tensor" if props.explicit
                                else "Inertia from the mesh at uniform density"
                                + ("; its faces were turned outward" if props.note else ""))
            warning = damper_warning(settings)
            self.warning.setText(warning or "")
            self.warning.setVisible(warning is not None)
        with QSignalBlocker(self.units):
            self.units.setCurrentText(settings.mesh_units)
        self.units.setEnabled(settings.body not in BUILTINS)
        self.angles.show_value(settings.angles_deg)
        self.rates.show_value(settings.rates)

    def _show_body(self, body: str) -> None:
        index = self.chooser.findData(body)
        with QSignalBlocker(self.chooser):
            if index < 0:
                self.chooser.addItem(os.path.basename(body), body)
                index = self.chooser.count() - 1
                self.chooser.setItemData(index, body, Qt.ItemDataRole.ToolTipRole)
            self.chooser.setCurrentIndex(index)
