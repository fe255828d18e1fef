"""The Simulation: state, inputs between steps, fixed-step advance, snapshots.

Quaternions are scalar last, Hoffmann's convention (see :mod:`sim`).  The
constant description lives in :class:`sim.settings.Settings`; the changing
state is ``(t, Q, w, P)`` plus the command interpolator.  The same settings
and the same inputs at the same steps give bit-identical states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim.angles import aircraft_angles_of, cayley_entries
from sim.body import Body
from sim.control import TorqueModel
from sim.energy import body_momentum, energy_of, inertial_momentum, kinetic_energy
from sim.integrators import qdot, rates
from sim.multiplier import multiplier
from sim.norm import unit
from sim.quaternion import from_aircraft_angles
from sim.settings import Settings
from sim.stepping import Stepper

__all__ = ["Simulation", "Snapshot", "SimulationFault", "COLUMNS", "HISTORY_COLUMNS",
           "NORM_FAULT"]

#: CSV columns of ``attitude-sim run``, in order (README, "CLI").
COLUMNS = ("t", "q1", "q2", "q3", "q4", "wx", "wy", "wz", "psi_deg", "theta_deg", "phi_deg",
           "norm", "multiplier", "energy", "hx", "hy", "hz", "tx", "ty", "tz",
           "qc1", "qc2", "qc3", "qc4")
#: COLUMNS plus what the live plots show besides.
HISTORY_COLUMNS = COLUMNS + ("norm_correction", "four_t", "q_dot_p",
                             "psic_deg", "thetac_deg", "phic_deg")

#: With norm handling ``none``, a norm error beyond this is a fault.
NORM_FAULT = 1e-3

_DEG = 180.0 / math.pi


def _row(t, q, w, angles_deg, norm, multiplier, energy, h, torque, qc, norm_correction, q_dot_p,
         command_deg) -> tuple:
    """The values in :data:`HISTORY_COLUMNS` order (the one place that knows that order)."""
    return (t, *q, *w, *angles_deg, norm, multiplier, energy, *h, *torque, *qc, norm_correction,
            4.0 * energy, q_dot_p, *command_deg)


class SimulationFault(RuntimeError):
    """A numerical fault (non-finite state or runaway norm); the state is the last good one."""

    def __init__(self, message: str, t: float):
        super().__init__(f"t={t:.6g} s: {message}")
        self.t = t
        self.reason = message


@dataclass(frozen=True, slots=True)
class Snapshot:
    """An immutable record of the simulation at one instant.

    Attributes
    ----------
    t : float
        Simulated time, s.
    step : int
        Steps taken since the last reset.
    q : tuple of 4 floats
        Attitude quaternion, scalar last (inertial -> body), as the
        integrator holds it.
    w : tuple of 3 floats
        Body rates, rad/s.
    p : tuple of 4 floats
        ``dQ/dt`` of the integrator's own state (Full-Quat's P, else
        ``1/2 V^T(Q) w``).
    angles_deg : tuple of 3 floats
        Aircraft angles (psi, theta, phi), degrees, Hoffmann (7.21).
    norm : float
        ``|Q| - 1``.
    norm_correction : float
        ``1 - |Q|`` removed by the norm handling in the last step.
    multiplier : float
        Lagrange multiplier of the norm constraint, Sherif (30).
    energy : float
        ``T = 1/2 w^T J w``.
    h : tuple of 3 floats
        Angular momentum in inertial axes, ``C^T J w``.
    torque : tuple of 3 floats
        Total applied body torque at this state.
    qc : tuple of 4 floats
        Current command quaternion (after SLERP).
    command_deg : tuple of 3 floats
        Aircraft angles of ``qc``, degrees.
    q_dot_p : float
        ``Q^T dQ/dt`` (zero for exact motion, (1.15)).
    attitude : tuple of 4 floats
        The quaternion the attitude is read from (the Cayley matrix, the
        angles, the controller, the drawing): ``q`` itself, or ``q / |q|``
        with norm handling ``elimination`` (Joshi (25), :mod:`sim.norm`).
    """

    t: float
    step: int
    q: tuple
    w: tuple
    p: tuple
    angles_deg: tuple
    norm: float
    norm_correction: float
    multiplier: float
    energy: float
    h: tuple
    torque: tuple
    qc: tuple
    command_deg: tuple
    q_dot_p: float
    attitude: tuple

    @property
    def four_t(self) -> float:
        """``4T``, what the multiplier equals for exact motion."""
        return 4.0 * self.energy

    @property
    def gimbal_lock(self) -> bool:
        """True where ``|cos theta| < 0.05``: the Euler readout is meaningless there."""
        return abs(math.cos(math.radians(self.angles_deg[1]))) < 0.05

    def row(self) -> tuple:
        """Values in :data:`HISTORY_COLUMNS` order."""
        return _row(self.t, self.q, self.w, self.angles_deg, self.norm, self.multiplier, self.energy, self.h,
                    self.torque, self.qc, self.norm_correction, self.q_dot_p, self.command_deg)


class Simulation(Stepper):
    """A rigid body integrated at a fixed step, with inputs settable between steps.

    Parameters
    ----------
    settings : Settings, optional
        Initial settings (default: Hoffmann's aircraft at rest, half-quat,
        dt = 1 ms).
    **changes
        Settings to change from ``settings`` (validated).

    Examples
    --------
    >>> sim = Simulation(rates=(1.0, 0.2, -0.5))
    >>> sim.step(1000)
    >>> round(sim.snapshot().t, 6)
    1.0
    """

    def __init__(self, settings: Settings | None = None, **changes):
        self._settings = (settings or Settings()).replace(**changes)
        self._torque = TorqueModel()
        self._configure()
        self.reset()

    # ------------------------------------------------------------------ inputs
    @property
    def body(self) -> Body:
        return self._body

    def _configure(self, gains=None):
        self._body = Body(self._settings.mass_properties.inertia)
        super()._configure(gains)
        self._norm_is_none = self._settings.norm == "none"

    def _derive_p(self, full: bool):
        return qdot(self._q, self._w) if full else None

    def _sync_command(self):
        self._torque.qc = self._cmd.qc
        self._torque.command_angles = self._cmd.angles

    # -------------------------------------------------------------- stepping
    def reset(self) -> None:
        """Back to ``angles_deg`` and ``rates`` at t = 0; the command starts at the attitude.

        A ``command_deg`` in the settings is then a change at t = 0.
        """
        s = self._settings
        self._q = tuple(float(x) for x in from_aircraft_angles(*(math.radians(a) for a in s.angles_deg)))
        self._w = tuple(s.rates)
        self._p = qdot(self._q, self._w) if self._full else None
        self._t = self._t0 = 0.0
        self._k = self._k0 = 0
        self._correction = 0.0
        self._reset_command(self._q)

    @property
    def q(self) -> tuple:
        """Attitude quaternion (scalar last), as the integrator holds it."""
        return self._q

    @property
    def w(self) -> tuple:
        """Body rates (rad/s, body axes), as the integrator holds them."""
        return self._w

    @property
    def attitude(self) -> tuple:
        """The quaternion the attitude is read from: :attr:`q`, or ``q / |q|`` with norm handling
        ``elimination`` (:func:`sim.norm.elimination`)."""
        return unit(self._q) if self._unit else self._q

    def energy(self) -> float:
        """Kinetic energy ``T = 1/2 w^T J w``, Hoffmann (5.1); cheaper than a snapshot."""
        return kinetic_energy(self._w, self._body.j_rows)

    def step(self, n: int = 1) -> None:
        """Advance ``n`` fixed steps.

        Raises
        ------
        SimulationFault
            On a non-finite state, or a norm error beyond :data:`NORM_FAULT`
            with norm handling ``none``; the state stays at the last good step.
        """
        integrate, norm, torque, body, cmd = self._integrate, self._norm, self._torque, self._body, self._cmd
        dt = self._dt
        for _ in range(n):
            q, w, p = integrate(self._q, self._w, self._p, dt, torque, body)
            q, correction = norm(q)
            if p is not None:
                w = self._rates(q, p)
            if not math.isfinite(q[0] + q[1] + q[2] + q[3] + w[0] + w[1] + w[2] + correction):
                raise SimulationFault("the state is no longer finite; paused at the last good state",
                                      self._t)
            if self._norm_is_none:
                err = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1.0
                if abs(err) > NORM_FAULT:
                    raise SimulationFault(
                        f"norm error |Q|-1 = {err:.3g} ran away beyond {NORM_FAULT:g} "
                        "with norm handling 'none'", self._t)
            self._q, self._w, self._p, self._correction = q, w, p, correction
            self._k += 1
            self._t = self._t0 + (self._k - self._k0) * dt
            if cmd.path is not None:
                cmd.update(self._t)
                self._sync_command()

    # ------------------------------------------------------------- snapshots
    def _derived(self) -> tuple:
        """``(p, angles_deg, norm, multiplier, energy, h, torque, command_deg, q_dot_p)`` of the current state.

        With norm handling ``elimination`` the Cayley matrix, the angles, the
        momentum in inertial axes and the multiplier are those of the
        normalised attitude ``Q/|Q|`` and its rate (Joshi (25)); the norm and
        ``Q . P`` are the carried state's.
        """
        q, w = self._q, self._w
        p = self._p if self._p is not None else qdot(q, w)
        jr = self._body.j_rows
        lb = body_momentum(w, jr)
        q1, q2, q3, q4 = q
        qq = q1 * q1 + q2 * q2 + q3 * q3 + q4 * q4
        q_dot_p = q1 * p[0] + q2 * p[1] + q3 * p[2] + q4 * p[3]
        if self._unit:  # d(Q/|Q|)/dt = P/|Q| - Q (Q.P)/|Q|^3
            n = math.sqrt(qq)
            r = q_dot_p / qq
            qa, pa, qqa = unit(q), tuple((pi - qi * r) / n for pi, qi in zip(p, q)), 1.0
        else:
            qa, pa, qqa = q, p, qq
        c = cayley_entries(qa)
        psi, theta, phi = aircraft_angles_of(c, qqa)
        cpsi, ctheta, cphi = self._cmd.angles
        return (p, (psi * _DEG, theta * _DEG, phi * _DEG), math.sqrt(qq) - 1.0,
                multiplier(qa, pa, jr), energy_of(w, lb), inertial_momentum(c, lb), self._torque(q, w),
                (cpsi * _DEG, ctheta * _DEG, cphi * _DEG), q_dot_p)

    def snapshot(self) -> Snapshot:
        """An immutable record of the current state and the derived quantities."""
        p, angles, norm, mult, energy, h, torque, command, q_dot_p = self._derived()
        return Snapshot(t=self._t, step=self._k, q=self._q, w=self._w, p=p, angles_deg=angles, norm=norm,
                        norm_correction=self._correction, multiplier=mult, energy=energy, h=h,
                        torque=torque, qc=self._cmd.qc, command_deg=command, q_dot_p=q_dot_p,
                        attitude=self.attitude)

    def row(self) -> tuple:
        """``snapshot().row()`` without the :class:`Snapshot`: the values in :data:`HISTORY_COLUMNS` order.

        What :class:`~sim.runner.Runner` records after every step.
        """
        _, angles, norm, mult, energy, h, torque, command, q_dot_p = self._derived()
        return _row(self._t, self._q, self._w, angles, norm, mult, energy, h, torque, self._cmd.qc,
                    self._correction, q_dot_p, command)
