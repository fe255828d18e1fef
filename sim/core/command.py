"""Command attitude: changes of the command angles are followed by SLERP.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  One
interpolator serves one body (a command of 4 floats) and the ensemble (one
command for all bodies, 4 floats, or one per body, a (4, N) array).
"""

from __future__ import annotations

import numpy as np

from sim.core.algebra import dot_QQ
from sim.core.angles import aircraft_angles
from sim.core.interpolation import SlerpColumns, SlerpPath
from sim.core.ops import COLUMN, FLOAT
from sim.core.quaternion import from_aircraft_angles

__all__ = ["CommandInterpolator"]


class CommandInterpolator:
    """The current command quaternion ``Qc(t)``, Hoffmann Appendix C.

    A new target (aircraft angles) starts a SLERP from the *current* command
    quaternion to the target's quaternion (Hoffmann's AngToQuat, 9.9), over
    ``slerp_time`` seconds (0: at once), with the same shortest-path choice as
    the controller.

    Parameters
    ----------
    q0 : sequence of 4 floats, or ndarray of shape (4, N)
        Initial command quaternion (the initial attitude), or one per body.

    Attributes
    ----------
    qc : tuple of 4 floats, or ndarray of shape (4, N)
        The current command: one for all (a tuple), or one per body (columns).
        A new target reached at once, or the end of a SLERP from a shared
        command, is shared again; so is the end of a SLERP from one command
        per body, whose every column ends on the target's quaternion
        (:meth:`_ended`).
    target : tuple of 4 floats
        The quaternion of the last command angles.
    sign : float
        1.0 or -1.0: the sign that makes :attr:`written` continuous (see :meth:`_ended`).
    path : SlerpPath, SlerpColumns or None
        The SLERP under way (None when the command stands still).
    """

    __slots__ = ("qc", "target", "path", "sign", "_t0", "_duration", "_angles", "_angles_of")

    def __init__(self, q0):
        q0 = np.asarray(q0, dtype=float)
        self.qc = tuple(float(x) for x in q0) if q0.ndim == 1 else q0.copy()
        self.target = self.qc if q0.ndim == 1 else None
        self.path = None
        self.sign = 1.0
        self._t0 = 0.0
        self._duration = 0.0
        self._angles_of = None  # the qc whose angles _angles holds
        self._angles = None

    @property
    def moving(self) -> bool:
        """True while a SLERP is under way."""
        return self.path is not None

    @property
    def shared(self) -> bool:
        """True when every body has the same command (``qc`` is a 4-tuple of floats)."""
        return isinstance(self.qc, tuple)

    def command(self, angles, t, slerp_time, shortest_path=True):
        """Start moving toward aircraft angles ``(psi, theta, phi)`` (radians) at time ``t``."""
        self.target = tuple(float(x) for x in from_aircraft_angles(*angles))
        if slerp_time <= 0.0:
            self.qc = self.target   # a step of the command: written with the target's own sign
            self.path = None
            self.sign = 1.0
            return
        if self.shared:
            self.path = SlerpPath(self.qc, self.target, shortest_path)
        else:
            self.path = SlerpColumns(self.qc, self.target, shortest_path)
        self._t0 = t
        self._duration = slerp_time

    def follow(self, qc):
        """Take ``qc``, a command that moves every step (a pointing mode, :mod:`sim.gnc.pointing`), without a SLERP.

        Its sign is chosen continuous with the present command: a matrix's
        quaternion (Shepperd's) may come out as ``Q`` or ``-Q`` from one step
        to the next, and the command written and flown must not jump between
        them (a controller with shortest path off would turn the long way
        round for a sign).  ``qc``: a 4-tuple of floats, or of rows (one
        command per body).
        """
        shared = isinstance(qc, tuple) and not isinstance(qc[0], np.ndarray) and self.shared
        ops = FLOAT if shared else COLUMN
        s = ops.select(dot_QQ(qc, self.qc) < 0.0, -1.0, 1.0)
        q = (s * qc[0], s * qc[1], s * qc[2], s * qc[3])  # times -1.0 or 1.0: exact
        self.qc = q if shared else np.array(np.broadcast_arrays(*q))
        self.target = self.qc if shared else None
        self.path, self.sign = None, 1.0

    def update(self, t):
        """Advance to time ``t``; returns the command quaternion."""
        if self.path is not None:
            s = (t - self._t0) / self._duration
            if s >= 1.0:
                self.qc = self._ended(self.path(1.0))
                self.path = None
            else:
                self.qc = self.path(s)
        return self.qc

    def _ended(self, qc):
        """The end of the SLERP under way, ``qc = path(1)``, with the target's own sign, and shared when it can be.

        With shortest path a path ends on ``-target`` where that was nearer
        (the same attitude); the command that stands afterwards takes the
        target's sign back, so that it does not depend on where the SLERP
        started.  Then every column of one command per body is the same
        quaternion (but for the few that took the antipodal branch, which
        ends on the target unnormalised), and the command is shared again:
        the ensemble steps on with one command instead of a row per body.
        The quaternion controller turns to ``Qc`` and ``-Qc`` alike with
        shortest path, Hoffmann (9.8); without it no path changes sign.

        What is written out (qc1..qc4) and plotted is :attr:`written`, which
        keeps the path's sign: a shared command that takes the target's sign
        back here flips :attr:`sign`, so the written command is continuous
        through the end of the SLERP and through the SLERPs that follow.
        """
        shared = isinstance(qc, tuple)
        ops = FLOAT if shared else COLUMN
        q1, q2, q3, q4 = qc
        sign = ops.select(dot_QQ(qc, self.target) < 0.0, -1.0, 1.0)  # one for all, or per column
        qc = (sign * q1, sign * q2, sign * q3, sign * q4)  # times -1.0 or 1.0: exact
        if shared:
            self.sign = sign * self.sign
            return qc
        qc = np.array(qc)
        if qc.shape[1] and (qc == qc[:, :1]).all():
            return tuple(float(x) for x in qc[:, 0])
        return qc

    @property
    def written(self):
        """The command as written out and plotted: :attr:`qc` times :attr:`sign`, continuous through a SLERP's end.

        The same attitude as :attr:`qc` (``Q`` and ``-Q``).  One command per
        body (columns) is :attr:`qc` as it is.
        """
        qc = self.qc
        if self.sign == 1.0 or not isinstance(qc, tuple):
            return qc
        return (-qc[0], -qc[1], -qc[2], -qc[3])

    @property
    def angles(self):
        """Aircraft angles of the current command, radians (computed once per ``qc``).

        Three floats for a shared command, three rows for one per body.
        """
        if self._angles_of is not self.qc:
            self._angles = aircraft_angles(self.qc) if self.shared else aircraft_angles(tuple(self.qc), COLUMN)
            self._angles_of = self.qc
        return self._angles

