"""The Earth's field and the torquers' dipole drawn as arrows on a body (issue 32).

:class:`MagneticArrows` holds two :class:`~app.view3d.glitems.LineItem` s parented to an item that
carries the body's transform (the attitude view's aircraft, the orbit view's spacecraft), so their points
are in body axes: the field ``b_body`` (a cyan arrow of fixed length: its direction, the magnitude is in
the readouts and plots) and the commanded dipole (a magenta arrow as long as ``|m|`` over the rods'
limit; hidden while zero).  Drawn through the parent's transform ``C^T``, the body-axes field arrow
points along the field in the scene's inertial axes.
"""

from __future__ import annotations

import itertools

import numpy as np

from app.view3d.glitems import LineItem

__all__ = ["arrow_points", "MagneticArrows", "FIELD_COLOR", "DIPOLE_COLOR", "MAGNETIC_LENGTH", "dipole_limit"]

FIELD_COLOR = (0.25, 0.85, 1.0, 1.0)
DIPOLE_COLOR = (1.0, 0.35, 0.85, 1.0)
#: The field arrow's length on the attitude view's body, in body sizes.
MAGNETIC_LENGTH = 1.2
#: The arrowhead's length and half-width, as shares of the arrow's length.
HEAD, HEAD_WIDTH = 0.18, 0.07


def arrow_points(direction, length: float) -> np.ndarray:
    """An arrow from the origin along ``direction`` (any length), ``length`` long: 6 points for ``'lines'``
    (the shaft and the two strokes of the head); a zero direction gives a zero arrow."""
    d = np.asarray(direction, dtype=float)
    norm = np.linalg.norm(d)
    if not norm > 0.0 or not length > 0.0:
        return np.zeros((6, 3))
    d = d / norm
    side = np.cross(d, np.eye(3)[np.argmin(np.abs(d))])
    side /= np.linalg.norm(side)
    tip = length * d
    back = tip - HEAD * length * d
    return np.array([np.zeros(3), tip, tip, back + HEAD_WIDTH * length * side, tip,
                     back - HEAD_WIDTH * length * side])


def dipole_limit(settings) -> float:
    """The largest dipole the settings' rods make together, A m^2 (every rod at its limit, the signs
    that add up most); 0 without torquers."""
    rods = settings.magnetorquer_set
    if rods is None:
        return 0.0
    axes = np.asarray(rods.axes, dtype=float) * np.asarray(rods.limits, dtype=float)[:, None]
    return max(float(np.linalg.norm(np.asarray(signs) @ axes))
               for signs in itertools.product((-1.0, 1.0), repeat=len(axes)))


class MagneticArrows:
    """The field and dipole arrows on ``parent`` (a GL item carrying the body's transform).

    Parameters
    ----------
    parent : pyqtgraph.opengl.GLGraphicsItem.GLGraphicsItem
    length : float
        The field arrow's length and the dipole arrow's longest, in the parent's units.
    """

    def __init__(self, parent, length: float):
        self.length = float(length)
        self.field = LineItem(np.zeros((6, 3)), np.tile(FIELD_COLOR, (6, 1)), width=3.0, mode="lines",
                              parentItem=parent)
        self.dipole = LineItem(np.zeros((6, 3)), np.tile(DIPOLE_COLOR, (6, 1)), width=3.0, mode="lines",
                               parentItem=parent)
        self._shown = None
        self.show(None, None, 0.0)

    @property
    def state(self):
        """What is drawn: ``(b_body, dipole, limit)`` as last given to :meth:`show`."""
        return self._shown

    def show(self, b_body, dipole, limit: float) -> None:
        """The field ``b_body`` (T, body axes) and the dipole command (A m^2) of rods of ``limit`` A m^2;
        None hides an arrow (no field, no torquers)."""
        state = (None if b_body is None else tuple(b_body), None if dipole is None else tuple(dipole),
                 float(limit))
        if state == self._shown:
            return
        self._shown = state
        self.field.setVisible(b_body is not None)
        if b_body is not None:
            self.field.set_data(arrow_points(b_body, self.length), np.tile(FIELD_COLOR, (6, 1)))
        size = 0.0 if dipole is None or not limit > 0.0 else min(1.0, float(np.linalg.norm(dipole)) / limit)
        self.dipole.setVisible(size > 0.0)
        if size > 0.0:
            self.dipole.set_data(arrow_points(dipole, size * self.length), np.tile(DIPOLE_COLOR, (6, 1)))
