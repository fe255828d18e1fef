"""What the spacecraft measures: a rate gyro, a star tracker, sun sensors and a magnetometer, with noise.

Conventions (README "Conventions"): ``Q`` scalar last, inertial -> body,
``x_B = C(Q) x_I``; rates in body axes, rad/s; vectors given in inertial
axes (ECI) are turned into body axes by ``C(Q)``.  Every sensor takes one
body (``q`` of shape ``(4,)``) or a column of ``N`` bodies (``(N, 4)``), as it
was built (``body`` an int, or a sequence of body indices).

Reproducible draws
------------------
Each sensor of each body draws from its own numpy ``Generator`` (PCG64)
seeded with ``SeedSequence([seed, body, sensor_id])`` (the ids below).  A
sample always takes the same number of standard normals from its stream,
whether or not the sensor is blinded, dropped out or saturated, and draws
are taken in blocks that continue the one stream.  So body ``i``'s
measurements are the same in ``run`` (body 0), in the window and as member
``i`` of an ensemble of any size: nothing depends on the bodies beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from sim.core.jit import jitable
from sim.gnc.attitude import cross_matrix, rotate
from sim.gnc.sensing import (coarse_sun_rows, excluded_one, excluded_rows, gyro_rows, magnetometer_rows,
                             star_tracker_rows, sun_vector_rows, tracker_sees_rows)
from sim.world.environment import EARTH_RADIUS_KM

__all__ = ["GYRO", "GYRO_BIAS", "STAR_TRACKER", "COARSE_SUN", "FINE_SUN", "MAGNETOMETER", "ARCSEC",
           "Streams", "GyroModel", "Gyro", "StarTrackerModel", "StarTracker", "CoarseSunModel",
           "CoarseSunSensors", "coarse_sun_vector", "FineSunModel", "FineSunSensor", "MagnetometerModel",
           "Magnetometer", "sensor_axes", "sample_due", "excluded", "excluded_one"]

#: Sensor ids, the last entry of each stream's seed.
GYRO, GYRO_BIAS, STAR_TRACKER, COARSE_SUN, FINE_SUN, MAGNETOMETER = 1, 2, 3, 4, 5, 6
#: One arcsecond in radians.
ARCSEC = math.pi / (180.0 * 3600.0)
_EARTH_RADIUS = EARTH_RADIUS_KM * 1e3


class Streams:
    """Standard normals for one sensor: one ``Generator`` per body, ``width`` numbers a sample.

    ``next()`` returns the next sample's numbers, shape ``(N, width)``.  Drawn
    ``block`` samples at a time from each body's generator: the same
    numbers, in the same order, as drawing them one sample at a time.
    """

    def __init__(self, seed: int, bodies: Sequence[int], sensor_id: int, width: int, block: int = 256):
        self.generators = [np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, int(b), sensor_id])))
                           for b in bodies]
        self.width, self.block = width, block
        self._buffer = np.empty((len(self.generators), 0, width))
        self._next = 0

    def take(self) -> tuple[np.ndarray, int]:
        """The next sample as ``(block, k)``: its numbers are ``block[:, k, :]`` (the compiled sensors read them
        there, :mod:`sim.gnc.sensing`); ``block`` (N, block, width) is C-contiguous."""
        if self._next == self._buffer.shape[1]:
            self._buffer = np.stack([g.standard_normal((self.block, self.width)) for g in self.generators])
            self._next = 0
        k = self._next
        self._next += 1
        return self._buffer, k

    def present(self) -> tuple[np.ndarray, int]:
        """``(block, k)``: the present block and its next sample's index, nothing taken (``k`` may be the block's
        length: none left).  The compiled loop reads on from there (:mod:`sim.model.craft_nav`) and says where it
        stopped by :meth:`taken_to`."""
        return self._buffer, self._next

    def taken_to(self, k: int) -> None:
        """The present block's samples before ``k`` taken (at most its length)."""
        if not self._next <= k <= self._buffer.shape[1]:
            raise ValueError(f"sample {k} is not in the block from {self._next} to {self._buffer.shape[1]}")
        self._next = int(k)

    def next(self) -> np.ndarray:
        block, k = self.take()
        return block[:, k, :]


def _bodies(body) -> tuple[list[int], bool]:
    """The body indices and whether the sensor is a column (a sequence) or one body (an int)."""
    if isinstance(body, (int, np.integer)):
        return [int(body)], False
    return [int(b) for b in body], True


class _Sensor:
    """The shape rule: a column sensor takes and returns ``(N, ...)``; a one-body sensor ``(...)``."""

    def __init__(self, seed, body, sensor_id, width):
        self.bodies, self.column = _bodies(body)
        self.streams = Streams(seed, self.bodies, sensor_id, width)

    def _in(self, x, width):
        x = np.asarray(x, dtype=float)
        return np.broadcast_to(x, (len(self.bodies), width)) if x.ndim == 1 else x

    def _scalar_in(self, x):
        return np.broadcast_to(np.asarray(x, dtype=float), (len(self.bodies),))

    @staticmethod
    def _rows(x, width):
        """``x`` as C-contiguous rows ``(M, width)`` for the compiled sensors: M = 1 for one row (shared by every
        body, :func:`sim.gnc.sensing.row_of`)."""
        return np.ascontiguousarray(np.asarray(x, dtype=float).reshape(-1, width))

    def _out(self, x):
        return x if self.column else x[0]


def sensor_axes(boresight) -> np.ndarray:
    """An orthonormal sensor frame as columns ``(u, v, boresight)`` in body axes.

    ``u`` is the body axis least aligned with the boresight, made orthogonal
    to it; ``v = boresight x u``.
    """
    b = np.asarray(boresight, dtype=float)
    b = b / np.linalg.norm(b)
    e = np.eye(3)[int(np.argmin(np.abs(b)))]
    u = e - (e @ b) * b
    u /= np.linalg.norm(u)
    return np.column_stack([u, np.cross(b, u), b])


@jitable
def sample_due(t: float, dt: float, rate_hz: float) -> bool:
    """Whether a sensor sampling at ``rate_hz`` (instants ``k / rate_hz``, k = 0, 1, ...) samples in ``[t, t + dt)``.

    Counted in whole samples, with a tolerance of 1e-9 of a sample for the
    rounding of ``t``, so a 10 Hz sensor samples at every step of 0.1 s.  Python's and the compiled
    navigation loop's (:mod:`sim.model.craft_nav`) one rule.
    """
    eps = 1e-9
    return math.floor((t + dt) * rate_hz - eps) > math.floor(t * rate_hz - eps)


def excluded(axis_body, target_body, angle: float, radius=0.0) -> np.ndarray:
    """:func:`sim.gnc.sensing.excluded_one` row by row (``axis_body``, ``target_body`` of shape ``(..., 3)``,
    ``radius`` rad)."""
    a, t = np.broadcast_arrays(np.asarray(axis_body, dtype=float), np.asarray(target_body, dtype=float))
    shape = a.shape[:-1]
    r = np.broadcast_to(np.asarray(radius, dtype=float), shape)
    return excluded_rows(np.ascontiguousarray(a.reshape(-1, 3)), np.ascontiguousarray(t.reshape(-1, 3)),
                         float(angle), np.ascontiguousarray(r.reshape(-1))).reshape(shape)


# ------------------------------------------------------------------ gyro
@dataclass(frozen=True)
class GyroModel:
    """A rate gyro, Farrenkopf's model (Farrenkopf 1978, J. Guidance Control 1(4), 282).

    ``arw``: angle random walk ``sigma_v``, rad/sqrt(s); ``rrw``: rate random
    walk ``sigma_u``, rad/s^(3/2); ``bias``: the initial bias, rad/s, body
    axes; ``bias_sigma``: 1 sigma per axis of a random initial bias added to
    it (drawn once per body from its own stream, id ``GYRO_BIAS``);
    ``scale_factor``: per axis, fractions (1e-4 = 100 ppm); ``misalignment``:
    the small rotation (rad, body axes) of the sensor axes, a coordinate
    rotation like Hoffmann's (2.1); ``quantum``: the value of one count, rad/s
    (0 for none); ``max_rate``: saturation, rad/s.
    """

    arw: float = 0.0
    rrw: float = 0.0
    bias: tuple = (0.0, 0.0, 0.0)
    bias_sigma: float = 0.0
    scale_factor: tuple = (0.0, 0.0, 0.0)
    misalignment: tuple = (0.0, 0.0, 0.0)
    quantum: float = 0.0
    max_rate: float = math.inf

    def matrix(self) -> np.ndarray:
        """``(I + diag(s)) (I - [m×])``: body rates to the sensor's (scale factor after misalignment)."""
        return np.diag(1.0 + np.asarray(self.scale_factor, float)) @ (np.eye(3) - cross_matrix(self.misalignment))


class Gyro(_Sensor):
    """A rate gyro of :class:`GyroModel`, sampled every ``dt``.

    The discrete form of Farrenkopf's model (Crassidis & Junkins, *Optimal
    Estimation of Dynamic Systems*, 2nd ed. 2012, §7.2; Markley & Crassidis
    2014, ch. 4 and 6), exact for the integrated rate error of a constant
    ``dt``::

        beta_{k+1} = beta_k + sigma_u sqrt(dt) N_u
        w~_{k+1}   = M w + (beta_k + beta_{k+1}) / 2 + sqrt(sigma_v^2 / dt + sigma_u^2 dt / 12) N_v

    then quantised (rounded to whole counts) and clipped to ``max_rate``.  The
    sample is the mean rate over ``[t_k, t_{k+1}]``; its error integrated over
    ``t`` has variance ``sigma_v^2 t + sigma_u^2 t^3 / 3`` per axis (for
    ``w = 0`` and no initial bias), the bias ``sigma_u^2 t``.
    """

    def __init__(self, model: GyroModel, seed: int = 0, body: int | Sequence[int] = 0):
        super().__init__(seed, body, GYRO, 6)
        self.model = model
        self._m = model.matrix()
        bias = np.broadcast_to(np.asarray(model.bias, float), (len(self.bodies), 3)).copy()
        if model.bias_sigma > 0.0:
            bias += model.bias_sigma * Streams(seed, self.bodies, GYRO_BIAS, 3, block=1).next()
        self._bias = np.ascontiguousarray(bias)

    @property
    def bias(self) -> np.ndarray:
        """The true bias now (after the last sample), rad/s."""
        return self._out(self._bias.copy())

    def measure(self, w, dt: float) -> np.ndarray:
        """The gyro's sample of the body rates ``w`` (rad/s, body axes) over the next ``dt`` seconds."""
        m, arw, rrw, quantum, max_rate = self.parameters()
        block, k = self.streams.take()
        return self._out(gyro_rows(self._bias, self._rows(w, 3), m, block, k, arw, rrw, quantum, max_rate, float(dt)))

    def parameters(self) -> tuple:
        """``(matrix, arw, rrw, quantum, max_rate)``: what :func:`sim.gnc.sensing.gyro_sample` takes."""
        m = self.model
        return self._m, float(m.arw), float(m.rrw), float(m.quantum), float(m.max_rate)

    @property
    def true_bias(self) -> np.ndarray:
        """The true bias as the compiled loop moves it on, in place: (N, 3), rad/s (not a copy)."""
        return self._bias


# ------------------------------------------------------------------ star tracker
@dataclass(frozen=True)
class StarTrackerModel:
    """A star tracker: its attitude with noise across and about the boresight.

    ``noise_cross_arcsec``, ``noise_about_arcsec``: 1 sigma of the rotation
    error about each axis across the boresight and about it; ``rate_hz``:
    samples per second (see :func:`sample_due`); ``boresight``: body axes;
    ``sun_exclusion_deg``: blind while the Sun (when lit) is within this angle
    of the boresight; ``earth_exclusion_deg``: blind while the Earth's limb
    is within this angle; ``dropout``: the chance that a sample is lost.
    """

    noise_cross_arcsec: float = 5.0
    noise_about_arcsec: float = 40.0
    rate_hz: float = 10.0
    boresight: tuple = (0.0, 0.0, -1.0)
    sun_exclusion_deg: float = 45.0
    earth_exclusion_deg: float = 20.0
    dropout: float = 0.0

    def covariance(self) -> np.ndarray:
        """The error covariance in body axes, rad^2: ``T diag(cross^2, cross^2, about^2) T^T``."""
        t = sensor_axes(self.boresight)
        s = np.array([self.noise_cross_arcsec, self.noise_cross_arcsec, self.noise_about_arcsec]) * ARCSEC
        return t @ np.diag(s * s) @ t.T


class StarTracker(_Sensor):
    """A star tracker of :class:`StarTrackerModel`.

    The measured attitude is ``Q_m = δQ(n) . Q`` (:func:`sim.gnc.attitude.from_rotation_vector`)
    with ``n = T (sigma_c N_1, sigma_c N_2, sigma_r N_3)``, ``T`` the sensor
    axes (:func:`sensor_axes`): an error rotation in body axes of covariance
    :meth:`StarTrackerModel.covariance`.  A fourth normal per sample decides
    the dropout (lost when ``N_4 < Phi^-1(dropout)``).
    """

    def __init__(self, model: StarTrackerModel, seed: int = 0, body: int | Sequence[int] = 0):
        super().__init__(seed, body, STAR_TRACKER, 4)
        self.model = model
        #: The sensor axes as columns (:func:`sensor_axes`), the 1 sigma of the three error angles (rad), the
        #: dropout's threshold on the fourth normal, the boresight, the exclusion angles (rad): what the
        #: compiled sample takes (:func:`sim.gnc.sensing.star_tracker_sample`, :func:`~sim.gnc.sensing.tracker_sees`).
        self.axes = sensor_axes(model.boresight)
        self.sigma = np.array([model.noise_cross_arcsec, model.noise_cross_arcsec, model.noise_about_arcsec]) * ARCSEC
        self.drop = -math.inf if model.dropout <= 0.0 else (
            math.inf if model.dropout >= 1.0 else NormalDist().inv_cdf(model.dropout))
        self.boresight = self.axes[:, 2].copy()
        self.sun_angle = math.radians(model.sun_exclusion_deg)
        self.earth_angle = math.radians(model.earth_exclusion_deg)
        #: :meth:`StarTrackerModel.covariance`, made once (the model does not change).
        self.covariance = model.covariance()

    def available(self, q, sun=None, sunlit=1.0, earth=None) -> np.ndarray:
        """Whether the geometry lets the tracker see: neither the Sun nor the Earth's limb too near the boresight.

        ``sun``: unit vector to the Sun (ECI); ``sunlit``: the visible
        fraction of the solar disc (no blinding in the umbra, 0); ``earth``:
        the vector from the spacecraft to the Earth's centre (ECI, m; its
        length gives the limb).  ``None`` leaves the check out.
        """
        n = len(self.bodies)
        none = np.zeros((0, 3))
        sun = none if sun is None else self._rows(sun, 3)
        earth = none if earth is None else self._rows(earth, 3)
        ok = tracker_sees_rows(self._rows(q, 4), self.boresight, sun,
                               self._rows(sunlit, 1)[:, 0] if len(sun) else np.ones(n), self.sun_angle, earth,
                               self.earth_angle, _EARTH_RADIUS)
        return self._out(ok)

    def measure(self, q, sun=None, sunlit=1.0, earth=None):
        """One sample: ``(q_measured, valid)``; ``valid`` False when blinded (:meth:`available`) or dropped."""
        block, k = self.streams.take()
        q = self._rows(q, 4)
        if len(q) != len(self.bodies):
            q = np.ascontiguousarray(np.broadcast_to(q, (len(self.bodies), 4)))
        q_m, kept = star_tracker_rows(q, block, k, self.sigma, self.axes, self.drop)
        valid = np.atleast_1d(self.available(q, sun, sunlit, earth)) & kept
        return self._out(q_m), self._out(valid)


# ------------------------------------------------------------------ sun sensors
_FACES = ((1.0, 0.0, 0.0), (-1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, -1.0, 0.0), (0.0, 0.0, 1.0), (0.0, 0.0, -1.0))


@dataclass(frozen=True)
class CoarseSunModel:
    """Coarse sun sensors: photocells with the cosine law.

    ``normals``: one body-axis unit normal per cell (default: the six faces of
    a cube); ``noise``: 1 sigma of each cell's output, in units of its output
    facing the full Sun; ``threshold``: the length of the sun vector read off
    the cells below which it is not trusted (:func:`coarse_sun_vector`).
    """

    normals: tuple = _FACES
    noise: float = 0.01
    threshold: float = 0.2


class CoarseSunSensors(_Sensor):
    """Cells of :class:`CoarseSunModel`: ``I_i = max(0, n_i . s_B) * sunlit + noise``, never negative.

    The cosine law (Markley & Crassidis 2014, ch. 4, sun sensors): dark in the
    umbra (``sunlit`` 0, only the noise floor clipped at 0) and weaker in the
    penumbra, where the signal scales with the visible fraction of the disc
    while the noise does not.
    """

    def __init__(self, model: CoarseSunModel, seed: int = 0, body: int | Sequence[int] = 0):
        self.normals = np.ascontiguousarray(model.normals, dtype=float)
        super().__init__(seed, body, COARSE_SUN, len(self.normals))
        self.model = model

    def measure(self, q, sun, sunlit=1.0) -> np.ndarray:
        """The cells' outputs, shape ``(n_cells,)`` (or ``(N, n_cells)``)."""
        block, k = self.streams.take()
        q = self._rows(q, 4)
        if len(q) != len(self.bodies):
            q = np.ascontiguousarray(np.broadcast_to(q, (len(self.bodies), 4)))
        return self._out(coarse_sun_rows(q, self._rows(sun, 3), self._rows(sunlit, 1)[:, 0], self.normals,
                                         float(self.model.noise), block, k))


def coarse_sun_vector(currents, normals, threshold: float = 0.2):
    """The Sun's direction in body axes from the cells' outputs: ``(s, valid)``.

    ``s = sum I_i n_i`` normalised: exact (up to noise) for the six faces of
    a cube, where the three cells facing the Sun read its direction
    cosines and the three in shadow read 0; its length before normalising is
    the sunlit fraction.  For other layouts it is a weighted mean of the lit
    normals.  ``valid`` when that length is at least ``threshold`` (the Sun
    up and bright enough).
    """
    currents = np.asarray(currents, dtype=float)
    normals = np.ascontiguousarray(normals, dtype=float)
    s, _, valid = sun_vector_rows(np.ascontiguousarray(currents.reshape(-1, normals.shape[0])), normals,
                                  float(threshold))
    return s.reshape(currents.shape[:-1] + (3,)), valid.reshape(currents.shape[:-1])


@dataclass(frozen=True)
class FineSunModel:
    """A fine sun sensor: the Sun's direction with noise inside a field of view.

    ``boresight`` (body axes); ``fov_deg``: half-angle of the field of view;
    ``noise_deg``: 1 sigma of the direction error per axis across the Sun
    line in full Sun; ``min_sunlit``: below this visible fraction of the disc
    the sensor is blind (always in the umbra).
    """

    boresight: tuple = (1.0, 0.0, 0.0)
    fov_deg: float = 60.0
    noise_deg: float = 0.05
    min_sunlit: float = 0.1


class FineSunSensor(_Sensor):
    """A sun sensor of :class:`FineSunModel`: ``s~ = (s + sigma (e1 N_1 + e2 N_2)) / |...|``.

    ``e1, e2`` are unit vectors across the Sun line (:func:`sensor_axes` of
    ``s``), ``sigma = noise / sunlit``: the penumbra dims the spot and the
    noise grows as the signal falls.  Blind outside the field of view and
    when ``sunlit < min_sunlit``.
    """

    def __init__(self, model: FineSunModel, seed: int = 0, body: int | Sequence[int] = 0):
        super().__init__(seed, body, FINE_SUN, 2)
        self.model = model
        self._boresight = np.asarray(model.boresight, float) / np.linalg.norm(model.boresight)

    def measure(self, q, sun, sunlit=1.0):
        """One sample: ``(s_measured, valid)``, ``s`` a unit vector in body axes."""
        n = self.streams.next()
        s_b = rotate(self._in(q, 4), self._in(sun, 3))
        s_b = s_b / np.linalg.norm(s_b, axis=-1, keepdims=True)
        lit = self._scalar_in(sunlit)
        sigma = math.radians(self.model.noise_deg) / np.maximum(lit, self.model.min_sunlit)
        # two unit vectors across the Sun line, row by row
        e = np.eye(3)[np.argmin(np.abs(s_b), axis=-1)]
        e1 = e - np.sum(e * s_b, axis=-1, keepdims=True) * s_b
        e1 /= np.linalg.norm(e1, axis=-1, keepdims=True)
        e2 = np.cross(s_b, e1)
        noisy = s_b + sigma[:, None] * (n[:, :1] * e1 + n[:, 1:] * e2)
        noisy /= np.linalg.norm(noisy, axis=-1, keepdims=True)
        in_view = s_b @ self._boresight >= math.cos(math.radians(self.model.fov_deg))
        return self._out(noisy), self._out(in_view & (lit >= self.model.min_sunlit) & (lit > 0.0))


# ------------------------------------------------------------------ magnetometer
@dataclass(frozen=True)
class MagnetometerModel:
    """A three-axis magnetometer: ``noise`` 1 sigma per axis, T; ``bias`` in body axes, T."""

    noise: float = 1e-7
    bias: tuple = (0.0, 0.0, 0.0)


class Magnetometer(_Sensor):
    """A magnetometer of :class:`MagnetometerModel`: ``b~ = C(Q) B + bias + noise N``."""

    def __init__(self, model: MagnetometerModel, seed: int = 0, body: int | Sequence[int] = 0):
        super().__init__(seed, body, MAGNETOMETER, 3)
        self.model = model
        #: The bias (3,), T, body axes.
        self.bias = np.array(model.bias, dtype=float)

    def measure(self, q, field) -> np.ndarray:
        """The field ``field`` (ECI, T) measured in body axes, T."""
        block, k = self.streams.take()
        q = self._rows(q, 4)
        if len(q) != len(self.bodies):
            q = np.ascontiguousarray(np.broadcast_to(q, (len(self.bodies), 4)))
        return self._out(magnetometer_rows(q, self._rows(field, 3), self.bias, float(self.model.noise), block, k))
