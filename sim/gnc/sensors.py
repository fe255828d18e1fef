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

from sim.core.angles import to_body
from sim.core.jit import jitable, kernel
from sim.gnc.attitude import cross_matrix, from_rotation_vector, product, rotate
from sim.world.environment import EARTH_RADIUS_KM

__all__ = ["GYRO", "GYRO_BIAS", "STAR_TRACKER", "COARSE_SUN", "FINE_SUN", "MAGNETOMETER", "ARCSEC",
           "Streams", "GyroModel", "Gyro", "StarTrackerModel", "StarTracker", "CoarseSunModel",
           "CoarseSunSensors", "coarse_sun_vector", "FineSunModel", "FineSunSensor", "MagnetometerModel",
           "Magnetometer", "sensor_axes", "sample_due", "excluded", "excluded_one", "star_tracker_sees"]

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

    def next(self) -> np.ndarray:
        if self._next == self._buffer.shape[1]:
            self._buffer = np.stack([g.standard_normal((self.block, self.width)) for g in self.generators])
            self._next = 0
        out = self._buffer[:, self._next, :]
        self._next += 1
        return out


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


def sample_due(t: float, dt: float, rate_hz: float) -> bool:
    """Whether a sensor sampling at ``rate_hz`` (instants ``k / rate_hz``, k = 0, 1, ...) samples in ``[t, t + dt)``.

    Counted in whole samples, with a tolerance of 1e-9 of a sample for the
    rounding of ``t``, so a 10 Hz sensor samples at every step of 0.1 s.
    """
    eps = 1e-9
    return math.floor((t + dt) * rate_hz - eps) > math.floor(t * rate_hz - eps)


@jitable
def excluded_one(ax, ay, az, tx, ty, tz, angle, radius):
    """Whether target ``t`` comes within ``angle`` of the sensor axis ``a``: ``acos(a.t / |a||t|) - radius < angle``.

    ``radius`` (rad) is the target's angular radius (the Earth's limb:
    ``asin(R / |r|)``), 0 for a point (the Sun).  The cosine is clipped to
    ``[-1, 1]`` (a NaN passes).
    """
    cos = (ax * tx + ay * ty + az * tz) / (math.sqrt(ax * ax + ay * ay + az * az)
                                           * math.sqrt(tx * tx + ty * ty + tz * tz))
    if cos > 1.0:
        cos = 1.0
    elif cos < -1.0:
        cos = -1.0
    return math.acos(cos) - radius < angle


@kernel
def _excluded_rows(a, t, angle, radius):
    out = np.empty(a.shape[0], dtype=np.bool_)
    for j in range(a.shape[0]):
        out[j] = excluded_one(a[j, 0], a[j, 1], a[j, 2], t[j, 0], t[j, 1], t[j, 2], angle, radius[j])
    return out


def excluded(axis_body, target_body, angle: float, radius=0.0) -> np.ndarray:
    """:func:`excluded_one` row by row (``axis_body``, ``target_body`` of shape ``(..., 3)``, ``radius`` rad)."""
    a, t = np.broadcast_arrays(np.asarray(axis_body, dtype=float), np.asarray(target_body, dtype=float))
    shape = a.shape[:-1]
    r = np.broadcast_to(np.asarray(radius, dtype=float), shape)
    return _excluded_rows(np.ascontiguousarray(a.reshape(-1, 3)), np.ascontiguousarray(t.reshape(-1, 3)),
                          float(angle), np.ascontiguousarray(r.reshape(-1))).reshape(shape)


@kernel
def star_tracker_sees(q, axis, sun, sunlit, sun_angle, earth, earth_angle, earth_radius):
    """Whether each tracker ``j`` sees: neither the lit Sun (``sunlit[j] > 0``) within ``sun_angle`` of its
    boresight ``axis`` (body axes) nor the Earth's limb within ``earth_angle`` (:func:`excluded_one`).

    ``q`` (N, 4); ``sun`` (N, 3) unit vectors to the Sun, ECI, or (0, 3) to leave the Sun out; ``earth``
    (N, 3) from the spacecraft to the Earth's centre (ECI, m), or (0, 3); ``earth_radius`` (m) gives the
    limb ``asin(R / |earth|)``.
    """
    ok = np.ones(q.shape[0], dtype=np.bool_)
    for j in range(q.shape[0]):
        qj = (q[j, 0], q[j, 1], q[j, 2], q[j, 3])
        if sun.shape[0] > 0:
            x, y, z = to_body(qj, (sun[j, 0], sun[j, 1], sun[j, 2]))
            if excluded_one(axis[0], axis[1], axis[2], x, y, z, sun_angle, 0.0) and sunlit[j] > 0.0:
                ok[j] = False
        if earth.shape[0] > 0:
            ex, ey, ez = earth[j, 0], earth[j, 1], earth[j, 2]
            ratio = earth_radius / math.sqrt(ex * ex + ey * ey + ez * ez)
            if ratio > 1.0:
                ratio = 1.0
            elif ratio < 0.0:
                ratio = 0.0
            x, y, z = to_body(qj, (ex, ey, ez))
            if excluded_one(axis[0], axis[1], axis[2], x, y, z, earth_angle, math.asin(ratio)):
                ok[j] = False
    return ok


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
        self._bias = bias

    @property
    def bias(self) -> np.ndarray:
        """The true bias now (after the last sample), rad/s."""
        return self._out(self._bias.copy())

    def measure(self, w, dt: float) -> np.ndarray:
        """The gyro's sample of the body rates ``w`` (rad/s, body axes) over the next ``dt`` seconds."""
        m = self.model
        n = self.streams.next()
        w = self._in(w, 3)
        new_bias = self._bias + m.rrw * math.sqrt(dt) * n[:, 3:]
        noise = math.sqrt(m.arw * m.arw / dt + m.rrw * m.rrw * dt / 12.0)
        out = w @ self._m.T + 0.5 * (self._bias + new_bias) + noise * n[:, :3]
        self._bias = new_bias
        if m.quantum > 0.0:
            out = np.round(out / m.quantum) * m.quantum
        out = np.clip(out, -m.max_rate, m.max_rate)
        return self._out(out)


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
        self._axes = sensor_axes(model.boresight)
        self._sigma = np.array([model.noise_cross_arcsec, model.noise_cross_arcsec, model.noise_about_arcsec]) * ARCSEC
        self._drop = -math.inf if model.dropout <= 0.0 else (
            math.inf if model.dropout >= 1.0 else NormalDist().inv_cdf(model.dropout))
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
        sun = none if sun is None else np.ascontiguousarray(self._in(sun, 3))
        earth = none if earth is None else np.ascontiguousarray(self._in(earth, 3))
        ok = star_tracker_sees(np.ascontiguousarray(self._in(q, 4)), self._axes[:, 2].copy(), sun,
                               np.ascontiguousarray(self._scalar_in(sunlit)) if len(sun) else np.ones(n),
                               math.radians(self.model.sun_exclusion_deg), earth,
                               math.radians(self.model.earth_exclusion_deg), _EARTH_RADIUS)
        return self._out(ok)

    def measure(self, q, sun=None, sunlit=1.0, earth=None):
        """One sample: ``(q_measured, valid)``; ``valid`` False when blinded (:meth:`available`) or dropped."""
        n = self.streams.next()
        q = self._in(q, 4)
        error = (n[:, :3] * self._sigma) @ self._axes.T
        q_m = product(from_rotation_vector(error), q)
        valid = np.atleast_1d(self.available(q, sun, sunlit, earth)) & (n[:, 3] >= self._drop)
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
        self.normals = np.asarray(model.normals, dtype=float)
        super().__init__(seed, body, COARSE_SUN, len(self.normals))
        self.model = model

    def measure(self, q, sun, sunlit=1.0) -> np.ndarray:
        """The cells' outputs, shape ``(n_cells,)`` (or ``(N, n_cells)``)."""
        n = self.streams.next()
        s_b = rotate(self._in(q, 4), self._in(sun, 3))
        signal = np.maximum(s_b @ self.normals.T, 0.0) * self._scalar_in(sunlit)[:, None]
        return self._out(np.maximum(signal + self.model.noise * n, 0.0))


def coarse_sun_vector(currents, normals, threshold: float = 0.2):
    """The Sun's direction in body axes from the cells' outputs: ``(s, valid)``.

    ``s = sum I_i n_i`` normalised: exact (up to noise) for the six faces of
    a cube, where the three cells facing the Sun read its direction
    cosines and the three in shadow read 0; its length before normalising is
    the sunlit fraction.  For other layouts it is a weighted mean of the lit
    normals.  ``valid`` when that length is at least ``threshold`` (the Sun
    up and bright enough).
    """
    raw = np.asarray(currents, dtype=float) @ np.asarray(normals, dtype=float)
    length = np.linalg.norm(raw, axis=-1, keepdims=True)
    valid = length[..., 0] >= threshold
    return raw / np.where(length > 0.0, length, 1.0), valid


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

    def measure(self, q, field) -> np.ndarray:
        """The field ``field`` (ECI, T) measured in body axes, T."""
        n = self.streams.next()
        b = rotate(self._in(q, 4), self._in(field, 3))
        return self._out(b + np.asarray(self.model.bias, float) + self.model.noise * n)
