"""What acts on the body and its wheels: the torque law's command, realised directly or by the wheels, and the
environment's torques.

:class:`LoadModel` is the ``torque`` every integrator calls (:mod:`sim.core.integrators`)
when the body has reaction wheels or feels an external torque; without them
the steppers hand the integrators the torque law itself
(:class:`sim.core.control.TorqueModel`), so a plain run takes exactly the steps it
always took.  At a state ``(q, w)`` and time ``t`` it gives the **load**:

* without wheels, the total body torque ``T_cmd + T_ext`` (N m, body axes);
* with wheels, ``(T_ext, u_1, ..., u_n)``: the external torque on the body
  and the motor torques, ``u = -A+ T_cmd`` plus the direct motor commands,
  after each wheel's torque and speed limits (:func:`sim.core.wheels.wheel_motor_torques`).

``T_cmd`` is Hoffmann's torque law (command, dampers, controller, limiter,
:class:`~sim.core.control.TorqueModel`); ``T_ext`` the sum of the gravity-gradient
torque, the disturbance torque (:mod:`sim.world.environment`), the thrusters' torque held over the step
(:mod:`sim.model.thruster_drive`; without wheels they replace ``T_cmd``, which they realise) and, on one
body, the user's torque function ``f(t, q, w)`` of the Python API.

:class:`Gyrostat` is what the integrators read as ``body`` when there are
wheels: the craft's inertia (wheels locked), the wheels, and the inverse of
``J - sum J_s a a^T``.

Written once over :mod:`sim.core.ops`: the same model, with ``ops`` =
:data:`sim.core.ops.COLUMN`, gives the ensemble's columns bit for bit what it
gives one body on floats (the user's function excepted: it is one body's).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from sim.core.control import TorqueModel
from sim.core.norm import READS_UNIT, unit
from sim.gnc.magnetic import magnetic_torque
from sim.model.shape import load as load_shape
from sim.model.surface_file import coefficients
from sim.model.surface_file import read as read_surfaces
from sim.core.angles import to_body
from sim.world.surfaces import Surfaces, drag, facets, relative_velocity, srp
from sim.world.environment import disturbance_torque, gravity_gradient_at, gravity_gradient_torque, orbit_rate
from sim.core.ops import COLUMN, FLOAT
from sim.core.wheels import WheelSet, free_inertia, wheel_reaction

__all__ = ["LoadModel", "Gyrostat", "GyrostatRows", "gyrostat_of", "UserTorqueError", "body_surfaces"]


_ZERO = (0.0, 0.0, 0.0)


class UserTorqueError(TypeError):
    """The user's torque function returned something other than three finite numbers."""


class Gyrostat:
    """A rigid body with reaction wheels, as the integrators read it (``body``).

    Parameters
    ----------
    j_rows, j_inv_rows : 9-tuples
        ``J`` (the whole craft's, wheels locked) and ``J^-1``, row major; floats,
        or the ensemble's rows (one value per body).
    wheels : sim.core.wheels.WheelSet or None
    j_free_inv_rows : 9-tuple or None
        ``(J - sum J_s,i a_i a_i^T)^-1`` row major (None without wheels).
    ops : sim.core.ops flavour
        What the rows are: :data:`sim.core.ops.FLOAT` (one body) or
        :data:`sim.core.ops.COLUMN` (the ensemble's rows).

    Attributes
    ----------
    formulas : sim.core.wheels.Formulas or None
        The wheels' formulas the integrators call (:func:`sim.core.integrators.rates_rhs`),
        with the inertia written in when it is one set of floats.
    """

    __slots__ = ("j_rows", "j_inv_rows", "wheels", "j_free_inv_rows", "formulas", "ops")

    def __init__(self, j_rows, j_inv_rows, wheels=None, j_free_inv_rows=None, ops=FLOAT):
        self.j_rows, self.j_inv_rows, self.ops = j_rows, j_inv_rows, ops
        self.wheels, self.j_free_inv_rows = wheels, j_free_inv_rows
        self.formulas = None
        if wheels is not None:
            floats = all(isinstance(x, float) for x in (*j_rows, *j_free_inv_rows))
            self.formulas = wheels.formulas(FLOAT, (tuple(j_rows), tuple(j_free_inv_rows)) if floats else None)


class GyrostatRows(Gyrostat):
    """What the integrators read from a :class:`~sim.core.body.Body` or :class:`Gyrostat`, for an ensemble
    (:class:`sim.ensemble.Ensemble`), as floats (an inertia shared by every body) or rows (one value per body):
    ``j_rows``, ``j_inv_rows``, the wheels' ``j_free_inv_rows``, ``moment_rows``, ``axis_rows``, and ``ops``
    (:data:`sim.core.ops.COLUMN`)."""

    __slots__ = ("moment_rows", "axis_rows")

    def __init__(self, j_rows, j_inv_rows, wheels, j_free_inv_rows, moment_rows, axis_rows):
        super().__init__(j_rows, j_inv_rows, wheels, j_free_inv_rows, COLUMN)
        self.moment_rows, self.axis_rows = moment_rows, axis_rows


def gyrostat_of(body, wheels: WheelSet | None):
    """``body`` (a :class:`sim.core.body.Body`) with ``wheels``: a :class:`Gyrostat`, or ``body`` itself without wheels.

    ``J - sum J_s a a^T`` is inverted with numpy, as :class:`~sim.core.body.Body`
    inverts ``J``; ValueError when it is not positive definite.
    """
    if wheels is None:
        return body
    inverse = np.linalg.inv(free_inertia(body.J, wheels))
    return Gyrostat(body.j_rows, body.j_inv_rows, wheels, tuple(float(x) for x in inverse.ravel()), body.ops)


class LoadModel:
    """The load on the body and its wheels at ``(q, w, t)`` (see the module docstring).

    Parameters
    ----------
    torque : sim.core.control.TorqueModel
        The torque law, of the same ``ops``.
    ops : Ops
        :data:`sim.core.ops.FLOAT` (one body) or :data:`sim.core.ops.COLUMN` (the ensemble).

    Attributes
    ----------
    wheels : sim.core.wheels.WheelSet or None
    direct : tuple or None
        Direct motor torque per wheel, N m.
    gravity_gradient : bool
    rate : float
        Orbit rate ``n``, rad/s.
    j_rows : 9-tuple
        The craft's inertia, for the gravity gradient.
    disturbance : tuple or None
        Disturbance amplitude ``D`` (N m), None when zero.
    period : float
    inertial : bool
        ``D`` is in inertial axes.
    user : callable or None
        ``f(t, q, w) -> (tx, ty, tz)`` (one body only), body axes, N m.
        With norm handling ``elimination`` it reads the attitude ``Q / |Q|``,
        as every attitude-dependent term does (:mod:`sim.core.norm`).
    unit : bool
        The norm handling reads the attitude as ``Q / |Q|`` (:data:`sim.core.norm.READS_UNIT`).
    """

    __slots__ = ("torque", "ops", "wheels", "direct", "gravity_gradient", "rate", "j_rows", "disturbance",
                 "period", "inertial", "_user", "_motor_load", "_outside", "orbit", "unit",
                 "world_state", "field", "surfaces", "srp", "drag", "dipole", "_stage", "thrust")

    def __init__(self, torque: TorqueModel, ops=FLOAT):
        self.torque, self.ops = torque, ops
        self.wheels = self.direct = self.disturbance = self._user = None
        self.gravity_gradient = self.inertial = self.unit = False
        self.rate = self.period = 0.0
        self.j_rows = self._motor_load = None
        self._outside = False
        #: With an orbit (sim.model.world) the gravity gradient and the drag follow it, read at each stage's time.
        self.orbit = False
        #: Issue 32: the step's :class:`~sim.model.world.WorldState` (field, Sun, air, the orbit), set by the
        #: stepper once per step; ``dipole`` the body's dipole held over the step (the torquers' command plus
        #: the residual, A m^2).
        self.world_state = None
        self.field = self.srp = self.drag = False
        self.surfaces = None
        self.dipole = _ZERO
        #: ``(t, r_km, v_rel)`` of the last stage time read (:meth:`stage`): rk4's two middle stages share one.
        self._stage = None
        #: Issue 45: the thrusters' torque held over the step (N m, body axes; sim.model.thruster_drive), None
        #: without thrusters.  Without wheels the thrusters realise the torque law: it acts only through them.
        self.thrust = None

    def configure(self, settings, j_rows) -> None:
        """Take the wheels and the environment of a :class:`~sim.model.settings.Settings`; ``j_rows`` the craft's ``J``."""
        s = settings
        self.wheels = s.wheel_set
        self.direct = s.wheel_torques
        self.gravity_gradient = s.gravity_gradient
        self.rate = orbit_rate(s.altitude_km)
        self.orbit = s.has_orbit
        self.j_rows = j_rows
        self.disturbance = s.disturbance if any(x != 0.0 for x in s.disturbance) else None
        self.period = s.disturbance_period
        self.inertial = s.disturbance_axes == "inertial"
        self.unit = s.norm in READS_UNIT
        self._motor_load = None if self.wheels is None else self.wheels.formulas(self.ops).motor_load
        self.field, self.srp, self.drag = s.magnetic_on, s.srp, s.drag
        self.surfaces = body_surfaces(s) if (s.srp or s.drag) else None
        self.dipole = tuple(s.residual_dipole)
        self.thrust = None if s.thrusters == "none" else _ZERO
        self._outside = self._outside_on()

    def _outside_on(self) -> bool:
        return (self.gravity_gradient or self.disturbance is not None or self._user is not None or self.field
                or self.srp or self.drag or self.thrust is not None)

    def set_world(self, ws) -> None:
        """The world of the step under way (:class:`~sim.model.world.WorldState`): read by every stage."""
        self.world_state = ws
        self._stage = None

    def stage(self, t):
        """``(r_km, v_rel)`` at a stage's time ``t``: the orbit's position (km, ECI) and the velocity relative to
        the co-rotating air (m/s, ECI, :func:`sim.world.surfaces.relative_velocity`).

        The orbit is evaluated at ``t`` itself (:attr:`WorldState.orbit <sim.model.world.WorldState.orbit>`:
        an analytic propagator gives the state at any time), so the integrator keeps its order on an orbit;
        a straight line ``r + v (t - t_step)`` would make rk4 second order (issue 42).
        """
        got = self._stage
        if got is None or got[0] != t:
            ws = self.world_state
            r, v = (ws.r_km, ws.v_kms) if t == ws.t or ws.orbit is None else ws.orbit.state(t)
            v_rel = relative_velocity((r[0] * 1e3, r[1] * 1e3, r[2] * 1e3), (v[0] * 1e3, v[1] * 1e3, v[2] * 1e3))
            got = self._stage = (t, r, v_rel)
        return got[1], got[2]

    def field_body(self, q, t):
        """The field in body axes at the stage ``(q, t)``: the step's ``B_eci + dB/dt (t - t_step)`` turned by ``C(Q)``."""
        ws = self.world_state
        d = t - ws.t
        b, r = ws.b_eci, ws.b_rate
        return to_body(q, (b[0] + r[0] * d, b[1] + r[1] * d, b[2] + r[2] * d))

    def parts(self, q, t) -> tuple:
        """``(T_gg, T_srp, T_drag, T_mag)`` at ``(q, t)`` (N m, body axes; zeros for what is off): the four
        environment torques one by one, as the CSV's t_gg_x .. t_mag_z report them."""
        return (self._gravity(q, t) if self.gravity_gradient else _ZERO,
                self._srp(q) if self.srp else _ZERO,
                self._drag(q, t) if self.drag else _ZERO,
                magnetic_torque(self.dipole, self.field_body(q, t)) if self.field else _ZERO)

    def _gravity(self, q, t):
        if self.orbit:  # the orbit at the stage's time
            return gravity_gradient_at(q, self.stage(t)[0], self.j_rows, self.ops)
        return gravity_gradient_torque(q, t, self.rate, self.j_rows)

    def _srp(self, q):
        ws = self.world_state
        if isinstance(ws.sunlit, float) and ws.sunlit <= 0.0:  # one world; rows (one per body) scale by sunlit
            return _ZERO
        return srp(self.surfaces, to_body(q, ws.sun), ws.sun_km * 1e3, ws.sunlit)[0]

    def _drag(self, q, t):
        return drag(self.surfaces, to_body(q, self.stage(t)[1]), self.world_state.density)[0]

    @property
    def user(self):
        """``f(t, q, w) -> (tx, ty, tz)``: the user's torque function (one body only), or None."""
        return self._user

    @user.setter
    def user(self, f) -> None:
        self._user = f
        self._outside = self._outside_on()

    @property
    def active(self) -> bool:
        """True when there is more than the torque law: wheels or an external torque."""
        return self.wheels is not None or self._outside_on()

    def external(self, q, w, t):
        """``T_ext`` at ``(q, w, t)``: gravity gradient + disturbance + the user's torque (None when none acts)."""
        total = None
        if self.gravity_gradient:
            total = self._gravity(q, t)
        if self.field or self.srp or self.drag:
            if self.srp:
                d = self._srp(q)
                total = d if total is None else (total[0] + d[0], total[1] + d[1], total[2] + d[2])
            if self.drag:
                d = self._drag(q, t)
                total = d if total is None else (total[0] + d[0], total[1] + d[1], total[2] + d[2])
            if self.field:
                d = magnetic_torque(self.dipole, self.field_body(q, t))
                total = d if total is None else (total[0] + d[0], total[1] + d[1], total[2] + d[2])
        if self.disturbance is not None:
            d = disturbance_torque(q, t, self.disturbance, self.period, self.inertial)
            total = d if total is None else (total[0] + d[0], total[1] + d[1], total[2] + d[2])
        if self._user is not None:
            d = _user_torque(self._user, t, unit(q, self.ops) if self.unit else q, w)
            total = d if total is None else (total[0] + d[0], total[1] + d[1], total[2] + d[2])
        if self.thrust is not None:
            d = self.thrust
            total = d if total is None else (total[0] + d[0], total[1] + d[1], total[2] + d[2])
        return total

    def __call__(self, q, w, t):
        if self.thrust is not None and self._motor_load is None:  # the thrusters realise the torque law
            return self.external(q, w, t)
        command = self.torque(q, w)
        external = self.external(q, w, t) if self._outside else None
        if self._motor_load is None:
            if external is None:
                return command
            return (command[0] + external[0], command[1] + external[1], command[2] + external[2])
        return self._motor_load(command, w[3:], self.direct, _ZERO if external is None else external)

    def body_torque(self, load, w):
        """The torque on the body of a ``load`` at rates ``w``: external plus the wheels' reaction (N m).

        Without wheels the load itself; with them ``T_ext - sum a_i (u_i - c_i W_i)``
        (:func:`sim.core.wheels.wheel_reaction`): what the plots and the CSV call the
        applied torque.
        """
        if self.wheels is None:
            return load
        r = wheel_reaction(load[3:], w[3:], self.wheels)
        return (load[0] + r[0], load[1] + r[1], load[2] + r[2])


def body_surfaces(settings) -> Surfaces:
    """The facets of the body's mesh (:func:`sim.model.shape.load`) about its centre of mass, with the
    coefficients of the settings' surfaces file (:mod:`sim.model.surface_file`; none: black, C_d 2.2).

    The centre of mass is ``settings.center_of_mass`` in the mesh's coordinates, else the body's
    own origin (the solid's centre of mass, :attr:`sim.model.shape.Shape.centre`).
    """
    s = settings
    shape = load_shape(s.body, s.mesh_units)
    centre = shape.centre if s.center_of_mass is None else s.center_of_mass
    spec = None if s.surfaces is None else read_surfaces(s.surfaces)
    return facets(shape.vertices, shape.faces, centre, **coefficients(spec, shape.vertices, shape.faces, shape.colors))


def _user_torque(f, t, q, w):
    """``f(t, q, w)`` as three floats (``w``: the body rates only); UserTorqueError naming what came back.

    Exactly three finite real numbers, in a tuple, a list or a 1-D numpy
    array: text and bytes (whose characters ``float()`` would read one by
    one), sets (no order), generators, mappings, booleans, complex numbers
    and integers beyond a float are refused, never coerced.  An arithmetic
    error inside ``f`` (an overflow, a division by zero, a math domain
    error) is the function's, named as such, not a fault of the state.
    """
    try:
        result = f(t, q, (w[0], w[1], w[2]))
    except (ArithmeticError, ValueError) as exc:
        if isinstance(exc, ValueError) and "math domain error" not in str(exc):
            raise  # the function's own refusal, as it wrote it
        raise UserTorqueError(f"user torque: f(t={t:g}, q, w) raised {type(exc).__name__}: {exc}") from exc
    return _three_reals(result, t)


def _three_reals(result, t):
    """``result`` as three finite floats, or UserTorqueError saying what it was."""
    def refuse(why):
        raise UserTorqueError(f"user torque: f(t, q, w) must return three finite real numbers (tx, ty, tz) in N m "
                              f"(a tuple, a list or a numpy array), got {_shown(result)}{why}")

    if isinstance(result, np.ndarray):
        if result.shape != (3,) or result.dtype.kind not in "iuf":
            refuse(f" (an array of shape {result.shape} and dtype {result.dtype})")
        values = result.tolist()
    elif isinstance(result, (tuple, list)):
        values = result
    else:
        refuse(f" (a {type(result).__name__})")
    if len(values) != 3:
        refuse(f" ({len(values)} values)")
    out = []
    for x in values:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Real, np.integer, np.floating)):
            refuse(f" (a {type(x).__name__} among them)")
        try:
            out.append(float(x))
        except OverflowError:
            refuse(" (an integer too large for a float)")
    if not all(math.isfinite(x) for x in out):
        raise UserTorqueError(f"user torque: f(t={t:g}, q, w) returned {tuple(out)}, not finite")
    return out[0], out[1], out[2]


def _shown(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
