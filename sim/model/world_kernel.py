"""The world state of one step as one formula, and its compiled kernel for one body on a Kepler orbit.

:func:`world_values` assembles :class:`sim.model.world.WorldState`'s numbers from :mod:`sim.world`'s and
:mod:`sim.gnc.pointing`'s formulas (docs/PHYSICS.md, "World state per step"): the date, GMST and the
precession, the Sun (:func:`sim.world.sun.sun_direction`), the shadow
(:func:`sim.world.eclipse.sunlit_fraction`), ECI -> ECEF -> geodetic (:mod:`sim.world.frames`), a moving
mode's command (two-vector, :func:`sim.core.angles.from_cayley_entries`) and its rate feed-forward from the
commands at ``t -+ FEED_FORWARD_H / 2`` (:func:`sim.gnc.pointing.rate_between`), the field (the dipole at
``t`` and ``t + DIPOLE_H``; IGRF linear between its samples) and the density (exponential; NRLMSIS linear
between its samples).  It is written once, over :mod:`sim.core.ops`, and serves three callers:

* :func:`world_kernel` (``ops=None``, compiled by :mod:`sim.core.jit`): one body on a
  :class:`~sim.world.orbit.KeplerOrbit` (two-body or J2 secular), the orbit's states computed inside
  (:func:`sim.world.orbit.mean_elements_state`), the numbers written into a float array laid out as
  :data:`LAYOUT`;
* :meth:`sim.model.world.World.state` on floats (``ops`` = FLOAT) for a TLE (SGP4 is the sgp4 library's C
  code: its states are computed outside and passed in), and before the kernel is loaded;
* the same on numpy rows (``ops`` = COLUMN): an ensemble whose bodies' orbits or epochs differ.

On floats the kernel's numbers are the Python path's bit for bit (the same text; numba's ``math`` is
libm's, as Python's ``math``): tests/sim/model/test_world_kernel.py checks it for every mode, field and
atmosphere.  What a state does not have (no moving mode, no field, no drag) is returned as zeros here and
made None by :class:`~sim.model.world.World`.
"""

from __future__ import annotations

import numpy as np

from sim.core.angles import from_cayley_entries
from sim.core.jit import jitable, kernel
from sim.core.jit_borrow import borrowed
from sim.core.ops import cos_of, sin_of
from sim.gnc.pointing import INERTIAL, TARGET, elevation, rate_between, references_of, two_vector
from sim.world.atmosphere import exponential_density
from sim.world.eclipse import sunlit_fraction
from sim.world.frames import ecef_to_eci, ecef_to_geodetic, eci_to_ecef, precession
from sim.world.magnetic import dipole_eci
from sim.world.orbit import mean_elements_state
from sim.world.sun import AU_KM, sun_direction
from sim.world.time import days_tt_of, days_utc_of, gmst, julian_centuries_tt

__all__ = ["WARM_AFTER", "FEED_FORWARD_H", "FIELD_SAMPLE", "DIPOLE_H", "FIELD_CODES", "AIR_CODES", "LAYOUT", "SIZE", "INPUTS",
           "rotation_at", "command_at", "world_values", "moving_command", "sample_fraction", "field_values", "world_into",
           "sampled", "world_kernel"]

#: The interval (s) between the two commands whose difference is the rate feed-forward.
FEED_FORWARD_H = 1.0
#: IGRF (and NRLMSIS) are sampled every FIELD_SAMPLE s of simulated time and interpolated linearly
#: between the samples: under 0.02 % error in the field (docs/PHYSICS.md, "The geomagnetic field").
FIELD_SAMPLE = 10.0
#: The dipole's rate over a step is the difference of the field at t and t + DIPOLE_H, s.
DIPOLE_H = 1.0

#: The field models by their number in :func:`world_values` (None: no field).
FIELD_CODES = {None: 0, "dipole": 1, "igrf": 2}
#: The atmospheres by their number (None: no drag).
AIR_CODES = {None: 0, "exponential": 1, "msis": 2}
_DIPOLE, _IGRF = 1, 2
_EXPONENTIAL, _MSIS = 1, 2

#: The kernel's output: (name of the WorldState field, first index, length).
LAYOUT = (("days_utc", 0, 1), ("r_km", 1, 3), ("v_kms", 4, 3), ("sun", 7, 3), ("sun_km", 10, 1),
          ("sunlit", 11, 1), ("gmst", 12, 1), ("lat", 13, 1), ("lon", 14, 1), ("alt_km", 15, 1), ("qc", 16, 4),
          ("wc", 20, 3), ("reference", 23, 3), ("target_elevation", 26, 1), ("b_eci", 27, 3),
          ("b_rate", 30, 3), ("density", 33, 1))
#: Length of the kernel's output.
SIZE = 34
#: The kernel's input: name -> (first index, length).  The orbit's nine mean elements and rates
#: (:func:`sim.world.orbit.mean_elements_state`), ``t``, the epoch's Julian day and fraction, the body axes
#: ``b1``, ``b2``, the target and its vertical (ECEF), the dipole (T, ECEF), IGRF's two samples around ``t``
#: (T, ECI), NRLMSIS's two, the number ``k`` of the first sample (``t`` in ``[k, k + 1] FIELD_SAMPLE``), and the
#: numbers of the mode, the field and the atmosphere (one array: numba's dispatch costs about 0.5 us an argument).
INPUTS = {"elements": (0, 9), "t": (9, 1), "jd_day": (10, 1), "jd_frac": (11, 1), "b1": (12, 3), "b2": (15, 3),
          "target": (18, 3), "target_up": (21, 3), "dipole": (24, 3), "b_a": (27, 3), "b_b": (30, 3),
          "rho_a": (33, 1), "rho_b": (34, 1), "k": (35, 1), "mode": (36, 1), "field": (37, 1), "air": (38, 1)}
_INPUT_SIZE = 39


@jitable
def rotation_at(jd_day, jd_frac, t, ops):
    """``(days_utc, gmst, (cos gmst, sin gmst), P)`` at ``t`` s after the epoch ``jd_day + jd_frac``: what
    :func:`sim.world.frames.eci_to_ecef` takes (GMST of UT1 = UTC, the precession of TT; :mod:`sim.world.time`)."""
    days = days_utc_of(jd_day, jd_frac, t)
    g = gmst(days, ops)
    return days, g, (cos_of(g, ops), sin_of(g, ops)), precession(julian_centuries_tt(days_tt_of(jd_day, jd_frac, t)),
                                                                 ops)


@jitable
def command_at(jd_day, jd_frac, t, rv, sun, mode, b1, b2, target_ecef, target_up_ecef, ops):
    """``(C_c, r1, elevation)`` at ``t``: the commanded attitude matrix of the moving ``mode``
    (:data:`sim.gnc.pointing.MODE_CODES`) by :func:`sim.gnc.pointing.two_vector`, its primary reference and
    the target's elevation (0 but in target mode); ``rv`` the orbit's ``(r, v)`` at ``t``."""
    r, v = rv
    target, up, seen = r, r, 0.0 * r[0]
    if mode == TARGET:
        _, _, rot, p = rotation_at(jd_day, jd_frac, t, ops)
        target = ecef_to_eci(target_ecef, rot, p)
        up = ecef_to_eci(target_up_ecef, rot, p)
        seen = elevation(r, target, up, ops)
    r1, r2 = references_of(mode, r, v, sun, target, up, ops)
    return two_vector(b1, b2, r1, r2, ops), r1, seen


@jitable
def world_values(t, jd_day, jd_frac, rv, rv_lo, rv_hi, rv_dipole, mode, b1, b2, target_ecef, target_up_ecef,
                 field, dipole, b_a, b_b, rho_a, rho_b, k, air, ops):
    """The world's numbers at ``t``: ``(days_utc, r, v, sun, sun_km, sunlit, gmst, lat, lon, alt, qc, wc,
    reference, elevation, b, b_rate, density)`` (the fields of :class:`sim.model.world.WorldState`).

    ``rv`` is the orbit's ``(r, v)`` at ``t``, ``rv_lo`` and ``rv_hi`` at ``t -+ FEED_FORWARD_H / 2`` (read
    in a moving mode), ``rv_dipole`` at ``t + DIPOLE_H`` (read with the dipole); ``mode``, ``field`` and
    ``air`` are numbers (:data:`sim.gnc.pointing.MODE_CODES`, :data:`FIELD_CODES`, :data:`AIR_CODES`);
    ``dipole`` the dipole (T, ECEF: :attr:`sim.world.magnetic.Gauss.dipole`); ``b_a``, ``b_b`` and
    ``rho_a``, ``rho_b`` the IGRF field and NRLMSIS density at the samples ``k`` and ``k + 1``
    (:data:`FIELD_SAMPLE`), interpolated linearly, the rate their difference over the interval.  What the
    settings do not have comes back as zeros.
    """
    r, v = rv
    days, g, rot, p = rotation_at(jd_day, jd_frac, t, ops)
    sun, au = sun_direction(days_tt_of(jd_day, jd_frac, t), ops)
    d = au * AU_KM
    lit = sunlit_fraction(r, (d * sun[0], d * sun[1], d * sun[2]), ops)
    lat, lon, alt = ecef_to_geodetic(eci_to_ecef(r, rot, p), ops)
    qc = (0.0, 0.0, 0.0, 0.0)
    wc = r1 = (0.0, 0.0, 0.0)
    seen = 0.0
    if mode != INERTIAL:
        qc, wc, r1, seen = moving_command(jd_day, jd_frac, t, rv, rv_lo, rv_hi, sun, mode, b1, b2, target_ecef,
                                          target_up_ecef, ops)
    f = sample_fraction(t, k)
    b, b_rate = field_values(jd_day, jd_frac, t, r, rot, p, rv_dipole, field, dipole, b_a, b_b, f, ops)
    rho = 0.0
    if air == _EXPONENTIAL:
        rho = exponential_density(alt * 1e3, ops)
    elif air == _MSIS:
        rho = rho_a + f * (rho_b - rho_a)
    return days, r, v, sun, d, lit, g, lat, lon, alt, qc, wc, r1, seen, b, b_rate, rho


@jitable
def moving_command(jd_day, jd_frac, t, rv, rv_lo, rv_hi, sun, mode, b1, b2, target_ecef, target_up_ecef, ops):
    """``(qc, wc, reference, elevation)`` of the moving ``mode`` at ``t`` (:func:`world_values`'s): the command
    quaternion of :func:`command_at` (:func:`sim.core.angles.from_cayley_entries`) and its rate feed-forward from
    the commands at ``t -+ FEED_FORWARD_H / 2`` (:func:`sim.gnc.pointing.rate_between`)."""
    c, r1, seen = command_at(jd_day, jd_frac, t, rv, sun, mode, b1, b2, target_ecef, target_up_ecef, ops)
    qc = from_cayley_entries(c, ops)
    h = FEED_FORWARD_H
    c0 = command_at(jd_day, jd_frac, t - 0.5 * h, rv_lo, sun, mode, b1, b2, target_ecef, target_up_ecef, ops)[0]
    c1 = command_at(jd_day, jd_frac, t + 0.5 * h, rv_hi, sun, mode, b1, b2, target_ecef, target_up_ecef, ops)[0]
    return qc, rate_between(c0, c1, h, ops), r1, seen


@jitable
def sample_fraction(t, k):
    """Where ``t`` lies between the samples ``k`` and ``k + 1`` (:data:`FIELD_SAMPLE`), 0 to 1."""
    return (t - k * FIELD_SAMPLE) / FIELD_SAMPLE


@jitable
def field_values(jd_day, jd_frac, t, r, rot, p, rv_dipole, field, dipole, b_a, b_b, f, ops):
    """``(b, b_rate)`` (T, T/s, ECI) at ``t`` (:func:`world_values`'s): the dipole at ``r`` (``rot``, ``p``: the
    Earth's rotation at ``t``, :func:`rotation_at`) and at ``t + DIPOLE_H``, or IGRF linear between its samples
    ``b_a`` and ``b_b`` (``f``: :func:`sample_fraction`); zeros without a field."""
    b = b_rate = (0.0, 0.0, 0.0)
    if field == _DIPOLE:
        b = dipole_eci((r[0] * 1e3, r[1] * 1e3, r[2] * 1e3), rot, p, dipole, ops)
        _, _, rot2, p2 = rotation_at(jd_day, jd_frac, t + DIPOLE_H, ops)
        r2 = rv_dipole[0]
        b2 = dipole_eci((r2[0] * 1e3, r2[1] * 1e3, r2[2] * 1e3), rot2, p2, dipole, ops)
        b_rate = ((b2[0] - b[0]) / DIPOLE_H, (b2[1] - b[1]) / DIPOLE_H, (b2[2] - b[2]) / DIPOLE_H)
    elif field == _IGRF:
        dx, dy, dz = b_b[0] - b_a[0], b_b[1] - b_a[1], b_b[2] - b_a[2]
        b = (b_a[0] + f * dx, b_a[1] + f * dy, b_a[2] + f * dz)
        b_rate = (dx / FIELD_SAMPLE, dy / FIELD_SAMPLE, dz / FIELD_SAMPLE)
    return b, b_rate


@jitable
def _orbit_at(el, t):
    """``(r, v)`` of the nine mean elements and rates ``el`` at ``t`` (:func:`sim.world.orbit.mean_elements_state`)."""
    x = mean_elements_state(el[0], el[1], el[2], el[3], el[4], el[5], el[6], el[7], el[8], t)
    return (x[0], x[1], x[2]), (x[3], x[4], x[5])


@jitable
def world_into(inp, t, out):
    """:func:`world_values` at ``t`` of one body on a Kepler orbit (``ops=None``), ``inp`` laid out as
    :data:`INPUTS` (its ``t`` not read), into ``out`` (:data:`LAYOUT`): :func:`world_kernel`'s, and each step's
    of the spacecraft's compiled loop (:func:`sim.model.advance_craft.advance_craft`)."""
    inp, out = borrowed((inp, out))  # no reference counts of its own nor its callees' (sim.core.jit_borrow)
    el = inp[0:9]
    mode, field, air = int(inp[36]), int(inp[37]), int(inp[38])
    jd_day, jd_frac = inp[10], inp[11]
    b1, b2 = (inp[12], inp[13], inp[14]), (inp[15], inp[16], inp[17])
    target, up = (inp[18], inp[19], inp[20]), (inp[21], inp[22], inp[23])
    dipole = (inp[24], inp[25], inp[26])
    b_a, b_b = (inp[27], inp[28], inp[29]), (inp[30], inp[31], inp[32])
    rv = _orbit_at(el, t)
    rv_lo = rv_hi = rv_dipole = rv
    if mode != INERTIAL:
        rv_lo = _orbit_at(el, t - 0.5 * FEED_FORWARD_H)
        rv_hi = _orbit_at(el, t + 0.5 * FEED_FORWARD_H)
    if field == _DIPOLE:
        rv_dipole = _orbit_at(el, t + DIPOLE_H)
    (days, r, v, sun, d, lit, g, lat, lon, alt, qc, wc, r1, seen, b, b_rate,
     rho) = world_values(t, jd_day, jd_frac, rv, rv_lo, rv_hi, rv_dipole, mode, b1, b2, target, up, field, dipole,
                         b_a, b_b, inp[33], inp[34], inp[35], air, None)
    out[0] = days
    for j in range(3):
        out[1 + j] = r[j]
        out[4 + j] = v[j]
        out[7 + j] = sun[j]
        out[20 + j] = wc[j]
        out[23 + j] = r1[j]
        out[27 + j] = b[j]
        out[30 + j] = b_rate[j]
    out[10], out[11], out[12], out[13], out[14], out[15] = d, lit, g, lat, lon, alt
    for j in range(4):
        out[16 + j] = qc[j]
    out[26] = seen
    out[33] = rho


@jitable
def sampled(inp) -> bool:
    """True when the world of ``inp`` reads samples (IGRF or NRLMSIS, every :data:`FIELD_SAMPLE` s)."""
    return inp[37] == _IGRF or inp[38] == _MSIS


@kernel
def world_kernel(inp, out):
    """:func:`world_into` at ``inp``'s ``t`` (:data:`INPUTS`)."""
    world_into(inp, inp[9], out)


def new_input() -> np.ndarray:
    """A zeroed input array for :func:`world_kernel` (:data:`INPUTS`)."""
    return np.zeros(_INPUT_SIZE)


#: World states a process computes in Python on a Kepler orbit before it loads :func:`world_kernel` (the rule of
#: :class:`sim.core.jit.Kernel`: a thread loads it, a child process compiling it first when the disk cache holds
#: nothing of it): a short run never pays for it; the numbers are the same either way.
WARM_AFTER = 20_000


def _sample() -> tuple:
    """Arguments of :func:`world_kernel` of the types it is compiled for: a circular orbit at t = 0."""
    inp = new_input()
    inp[0], inp[8] = 7000.0, 1e-3
    return inp, np.zeros(SIZE)


world_kernel.warms(_sample, WARM_AFTER)
