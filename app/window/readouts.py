"""Numbers of the current state: Q, |Q| - 1, the angles, rates, multiplier and energy.

With reaction wheels also their speeds (those at their speed limit marked)
and the total angular momentum; with gravity gradient the angles can be
read relative to the orbit frame (yaw, pitch and roll against the local
vertical), on a toggle.  Also the gimbal-lock warning: near theta = +-90 deg
the aircraft angles are singular, so the readout says they mean nothing
there while the body, driven by the quaternion, is fine.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QFrame, QGridLayout, QLabel, QWidget

from app.controls.torque import torque_unit

__all__ = ["Readouts", "SteadyCell", "show_text", "readout_texts", "torque_readout_unit", "GIMBAL_LOCK_TEXT"]

GIMBAL_LOCK_TEXT = "Gimbal lock (|cos θ| < 0.05): Euler angles meaningless here; the body is fine"

#: (name, label) of each readout in two columns: vectors left, scalars right.
READOUTS = (
    (("t", "t"), ("q", "Q"), ("angles", "ψ θ φ"), ("w", "ω"), ("torque", "τ")),
    (("norm", "|Q| − 1"), ("multiplier", "λ"), ("four_t", "4T"), ("energy", "T")),
)
#: (name, label) of the readouts shown only with reaction wheels, in rows of their own.
WHEEL_READOUTS = (("wheels", "Ω"), ("h", "H"))
#: The angles' label relative to the orbit frame.
ORBIT_LABEL = "ψ θ φ orbit"


class SteadyCell(QWidget):
    """A label in a cell of its own, so that a new text lays the window out again only when its size changes.

    ``QLabel.setText`` asks its parent's layout to be done again at every
    change (``updateGeometry``), whether its size hint changed or not, and
    each layout done passes the request up: the readouts, the centre column,
    the splitter and the main window were laid out again (the main window's
    layout making a ``QPropertyAnimation`` each time) and repainted, at each
    readouts' refresh, 15 a second (docs/PERFORMANCE.md, "The window's frame
    rates (issue 42, stop 53)").  This cell has no layout, so the label's
    request stops at it; it takes the label's size hints and size policy and
    gives the label all of its own area, so the window is laid out as if the
    label stood in its place.  Its hints follow the label's in
    :meth:`follow` (:func:`show_text` calls it), which asks for the layouts
    above only when they changed.  No ``event`` of its own: every event the
    cell gets (a paint under its label, each time the label is drawn) would
    call Python.

    Parameters
    ----------
    label : QLabel
        Held as :attr:`label` (made the cell's child).
    """

    def __init__(self, label: QLabel):
        super().__init__()
        label.setParent(self)
        self.label = label
        self.setSizePolicy(label.sizePolicy())
        self._hints = (label.sizeHint(), label.minimumSizeHint())

    def sizeHint(self):
        return self._hints[0]

    def minimumSizeHint(self):
        return self._hints[1]

    def follow(self) -> None:
        """Take the label's size hints; lay the window out again if they changed."""
        hints = (self.label.sizeHint(), self.label.minimumSizeHint())
        if hints != self._hints:
            self._hints = hints
            self.updateGeometry()

    def resizeEvent(self, event) -> None:
        self.label.setGeometry(self.rect())
        super().resizeEvent(event)


def show_text(label: QLabel, text: str) -> None:
    """Set ``label``'s text if it changed; a label in a :class:`SteadyCell` has the window laid out again only
    when its size hints changed (checked each call, so a new font is followed too)."""
    if label.text() != text:
        label.setText(text)
    cell = label.parentWidget()
    if isinstance(cell, SteadyCell):
        cell.follow()


def _vector(values, decimals: int, width: int = 0) -> str:
    """``(+1.00, -0.50, +0.00)``; values that round to zero print as +0 (never -0.00)."""
    return "(" + ", ".join(f"{round(v, decimals) + 0.0:+{width}.{decimals}f}" for v in values) + ")"


def torque_readout_unit(torque, body_unit=(1.0, "N m")) -> tuple:
    """``(factor, name)`` of the torque readout's unit: from the largest component's size
    (:func:`app.controls.torque.torque_unit`: N m, mN m or µN m), so that a torque of µN m never reads
    +0.00 mN m; ``body_unit`` while the torque is zero."""
    largest = max(abs(t) for t in torque)
    return torque_unit(largest) if largest > 0.0 else body_unit


def _torque_text(torque, body_unit) -> str:
    """``(+1.25, -0.03, +0.00) mN m``: one unit and two decimals for every axis."""
    factor, name = torque_readout_unit(torque, body_unit)
    return _vector([t * factor for t in torque], 2) + " " + name


def readout_texts(snapshot, torque_unit=(1.0, "N m"), orbit: bool = False, speed_limits=()) -> dict:
    """The text of every readout for a :class:`~sim.model.rows.Snapshot`.

    The torque's unit is chosen from its value, as the torque plot's axis
    is (:func:`torque_readout_unit`); ``torque_unit``, ``(factor, name)``
    of the body's (:func:`app.controls.torque.torque_unit` of its sliders'
    range: mN m for a small body), is the unit of a zero torque.
    ``orbit``: the angles relative to the orbit frame, when the snapshot has
    them (gravity gradient).  ``speed_limits``: the wheels' speed limits; a
    wheel at its limit is marked ``!`` and named at the end.

    Returns
    -------
    dict
        Readout name (see :data:`READOUTS`; with wheels also
        :data:`WHEEL_READOUTS`) -> text with units.
    """
    angles = snapshot.orbit_angles_deg if orbit and snapshot.orbit_angles_deg is not None else snapshot.angles_deg
    texts = {
        "t": f"{snapshot.t:10.3f} s",
        "q": _vector(snapshot.q, 5),
        "norm": f"{snapshot.norm:+.2e}",
        "angles": _vector(angles, 2, 7) + " °",
        "w": _vector(snapshot.w, 3) + " rad/s",
        "torque": _torque_text(snapshot.torque, torque_unit),
        "multiplier": f"{snapshot.multiplier:.5g}",
        "four_t": f"{snapshot.four_t:.5g} J",
        "energy": f"{snapshot.energy:.5g} J",
    }
    if snapshot.wheel_speeds:
        at_limit = [i for i, (s, most) in enumerate(zip(snapshot.wheel_speeds, speed_limits), start=1)
                    if abs(s) >= most]
        speeds = ", ".join(f"{round(s, 1) + 0.0:+.1f}" + ("!" if i in at_limit else "")
                           for i, s in enumerate(snapshot.wheel_speeds, start=1))
        texts["wheels"] = f"({speeds}) rad/s" + (
            f"  at the speed limit: wheel {', '.join(map(str, at_limit))}" if at_limit else "")
        texts["h"] = _vector(snapshot.h, 3) + " N m s (inertial)"
    return texts


def readout_grid(frame, columns, margins) -> tuple:
    """A grid layout on ``frame`` with a right-aligned name and a selectable value per readout.

    ``columns``: per column, ``(name, label)`` pairs from the top down.  Returns
    the layout and ``{name: value label}`` (the value's object name is
    ``readout_<name>``).
    """
    layout = QGridLayout(frame)
    layout.setContentsMargins(*margins)
    layout.setHorizontalSpacing(8)
    layout.setVerticalSpacing(1)
    values = {}
    for col, readouts in enumerate(columns):
        for row, (name, label) in enumerate(readouts):
            title = QLabel(label, objectName="readout_name")
            title.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            value = QLabel(objectName=f"readout_{name}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(title, row, 2 * col)
            layout.addWidget(SteadyCell(value), row, 2 * col + 1)
            values[name] = value
    return layout, values


class Readouts(QFrame):
    """A grid of labelled numbers, the orbit-frame toggle and the gimbal-lock warning.

    Parameters
    ----------
    parent : QWidget, optional

    Signals
    -------
    orbit_toggled(bool)
        The angles are to be read relative to the orbit frame (True) or the inertial axes.
    """

    orbit_toggled = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent, objectName="readouts")
        #: ``(factor, name)`` of the body's torque unit (a zero torque's); the window sets it from the sliders.
        self.torque_unit = (1.0, "N m")
        #: The wheels' speed limits (rad/s), to mark a wheel at its limit.
        self.speed_limits = ()
        # 4 px inside the frame on every side: the style sheet's 1 px top border (app.window.theme) is the
        # frame's, so the grid's own top margin is 3
        layout, self.values = readout_grid(self, READOUTS, (8, 3, 8, 4))
        self.titles = {}  # the wheels' readouts: made with the first snapshot that has wheels
        self.angles_title = layout.itemAtPosition(2, 0).widget()
        self.orbit = QCheckBox("Angles relative to the orbit frame", objectName="check_orbit_angles",
                               toolTip="Yaw, pitch and roll against the local vertical (z to nadir, x along the "
                                       "velocity), in the readouts and the Angles plot; with gravity gradient only",
                               enabled=False)
        self.orbit.toggled.connect(self._orbit_toggled)
        layout.addWidget(self.orbit, len(READOUTS[1]), 2, 1, 2)
        layout.setColumnStretch(1, 3)
        layout.setColumnStretch(3, 2)
        self.gimbal_lock = QLabel(GIMBAL_LOCK_TEXT, objectName="gimbal_lock_warning")
        policy = self.gimbal_lock.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # the 3D view keeps its size when it shows
        self.gimbal_lock.setSizePolicy(policy)
        self.gimbal_lock.setVisible(False)
        layout.addWidget(self.gimbal_lock, len(READOUTS[0]), 0, 1, 4)

    @property
    def relative_to_orbit(self) -> bool:
        """True while the angles are read relative to the orbit frame."""
        return self.orbit.isEnabled() and self.orbit.isChecked()

    def allow_orbit(self, available: bool, on: bool | None = None) -> None:
        """Enable the orbit-frame toggle (an orbit exists: gravity gradient), and check it when ``on``."""
        self.orbit.setEnabled(available)
        if on is not None:
            self.orbit.setChecked(on)
        self._orbit_toggled(self.orbit.isChecked())

    def _orbit_toggled(self, _checked) -> None:
        relative = self.relative_to_orbit
        self.angles_title.setText(ORBIT_LABEL if relative else READOUTS[0][2][1])
        self.orbit_toggled.emit(relative)

    def _add_wheel_readouts(self) -> None:
        """The rows of :data:`WHEEL_READOUTS`, under the gimbal-lock warning's row."""
        layout = self.layout()
        for row, (name, label) in enumerate(WHEEL_READOUTS, start=len(READOUTS[0]) + 1):
            title = QLabel(label, objectName="readout_name")
            title.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            value = QLabel(objectName=f"readout_{name}")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            layout.addWidget(title, row, 0)
            layout.addWidget(SteadyCell(value), row, 1, 1, 3)
            self.values[name], self.titles[name] = value, title

    def show_snapshot(self, snapshot) -> None:
        """Show a snapshot; only labels whose text changed are touched."""
        texts = readout_texts(snapshot, self.torque_unit, self.relative_to_orbit, self.speed_limits)
        if "wheels" in texts and not self.titles:
            self._add_wheel_readouts()
        for name in self.titles:
            shown = name in texts
            if self.titles[name].isVisible() != shown:
                self.values[name].parentWidget().setVisible(shown)  # its SteadyCell
                self.titles[name].setVisible(shown)
        for name, text in texts.items():
            show_text(self.values[name], text)
        if self.gimbal_lock.isVisible() != snapshot.gimbal_lock:
            self.gimbal_lock.setVisible(snapshot.gimbal_lock)
