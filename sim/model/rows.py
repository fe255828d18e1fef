"""The row layout of a run: which columns a run writes, in which order, and the :class:`Snapshot` record.

One place knows the order of a run's values: :func:`columns` / :func:`history_columns` name them,
:func:`history_row` lays them out, :class:`Snapshot` holds one instant with names.  What a
:class:`sim.model.simulation.Simulation` computes is filled in there; the CSV writers, the runner's
history and the plots read the order from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim.model.navigation import AVAILABILITY_COLUMNS, ESTIMATE_COLUMNS
from sim.model.thruster_drive import thruster_columns
from sim.model.world import WorldState
from sim.model.cmg_step import cmg_columns

__all__ = ["Snapshot", "COLUMNS", "HISTORY_COLUMNS", "HISTORY_EXTRA", "WHEEL_EXTRA", "ORBIT_COLUMNS",
           "ORBIT_FRAME_COLUMNS", "orbit_frame_column", "MAGNETIC_COLUMNS", "TORQUE_COLUMNS", "columns",
           "history_columns", "columns_of", "history_columns_of", "history_row", "orbit_values", "field_values"]

#: CSV columns of ``attitude-sim run`` without reaction wheels, in order (docs/CLI.md).
COLUMNS = ("t", "q1", "q2", "q3", "q4", "wx", "wy", "wz", "psi_deg", "theta_deg", "phi_deg",
           "norm", "multiplier", "energy", "hx", "hy", "hz", "tx", "ty", "tz",
           "qc1", "qc2", "qc3", "qc4")
#: What the live plots show besides a run's :func:`columns`: the norm correction, 4T (of the locked
#: body, what the multiplier equals), Q.P, the aircraft angles relative to the orbit frame (without
#: gravity gradient there is no orbit: the inertial angles), then :data:`WHEEL_EXTRA` with wheels, then
#: the command angles.
HISTORY_EXTRA = ("norm_correction", "four_t", "q_dot_p", "psio_deg", "thetao_deg", "phio_deg",
                 "psic_deg", "thetac_deg", "phic_deg")
#: With wheels, besides: the body's share of the total momentum in inertial axes (``C^T J w``, the
#: wheels locked) and the torque law's command, what the wheels are asked to realise (N m).
WHEEL_EXTRA = ("hbx", "hby", "hbz", "tcx", "tcy", "tcz")


#: With an orbit (issue 31), after the wheels' columns: the position (km) and velocity (km/s) in ECI
#: (J2000), the unit vector to the Sun (ECI), the visible fraction of the solar disc (0..1) and the
#: pointing axis's error (deg, :func:`sim.gnc.pointing.pointing_error`).
ORBIT_COLUMNS = ("x_km", "y_km", "z_km", "vx_kms", "vy_kms", "vz_kms", "sun_x", "sun_y", "sun_z", "sunlit",
                 "point_err_deg")


#: The inertial aircraft-angle columns and their counterparts relative to the orbit frame.
ORBIT_FRAME_COLUMNS = dict(zip(COLUMNS[8:11], HISTORY_EXTRA[3:6]))


def orbit_frame_column(name: str) -> str:
    """The orbit-frame column of an aircraft-angle column (``psi_deg`` -> ``psio_deg``); KeyError for another."""
    return ORBIT_FRAME_COLUMNS[name]


#: With a magnetic field (issue 32), after the orbit's: the field in body axes (T) and the torquers'
#: commanded dipole (A m^2, body axes; zeros without torquers or between commands).
MAGNETIC_COLUMNS = ("bx", "by", "bz", "mx", "my", "mz")
#: With a field, SRP or drag (issue 32), last: the environment's torques one by one, body axes, N m (zeros for
#: what is off): gravity gradient, solar radiation pressure, drag, the magnetic m x B (command + residual).
TORQUE_COLUMNS = tuple(f"t_{k}_{a}" for k in ("gg", "srp", "drag", "mag") for a in "xyz")


def columns(wheels: int = 0, orbit: bool = False, magnetic: bool = False, torques: bool = False,
            estimator: bool = False, cmg: int = 0, thrusters: int = 0) -> tuple:
    """The CSV columns of a run with ``wheels`` reaction wheels: :data:`COLUMNS`, ``wheel1..N``, ``ux1..N``,
    then :data:`ORBIT_COLUMNS` with an ``orbit``, :data:`MAGNETIC_COLUMNS` with a ``magnetic`` field and
    :data:`TORQUE_COLUMNS` with the ``torques`` of issue 32, then :data:`sim.model.navigation.ESTIMATE_COLUMNS`
    with an ``estimator`` (issue 33), then with ``cmg`` control moment gyros their
    :func:`sim.model.cmg_step.cmg_columns`, then with ``thrusters`` their levels, force and fuel
    (:func:`sim.model.thruster_drive.thruster_columns`; issue 45; :func:`columns_of` reads all seven from settings).

    ``wheel<i>`` is wheel i's speed relative to the body (rad/s), ``ux<i>`` its
    motor torque (N m).
    """
    more = ((ORBIT_COLUMNS if orbit else ()) + (MAGNETIC_COLUMNS if magnetic else ())
            + (TORQUE_COLUMNS if torques else ()) + (ESTIMATE_COLUMNS if estimator else ())
            + (cmg_columns(cmg) if cmg else ()) + thruster_columns(thrusters))
    if not wheels:
        return COLUMNS + more
    return (COLUMNS + tuple(f"wheel{i}" for i in range(1, wheels + 1))
            + tuple(f"ux{i}" for i in range(1, wheels + 1))) + more


def history_columns(wheels: int = 0, orbit: bool = False, magnetic: bool = False, torques: bool = False,
                    estimator: bool = False, cmg: int = 0, thrusters: int = 0) -> tuple:
    """:func:`columns` and what the live plots show besides (:data:`HISTORY_EXTRA`, :data:`WHEEL_EXTRA`, with an
    estimator the sensors' :data:`sim.model.navigation.AVAILABILITY_COLUMNS`)."""
    extra = HISTORY_EXTRA[:6] + (WHEEL_EXTRA if wheels else ()) + HISTORY_EXTRA[6:]
    return (columns(wheels, orbit, magnetic, torques, estimator, cmg, thrusters) + extra
            + (AVAILABILITY_COLUMNS if estimator else ()))


def _kinds(settings) -> tuple:
    """What a run of ``settings`` writes besides the state: wheels, orbit, field, torques, estimate, CMGs,
    thrusters."""
    cluster = settings.cmg_set
    return (settings.wheel_count, settings.has_orbit, settings.magnetic_on, settings.torques_on,
            settings.estimator != "truth", 0 if cluster is None else len(cluster.delta0), settings.thruster_count)


def columns_of(settings) -> tuple:
    """:func:`columns` of a run of ``settings`` (its wheels, orbit, field, torques and estimator)."""
    return columns(*_kinds(settings))


def history_columns_of(settings) -> tuple:
    """:func:`history_columns` of a run of ``settings``."""
    return history_columns(*_kinds(settings))


#: The history columns of a run without wheels.
HISTORY_COLUMNS = history_columns(0)


def history_row(t, q, w, angles_deg, norm, multiplier, energy, h, torque, qc, norm_correction, q_dot_p,
                command_deg, four_t, wheel_speeds=(), wheel_torques=(), orbit_angles_deg=None,
                command_torque=None, body_h=None, orbit=(), estimate=(), sensors=(), cmg=(), thrusters=()) -> tuple:
    """The values in :func:`history_columns` order (the one place that knows that order)."""
    wheels = (*body_h, *command_torque) if wheel_speeds else ()
    return (t, *q, *w, *angles_deg, norm, multiplier, energy, *h, *torque, *qc, *wheel_speeds, *wheel_torques,
            *orbit, *estimate, *cmg, *thrusters, norm_correction, four_t, q_dot_p, *(orbit_angles_deg or angles_deg),
            *wheels,
            *command_deg, *sensors)



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
        Kinetic energy: ``T = 1/2 w^T J w``, plus the wheels'
        (:func:`sim.core.wheels.gyrostat_energy`).
    h : tuple of 3 floats
        Total angular momentum (body and wheels) in inertial axes,
        ``C^T (J w + sum a_i J_s,i W_i)``.
    torque : tuple of 3 floats
        Total torque applied to the body at this state: the torque law's (or
        the wheels' reaction to their motors and friction) plus the external
        torques.
    qc : tuple of 4 floats
        Current command quaternion (after SLERP).
    command_deg : tuple of 3 floats
        Aircraft angles of ``qc``, degrees.
    q_dot_p : float
        ``Q^T dQ/dt`` (zero for exact motion, (1.15)).
    wheel_speeds : tuple
        Each reaction wheel's speed relative to the body, rad/s (empty without wheels).
    wheel_torques : tuple
        Each wheel's motor torque at this state, N m, after its limits.
    command_torque : tuple of 3 floats or None
        The torque law's torque (command, dampers, controller, limiter), N m:
        with wheels what they are asked to realise; None when it is ``torque``
        (no wheels, no external torque).
    orbit_angles_deg : tuple of 3 floats or None
        With gravity gradient, the aircraft angles (psi, theta, phi) relative to
        the orbit frame (yaw, pitch and roll against the local vertical), degrees.
    locked_energy : float or None
        With wheels, ``1/2 w^T J w``: the energy of the body with its wheels
        locked at its present rates (None: without wheels, the same as ``energy``).
    body_h : tuple of 3 floats or None
        With wheels, the body's share of ``h``: ``C^T J w``, inertial axes
        (None: without wheels, ``h`` itself).
    attitude : tuple of 4 floats
        The quaternion the attitude is read from (the Cayley matrix, the
        angles, the controller, the drawing): ``q`` itself, or ``q / |q|``
        with norm handling ``elimination`` (Joshi (25), :mod:`sim.core.norm`).
    world : sim.model.world.WorldState or None
        With an orbit: the position, velocity, date, Sun, shadow and pointing command of this step
        (with a field its ``b_eci``, T; with drag its ``density``, kg/m^3).
    pointing_error_deg : float or None
        With an orbit: the angle between the pointing axis and where it is commanded, degrees.
    b_body : tuple of 3 floats or None
        With a magnetic field: the field in body axes at this step, T.
    dipole : tuple of 3 floats or None
        With a magnetic field: the torquers' commanded dipole, A m^2, body axes (the residual dipole not
        included; zeros without torquers).
    t_gg, t_srp, t_drag, t_mag : tuple of 3 floats or None
        With a field, SRP or drag: the environment's torques one by one at this state (N m, body
        axes; zeros for what is off): gravity gradient, solar radiation pressure, drag, ``m x B``
        (command plus residual dipole).
    estimate : tuple or None
        With an estimator (issue 33): the values of :data:`sim.model.navigation.ESTIMATE_COLUMNS`
        (``qe1..qe4`` first: the estimated attitude).
    cmg : tuple or None
        With control moment gyros (issue 45): the values of :func:`sim.model.cmg_step.cmg_columns`.
    sensors : tuple or None
        With an estimator: per :data:`sim.model.navigation.SENSOR_NAMES`, 1.0 when the sensor's last
        sample was available, 0.0 when not (blinded, dark), nan when there is no such sensor.
    thrusters : tuple
        With thrusters (issue 45): the :func:`sim.model.thruster_drive.thruster_columns` values (each
        thruster's level over the last step, the net force, the fuel used); empty without.
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
    wheel_speeds: tuple = ()
    wheel_torques: tuple = ()
    command_torque: tuple | None = None
    orbit_angles_deg: tuple | None = None
    locked_energy: float | None = None
    body_h: tuple | None = None
    world: WorldState | None = None
    pointing_error_deg: float | None = None
    b_body: tuple | None = None
    dipole: tuple | None = None
    t_gg: tuple | None = None
    t_srp: tuple | None = None
    t_drag: tuple | None = None
    t_mag: tuple | None = None
    estimate: tuple | None = None
    sensors: tuple | None = None
    cmg: tuple | None = None
    thrusters: tuple = ()

    @property
    def four_t(self) -> float:
        """``4T = 2 w^T J w`` (``J`` with the wheels locked): what the multiplier equals for exact motion, Sherif (30)."""
        return 4.0 * (self.energy if self.locked_energy is None else self.locked_energy)

    @property
    def gimbal_lock(self) -> bool:
        """True where ``|cos theta| < 0.05``: the Euler readout is meaningless there."""
        return abs(math.cos(math.radians(self.angles_deg[1]))) < 0.05

    def row(self) -> tuple:
        """Values in :func:`history_columns` order."""
        return history_row(
            self.t, self.q, self.w, self.angles_deg, self.norm, self.multiplier, self.energy, self.h,
            self.torque, self.qc, self.norm_correction, self.q_dot_p, self.command_deg, self.four_t,
            self.wheel_speeds, self.wheel_torques, self.orbit_angles_deg, self.command_torque, self.body_h,
            orbit_values(self.world, self.pointing_error_deg)
            + field_values(self.b_body, self.dipole, None if self.t_gg is None else
                           (self.t_gg, self.t_srp, self.t_drag, self.t_mag)),
            self.estimate or (), _timeline(self.estimate, self.sensors), self.cmg or (), self.thrusters)


def orbit_values(world, error_deg) -> tuple:
    """The :data:`ORBIT_COLUMNS` values of a world state (empty without one)."""
    if world is None:
        return ()
    return (*world.r_km, *world.v_kms, *world.sun, world.sunlit, error_deg)


def field_values(b_body, dipole, parts) -> tuple:
    """The :data:`MAGNETIC_COLUMNS` and :data:`TORQUE_COLUMNS` values (each empty when off)."""
    out = () if b_body is None else (*b_body, *dipole)
    return out if parts is None else out + tuple(x for part in parts for x in part)


def _timeline(estimate, sensors) -> tuple:
    """The history's :data:`sim.model.navigation.AVAILABILITY_COLUMNS` of a snapshot's estimate (empty without)."""
    if estimate is None:
        return ()
    levels = tuple(3.0 - k + 0.6 * a for k, a in enumerate(sensors))
    return (-estimate[7], -estimate[8], -estimate[9], *levels)
