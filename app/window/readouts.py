"""Numbers of the current state: Q, |Q| - 1, the angles, rates, multiplier and energy.

Also the gimbal-lock warning: near theta = +-90 deg the aircraft angles are
singular, so the readout says they mean nothing there while the body, driven
by the quaternion, is fine.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel

__all__ = ["Readouts", "readout_texts", "GIMBAL_LOCK_TEXT"]

GIMBAL_LOCK_TEXT = "Gimbal lock (|cos θ| < 0.05): Euler angles meaningless here; the body is fine"

#: (name, label) of each readout in two columns: vectors left, scalars right.
READOUTS = (
    (("t", "t"), ("q", "Q"), ("angles", "ψ θ φ"), ("w", "ω"), ("torque", "τ")),
    (("norm", "|Q| − 1"), ("multiplier", "λ"), ("four_t", "4T"), ("energy", "T")),
)


def _vector(values, decimals: int, width: int = 0) -> str:
    """``(+1.00, -0.50, +0.00)``; values that round to zero print as +0 (never -0.00)."""
    return "(" + ", ".join(f"{round(v, decimals) + 0.0:+{width}.{decimals}f}" for v in values) + ")"


def readout_texts(snapshot, torque_unit=(1.0, "N m")) -> dict:
    """The text of every readout for a :class:`~sim.simulation.Snapshot`.

    ``torque_unit`` is ``(factor, name)`` of the torque's unit
    (:func:`app.controls.torque.torque_unit`: mN m for a small body).

    Returns
    -------
    dict
        Readout name (see :data:`READOUTS`) -> text with units.
    """
    return {
        "t": f"{snapshot.t:10.3f} s",
        "q": _vector(snapshot.q, 5),
        "norm": f"{snapshot.norm:+.2e}",
        "angles": _vector(snapshot.angles_deg, 2, 7) + " °",
        "w": _vector(snapshot.w, 3) + " rad/s",
        "torque": _vector([t * torque_unit[0] for t in snapshot.torque], 2) + " " + torque_unit[1],
        "multiplier": f"{snapshot.multiplier:.5g}",
        "four_t": f"{snapshot.four_t:.5g} J",
        "energy": f"{snapshot.energy:.5g} J",
    }


class Readouts(QFrame):
    """A grid of labelled numbers and the gimbal-lock warning.

    Parameters
    ----------
    parent : QWidget, optional
    """

    def __init__(self, parent=None):
        super().__init__(parent, objectName="readouts")
        #: ``(factor, name)`` of the torque readout's unit; the window sets it from the torque sliders.
        self.torque_unit = (1.0, "N m")
        layout = QGridLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setHorizontalSpacing(8)
        layout.setVerticalSpacing(1)
        self.values = {}
        for col, readouts in enumerate(READOUTS):
            for row, (name, label) in enumerate(readouts):
                title = QLabel(label, objectName="readout_name")
                title.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                value = QLabel(objectName=f"readout_{name}")
                value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                layout.addWidget(title, row, 2 * col)
                layout.addWidget(value, row, 2 * col + 1)
                self.values[name] = value
        layout.setColumnStretch(1, 3)
        layout.setColumnStretch(3, 2)
        self.gimbal_lock = QLabel(GIMBAL_LOCK_TEXT, objectName="gimbal_lock_warning")
        policy = self.gimbal_lock.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # the 3D view keeps its size when it shows
        self.gimbal_lock.setSizePolicy(policy)
        self.gimbal_lock.setVisible(False)
        layout.addWidget(self.gimbal_lock, len(READOUTS[0]), 0, 1, 4)

    def show_snapshot(self, snapshot) -> None:
        """Show a snapshot; only labels whose text changed are touched."""
        for name, text in readout_texts(snapshot, self.torque_unit).items():
            label = self.values[name]
            if label.text() != text:
                label.setText(text)
        if self.gimbal_lock.isVisible() != snapshot.gimbal_lock:
            self.gimbal_lock.setVisible(snapshot.gimbal_lock)
