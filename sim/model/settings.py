"""The simulation's settings: one validated record shared by every input path.

Scenario files, the command line, the GUI and recordings all set the same
named values through :func:`validate`, so a bad value gets the same clear
message wherever it comes from.  Units: angles in degrees where the name ends
in ``_deg``, rates in rad/s, torques in N m, times in s.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields

from sim.core.body import Body
from sim.core.control import HOFFMANN_PRESET
from sim.gnc.magnetic import Magnetorquers
from sim.world.time import DEFAULT_EPOCH
from sim.io.limits import LIMITS, SettingsError, huge_integer, short_repr
from sim.model.shape import DEFAULT_BODY, MassProperties, ShapeError, mass_properties
from sim.core.wheels import WheelSet, free_inertia
from sim.model.wheel_settings import wheel_set
from sim.core.cmg import PYRAMID_SKEW_DEG
from sim.model.cmg_settings import CmgCluster, cmg_of
from sim.model.actuator_settings import ThrusterSet, check_thrusters, thrusters_of
from sim.model.domain import check_domain
from sim.model.navigation import check_navigation
from sim.model.validators import VALIDATORS

__all__ = ["Settings", "SettingsError", "validate", "MAX_DT", "MIN_DT", "stability_warning",
           "damper_warning", "INERTIA_SCALED", "axis_ratios", "carried_to"]

#: Largest step accepted (s); Hoffmann's examples use 0.1 (the range is :data:`sim.io.limits.LIMITS`' "dt").
MAX_DT = LIMITS["dt"].high
#: Smallest step accepted (s): a nanosecond (see :data:`sim.io.limits.LIMITS`).
MIN_DT = LIMITS["dt"].least
#: Hoffmann's stability bound for Half-Quat (Appendix A: "stable for small dT <= 0.3").
HALF_QUAT_DT_BOUND = 0.3


@dataclass(frozen=True)
class Settings:
    """Everything that defines a run apart from the state (MuJoCo's "model").

    See README, "Scenario files", for each field.  Every field is checked by
    :func:`validate` at construction (and by :meth:`replace`): a bad value
    raises :class:`SettingsError`, never a later ``KeyError``.
    """

    #: Explicit inertia (wins when given); None: the body's own (sim.model.shape).
    inertia: tuple | None = None
    #: A built-in body (sim.model.shape.BUILTINS) or a mesh file.
    body: str = DEFAULT_BODY
    #: Total mass (kg) for an inertia from the mesh; None: the body's own.
    mass: float | None = None
    #: The length unit of a mesh file's coordinates (sim.model.shape.MESH_UNITS: m, cm, mm, in).
    mesh_units: str = "m"
    integrator: str = "half-quat"
    full_quat_form: str = "hoffmann"
    norm: str = "hoffmann"
    dt: float = 0.001
    angles_deg: tuple = (0.0, 0.0, 0.0)
    rates: tuple = (0.0, 0.0, 0.0)
    torque: tuple = (0.0, 0.0, 0.0)
    dampers_on: bool = False
    dampers: tuple = HOFFMANN_PRESET["dampers"]
    controller: str = "none"
    gains: tuple = HOFFMANN_PRESET["gains"]
    axes: tuple = (True, True, True)
    shortest_path: bool = True
    limiter_on: bool = False
    limits: tuple = HOFFMANN_PRESET["limits"]
    slerp_time: float = 2.0
    command_deg: tuple | None = None
    #: Reaction wheels (sim.core.wheels): "none", "orthogonal", "pyramid", or unit axes ((x, y, z), ...).
    wheels: str | tuple = "none"
    #: Each wheel's axial inertia (kg m^2), motor-torque limit (N m), speed limit (rad/s) and
    #: viscous friction (N m s): one number for every wheel, or one per wheel.
    wheel_inertia: float | tuple = 0.01
    wheel_torque_limit: float | tuple = 1.0
    wheel_speed_limit: float | tuple = 600.0
    wheel_friction: float | tuple = 0.0
    #: Initial wheel speeds relative to the body, rad/s, one per wheel (None: at rest); a reset state.
    wheel_speeds: tuple | None = None
    #: Direct motor torques, N m, one per wheel, added to the wheels' share of the torque command.
    wheel_torques: tuple | None = None
    #: Control moment gyros (issue 45, sim.core.cmg, sim.model.cmg_step): "none" or "pyramid" (Wie's four CMGs,
    #: gimbal axes cmg_skew deg from body z), each rotor's momentum cmg_h0 (N m s), the steering law (mp, sr, null,
    #: gsr), the SR weight lam = cmg_lambda0 h0^2 exp(-cmg_mu m / h0^6), the null motion's gain (rad/s), Wie's
    #: dither (eps0, rad/s), the gimbal-rate limit (rad/s), the initial gimbal angles (deg, one per CMG; None: 0).
    cmg: str = "none"
    cmg_h0: float = 1.0
    cmg_skew: float = PYRAMID_SKEW_DEG
    cmg_law: str = "sr"
    cmg_lambda0: float = 0.01
    cmg_mu: float = 10.0
    cmg_null_gain: float = 0.1
    cmg_dither: float = 0.1
    cmg_dither_rate: float = 0.5 * math.pi
    cmg_rate_limit: float = 1.0
    cmg_angles: tuple | None = None
    #: Gravity-gradient torque of a circular orbit at altitude_km (sim.world.environment).
    gravity_gradient: bool = False
    altitude_km: float = 500.0
    #: Disturbance torque (N m) in body or inertial axes; constant, or times sin(2 pi t / period).
    disturbance: tuple = (0.0, 0.0, 0.0)
    disturbance_axes: str = "body"
    disturbance_period: float = 0.0
    #: The UTC epoch of t = 0 (ISO 8601, 1950-2050; sim.world.time).
    epoch: str = DEFAULT_EPOCH
    #: Keplerian elements (altitude_km of a = R_E + altitude, e, i_deg, raan_deg, argp_deg, nu_deg), or None.
    orbit: tuple | None = None
    #: A two-line element set (its text), propagated by SGP4 from the epoch, or None.
    tle: str | None = None
    #: The J2 secular drift of the orbit's node, perigee and mean anomaly (sim.world.orbit).
    j2: bool = False
    #: Guidance: inertial (the command angles), nadir, sun, target, velocity (sim.gnc.pointing).
    pointing: str = "inertial"
    #: The ground target (lat_deg, lon_deg, alt_km) of pointing "target".
    target: tuple = (0.0, 0.0, 0.0)
    #: The body axis pointed by the moving modes (made unit).
    pointing_axis: tuple = (0.0, 0.0, 1.0)
    #: The geomagnetic field (issue 32, sim.world.magnetic): "none", "igrf" (IGRF-14, degree 13) or "dipole".
    magnetic_field: str = "none"
    #: Magnetorquer rods: the dipole limit of each (A m^2; 0: none) and their axes (None: body x, y, z).
    magnetorquers: float = 0.0
    magnetorquer_axes: tuple | None = None
    #: The body's residual dipole, A m^2, body axes (a disturbance in the field).
    residual_dipole: tuple = (0.0, 0.0, 0.0)
    #: B-dot detumbling (sim.gnc.magnetic.Bdot): "off", "proportional" (m = -gain dB/dt) or "bang-bang";
    #: the gain in A m^2 s / T and the magnetometer's sampling period in s.
    bdot_law: str = "off"
    bdot_gain: float = 1e5
    bdot_period: float = 1.0
    #: Momentum dumping by the torquers, m = k (dh x B)/|B|^2 with dh the wheels' momentum (1/s; 0: off).
    dumping_gain: float = 0.0
    #: Surface torques of the body's mesh: solar radiation pressure, drag, their coefficients (a TOML
    #: file, sim.model.surface_file; None: black, C_d 2.2), and the centre of mass in the mesh's
    #: coordinates (m; None: the body's own).
    srp: bool = False
    drag: bool = False
    surfaces: str | None = None
    center_of_mass: tuple | None = None
    #: The air's density for the drag: "exponential" (Vallado Table 8-4) or "msis" (NRLMSIS 2.1, pymsis).
    atmosphere: str = "exponential"
    #: Attitude estimation (issue 33, sim.model.navigation): truth (none), triad, quest or mekf.
    estimator: str = "truth"
    #: The rate gyro: (ARW rad/sqrt(s), RRW rad/s^(3/2), BIAS0 1 sigma per axis of the initial bias, rad/s), or None.
    gyro: tuple | None = None
    #: The star tracker: (noise across the boresight, arcsec 1 sigma; samples per second), or None.
    star_tracker: tuple | None = None
    #: Coarse sun sensors on the six faces (needs an orbit: the Sun and the shadow).
    sun_sensors: bool = False
    #: A magnetometer's noise, T 1 sigma per axis (IGRF-14; needs an orbit), or None.
    magnetometer: float | None = None
    #: What the controller and the pointing modes read: the true state, or the estimate.
    fly_on: str = "truth"
    #: The sensors' seed: body i's draws come from SeedSequence([sensor_seed, i, sensor id]).
    sensor_seed: int = 0
    #: The filter's tuning: the gyro noises (ARW, RRW) the MEKF assumes; None: the gyro's own.
    filter_gyro: tuple | None = None
    #: Thrusters (issue 45, sim.model.thruster_drive): "none", "cube" (12 in couples) or positions ((x, y, z), ...)
    #: in m with their unit directions; force (N), Isp (s), minimum impulse bit (N s): one, or one per thruster.
    thrusters: str | tuple = "none"
    thruster_directions: tuple | None = None
    thruster_force: float | tuple = 1.0
    thruster_isp: float | tuple = 220.0
    thruster_impulse_bit: float | tuple = 0.0
    #: schmitt or pwpf per axis at each control period (s), or deadband (Wie's dead-band pulse controller);
    #: the trigger's U_on and U_off (command normalised to 1), PWPF's K_m and tau_m (s), the dead band (deg).
    thruster_modulation: str = "schmitt"
    thruster_period: float = 0.1
    thruster_on: float = 0.45
    thruster_off: float = 0.15
    pwpf_km: float = 4.5
    pwpf_tau: float = 0.35
    thruster_deadband_deg: float = 1.0
    #: With reaction wheels: the thrusters unload them, T = -k h_w (k in 1/s).
    thruster_unloading: float = 0.0

    def __post_init__(self):
        # Every field through validate(): Settings(dt=-1) fails here, at
        # construction, with the same message as every other input path.
        for f in fields(self):
            object.__setattr__(self, f.name, validate(f.name, getattr(self, f.name)))
        self._check_together()

    def _check_together(self) -> None:
        """The checks that combine keys (each key's own range is :func:`validate`'s): SettingsError, one line.

        Run by every new record, and by :meth:`replace` after it validated
        only the keys it changes.
        """
        self.mass_properties  # noqa: B018 - raises SettingsError for a body without inertia
        if self.orbit is not None and self.tle is not None:
            raise SettingsError("orbit: give Keplerian elements or a TLE, not both")
        if self.pointing != "inertial" and not self.has_orbit:
            raise SettingsError(f"pointing: {self.pointing} needs an orbit (orbit elements or a TLE)")
        if self.pointing != "inertial" and self.controller == "none":
            # the pointing command is read by the attitude controller only: without one it would do nothing
            raise SettingsError(f"pointing: {self.pointing} needs an attitude controller to follow it "
                                "(controller quaternion or euler; --controller quaternion)")
        if self.j2 and not self.has_orbit:
            raise SettingsError("j2: perturbs an orbit; give orbit elements (a TLE's SGP4 has J2 already)")
        self._check_issue32()
        check_navigation(self)  # the sensors an estimator needs, and what they need (sim.model.navigation)
        check_domain(self)  # the world's models inside their domains at the epoch (sim.model.domain)
        if self.cmg_set is not None:  # checked by cmg_of: h0, skew, angles, not singular at the start
            self._check_cmg()
        check_thrusters(self)  # sim.model.actuator_settings
        wheels = self.wheel_set  # raises SettingsError for lists that do not fit the wheels
        if wheels is not None:
            if self.integrator == "splitting":  # its exact principal rotations are the rigid body's (sim.core.integrators)
                raise SettingsError("integrator: splitting is for a body without reaction wheels "
                                    "(choose half-quat, full-quat, rk4 or rkmk4, or wheels = none)")
            try:
                free_inertia(Body(self.mass_properties.inertia).J, wheels)
            except ValueError as exc:
                raise SettingsError(f"wheel_inertia: {exc}") from None

    def _check_cmg(self) -> None:
        """What a CMG cluster steps with (sim.model.cmg_step): no wheels (thrusters unload it), by rk4, on the truth."""
        if self.wheels != "none":
            raise SettingsError("cmg: a body with both reaction wheels and CMGs is not supported (wheels none, or cmg none)")
        if self.integrator != "rk4":
            raise SettingsError(f"cmg: a CMG cluster steps by rk4 (its compiled kernel), not {self.integrator} "
                                "(integrator rk4; --integrator rk4)")
        if self.estimator != "truth":
            raise SettingsError(f"cmg: a CMG cluster flies on the truth, not on the estimator {self.estimator} "
                                "(estimator truth)")

    @functools.cached_property
    def cmg_set(self) -> CmgCluster | None:
        """The control moment gyros (:class:`sim.model.cmg_settings.CmgCluster`), or None without."""
        return cmg_of(self)

    def _check_issue32(self) -> None:
        """The field, the torquers and the surface torques together (each needs what it acts in)."""
        for key, on in (("magnetic_field", self.magnetic_field != "none"), ("srp", self.srp), ("drag", self.drag)):
            if on and not self.has_orbit:
                raise SettingsError(f"{key}: needs an orbit (orbit elements or a TLE)")
        magnetic = (("magnetorquers", self.magnetorquers > 0.0), ("bdot_law", self.bdot_law != "off"),
                    ("dumping_gain", self.dumping_gain > 0.0),
                    ("residual_dipole", any(x != 0.0 for x in self.residual_dipole)))
        for key, on in magnetic:
            if on and self.magnetic_field == "none":
                raise SettingsError(f"{key}: needs a magnetic field (magnetic_field igrf or dipole; --magnetic-field at the command line)")
        for key, on in magnetic[1:3]:
            if on and not self.magnetorquers > 0.0:
                raise SettingsError(f"{key}: needs magnetorquers (magnetorquers = their dipole limit in A m^2; --magnetorquers)")
        if self.bdot_law != "off" and self.dumping_gain > 0.0:
            raise SettingsError("dumping_gain: B-dot and momentum dumping drive the same rods; choose one")
        if self.dumping_gain > 0.0 and self.wheel_set is None:
            raise SettingsError("dumping_gain: dumps the momentum of reaction wheels; the body has none")

    @functools.cached_property
    def magnetorquer_set(self):
        """The rods (:class:`sim.gnc.magnetic.Magnetorquers`, without the residual dipole), or None."""
        if not self.magnetorquers > 0.0:
            return None
        axes = self.magnetorquer_axes or ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
        return Magnetorquers(axes, (self.magnetorquers,) * len(axes))

    @property
    def magnetic_on(self) -> bool:
        """The field is evaluated: the run has the columns bx..bz, mx..mz (sim.model.rows)."""
        return self.magnetic_field != "none"

    @property
    def torques_on(self) -> bool:
        """The disturbance torques are reported one by one (t_gg_x .. t_mag_z): a field, SRP or drag."""
        return self.magnetic_on or self.srp or self.drag

    def __getstate__(self) -> dict:
        """The fields only: what is derived from them (:attr:`wheel_set` and its compiled formulas) is made
        again where the record is read, so a Settings pickles (to the window's ensemble process, a Dask worker)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @functools.cached_property
    def wheel_set(self) -> WheelSet | None:
        """The reaction wheels (:class:`sim.core.wheels.WheelSet`), or None without wheels."""
        return wheel_set(self)

    @functools.cached_property
    def thruster_set(self) -> ThrusterSet | None:
        """The thrusters (:class:`sim.model.actuator_settings.ThrusterSet`), or None without."""
        return thrusters_of(self)

    @property
    def thruster_count(self) -> int:
        """Number of thrusters (0 without)."""
        return 0 if self.thrusters == "none" else len(self.thruster_set.force)

    @property
    def command_followed(self) -> bool:
        """True when the command angles (``command_deg``) are what flies: an attitude controller follows them and
        the pointing is ``inertial``.  A moving mode makes its own command at each step (:mod:`sim.gnc.pointing`),
        and the angles wait until the pointing is inertial again; without a controller nothing follows them."""
        return self.controller != "none" and self.pointing == "inertial"

    @property
    def has_orbit(self) -> bool:
        """True with orbit elements or a TLE: the run has a world (sim.model.world)."""
        return self.orbit is not None or self.tle is not None

    @property
    def wheel_count(self) -> int:
        """Number of reaction wheels (0 without)."""
        wheels = self.wheel_set
        return 0 if wheels is None else wheels.n

    def replace(self, **changes) -> Settings:
        """A copy with ``changes``: each changed key validated once, then the checks that combine keys.

        The other fields were validated when this record was made and are
        copied as they are (no second pass over every field); what the
        record caches from its fields (the wheel set, the rods) is made again
        when read.  An unknown key raises SettingsError naming it.
        """
        return self.replace_validated(**{key: validate(key, value) for key, value in changes.items()})

    def replace_validated(self, **changes) -> Settings:
        """:meth:`replace` with values :func:`validate` already returned (a
        :class:`~sim.model.controls.SettingChange`'s): only the checks that combine keys run."""
        out = object.__new__(Settings)
        out.__dict__.update({key: self.__dict__[key] for key in KEYS}, **changes)
        out._check_together()
        return out

    @property
    def mass_properties(self) -> MassProperties:
        """The mass and inertia in force: explicit ``inertia`` wins, else the body's (sim.model.shape)."""
        try:
            return mass_properties(self.body, self.mass, self.inertia, self.mesh_units)
        except ShapeError as exc:
            raise SettingsError(f"body: {exc}") from None

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}



#: Setting names, in declaration order.
KEYS = tuple(f.name for f in fields(Settings))
assert set(KEYS) == set(VALIDATORS)


def validate(key: str, value):
    """Return ``value`` normalised for setting ``key``, or raise :class:`SettingsError`."""
    try:
        check = VALIDATORS[key]
    except KeyError:
        raise SettingsError(f"unknown setting {key!r} (known: {', '.join(KEYS)})") from None
    if huge_integer(value) is not None:  # no setting's number; its repr would fail in any message
        raise SettingsError(f"{key}: {short_repr(huge_integer(value))} is beyond any number a setting takes")
    return check(key, value)


def stability_warning(settings: Settings) -> str | None:
    """A warning when Half-Quat runs above Hoffmann's stability bound dT <= 0.3."""
    if settings.integrator == "half-quat" and settings.dt > HALF_QUAT_DT_BOUND:
        return (f"warning: dt={settings.dt:g} s is above Hoffmann's stability bound "
                f"{HALF_QUAT_DT_BOUND} s for half-quat; the run may diverge")
    return None


#: Largest damper gain times dt over the moment of inertia for which the damped
#: rates still decay step by step (explicit Euler: w <- (1 - k dt / J) w).
DAMPER_BOUND = 2.0


def damper_warning(settings: Settings) -> str | None:
    """A warning when the rate dampers are too stiff for the body at this dt (``k dt / J > 2``).

    A small body (a T-handle, a phone: J about 1e-4 kg m^2) with dampers
    sized for Hoffmann's aircraft (k = 3..6 N m s) diverges in a few steps.
    """
    if not settings.dampers_on:
        return None
    moments = settings.mass_properties.inertia[:3]
    ratio = max(k * settings.dt / j for k, j in zip(settings.dampers, moments))
    if ratio <= DAMPER_BOUND:
        return None
    return (f"warning: the dampers are too stiff for this body at dt={settings.dt:g} s "
            f"(k dt / J = {ratio:.3g} > {DAMPER_BOUND:g}): the rates diverge; lower the dampers or dt")


#: The per-axis inputs sized for a body's moments of inertia: the command
#: torque (N m), rate dampers (N m s), controller gains (N m) and torque
#: limits (N m).
INERTIA_SCALED = ("torque", "dampers", "gains", "limits")


def axis_ratios(before, after) -> tuple:
    """``(J'xx / Jxx, J'yy / Jyy, J'zz / Jzz)``: how much larger body ``after`` is about each body axis.

    ``before`` and ``after`` are Hoffmann's six numbers (or at least their
    first three, the moments about the body axes).
    """
    return tuple(float(a) / float(b) for a, b in zip(after[:3], before[:3]))


def carried_to(settings: Settings, inertia) -> dict:
    """The torque, dampers, gains and limits of ``settings`` carried to a body of ``inertia``: same time constants.

    About each body axis the damped, controlled motion obeys
    ``J w' = T - k w - K e`` (Hoffmann's dampers and controllers, small
    errors), whose natural frequency ``sqrt(K / J)``, damping ratio
    ``k / (2 sqrt(K J))``, the angular acceleration ``T / J`` of the command
    torque and the largest one a limit ``L`` allows, ``L / J``, are all
    unchanged when ``T``, ``k``, ``K`` and ``L`` scale with ``J``.  So each
    axis is scaled by ``J'ii / Jii`` (new over present moment): Hoffmann's
    aircraft tuning flies a 0.25 kg T-handle as it flies the aircraft
    instead of diverging (:func:`damper_warning`), and choosing the
    aircraft again gives the numbers back (to rounding, a few units in the
    last place).

    Returns
    -------
    dict
        ``{"torque": ..., "dampers": ..., "gains": ..., "limits": ...}``,
        ready for :meth:`Settings.replace` or one input each.
    """
    ratios = axis_ratios(settings.mass_properties.inertia, inertia)
    return {key: tuple(v * r for v, r in zip(getattr(settings, key), ratios))
            for key in INERTIA_SCALED}
