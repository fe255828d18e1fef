"""From a gamepad's sticks and triggers to torques or command angles: the mapping, without SDL or Qt.

The device is read by :mod:`app.controls.gamepad` (SDL2's game-controller
API); here are the numbers only, so they are tested without a device:

* :func:`axis_value`: SDL's axis reading (-32768..32767; a trigger 0..32767) as -1..1;
* :func:`dead_zone`: nothing inside the zone, then 0..1 over the rest of the travel (no jump at its edge);
* :func:`expo`: the radio-control "expo" curve ``(1 - e) x + e x^3``: fine near the centre, full at the end;
* :class:`StickMapping`: which axis flies which body axis (roll x, pitch y, yaw z), its sign, the
  zone and the curve; :meth:`StickMapping.fractions` gives each body axis's share of its full deflection.

Body axes as the keys fly them (:mod:`app.window.keys`): x nose, y right wing, z down.  By default the left
stick right rolls right (+x), the left stick pulled back lifts the nose (+y: SDL's y axis grows downwards),
the right trigger turns the nose right (+z) and the left one left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

__all__ = ["SOURCES", "MODES", "StickMapping", "axis_value", "dead_zone", "expo", "shape"]

#: What can fly a body axis: SDL's game-controller axes by their SDL names, ``triggers`` (right minus
#: left), or ``none``.
SOURCES = ("leftx", "lefty", "rightx", "righty", "triggers", "lefttrigger", "righttrigger", "none")
#: ``torque``: full deflection is the torque slider's full range; ``command``: the command angles
#: (psi, theta, phi) within +-``command_deg``, for the attitude controller.
MODES = ("torque", "command")


def axis_value(raw: int) -> float:
    """SDL's reading of an axis (-32768..32767) as -1..1 (both ends reach 1 exactly)."""
    return max(-1.0, min(1.0, raw / 32767.0))


def dead_zone(x: float, zone: float) -> float:
    """``x`` (-1..1) with a dead zone: 0 for ``|x| <= zone``, else ``sign(x) (|x| - zone) / (1 - zone)``.

    Continuous at the zone's edge and 1 at full deflection.
    """
    if not 0.0 <= zone < 1.0:
        raise ValueError(f"dead zone: {zone!r} must be in [0, 1)")
    a = abs(x)
    if a <= zone:
        return 0.0
    return math.copysign(min(1.0, (a - zone) / (1.0 - zone)), x)


def expo(x: float, e: float) -> float:
    """The expo curve ``(1 - e) x + e x^3`` (``e`` in [0, 1]): odd, 0 -> 0, 1 -> 1, slope ``1 - e`` at the centre."""
    if not 0.0 <= e <= 1.0:
        raise ValueError(f"expo: {e!r} must be in [0, 1]")
    return (1.0 - e) * x + e * x * x * x


def shape(x: float, zone: float, e: float) -> float:
    """The dead zone, then the curve."""
    return expo(dead_zone(x, zone), e)


@dataclass(frozen=True)
class StickMapping:
    """How a gamepad flies the body.

    Attributes
    ----------
    sources : tuple of 3 str
        The source (:data:`SOURCES`) of roll (x), pitch (y) and yaw (z).
    signs : tuple of 3 float
        +1 or -1 per body axis (invert).
    zone : float
        The dead zone, a share of the travel in [0, 1).
    curve : float
        The expo in [0, 1] (0: linear).
    mode : str
        :data:`MODES`.
    command_deg : float
        Full deflection's command angle in ``command`` mode, degrees.
    """

    sources: tuple = ("leftx", "lefty", "triggers")
    signs: tuple = (1.0, 1.0, 1.0)
    zone: float = 0.1
    curve: float = 0.3
    mode: str = "torque"
    command_deg: float = 60.0

    def __post_init__(self):
        if len(self.sources) != 3 or any(s not in SOURCES for s in self.sources):
            raise ValueError(f"sources: three of {', '.join(SOURCES)}, got {self.sources!r}")
        if len(self.signs) != 3 or any(s not in (1.0, -1.0) for s in self.signs):
            raise ValueError(f"signs: three of +1 and -1, got {self.signs!r}")
        dead_zone(0.0, self.zone)
        expo(0.0, self.curve)
        if self.mode not in MODES:
            raise ValueError(f"mode: one of {', '.join(MODES)}, got {self.mode!r}")
        if not 0.0 < self.command_deg <= 180.0:
            raise ValueError(f"command_deg: {self.command_deg!r} must be in (0, 180]")

    def with_(self, **changes) -> StickMapping:
        """A copy with ``changes`` (checked)."""
        return replace(self, **changes)

    def fractions(self, axes: dict) -> tuple:
        """Each body axis's share (-1..1) of full deflection from ``axes`` (source name -> -1..1; triggers 0..1)."""
        out = []
        for source, sign in zip(self.sources, self.signs):
            if source == "none":
                x = 0.0
            elif source == "triggers":
                x = axes.get("righttrigger", 0.0) - axes.get("lefttrigger", 0.0)
            else:
                x = axes.get(source, 0.0)
            out.append(sign * shape(max(-1.0, min(1.0, x)), self.zone, self.curve) + 0.0)
        return tuple(out)

    def torque(self, axes: dict, full: float) -> tuple:
        """The torque of ``axes``, ``full`` (N m) at full deflection on each body axis."""
        return tuple(full * f for f in self.fractions(axes))

    def command(self, axes: dict) -> tuple:
        """The command angles (psi, theta, phi) in degrees: yaw, pitch and roll within +-:attr:`command_deg`."""
        roll, pitch, yaw = self.fractions(axes)
        return (self.command_deg * yaw + 0.0, self.command_deg * pitch + 0.0, self.command_deg * roll + 0.0)
