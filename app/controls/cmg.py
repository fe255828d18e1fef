"""Control moment gyros (issue 45): the cluster, its rotor momentum, the steering law and its gains, the gimbal-rate
limit and the initial gimbal angles."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QLabel

from app.controls.widgets import SettingField
from sim import CMG_CLUSTERS, CMG_LAWS, LIMITS

__all__ = ["CmgGroup", "LAW_NAMES"]

#: The steering laws in the chooser: setting value -> what the user reads.
LAW_NAMES = {"mp": "Moore-Penrose", "sr": "singularity-robust", "null": "null motion (gradient of m)",
             "gsr": "generalized SR (Wie's dither)"}


class CmgGroup(QGroupBox):
    """Control moment gyros: none or Wie's four-CMG pyramid, and how they are steered.

    With a cluster the body-torque command (the sliders and both controllers) is made by turning the
    gimbals (``dh/dt = -T - w x h``, Wie ch. 7). Choosing the pyramid also chooses what it needs in the
    same input: rk4 (the cluster's compiled step) and no wheels (a new number of wheels restarts the run).

    Parameters
    ----------
    submit_all : callable
        ``submit_all(((key, value), ...))`` sends validated inputs that take effect at the same step.
    current : callable
        ``current()`` returns the settings in force.
    parent : QWidget, optional
    """

    KEYS = ("cmg", "cmg_h0", "cmg_skew", "cmg_law", "cmg_lambda0", "cmg_mu", "cmg_null_gain", "cmg_dither",
            "cmg_dither_rate", "cmg_rate_limit", "cmg_angles")

    def __init__(self, submit_all, current, parent=None):
        super().__init__("Control moment gyros", parent)
        self._submit_all = submit_all
        self._current = current
        self.cluster = QComboBox(objectName="combo_cmg", toolTip="none, or Wie's four single-gimbal CMGs in a "
                                 "pyramid (gimbal axes tilted by the skew from body z); the pyramid steps by rk4")
        self.cluster.addItems(CMG_CLUSTERS)
        self.cluster.activated.connect(lambda index: self._choose(self.cluster.itemText(index)))
        self.law = QComboBox(objectName="combo_cmg_law", toolTip="the steering law: the gimbal rates that make "
                             "the torque asked")
        for key, name in LAW_NAMES.items():
            self.law.addItem(name, key)
        self.law.activated.connect(lambda index: self._submit_all((("cmg_law", self.law.itemData(index)),)))
        self.h0 = self._field("cmg_h0", "N m s", "each rotor's momentum")
        self.skew = self._field("cmg_skew", "deg", "the pyramid's skew")
        self.rate_limit = self._field("cmg_rate_limit", "rad/s", "gimbal-rate limit (all rates scaled together)")
        self.lambda0 = self._field("cmg_lambda0", "in h0²", "SR weight lam0: lam = lam0 h0² exp(-mu m / h0⁶)")
        self.mu = self._field("cmg_mu", "1", "how fast the SR weight falls with m / h0⁶")
        self.null_gain = self._field("cmg_null_gain", "rad/s", "null motion's gain (law null)")
        self.dither = self._field("cmg_dither", "1", "Wie's dither amplitude (law gsr)")
        self.dither_rate = self._field("cmg_dither_rate", "rad/s", "the dither's frequency (law gsr)")
        self.angles = SettingField("cmg_angles", "d1, d2, ...; initial gimbal angles, deg, one per CMG (empty: 0); "
                                   "they take effect at Reset")
        self.angles.committed.connect(lambda value: self._submit_all((("cmg_angles", value),)))
        self.note = QLabel(objectName="note", wordWrap=True)
        layout = QFormLayout(self)
        layout.addRow("Cluster", self.cluster)
        layout.addRow("Steering", self.law)
        for label, field in (("Rotor h0", self.h0), ("Skew", self.skew), ("Rate limit", self.rate_limit),
                             ("SR lam0", self.lambda0), ("SR mu", self.mu), ("Null gain", self.null_gain),
                             ("Dither", self.dither), ("Dither rate", self.dither_rate),
                             ("Reset angles", self.angles)):
            layout.addRow(label, field)
        layout.addRow(self.note)

    def _field(self, key: str, unit: str, what: str) -> SettingField:
        field = SettingField(key, f"{unit}; {what}, {LIMITS[key].describe()}")
        field.committed.connect(lambda value: self._submit_all(((key, value),)))
        return field

    def _choose(self, cluster: str) -> None:
        """The cluster chosen, with what it needs in the same input (rk4, no wheels)."""
        s = self._current()
        needs = ()
        if cluster != "none":
            needs = ((("integrator", "rk4"),) if s.integrator != "rk4" else ()) + (
                (("wheels", "none"),) if s.wheels != "none" else ())
        self._submit_all((*needs, ("cmg", cluster)))

    def fields(self) -> list:
        """The group's :class:`~app.controls.widgets.SettingField` s."""
        return [self.h0, self.skew, self.rate_limit, self.lambda0, self.mu, self.null_gain, self.dither,
                self.dither_rate, self.angles]

    def show_settings(self, settings) -> None:
        """Show the model's cluster (signals blocked)."""
        with QSignalBlocker(self.cluster):
            self.cluster.setCurrentText(settings.cmg)
        with QSignalBlocker(self.law):
            self.law.setCurrentIndex(list(CMG_LAWS).index(settings.cmg_law))
        on = settings.cmg != "none"
        self.law.setEnabled(on)
        for field in self.fields():
            field.show_value(getattr(settings, field.key))
            field.setEnabled(on)
        c = settings.cmg_set
        self.note.setText("No CMGs." if c is None else f"{len(c.delta0)} CMGs of {c.h0:g} N m s make the torque "
                          "command by turning their gimbals (the CMG tab).")
