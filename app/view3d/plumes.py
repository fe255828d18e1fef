"""The thrusters' plumes on the body (issue 45): a line from each firing thruster against its push."""

from __future__ import annotations

import numpy as np

from app.view3d.glitems import LineItem

__all__ = ["Plumes", "PLUME_LENGTH", "PLUME_COLOR"]

#: A plume at full level, over the body's size.
PLUME_LENGTH = 0.4
PLUME_COLOR = (1.0, 0.62, 0.2, 1.0)


class Plumes:
    """The plumes of thrusters at ``positions`` (m, body axes, about the centre of mass) pushing the body along
    the unit ``directions``, drawn under ``parent`` (the body's item) ``size`` long at full level."""

    def __init__(self, parent, size: float, positions=(), directions=(), firing=()):
        self.parent, self.size = parent, float(size)
        self.positions = np.asarray(positions, dtype=float).reshape(-1, 3)
        self.directions = np.asarray(directions, dtype=float).reshape(-1, 3)
        self.firing = ()
        self.item = None
        self.show(firing)

    def show(self, levels) -> None:
        """Each thruster's level (0..1): a plume from it against its push, :data:`PLUME_LENGTH` of the body's
        size at full level, while it fires; hidden when none does."""
        firing = tuple(float(x) for x in levels)
        if firing == self.firing:
            return
        self.firing = firing
        on = [i for i, level in enumerate(firing[:len(self.positions)]) if level > 0.0]
        if not on:
            if self.item is not None:
                self.item.setVisible(False)
            return
        points = np.empty((2 * len(on), 3))
        points[0::2] = self.positions[on]
        points[1::2] = self.positions[on] - self.directions[on] * (
            PLUME_LENGTH * self.size * np.asarray(firing)[on])[:, None]
        colors = np.tile(PLUME_COLOR, (len(points), 1))
        if self.item is None:
            self.item = LineItem(points, colors, width=4.0, mode="lines", parentItem=self.parent)
        else:
            self.item.set_data(points, colors)
        self.item.setVisible(True)

    def remove(self) -> None:
        """Take the plumes off the body (its mesh is replaced)."""
        if self.item is not None:
            self.item.setParentItem(None)
            self.item = None
