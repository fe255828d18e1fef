"""Body-axis torques: command torques, rate dampers, attitude controllers, limiter.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  Axis
order everywhere is (x roll, y pitch, z yaw); gains follow Hoffmann's names
``conPhi, conThe, conPsi`` and dampers ``dampP, dampQ, dampR``.
"""

from __future__ import annotations

import math

from sim.quaternion import aircraft_angles

__all__ = [
    "CONTROLLERS",
    "HOFFMANN_PRESET",
    "TorqueModel",
    "damper_torque",
    "euler_controller_torque",
    "quaternion_controller_torque",
    "quaternion_error",
    "limit",
]

CONTROLLERS = ("none", "euler", "quaternion")

#: Hoffmann's quaternion-controller example (Appendix A, 9.9).
HOFFMANN_PRESET = {
    "dampers": (3.0, 4.0, 6.0),
    "gains": (6.0, 10.0, 12.0),
    "dt": 0.1,
    "limits": (8.0, 2.0, 4.0),
}


def damper_torque(w, k):
    """Roll/pitch/yaw rate dampers ``-k_i w_i``, Hoffmann Appendix A (dampP, dampQ, dampR)."""
    return (-k[0] * w[0], -k[1] * w[1], -k[2] * w[2])


def euler_controller_torque(angles, command, gains, axes=(True, True, True)):
    """Hoffmann's sine/cosine aircraft-angle controller (Appendix A, 9.3).

    ``Tx = -conPhi (sin phi cos phic - cos phi sin phic)`` and likewise pitch
    and yaw: ``-K sin(angle - command)`` per axis.  Fails near
    ``theta = +-90 deg`` where the angles are singular (gimbal lock).

    Parameters
    ----------
    angles, command : (psi, theta, phi) in radians
    gains : (conPhi, conThe, conPsi) for (x, y, z)
    axes : three bools, Hoffmann's RCon, PCon, YCon
    """
    psi, theta, phi = angles
    psic, thetac, phic = command
    return (-gains[0] * math.sin(phi - phic) if axes[0] else 0.0,
            -gains[1] * math.sin(theta - thetac) if axes[1] else 0.0,
            -gains[2] * math.sin(psi - psic) if axes[2] else 0.0)


def quaternion_error(q, qc, shortest_path=True):
    """``dQ = Qc - Q``, or ``-Qc - Q`` when shorter, Hoffmann (9.8).

    ``Qc`` and ``-Qc`` are the same attitude; taking the difference with the
    smaller Euclidean norm makes the controller turn the short way.
    """
    dq = (qc[0] - q[0], qc[1] - q[1], qc[2] - q[2], qc[3] - q[3])
    if shortest_path:
        dr = (-qc[0] - q[0], -qc[1] - q[1], -qc[2] - q[2], -qc[3] - q[3])
        if sum(x * x for x in dr) < sum(x * x for x in dq):
            return dr
    return dq


def quaternion_controller_torque(q, qc, gains, axes=(True, True, True), shortest_path=True):
    """Hoffmann's quaternion attitude controller, (9.8)-(9.9).

    ``T = 2 K V(Q) dQ`` (first three rows of ``V``, (3.26)) with ``dQ`` from
    :func:`quaternion_error`.
    """
    d1, d2, d3, d4 = quaternion_error(q, qc, shortest_path)
    q1, q2, q3, q4 = q
    return (2.0 * gains[0] * (-q4 * d1 + q3 * d2 - q2 * d3 + q1 * d4) if axes[0] else 0.0,
            2.0 * gains[1] * (-q3 * d1 - q4 * d2 + q1 * d3 + q2 * d4) if axes[1] else 0.0,
            2.0 * gains[2] * (q2 * d1 - q1 * d2 - q4 * d3 + q3 * d4) if axes[2] else 0.0)


def limit(t, limits):
    """Per-axis torque limiter ``|T_i| <= L_i``, Hoffmann 9.9 ("Optional limiters")."""
    return tuple(min(max(ti, -li), li) for ti, li in zip(t, limits))


class TorqueModel:
    """Total body-axis torque ``T(Q, w)`` from the current settings.

    Sum of the command torque, the dampers and the attitude controller,
    then optionally limited, in that order as in Hoffmann's 9.9 listing.
    Attributes are read at every call; ``qc`` and ``command_angles`` follow
    the SLERP command (:class:`sim.command.CommandInterpolator`).
    """

    __slots__ = ("command", "dampers_on", "dampers", "controller", "gains", "axes",
                 "shortest_path", "limiter_on", "limits", "qc", "command_angles")

    def __init__(self):
        self.command = (0.0, 0.0, 0.0)
        self.dampers_on = False
        self.dampers = HOFFMANN_PRESET["dampers"]
        self.controller = "none"
        self.gains = HOFFMANN_PRESET["gains"]
        self.axes = (True, True, True)
        self.shortest_path = True
        self.limiter_on = False
        self.limits = HOFFMANN_PRESET["limits"]
        self.qc = (0.0, 0.0, 0.0, 1.0)
        self.command_angles = (0.0, 0.0, 0.0)

    def __call__(self, q, w):
        tx, ty, tz = self.command
        if self.dampers_on:
            k = self.dampers
            tx -= k[0] * w[0]
            ty -= k[1] * w[1]
            tz -= k[2] * w[2]
        if self.controller == "quaternion":
            cx, cy, cz = quaternion_controller_torque(q, self.qc, self.gains, self.axes, self.shortest_path)
            tx += cx
            ty += cy
            tz += cz
        elif self.controller == "euler":
            cx, cy, cz = euler_controller_torque(aircraft_angles(q), self.command_angles, self.gains, self.axes)
            tx += cx
            ty += cy
            tz += cz
        if self.limiter_on:
            lx, ly, lz = self.limits
            tx = min(max(tx, -lx), lx)
            ty = min(max(ty, -ly), ly)
            tz = min(max(tz, -lz), lz)
        return (tx, ty, tz)

