"""The torque model: command torques, rate dampers, attitude controllers, shortest path, limiter.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  Axis
order everywhere is (x roll, y pitch, z yaw); gains follow Hoffmann's names
``conPhi, conThe, conPsi`` and dampers ``dampP, dampQ, dampR``.

Every formula here is written once for one body (``ops`` =
:data:`sim.core.ops.FLOAT`, the default: floats) and for the ensemble's columns
(:data:`sim.core.ops.COLUMN`: numpy rows, one value per body; gains and the
command quaternion may be one float for all bodies or one row each).  The
dampers, the quaternion controller, the shortest-path choice and the
limiter are arithmetic, comparisons and selections only, and agree bit for
bit between the two.  The Euler controller goes through ``atan2``,
``hypot`` and ``sin``, whose numpy versions may round differently from
``math``'s in the last place (:mod:`sim.core.ops`): there the paths agree to
about 1e-12.  :mod:`sim.ensemble.kernels` holds a hand-fused column copy of
:meth:`TorqueModel.__call__` for the dampers and the quaternion
controller, tested bit for bit against this one.  The formulas are
:func:`sim.core.jit.jitable`: the compiled step (:mod:`sim.core.advance`) calls
them with ``ops=None`` (:mod:`sim.core.ops`).
"""

from __future__ import annotations

from sim.core.algebra import norm2_Q, vmul3_QQ
from sim.core.angles import aircraft_angles
from sim.core.jit import jitable
from sim.core.norm import READS_UNIT, unit
from sim.core.ops import FLOAT, clip_of, select_of

__all__ = [
    "CONTROLLERS",
    "HOFFMANN_PRESET",
    "TorqueModel",
    "damper_torque",
    "euler_controller_torque",
    "quaternion_controller_torque",
    "quaternion_error",
    "limit",
    "summed_torque",
]

CONTROLLERS = ("none", "euler", "quaternion")

#: Hoffmann's quaternion-controller example (Appendix A, 9.9).
HOFFMANN_PRESET = {
    "dampers": (3.0, 4.0, 6.0),
    "gains": (6.0, 10.0, 12.0),
    "dt": 0.1,
    "limits": (8.0, 2.0, 4.0),
}


@jitable
def damper_torque(w, k):
    """Roll/pitch/yaw rate dampers ``-k_i w_i``, Hoffmann Appendix A (dampP, dampQ, dampR)."""
    return (-k[0] * w[0], -k[1] * w[1], -k[2] * w[2])


def euler_controller_torque(angles, command, gains, axes=(True, True, True), ops=FLOAT):
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
    return (-gains[0] * ops.sin(phi - phic) if axes[0] else 0.0,
            -gains[1] * ops.sin(theta - thetac) if axes[1] else 0.0,
            -gains[2] * ops.sin(psi - psic) if axes[2] else 0.0)


@jitable
def quaternion_error(q, qc, shortest_path=True, ops=FLOAT):
    """``dQ = Qc - Q``, or ``-Qc - Q`` when shorter, Hoffmann (9.8).

    ``Qc`` and ``-Qc`` are the same attitude; taking the difference with the
    smaller Euclidean norm makes the controller turn the short way.
    """
    d1, d2, d3, d4 = qc[0] - q[0], qc[1] - q[1], qc[2] - q[2], qc[3] - q[3]
    if not shortest_path:
        return (d1, d2, d3, d4)
    r1, r2, r3, r4 = -qc[0] - q[0], -qc[1] - q[1], -qc[2] - q[2], -qc[3] - q[3]
    shorter = norm2_Q((r1, r2, r3, r4)) < norm2_Q((d1, d2, d3, d4))
    return select_of(shorter, (r1, r2, r3, r4), (d1, d2, d3, d4), ops)


@jitable
def quaternion_controller_torque(q, qc, gains, axes=(True, True, True), shortest_path=True, ops=FLOAT):
    """Hoffmann's quaternion attitude controller, (9.8)-(9.9).

    ``T = 2 K V(Q) dQ`` (first three rows of ``V``, (3.26)) with ``dQ`` from
    :func:`quaternion_error`.
    """
    v1, v2, v3 = vmul3_QQ(q, quaternion_error(q, qc, shortest_path, ops))
    return (2.0 * gains[0] * v1 if axes[0] else 0.0,
            2.0 * gains[1] * v2 if axes[1] else 0.0,
            2.0 * gains[2] * v3 if axes[2] else 0.0)


@jitable
def limit(t, limits, ops=FLOAT):
    """Per-axis torque limiter ``|T_i| <= L_i``, Hoffmann 9.9 ("Optional limiters")."""
    return (clip_of(t[0], -limits[0], limits[0], ops), clip_of(t[1], -limits[1], limits[1], ops),
            clip_of(t[2], -limits[2], limits[2], ops))


@jitable
def summed_torque(command, dampers_on, dampers, wd, control_on, control, limiter_on, limits, ops=FLOAT):
    """The total torque in the order of Hoffmann's 9.9 listing: the command torque, plus the dampers
    ``-k wd`` (:func:`damper_torque`) when on, plus the attitude controller's ``control`` when on, then
    the limiter (:func:`limit`) when on.

    ``wd`` is the rate the dampers act against (``w``, or ``w - w_c`` with a rate feed-forward).  A term
    that is off is not added (so a signed zero stays as it was).
    """
    tx, ty, tz = command[0], command[1], command[2]
    if dampers_on:
        dx, dy, dz = damper_torque(wd, dampers)
        tx, ty, tz = tx + dx, ty + dy, tz + dz
    if control_on:
        tx, ty, tz = tx + control[0], ty + control[1], tz + control[2]
    if limiter_on:
        return limit((tx, ty, tz), limits, ops)
    return (tx, ty, tz)


class TorqueModel:
    """Total body-axis torque ``T(Q, w)`` from the current settings.

    Sum of the command torque, the dampers and the attitude controller,
    then optionally limited, in that order as in Hoffmann's 9.9 listing.
    Attributes are read at every call; ``qc`` and ``command_angles`` follow
    the SLERP command (:class:`sim.core.command.CommandInterpolator`).  With
    ``unit`` (the norm mode ``elimination``, Joshi) every term reads the
    attitude as ``Q / |Q|`` (:func:`sim.core.norm.unit`), so the controllers'
    error does not depend on ``|Q|``.

    Parameters
    ----------
    ops : Ops
        :data:`sim.core.ops.FLOAT` for one body (tuples of floats), or
        :data:`sim.core.ops.COLUMN` for the ensemble (tuples of numpy rows).
    """

    __slots__ = ("command", "dampers_on", "dampers", "controller", "gains", "axes",
                 "shortest_path", "limiter_on", "limits", "qc", "command_angles", "unit", "ops", "rate_ref")

    def __init__(self, ops=FLOAT):
        self.ops = ops
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
        self.unit = False
        #: The commanded body rate (rad/s) the dampers act against, ``-k (w - w_c)``: a pointing mode's
        #: rate feed-forward (sim.gnc.pointing); None: ``-k w``.
        self.rate_ref = None

    def configure(self, settings, gains=None) -> None:
        """Take the torque settings of a :class:`~sim.model.settings.Settings`; ``gains`` overrides its gains
        (the ensemble's per-body rows)."""
        s = settings
        self.command = s.torque
        self.dampers_on, self.dampers = s.dampers_on, s.dampers
        self.controller, self.axes = s.controller, s.axes
        self.gains = s.gains if gains is None else gains
        self.shortest_path = s.shortest_path
        self.limiter_on, self.limits = s.limiter_on, s.limits
        self.unit = s.norm in READS_UNIT

    @property
    def constant(self) -> bool:
        """True when the torque depends on neither ``Q`` nor ``w`` (no dampers, no controller)."""
        return not self.dampers_on and self.controller == "none"

    def __call__(self, q, w, t=None):
        """The torque at attitude ``q`` and rates ``w`` (its first three entries); ``t`` is not used."""
        if self.unit and self.controller != "none":   # only the terms that read the attitude
            q = unit(q, self.ops)
        r = self.rate_ref
        wd = w if r is None or not self.dampers_on else (w[0] - r[0], w[1] - r[1], w[2] - r[2])
        controller = self.controller
        control = None
        if controller == "quaternion":
            control = quaternion_controller_torque(q, self.qc, self.gains, self.axes, self.shortest_path, self.ops)
        elif controller == "euler":
            ops = self.ops
            control = euler_controller_torque(aircraft_angles(q, ops), self.command_angles, self.gains,
                                              self.axes, ops)
        return summed_torque(self.command, self.dampers_on, self.dampers, wd, control is not None, control,
                             self.limiter_on, self.limits, self.ops)
