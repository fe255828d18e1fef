"""The ensemble's initial samples: counter-based uniforms, attitudes, rates, inertia, gains.

Every draw depends only on ``(seed, body index, stream)``: any split of the
bodies into chunks gives the same bodies.  Quaternions are scalar last,
Hoffmann's convention (see :mod:`sim`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from sim.core.angles import aircraft_angles
from sim.core.body import Body
from sim.io.limits import LIMITS, SettingsError
from sim.model.loads import gyrostat_of
from sim.core.quaternion import from_aircraft_angles
from sim.world.orbit import R_EARTH_KM, OrbitError, check_elements
from sim.world.time import EPOCH_RANGE, parse_epoch

__all__ = ["Sample", "sample", "sample_inertia", "uniforms", "uniform_quaternions", "r3", "normals", "grid_gains",
           "combination", "OrbitSample", "sample_orbits", "check_orbit_spread", "estimator_refused", "epoch_plus"]

#: Random streams per body (see :func:`uniforms`): attitude 0-2, rates 3-8, inertia 16 + 6 k,
#: orbit elements 112-117 (:data:`ORBIT_STREAM` + k), epoch 118.
STREAMS = 128
#: The stream of the first orbit element's spread (alt_km; then e, i, RAAN, argp, nu), and of the epoch's.
ORBIT_STREAM, EPOCH_STREAM = 112, 118
#: Draws of a dispersed inertia before a body keeps the nominal one.
INERTIA_TRIES = 16


def _mix(z):
    """SplitMix64's finaliser (Steele, Lea, Flood 2014) on a uint64 array."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def uniforms(seed: int, index: np.ndarray, stream: int) -> np.ndarray:
    """Uniforms in [0, 1), one per body index, that depend only on ``(seed, index, stream)``.

    A counter-based generator: the SplitMix64 finaliser of
    ``key(seed) + golden * (index * 128 + stream + 1)``; its top 53 bits.
    """
    with np.errstate(over="ignore"):
        key = _mix(np.array([seed], dtype=np.uint64))[0]
        counter = index.astype(np.uint64) * np.uint64(STREAMS) + np.uint64(stream + 1)
        z = _mix(key + counter * np.uint64(0x9E3779B97F4A7C15))
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def uniform_quaternions(u1, u2, u3) -> np.ndarray:
    """Unit quaternions uniform on SO(3) from uniforms in [0, 1), Shoemake's method.

    K. Shoemake, "Uniform random rotations", Graphics Gems III (1992):
    ``(sqrt(1-u1) sin 2pi u2, sqrt(1-u1) cos 2pi u2, sqrt(u1) sin 2pi u3,
    sqrt(u1) cos 2pi u3)``.  Evaluated with ``math`` one body at a time so a
    body's value never depends on its position in an array.

    Returns
    -------
    ndarray, shape (4, N)
    """
    out = np.empty((4, len(u1)))
    for j, (a, b, c) in enumerate(zip(u1, u2, u3)):
        r1, r2 = math.sqrt(1.0 - a), math.sqrt(a)
        t1, t2 = 2.0 * math.pi * b, 2.0 * math.pi * c
        out[:, j] = (r1 * math.sin(t1), r1 * math.cos(t1), r2 * math.sin(t2), r2 * math.cos(t2))
    return out


def r3(index: np.ndarray) -> tuple:
    """Roberts' R3 sequence ``frac(1/2 + (i+1) / g^k)``, ``g^4 = g + 1``."""
    g = 1.2207440846057596
    n = (index + 1).astype(np.float64)
    return tuple(np.mod(0.5 + n * (1.0 / g**k), 1.0) for k in (1, 2, 3))


def normals(seed, index, stream) -> np.ndarray:
    """Standard normals (Box-Muller from streams ``stream``, ``stream + 1``)."""
    u1 = uniforms(seed, index, stream)
    u2 = uniforms(seed, index, stream + 1)
    return np.array([math.sqrt(-2.0 * math.log(1.0 - a)) * math.cos(2.0 * math.pi * b) for a, b in zip(u1, u2)])


@dataclass
class Sample:
    """Every body's initial sample (one column per body)."""

    #: Aircraft angles (psi, theta, phi), degrees, shape (3, n).
    angles_deg: np.ndarray
    #: Attitude quaternions, shape (4, n), exactly as :meth:`Simulation.reset` makes them.
    q0: np.ndarray
    #: Body rates, rad/s, shape (3, n).
    w0: np.ndarray
    #: Controller gains, shape (3, n), or None (the settings' gains for all).
    gains: np.ndarray | None


def sample(settings, spec, index: np.ndarray) -> Sample:
    """Draw the attitudes, rates and gains of the bodies ``index`` (the inertia: :func:`sample_inertia`)."""
    n = len(index)
    if spec.attitudes == "same":
        angles = np.repeat(np.array(settings.angles_deg, dtype=float)[:, None], n, axis=1)
    else:
        u = [uniforms(spec.seed, index, k) for k in range(3)] if spec.attitudes == "random" else r3(index)
        qs = uniform_quaternions(*u)
        angles = np.empty((3, n))
        for j in range(n):
            angles[:, j] = [math.degrees(a) for a in aircraft_angles(tuple(float(x) for x in qs[:, j]))]
    q0 = np.empty((4, n))
    for j in range(n):  # exactly as Simulation.reset
        q0[:, j] = [float(x) for x in from_aircraft_angles(*(math.radians(float(a)) for a in angles[:, j]))]
    w0 = np.repeat(np.array(settings.rates, dtype=float)[:, None], n, axis=1)
    if spec.rate_spread > 0.0:
        for k in range(3):
            w0[k] = w0[k] + spec.rate_spread * normals(spec.seed, index, 3 + 2 * k)
        rates = LIMITS["rates"]
        np.clip(w0, rates.low, rates.high, out=w0)  # the range Settings accepts
    gains = None
    if spec.gains_grid is not None:
        gains = grid_gains(spec.gains_grid, index)
    return Sample(angles, q0, w0, gains)


def combination(grid, number: np.ndarray) -> tuple:
    """The axis positions ``(i1, i2, i3)`` of combination ``number`` of the cartesian product of ``grid``.

    ``itertools.product`` order (the third axis varies fastest), computed
    arithmetically: the product of three axes of up to 1,000 values has up
    to 10^9 combinations and is never built.
    """
    n2, n3 = len(grid[1]), len(grid[2])
    number = np.asarray(number, dtype=np.int64)
    return number // (n2 * n3), (number // n3) % n2, number % n3


def grid_gains(grid, index: np.ndarray) -> np.ndarray:
    """Gains of the bodies ``index``: body i flies combination ``i mod C`` of the grid (C combinations); (3, n)."""
    total = len(grid[0]) * len(grid[1]) * len(grid[2])
    positions = combination(grid, np.asarray(index, dtype=np.int64) % total)
    return np.array([np.asarray(axis, dtype=float)[k] for axis, k in zip(grid, positions)])


def sample_inertia(settings, spec, index: np.ndarray) -> tuple:
    """Every body's inertia: ``(inertia (6, n), j_rows, j_inv_rows, j_free_inv_rows, moment_rows, axis_rows)``.

    The rows are tuples (9, 9, 9, 3 and 9 entries) of the attributes of
    :class:`~sim.core.body.Body` (and, with reaction wheels,
    :func:`sim.model.loads.gyrostat_of`) of those names: of floats when every body
    has the nominal inertia, else of rows (one value per body), each exactly
    what they build for that body's six numbers (what
    ``Simulation(body_settings(j))`` flies).  ``j_free_inv_rows`` is the
    inverse of ``J - sum J_s a a^T`` (None without wheels); with wheels a draw
    for which it is not positive definite is drawn again, as an unphysical
    tensor is.
    """
    n = len(index)
    wheels = settings.wheel_set
    own = settings.mass_properties.inertia  # explicit, or the body's own (sim.model.shape)
    nominal = np.array(own, dtype=float)
    rigid = Body(own)
    body = gyrostat_of(rigid, wheels)
    free = getattr(body, "j_free_inv_rows", None)
    inertia = np.repeat(nominal[:, None], n, axis=1)
    if spec.inertia_spread == 0.0:
        return inertia, body.j_rows, body.j_inv_rows, free, rigid.moment_rows, rigid.axis_rows
    p = spec.inertia_spread / 100.0
    jr = np.repeat(np.array(body.j_rows)[:, None], n, axis=1)
    jir = np.repeat(np.array(body.j_inv_rows)[:, None], n, axis=1)
    jfir = None if free is None else np.repeat(np.array(free)[:, None], n, axis=1)
    mr = np.repeat(np.array(rigid.moment_rows)[:, None], n, axis=1)
    ar = np.repeat(np.array(rigid.axis_rows)[:, None], n, axis=1)
    pending = np.arange(n)
    for attempt in range(INERTIA_TRIES):
        if pending.size == 0:
            break
        u = [uniforms(spec.seed, index[pending], 16 + 6 * attempt + k) for k in range(6)]
        still = []
        for m, j in enumerate(pending):
            comps = tuple(float(c * (1.0 + p * (2.0 * uk[m] - 1.0))) for c, uk in zip(nominal, u))
            try:
                rigid = Body(comps)
                body = gyrostat_of(rigid, wheels)  # what Simulation(body_settings(j)) builds, rows and all
            except ValueError:
                still.append(j)
                continue
            inertia[:, j], jr[:, j], jir[:, j] = comps, body.j_rows, body.j_inv_rows
            mr[:, j], ar[:, j] = rigid.moment_rows, rigid.axis_rows
            if jfir is not None:
                jfir[:, j] = body.j_free_inv_rows
        pending = np.array(still, dtype=np.int64)
    return inertia, tuple(jr), tuple(jir), None if jfir is None else tuple(jfir), tuple(mr), tuple(ar)


@dataclass
class OrbitSample:
    """Every body's orbit and epoch, where the spec spreads them (:func:`sample_orbits`)."""

    #: Orbit elements as ``Settings.orbit`` holds them (alt_km, e, i_deg, raan_deg, argp_deg, nu_deg), (6, n).
    elements: np.ndarray
    #: Each body's epoch minus the settings' epoch, whole microseconds, (n,) int64.
    epoch_us: np.ndarray
    #: Each body's epoch as ``Settings.epoch`` text (ISO 8601 UTC), n strings.
    epochs: tuple


def epoch_plus(epoch: str, microseconds: int) -> str:
    """The ISO 8601 UTC text of ``epoch`` (a ``Settings.epoch``) plus whole ``microseconds``, as ``Settings`` keeps it."""
    start = datetime.fromisoformat(parse_epoch(epoch).text[:-1])
    return parse_epoch((start + timedelta(microseconds=int(microseconds))).isoformat() + "Z").text


def estimator_refused(estimator: str, spec) -> str | None:
    """Why the bodies of ``spec`` cannot fly ``estimator``, or None: an ensemble flies an estimator only on one
    shared orbit and epoch.  The one rule for an ensemble made so (:func:`check_orbit_spread`, its key the spread)
    and for an estimator asked of one mid-run (``Surroundings._refused``, its key ``estimator``)."""
    if estimator != "truth" and spec.spreads_orbits:
        return (f"an ensemble flies an estimator ({estimator}) only on one shared orbit and epoch (each body's own "
                "Sun and field are not sampled yet)")
    return None


def check_orbit_spread(settings, spec) -> None:
    """SettingsError (one line) unless every body the spec can draw has an orbit ``Settings`` accepts.

    The spreads need Keplerian elements (``Settings.orbit``; an SGP4 TLE is
    not spread), and the whole box of draws must be an orbit: the lowest
    altitude at least the limit's, ``e`` at least 0, the perigee of the lowest
    altitude at the largest ``e`` above the surface (e < 1), and the epochs
    within the ephemeris's years.
    """
    if not spec.spreads_orbits:
        return
    key = "orbit_spread" if spec.orbit_spread is not None else "epoch_spread"
    why = estimator_refused(settings.estimator, spec)
    if why:
        raise SettingsError(f"{key}: {why}")
    if settings.orbit is None:
        raise SettingsError(f"{key}: spreading orbits and epochs needs Keplerian elements (orbit = "
                            "ALT_KM,E,I,RAAN,ARGP,NU)" + (", not a TLE" if settings.tle is not None else ""))
    alt, e = settings.orbit[0], settings.orbit[1]
    d_alt, d_e = (spec.orbit_spread or (0.0, 0.0))[:2]
    low = LIMITS["orbit_altitude_km"]
    if alt - d_alt < low.low or alt + d_alt > low.high:
        raise SettingsError(f"orbit_spread alt_km: {alt:g} +- {d_alt:g} km leaves {low.low:g} .. {low.high:g} km")
    if e - d_e < 0.0:
        raise SettingsError(f"orbit_spread e: {e:g} - {d_e:g} is below 0")
    try:
        check_elements(R_EARTH_KM + alt - d_alt, e + d_e, "orbit_spread")
    except OrbitError as exc:
        raise SettingsError(f"{exc} (the lowest altitude at the largest e of the spread)") from None
    if spec.epoch_spread > 0.0:
        span = round(spec.epoch_spread * 1e6)
        for sign in (-1, 1):
            try:
                epoch_plus(settings.epoch, sign * span)
            except (ValueError, OverflowError):
                raise SettingsError(f"epoch_spread: {settings.epoch} +- {spec.epoch_spread:g} s leaves "
                                    f"{EPOCH_RANGE[0]}-{EPOCH_RANGE[1]}, the span of the solar ephemeris") from None


def _wrapped(x: np.ndarray) -> np.ndarray:
    """Angles (deg) back into [-360, 360] by one turn, as ``Settings.orbit`` accepts them."""
    return np.where(x > 360.0, x - 360.0, np.where(x < -360.0, x + 360.0, x))


def sample_orbits(settings, spec, index: np.ndarray) -> OrbitSample | None:
    """The orbits and epochs of the bodies ``index`` (None when the spec spreads neither).

    Body ``i``'s element ``k`` (of ``Settings.orbit``: alt_km, e, i_deg,
    raan_deg, argp_deg, nu_deg) is ``orbit[k] + orbit_spread[k] * (2 u - 1)``,
    ``u = uniforms(seed, i, 112 + k)``, an angle outside [-360, 360] taken
    back by 360 deg; its epoch is ``epoch + round(epoch_spread * (2 u - 1)
    * 1e6)`` microseconds, ``u = uniforms(seed, i, 118)``.  SettingsError
    (:func:`check_orbit_spread`) when the box of draws holds no orbit.
    """
    if not spec.spreads_orbits:
        return None
    check_orbit_spread(settings, spec)
    n = len(index)
    spread = spec.orbit_spread or (0.0,) * 6
    elements = np.empty((6, n))
    for k in range(6):
        nominal = float(settings.orbit[k])
        if spread[k] > 0.0:
            x = nominal + spread[k] * (2.0 * uniforms(spec.seed, index, ORBIT_STREAM + k) - 1.0)
            elements[k] = _wrapped(x) if k >= 2 else x
        else:
            elements[k] = nominal
    epoch_us = np.zeros(n, dtype=np.int64)
    if spec.epoch_spread > 0.0:
        u = uniforms(spec.seed, index, EPOCH_STREAM)
        epoch_us[:] = np.round(spec.epoch_spread * (2.0 * u - 1.0) * 1e6)
    epochs = tuple(epoch_plus(settings.epoch, us) for us in epoch_us) if spec.epoch_spread > 0.0 else (
        (settings.epoch,) * n)
    return OrbitSample(elements, epoch_us, epochs)
