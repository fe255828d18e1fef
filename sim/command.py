"""Command attitude: changes of the command angles are followed by SLERP.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).
"""

from __future__ import annotations

from sim.interpolation import SlerpPath
from sim.quaternion import aircraft_angles, from_aircraft_angles

__all__ = ["CommandInterpolator"]


class CommandInterpolator:
    """The current command quaternion ``Qc(t)``, Hoffmann Appendix C.

    A new target (aircraft angles) starts a SLERP from the *current* command
    quaternion to the target's quaternion (Hoffmann's AngToQuat, 9.9), over
    ``slerp_time`` seconds (0: at once), with the same shortest-path choice as
    the controller.

    Parameters
    ----------
    q0 : sequence of 4 floats
        Initial command quaternion (the initial attitude).
    """

    __slots__ = ("qc", "target", "_path", "_t0", "_duration", "_angles", "_angles_of")

    def __init__(self, q0):
        self.qc = tuple(float(x) for x in q0)
        self.target = self.qc
        self._path = None
        self._t0 = 0.0
        self._duration = 0.0
        self._angles_of = None  # the qc whose angles _angles holds
        self._angles = None

    @property
    def moving(self) -> bool:
        """True while a SLERP is under way."""
        return self._path is not None

    def command(self, angles, t, slerp_time, shortest_path=True):
        """Start moving toward aircraft angles ``(psi, theta, phi)`` (radians) at time ``t``."""
        self.target = tuple(float(x) for x in from_aircraft_angles(*angles))
        if slerp_time <= 0.0:
            self.qc = self.target
            self._path = None
            return
        self._path = SlerpPath(self.qc, self.target, shortest_path)
        self._t0 = t
        self._duration = slerp_time

    def update(self, t):
        """Advance to time ``t``; returns the command quaternion."""
        if self._path is not None:
            s = (t - self._t0) / self._duration
            if s >= 1.0:
                self.qc = self._path(1.0)
                self._path = None
            else:
                self.qc = self._path(s)
        return self.qc

    @property
    def angles(self):
        """Aircraft angles of the current command quaternion, radians (computed once per ``qc``)."""
        if self._angles_of is not self.qc:
            self._angles = aircraft_angles(self.qc)
            self._angles_of = self.qc
        return self._angles
