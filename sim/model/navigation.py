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
from sim.gnc.estimation import Mekf, attitude_error, nees, process_noise, quest, triad
from sim.gnc.sensing import gyro_step, star_tracker_step, vector_step
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
#: What the compiled loop takes for a sensor or a filter that is not there: no rows.
_NONE = np.zeros((0, 3))
_ZERO3 = np.zeros(3)
_NO_FILTER = np.zeros((0, 4))
_NO_QD = np.zeros((6, 6))
_NO_DRAWS = np.zeros((0, 1, 1))


def _rows(x):
    """True rates (a tuple of one body, or (N, 3)) as C-contiguous rows for the compiled loop."""
    return np.ascontiguousarray(np.asarray(x, dtype=float).reshape(-1, 3))
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
    return field_eci(r, rot, p, gauss(decimal_year(epoch.days_utc(0.0))))

def wahba_covariance(b, sigma) -> np.ndarray:
    """``(sum_i sigma_i^-2 (I - b_i b_i^T))^-1``: the error covariance of Wahba's optimal attitude, body axes, rad^2.

    Shuster & Oh (1981) section V; Markley & Crassidis (2014) §5.5.  ``b``:
    unit vectors, shape ``(N, n, 3)``; ``sigma``: their angular noises (rad),
    shape ``(N, n)``.
    """
    b = np.asarray(b, float)
    w = 1.0 / np.asarray(sigma, float) ** 2
    f = np.einsum("...i,...ij,...ik->...jk", w, b, b)
    info = w.sum(axis=-1)[..., None, None] * np.eye(3) - f
    return np.linalg.inv(info)


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
        self._state = (_NO_FILTER, _NONE, np.zeros((0, 6, 6)))
        self._qd_dt, self._qd = None, _NO_QD
        #: The vector sensors' samples (b, r, sigma, valid), slot 0 the sun sensors, then the magnetometer.
        self._vectors = (np.zeros((n, 2, 3)), np.zeros((n, 2, 3)), np.zeros((n, 2)), np.zeros((n, 2), bool))
        if self.kind == "mekf":
            arw, rrw = s.filter_gyro if s.filter_gyro is not None else s.gyro[:2]
            bias0 = max(s.gyro[2], 1e-7)
            p0 = np.diag([ATTITUDE_SIGMA0 ** 2] * 3 + [bias0 ** 2] * 3)
            self.filter = Mekf(self.q, np.zeros((n, 3)), np.broadcast_to(p0, (n, 6, 6)), arw, rrw)
            self._state = self.filter.state
            self.q = self._state[0]    # the filter's own estimate, updated in place by the compiled loop

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
        """At the step's start: sample the sensors due in ``[t, t + dt)`` from the true ``q`` (N, 4) and the world.

        Compiled, one call a sensor group (:func:`sim.gnc.sensing.star_tracker_step`,
        :func:`~sim.gnc.sensing.vector_step`): the samples and the MEKF's updates; TRIAD and QUEST solve here."""
        q = np.ascontiguousarray(np.asarray(q, dtype=float).reshape(-1, 4))
        fq, fbias, fp = self._state
        sun = earth = _NONE
        sunlit = 1.0
        if world is not None:
            sun = np.array(world.sun, dtype=float).reshape(1, 3)
            sunlit = float(world.sunlit)
            earth = -1e3 * np.array(world.r_km, dtype=float).reshape(1, 3)
        star = self.star
        if star is not None and sample_due(t, dt, star.model.rate_hz):
            block, k = star.streams.take()
            star_tracker_step(q, block, k, star.sigma, star.axes, star.drop, star.boresight, sun, sunlit,
                              star.sun_angle, earth, star.earth_angle, _EARTH_RADIUS, self.available, fq, fbias, fp,
                              star.covariance)
        if (self.sun is None and self.mag is None) or not sample_due(t, dt, VECTOR_RATE_HZ):
            return
        sun_block = mag_block = _NO_DRAWS
        ks = km = 0
        normals, sun_sigma, threshold = _NONE, 0.0, 0.0
        field, mag_bias, mag_sigma = _NONE, _ZERO3, 0.0
        if self.sun is not None:
            sun_block, ks = self.sun.streams.take()
            normals, sun_sigma, threshold = self.sun.normals, self.sun.model.noise, self.sun.model.threshold
        if self.mag is not None:
            mag_block, km = self.mag.streams.take()
            field = np.array(magnetic_field(self.epoch, world), dtype=float).reshape(1, 3)
            mag_bias, mag_sigma = self.mag.bias, self.mag.model.noise
        b, r, sigma, valid = self._vectors
        vector_step(q, sun_block, ks, normals, float(sun_sigma), float(threshold), sun, sunlit, mag_block, km, field,
                    mag_bias, float(mag_sigma), self.available, b, r, sigma, valid, fq, fbias, fp)
        if self.filter is not None:
            return
        (b1, r1, s1, ok1), (b2, r2, s2, ok2) = sorted(
            ((b[:, i], r[:, i], sigma[:, i], valid[:, i]) for i in range(2)), key=lambda v: float(np.mean(v[2])))
        ok = ok1 & ok2
        with np.errstate(invalid="ignore", divide="ignore"):  # a dark sun sensor reads 0: no solution, held below
            solved = (triad(b1, b2, r1, r2) if self.kind == "triad" else
                      quest(np.stack([b1, b2], axis=1), np.stack([r1, r2], axis=1),
                            np.stack([1.0 / s1 ** 2, 1.0 / s2 ** 2], axis=1)))
            unit = np.stack([b1, b2], axis=1)
            unit = unit / np.linalg.norm(unit, axis=-1, keepdims=True)
            unit = np.where(ok[:, None, None], unit, np.eye(3)[:2])      # (rows without a solution keep their P)
            p = wahba_covariance(unit, np.stack([s1, s2], axis=1))
        self.q = np.where(ok[:, None], solved, self.q)
        self.p_att = np.where(ok[:, None, None], p, self.p_att)

    def propagate(self, w0, w1, dt: float) -> None:
        """After the step: the gyro's sample of the mean of the true rates ``w0``, ``w1`` (N, 3) drives the MEKF
        (compiled, one call: :func:`sim.gnc.sensing.gyro_step`)."""
        gyro = self.gyro
        if gyro is None:
            return
        if dt != self._qd_dt:
            self._qd_dt = dt
            self._qd = process_noise(self.filter.arw, self.filter.rrw, dt) if self.filter is not None else _NO_QD
        m, arw, rrw, quantum, max_rate = gyro.parameters()
        block, k = gyro.streams.take()
        fq, fbias, fp = self._state
        gyro_step(_rows(w0), _rows(w1), gyro.true_bias, m, block, k, arw, rrw, quantum, max_rate, float(dt),
                  self.available, self.rates, fq, fbias, fp, self._qd)

    # ------------------------------------------------------------ readouts
    def history_values(self, values) -> tuple:
        """The :data:`AVAILABILITY_COLUMNS` of body 0, from its :meth:`values` row."""
        levels = 3.0 - np.arange(len(SENSOR_NAMES)) + 0.6 * self.available[0]
        return (-values[7], -values[8], -values[9], *levels.tolist())

    def covariance(self) -> np.ndarray:
        """The attitude error's covariance (N, 3, 3), rad^2, body axes."""
        return self.filter.p[:, :3, :3] if self.filter is not None else self.p_att

    def scores(self, q_true) -> tuple:
        """``(err, nees)`` against the true attitude ``q_true`` (N, 4): the attitude error (N, 3), rad, body axes
        (:func:`sim.gnc.estimation.attitude_error`), and the NEES (N,) of the error state, :data:`DOF` of it."""
        q_true = np.asarray(q_true, float).reshape(-1, 4)
        err = attitude_error(q_true, self.q)
        if self.filter is not None:
            bias = self.gyro.bias
            return err, nees(np.concatenate([err, bias - self.filter.bias], axis=-1), self.filter.p)
        return err, nees(err, self.p_att)

    def values(self, q_true) -> np.ndarray:
        """The :data:`ESTIMATE_COLUMNS` (N, 17) against the true attitude ``q_true`` (N, 4)."""
        q_true = np.asarray(q_true, float).reshape(-1, 4)
        n = len(q_true)
        err, score = self.scores(q_true)
        p = self.covariance()
        sig3 = 3.0 * np.sqrt(np.diagonal(p, axis1=-2, axis2=-1))
        bias = self.gyro.bias if self.gyro is not None else np.zeros((n, 3))
        bias_est = self.filter.bias if self.filter is not None else np.full((n, 3), np.nan)
        return np.concatenate([self.q, err * _DEG, sig3 * _DEG, bias, bias_est, score[:, None]], axis=-1)


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
