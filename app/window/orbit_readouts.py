"""Numbers of where the spacecraft is and where it points: latitude, longitude, altitude, beta angle, shadow,
pointing error.

Shown under the other readouts while the run has an orbit (a snapshot with a
:class:`~sim.model.world.WorldState`).  The values are the snapshot's; the
beta angle is :attr:`sim.model.world.WorldState.beta`.
"""

from __future__ import annotations

import math

from PySide6.QtWidgets import QFrame

from app.window.readouts import readout_grid, show_text

__all__ = ["OrbitReadouts", "orbit_texts", "ORBIT_READOUTS", "shadow_text", "pointed", "NOT_POINTED"]

#: (name, label) of each readout in two columns: where left, the light and the pointing right.
ORBIT_READOUTS = (
    (("lat", "lat"), ("lon", "lon"), ("alt", "alt")),
    (("beta", "β"), ("shadow", "Sun"), ("point_err", "pointing error")),
)


def _angle(rad: float, positive: str, negative: str) -> str:
    """``12.345° N``: degrees to 3 decimals with a hemisphere letter (none at zero)."""
    deg = round(math.degrees(rad), 3) + 0.0
    return f"{abs(deg):7.3f}° {positive if deg > 0 else negative if deg < 0 else ' '}"


def shadow_text(sunlit: float) -> str:
    """``sunlit``, ``umbra`` or ``penumbra 42 %`` (the visible share of the Sun's disc)."""
    if sunlit >= 1.0:
        return "sunlit"
    if sunlit <= 0.0:
        return "umbra"
    return f"penumbra {min(max(round(100.0 * sunlit), 1), 99)} %"


#: The pointing error's text while nothing points the axis (no attitude controller flies the command).
NOT_POINTED = "— (no controller)"


def pointed(settings) -> bool:
    """True when something points the body: an attitude controller flies the command or the pointing mode.

    Without one (B-dot detumbling, free flight) the axis goes where the body
    tumbles, and its angle from the command is no error of anything.
    """
    return settings.controller != "none"


def orbit_texts(snapshot, pointing: bool = True) -> dict:
    """The text of every orbit readout for a :class:`~sim.model.rows.Snapshot` with a world, else ``{}``.

    ``pointing``: something points the body (:func:`pointed`); else the
    pointing error reads :data:`NOT_POINTED`.

    Returns
    -------
    dict
        Readout name (see :data:`ORBIT_READOUTS`) -> text with units.
    """
    ws = snapshot.world
    if ws is None:
        return {}
    error = snapshot.pointing_error_deg
    return {
        "lat": _angle(ws.lat, "N", "S"),
        "lon": _angle(ws.lon, "E", "W"),
        "alt": f"{ws.alt_km:.2f} km",
        "beta": f"{math.degrees(ws.beta) + 0.0:+.2f}°",
        "shadow": shadow_text(ws.sunlit),
        "point_err": "" if error is None else f"{error:.4f}°" if pointing else NOT_POINTED,
    }


class OrbitReadouts(QFrame):
    """A grid of labelled numbers of the orbit (:func:`orbit_texts`), hidden while the run has none."""

    def __init__(self, parent=None):
        super().__init__(parent, objectName="orbit_readouts")
        layout, self.values = readout_grid(self, ORBIT_READOUTS, (8, 0, 8, 4))
        layout.setColumnStretch(1, 3)
        layout.setColumnStretch(3, 2)
        self.setVisible(False)
        #: Something points the body (:func:`pointed`); the window sets it from the settings in force.
        self.pointing = True

    def show_snapshot(self, snapshot) -> None:
        """Show a snapshot's orbit values (hide without an orbit); only labels whose text changed are touched."""
        texts = orbit_texts(snapshot, self.pointing)
        if self.isHidden() == bool(texts):
            self.setVisible(bool(texts))
        for name, text in texts.items():
            show_text(self.values[name], text)
