"""What the spacecraft knows, step by step: its sensors sampled from the true state and the world, an estimator
updated from them, and the estimate the controller may fly on (issue 33).

:class:`Navigation` assembles :mod:`sim.gnc.sensors` and :mod:`sim.gnc.estimation`
for one body or a column of bodies (``bodies``: body ``i``'s draws are the
same alone, in the window and as member ``i`` of an ensemble).  Once per step
(docs/PHYSICS.md, "The navigation loop"):

1. at the step's start ``t`` (:meth:`Navigation.sample`): each sensor whose
   instants ``k / rate`` fall in ``[t, t + dt)`` (:func:`sim.gnc.sensors.sample_due`)
   is sampled from the true attitude and the :class:`~sim.model.world.WorldState`
   of ``t``, and the estimator takes it (the MEKF updates in turn: star
   tracker, sun sensors, magnetometer; TRIAD and QUEST solve when both vectors
   are valid, else hold their last solution);
2. the controller flies on the estimate of ``t`` (``fly_on = "estimate"``),
   its torque held over the step (a zero-order hold, as a flight computer);
3. after the step (:meth:`Navigation.propagate`): the gyro's sample of the
   mean rate over ``[t, t + dt]`` (the mean of the true rates at both ends)
   drives the MEKF to ``t + dt``.

The estimators:

* ``truth``: none (the controller reads the truth; no estimate columns);
* ``triad``: TRIAD (:func:`sim.gnc.estimation.triad`) from the sun sensors and the
  magnetometer, the more accurate first;
* ``quest``: QUEST (:func:`sim.gnc.estimation.quest`) over the same two vectors,
  weighted by ``1 / sigma^2``;
* ``mekf``: the multiplicative EKF (:class:`sim.gnc.estimation.Mekf`) driven by the
  gyro, updated by every sensor on board.

The covariance of TRIAD and QUEST is Wahba's (Shuster & Oh 1981, section V;
Markley & Crassidis 2014, §5.5): ``P = (sum_i sigma_i^-2 (I - b_i b_i^T))^-1``,
body axes: QUEST's, and a lower bound of TRIAD's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sim.gnc.attitude import from_rotation_vector, product
from sim.gnc.estimation import Mekf, process_noise, wahba_covariance
from sim.gnc.sensing import CFG, CFG_SIZE, INP_SIZE, KINDS, estimate_columns, navigation_step
from sim.model.craft_nav import CTL_SIZE, NO_NAV
from sim.core.ops import COLUMN
from sim.gnc.sensors import (CoarseSunModel, CoarseSunSensors, Gyro, GyroModel, Magnetometer,
                             MagnetometerModel, StarTracker, StarTrackerModel, sample_due)
from sim.world.environment import EARTH_RADIUS_KM
from sim.io.limits import SettingsError
from sim.world.frames import precession
from sim.world.magnetic import IGRF_YEARS, field_eci, gauss
from sim.world.time import decimal_year, julian_centuries_tt, parse_epoch

__all__ = ["ESTIMATORS", "FLY_ON", "VECTOR_RATE_HZ", "INITIAL", "ATTITUDE_SIGMA0", "ESTIMATE_COLUMNS",
           "SENSOR_NAMES", "AVAILABILITY_COLUMNS", "Navigation", "HeldTorque", "check_navigation", "magnetic_field",
           "wahba_covariance", "navigation_key", "flying_law", "DOF"]

ESTIMATORS = ("truth", "triad", "quest", "mekf")
FLY_ON = ("truth", "estimate")
#: The sun sensors' and the magnetometer's samples per second.
VECTOR_RATE_HZ = 10.0
#: The stream id of the initial estimate's error (after sim.gnc.sensors' ids 1..6).
INITIAL = 7
#: 1 sigma per axis of the initial attitude estimate's error, rad (the filter's initial P says the same).
ATTITUDE_SIGMA0 = math.radians(1.0)
#: The star tracker's noise about its boresight, in units of the noise across it.
ABOUT_BORESIGHT = 8.0
#: The estimate's columns in the CSV and npz (only with an estimator), in order.
ESTIMATE_COLUMNS = ("qe1", "qe2", "qe3", "qe4", "err_x_deg", "err_y_deg", "err_z_deg",
                    "sig3_x_deg", "sig3_y_deg", "sig3_z_deg", "bias_x", "bias_y", "bias_z",
                    "bias_est_x", "bias_est_y", "bias_est_z", "nees")
#: The sensors of the availability timeline, in order (Snapshot.sensors).
SENSOR_NAMES = ("gyro", "star_tracker", "sun_sensors", "magnetometer")
#: What the window's Estimation plots show besides (the history, not the CSV): -3 sigma per axis (deg), and the
#: sensors' timeline: sensor k of SENSOR_NAMES drawn at level 3 - k + 0.6 while available, 3 - k while not
#: (blinded, dark), nan when there is no such sensor.
AVAILABILITY_COLUMNS = ("nsig3_x_deg", "nsig3_y_deg", "nsig3_z_deg") + tuple(f"timeline_{n}" for n in SENSOR_NAMES)
_DEG = 180.0 / math.pi
_EARTH_RADIUS = EARTH_RADIUS_KM * 1e3
#: What the compiled loop takes for what is not there (a sensor, the rates of a phase not run, the craft kernel's
#: arrays when the torque is not held): no rows.
_NONE = np.zeros((0, 3))
_NO_DRAWS = np.zeros((0, 1, 1))
_NO_WORLD = np.zeros(0)
_NO_FLAGS = np.zeros(0, dtype=np.int64)
_NO_ENDS = np.zeros((2, 0, 3))
_NO_TERMS = np.zeros((0, 4))
_CFG = {k: v[0] for k, v in CFG.items()}


def _ends(w0, w1):
    """The true rates at both ends of a step (each a tuple of one body, or (N, 3)) as the compiled loop's
    ``ends`` (2, N, 3), C-contiguous."""
    return np.array((w0, w1), dtype=float).reshape(2, -1, 3)


#: The dimension of the error state the NEES is computed over, per estimator: the MEKF's attitude and gyro bias,
#: TRIAD's and QUEST's attitude alone (what the chi-square band of the NEES consistency check takes).
DOF = {"triad": 3, "quest": 3, "mekf": 6}


def navigation_key(s) -> tuple:
    """The settings a :class:`Navigation` is built from: a change of any starts the sensors and the filter again."""
    return (s.estimator, s.gyro, s.star_tracker, s.sun_sensors, s.magnetometer, s.sensor_seed, s.filter_gyro,
            s.epoch)


def flying_law(settings, nav, torque):
    """What the torque law reads: ``torque`` itself (the truth), or with ``fly_on = "estimate"`` and a
    :class:`Navigation` a :class:`HeldTorque` around it (Simulation's and Ensemble's, one rule)."""
    return HeldTorque(torque) if nav is not None and settings.fly_on == "estimate" else torque


def check_navigation(s) -> None:
    """Refuse settings the estimator cannot run with (SettingsError, one line): called by Settings."""
    if (s.sun_sensors or s.magnetometer is not None) and not s.has_orbit:
        which = "sun_sensors" if s.sun_sensors else "magnetometer"
        raise SettingsError(f"{which}: needs an orbit (orbit elements or a TLE) for the "
                            f"{'Sun and the shadow' if s.sun_sensors else 'field along it'}")
    if s.magnetometer is not None:
        year = parse_epoch(s.epoch).year
        if not IGRF_YEARS[0] <= year <= IGRF_YEARS[1] - 1:
            raise SettingsError(f"magnetometer: IGRF-14 covers {IGRF_YEARS[0]:g} to {IGRF_YEARS[1]:g}, "
                                f"not the epoch {s.epoch}")
    e = s.estimator
    if e in ("triad", "quest") and not (s.sun_sensors and s.magnetometer is not None):
        raise SettingsError(f"estimator: {e} needs two vector sensors, sun_sensors and a magnetometer")
    if e == "mekf":
        if s.gyro is None:
            raise SettingsError("estimator: mekf needs a gyro (it propagates with the gyro's rates)")
        if s.star_tracker is None and not s.sun_sensors and s.magnetometer is None:
            raise SettingsError("estimator: mekf needs a star tracker, sun sensors or a magnetometer to update")
    if s.fly_on == "estimate":
        if e == "truth":
            raise SettingsError("fly_on: estimate needs an estimator (triad, quest or mekf)")
        if s.gyro is None:
            raise SettingsError("fly_on: estimate needs a gyro for the rates the controller damps")


def magnetic_field(epoch, ws) -> tuple:
    """The Earth's field at the spacecraft (T, ECI = J2000 axes) in the :class:`~sim.model.world.WorldState` ``ws``.

    The world's own field when the run has one (``ws.b_eci``: ``--magnetic-field``, the same the torquers
    see); otherwise IGRF-14 at degree 13 at the epoch's year, through the one ECI <-> ECEF turn
    (:func:`sim.world.magnetic.field_eci`).  The one place the magnetometer takes its field from.
    """
    if ws.b_eci is not None:
        return ws.b_eci
    rot = (math.cos(ws.gmst), math.sin(ws.gmst))
    p = precession(julian_centuries_tt(epoch.days_tt(ws.t)))
    r = tuple(1e3 * x for x in ws.r_km)
    return field_eci(r, rot, p, _igrf_model(epoch))


def _igrf_model(epoch):
    """IGRF-14 at degree 13 at the epoch's decimal year: what the magnetometer reads without a field of the run's."""
    return gauss(decimal_year(epoch.days_utc(0.0)))

class Navigation:
    """The sensors and the estimator of ``settings`` for ``bodies`` (a column, shape ``(N, ...)`` throughout).

    Parameters
    ----------
    settings : sim.model.settings.Settings
        With ``estimator`` other than ``truth``.
    bodies : sequence of int
        The body indices (``[0]`` for one body).
    q, w : array_like, shape (N, 4) and (N, 3)
        The true attitude and rates at the start: the estimate starts at the
        attitude turned by an error of ``ATTITUDE_SIGMA0`` per axis (its own
        stream, id :data:`INITIAL`), its bias at 0.
    """

    def __init__(self, settings, bodies: Sequence[int], q, w):
        s = settings
        self.settings = s
        self.bodies = [int(b) for b in bodies]
        n = len(self.bodies)
        seed = s.sensor_seed
        self.kind = s.estimator
        self.epoch = parse_epoch(s.epoch)
        self.gyro = self.star = self.sun = self.mag = None
        if s.gyro is not None:
            arw, rrw, bias0 = s.gyro
            self.gyro = Gyro(GyroModel(arw=arw, rrw=rrw, bias_sigma=bias0), seed, self.bodies)
        if s.star_tracker is not None:
            noise, rate = s.star_tracker
            self.star = StarTracker(StarTrackerModel(noise_cross_arcsec=noise, noise_about_arcsec=ABOUT_BORESIGHT * noise,
                                                     rate_hz=rate), seed, self.bodies)
        if s.sun_sensors:
            self.sun = CoarseSunSensors(CoarseSunModel(), seed, self.bodies)
        if s.magnetometer is not None:
            self.mag = Magnetometer(MagnetometerModel(noise=s.magnetometer), seed, self.bodies)
        rng = [np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, b, INITIAL]))) for b in self.bodies]
        error0 = ATTITUDE_SIGMA0 * np.stack([g.standard_normal(3) for g in rng])
        q = np.asarray(q, float).reshape(n, 4)
        self.q = product(from_rotation_vector(error0), q)          # the estimate, Q = δQ(a) . Q̂
        self.q = self.q / np.linalg.norm(self.q, axis=-1, keepdims=True)
        self.rates = np.zeros((n, 3))                                # the last gyro sample (bias-corrected for mekf)
        self.p_att = np.broadcast_to(ATTITUDE_SIGMA0 ** 2 * np.eye(3), (n, 3, 3)).copy()
        self.available = np.zeros((n, len(SENSOR_NAMES)))           # 1 / 0 / nan (no such sensor)
        self.available[:, [self.gyro is None, self.star is None, self.sun is None, self.mag is None]] = np.nan
        self.filter = None
        #: True when this step's samples are taken already (:meth:`start_step`).
        self.taken = False
        self._qd_dt = None
        self._terms = None
        self._row_arrays = None
        #: The estimate's bias and covariance the compiled loop updates (the filter's own, or TRIAD's and QUEST's).
        self._bias, self._p = np.zeros((n, 3)), self.p_att
        if self.kind == "mekf":
            arw, rrw = s.filter_gyro if s.filter_gyro is not None else s.gyro[:2]
            bias0 = max(s.gyro[2], 1e-7)
            p0 = np.diag([ATTITUDE_SIGMA0 ** 2] * 3 + [bias0 ** 2] * 3)
            self.filter = Mekf(self.q, np.zeros((n, 3)), np.broadcast_to(p0, (n, 6, 6)), arw, rrw)
            self.q, self._bias, self._p = self.filter.state  # the filter's own arrays, updated in place
        self._cfg = self._constants()
        self._normals = self.sun.normals if self.sun is not None else _NONE
        self._true_bias = self.gyro.true_bias if self.gyro is not None else np.zeros((n, 3))

    def _constants(self) -> np.ndarray:
        """The compiled loop's ``cfg`` (:data:`sim.gnc.sensing.CFG`): the estimator, the sensors' numbers."""
        cfg = np.zeros(CFG_SIZE)
        c = _CFG
        cfg[c["kind"]] = KINDS[self.kind]
        if self.gyro is not None:
            m, arw, rrw, quantum, max_rate = self.gyro.parameters()
            cfg[c["m"]:c["m"] + 9] = np.ravel(m)
            cfg[c["arw"]], cfg[c["rrw"]], cfg[c["quantum"]], cfg[c["max_rate"]] = arw, rrw, quantum, max_rate
            cfg[c["gyro"]] = 1.0
        star = self.star
        if star is not None:
            cfg[c["star_sigma"]:c["star_sigma"] + 3] = star.sigma
            cfg[c["star_axes"]:c["star_axes"] + 9] = np.ravel(star.axes)
            cfg[c["drop"]] = star.drop
            cfg[c["boresight"]:c["boresight"] + 3] = star.boresight
            cfg[c["sun_angle"]], cfg[c["earth_angle"]] = star.sun_angle, star.earth_angle
            cfg[c["star_cov"]:c["star_cov"] + 9] = np.ravel(star.covariance)
            cfg[c["star"]] = 1.0
        if self.sun is not None:
            cfg[c["sun_sigma"]], cfg[c["threshold"]] = self.sun.model.noise, self.sun.model.threshold
            cfg[c["sun"]] = 1.0
        if self.mag is not None:
            cfg[c["mag_bias"]:c["mag_bias"] + 3] = self.mag.bias
            cfg[c["mag_sigma"]] = self.mag.model.noise
            cfg[c["mag"]] = 1.0
        cfg[c["earth_radius"]] = _EARTH_RADIUS
        return cfg

    # ------------------------------------------------------------ the loop
    def start_step(self, t: float, dt: float, q, world, held=None) -> None:
        """Steps 1 and 2 of the loop, what :meth:`Simulation.step <sim.model.simulation.Simulation.step>` and
        :meth:`Ensemble.step <sim.ensemble.Ensemble.step>` both call before integrating: :meth:`sample`, then
        (``held``: a :class:`HeldTorque`, fly_on = estimate) the torque law at the estimate of ``t``.

        With :attr:`taken` set (the compiled step took this step's samples, then faulted, and the Python step
        takes it again to raise the fault: :mod:`sim.model.craft_steps`) the samples are not drawn twice."""
        if self.taken:
            self.taken = False
        else:
            self.sample(t, dt, q, world)
        if held is not None:
            held.hold(self.q, self.rates)

    def end_step(self, w0, w1, dt: float) -> None:
        """Step 3 of the loop, after the step: :meth:`propagate` with the true rates at both ends."""
        self.propagate(w0, w1, dt)

    def sample(self, t: float, dt: float, q, world) -> None:
        """At the step's start: sample the sensors due in ``[t, t + dt)`` from the true ``q`` (N, 4) and the world,
        the estimator updated by them (:meth:`step`)."""
        self.step(t, dt, q, world)

    def propagate(self, w0, w1, dt: float) -> None:
        """After the step: the gyro's sample of the mean of the true rates ``w0``, ``w1`` (N, 3) drives the MEKF
        (:meth:`step`)."""
        self.step(None, dt, w0=w0, w1=w1)

    def step(self, t, dt: float, q=None, world=None, w0=None, w1=None, craft=None) -> None:
        """One call of the compiled loop (:func:`sim.gnc.sensing.navigation_step`): with the true rates ``w0``,
        ``w1`` at both ends of the step just taken, its end (the gyro, the MEKF's propagation); with ``t`` (not
        None), the start of the step at ``t`` from the true ``q`` and the :class:`~sim.model.world.WorldState`
        ``world``: the sensors due in ``[t, t + dt)``, the updates, TRIAD or QUEST; with ``craft`` (the craft
        kernel's ``(world, par, flags, held)``, one body flying on its estimate), the torque law at the
        estimate written into that ``world`` and ``held`` (a :class:`HeldTorque`)."""
        inp = [0.0] * INP_SIZE
        gyro, star = self.gyro, self.star
        g_block = s_block = v_block = m_block = _NO_DRAWS
        if w0 is not None and gyro is not None:
            inp[0] = 1.0
            self._process_noise(dt)
            g_block, inp[17] = gyro.streams.take()
            ends = _ends(w0, w1)
        else:
            ends = _NO_ENDS
        inp[4] = dt
        if t is not None:
            inp[1] = 1.0
            q = np.ascontiguousarray(np.asarray(q, dtype=float).reshape(-1, 4))
            inp[5] = 1.0
            if world is not None:
                inp[8:11] = world.sun
                inp[5] = float(world.sunlit)
                r = world.r_km
                inp[11:14] = (-1e3 * r[0], -1e3 * r[1], -1e3 * r[2])
                inp[6] = inp[7] = 1.0
            if star is not None and sample_due(t, dt, star.model.rate_hz):
                s_block, k = star.streams.take()
                inp[2], inp[18] = 1.0, k
            if (self.sun is not None or self.mag is not None) and sample_due(t, dt, VECTOR_RATE_HZ):
                inp[3] = 1.0
                if self.sun is not None:
                    v_block, inp[19] = self.sun.streams.take()
                if self.mag is not None:
                    m_block, inp[20] = self.mag.streams.take()
                    inp[14:17] = magnetic_field(self.epoch, world)
        else:
            q = self.q
        cworld, par, flags = _NO_WORLD, _NO_WORLD, _NO_FLAGS
        if craft is not None:
            cworld, par, flags, held = craft
            inp[21] = 1.0
        navigation_step(q, ends, np.array(inp), self._cfg, self._normals, g_block, s_block, v_block, m_block,
                        self.q, self._bias, self._p, self._true_bias, self.available, self.rates, cworld, par, flags)
        if craft is not None:
            held.value = tuple(cworld[36:39].tolist())

    def _process_noise(self, dt: float) -> None:
        """The MEKF's process noise over ``dt`` into ``cfg`` (:func:`sim.gnc.estimation.process_noise`), when
        ``dt`` changed."""
        if dt != self._qd_dt:
            self._qd_dt = dt
            if self.filter is not None:
                first = _CFG["qd"]
                self._cfg[first:first + 36] = np.ravel(process_noise(self.filter.arw, self.filter.rrw, dt))

    def loop_arrays(self, dt: float, world: bool, hold: bool, igrf: bool) -> tuple:
        """The navigation of the craft's compiled loop (:mod:`sim.model.craft_nav`, :data:`~sim.model.craft_nav.NAV_FIELDS`):
        this navigation's arrays, updated in place by the loop, each stream's present block and its next sample's
        index; ``world`` when the loop makes the world (the sensors see its Sun, shadow, Earth and field),
        ``hold`` when the law flies on the estimate, ``igrf`` when the magnetometer reads IGRF of the epoch's year
        (the run has no field of its own: :func:`magnetic_field`).  :meth:`loop_taken` after the call."""
        self._process_noise(dt)
        ctl = np.zeros(CTL_SIZE)
        ctl[0], ctl[1], ctl[2] = 1.0, float(hold), float(world)
        ctl[3] = self.star.model.rate_hz if self.star is not None else 0.0
        ctl[4] = VECTOR_RATE_HZ
        terms = _NO_TERMS
        if igrf and self.mag is not None:
            ctl[12], ctl[13], ctl[14] = 1.0, self.epoch.jd_day, self.epoch.jd_frac
            terms = self._igrf_terms()
        blocks = []
        for i, sensor in enumerate((self.gyro, self.star, self.sun, self.mag)):
            if sensor is None:
                blocks.append(_NO_DRAWS)
            else:
                block, ctl[5 + i] = sensor.streams.present()
                blocks.append(block)
        return (ctl, self._cfg, self._normals, *blocks, self.q, self._bias, self._p, self._true_bias, self.available,
                self.rates, terms)

    def _igrf_terms(self) -> np.ndarray:
        """The terms of :func:`magnetic_field`'s IGRF model as rows ``(n, m, C, S)`` (what
        :func:`sim.model.craft_nav.igrf_eci` takes), made once."""
        if self._terms is None:
            self._terms = np.array(_igrf_model(self.epoch).terms, dtype=float).reshape(-1, 4)
        return self._terms

    def loop_taken(self, nav: tuple) -> None:
        """After a call of the compiled loop with :meth:`loop_arrays`' ``nav``: each stream's next sample where the
        loop left it."""
        ctl = nav[0]
        for i, sensor in enumerate((self.gyro, self.star, self.sun, self.mag)):
            if sensor is not None:
                sensor.streams.taken_to(int(ctl[5 + i]))

    # ------------------------------------------------------------ readouts
    def row_arrays(self) -> tuple:
        """What :func:`sim.model.craft_row.craft_row` reads the estimate's columns from, as
        :data:`sim.model.craft_nav.NAV_FIELDS` (the configuration, the estimate, its bias and covariance, the gyro's
        true bias, the sensors' availability; empty blocks, and ``ctl[on]`` 0: nothing for the loop to run)."""
        if self._row_arrays is None:  # the same arrays, updated in place: made once
            ctl = np.zeros(CTL_SIZE)  # (ctl[on] 0: the navigation does not run)
            self._row_arrays = (ctl, self._cfg, *NO_NAV[2:7], self.q, self._bias, self._p, self._true_bias,
                                self.available, self.rates, NO_NAV[13])
        return self._row_arrays

    def history_values(self, values) -> tuple:
        """The :data:`AVAILABILITY_COLUMNS` of body 0, from its :meth:`values` row."""
        a = self.available[0].tolist()
        return (-values[7], -values[8], -values[9], *(3.0 - k + 0.6 * a[k] for k in range(len(SENSOR_NAMES))))

    def covariance(self) -> np.ndarray:
        """The attitude error's covariance (N, 3, 3), rad^2, body axes."""
        return self.filter.p[:, :3, :3] if self.filter is not None else self.p_att

    def _columns(self, q_true) -> tuple:
        """``(err (N, 3), rad; the ESTIMATE_COLUMNS (N, 17))`` against the true attitude ``q_true`` (N, 4), compiled
        (:func:`sim.gnc.sensing.estimate_columns`)."""
        q_true = np.ascontiguousarray(np.asarray(q_true, dtype=float).reshape(-1, 4))
        n = len(self.q)
        err, out = np.empty((n, 3)), np.empty((n, len(ESTIMATE_COLUMNS)))
        estimate_columns(q_true, self.q, self._p, self._true_bias if self.gyro is not None else _NONE, self._bias,
                         self.filter is not None, err, out)
        return err, out

    def scores(self, q_true) -> tuple:
        """``(err, nees)`` against the true attitude ``q_true`` (N, 4): the attitude error (N, 3), rad, body axes
        (:func:`sim.gnc.estimation.attitude_error`), and the NEES (N,) of the error state, :data:`DOF` of it."""
        err, out = self._columns(q_true)
        return err, out[:, 16]

    def values(self, q_true) -> np.ndarray:
        """The :data:`ESTIMATE_COLUMNS` (N, 17) against the true attitude ``q_true`` (N, 4)."""
        return self._columns(q_true)[1]


class HeldTorque:
    """The torque law flying on the estimate: evaluated once per step at the estimate, held over the step.

    What the integrators (and the load model) call in place of the
    :class:`~sim.core.control.TorqueModel` when ``fly_on = "estimate"``:
    ``__call__`` ignores the true state it is given and returns :attr:`value`,
    set by :meth:`hold` from the estimated attitude and rates at the step's start.
    """

    __slots__ = ("law", "value")

    def __init__(self, law):
        self.law = law
        self.value = (0.0, 0.0, 0.0)

    def hold(self, q, w) -> None:
        """The law's torque at the estimate ``q`` (N, 4) and rates ``w`` (N, 3), held from now: on rows
        (``q.T``) when the law is on columns (:data:`sim.core.ops.COLUMN`, the ensemble's), else on the
        floats of row 0 (one body)."""
        if self.law.ops is COLUMN:
            self.value = self.law(tuple(q.T), tuple(w.T))
        else:
            self.value = self.law(tuple(q[0].tolist()), tuple(w[0].tolist()))

    def __call__(self, q, w, t=None):
        return self.value
