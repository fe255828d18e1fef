"""Each ensemble body's world inside the compiled body loop on an orbit (:mod:`sim.ensemble.orbit_loop`, issue 42).

The world of a step as :meth:`sim.model.simulation.Simulation._update_world` makes it for one body on a Kepler
orbit, written into the spacecraft step's ``world`` (:data:`sim.model.advance_craft.WORLD`) as
:func:`sim.model.advance_craft.next_world` writes it: the orbit's ``(r, v)`` (:func:`orbit_at`, from the
orbit's shape and axes made once, :func:`fixed_part`), the numbers of
:func:`sim.model.world_kernel.world_values` (``ops=None``: the Sun, the solar pressure of
:func:`sim.world.surfaces.pressure`, the shadow, the field, the density, a moving mode's command and rate
feed-forward), and, with a field, the torquers' dipole of :func:`sim.gnc.magnetic.torquer_command` at the
attitude the integrator reads (:func:`torquers_into`, as ``next_world``).

IGRF is sampled every :data:`sim.model.world_kernel.FIELD_SAMPLE` s and interpolated between the samples, as
:meth:`sim.model.world.World.loop_input` gives the single body's loop its samples: here each body takes its
own samples inside the loop (:func:`field_sample`: :meth:`sim.model.world.World._field` at the sample's time,
:func:`sim.world.frames.eci_to_ecef`, :func:`sim.world.magnetic.igrf_sum` and back), where the single body's
loop returns to Python for them.  NRLMSIS's samples are pymsis's (Fortran, called from Python): not here.

Each body's orbit row is made in Python by :func:`body_elements` (its ``KeplerOrbit``'s mean elements and rates).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.jit import jitable
from sim.core.jit_borrow import borrowed
from sim.core.norm import renormalize
from sim.gnc.magnetic import torquer_command
from sim.gnc.pointing import INERTIAL
from sim.model.world_kernel import (DIPOLE_H, FEED_FORWARD_H, FIELD_CODES, FIELD_SAMPLE, field_values, moving_command,
                                    rotation_at, sample_fraction, world_values)
from sim.world.eclipse import sunlit_fraction
from sim.world.frames import ecef_to_eci, eci_to_ecef
from sim.world.magnetic import igrf_sum
from sim.world.orbit import MU_KM, R_EARTH_KM, KeplerOrbit, axes_fixed, orbit_axes, orbit_shape, shape_state
from sim.world.sun import AU_KM, sun_direction
from sim.world.time import days_tt_of
from sim.world.surfaces import pressure

__all__ = ["body_elements", "world_into", "fixed_part", "orbit_at", "orbit_kept",
           "new_kept", "renew_kept", "sun_at", "field_sample", "torquers_into", "SAMPLES", "KEPT", "SLOTS_PER_STEP", "NO_SUN", "IGRF", "DIPOLE"]

#: The field models' numbers (:data:`sim.model.world_kernel.FIELD_CODES`).
DIPOLE, IGRF = FIELD_CODES["dipole"], FIELD_CODES["igrf"]
#: Length of a body's IGRF samples (:func:`world_into`'s ``fs``): the number ``k`` of the first sample (NaN: none
#: yet), the field at the samples ``k`` and ``k + 1`` (T, ECI).
SAMPLES = 7
#: Orbit states a body keeps (:func:`orbit_kept`), one in each of as many slots (a power of two): a moving mode
#: reads its orbit at ``t`` and ``t -+ 0.5 s``, the dipole at ``t + 1 s``, so a state made at one step is read
#: again up to ``1 / dt`` steps later, among states of times spanning ``1.5 s`` (:data:`SLOTS_PER_STEP`
#: ``1.5 / dt`` slots: 60 at dt 0.1 s, 120 at 0.05 s).
KEPT = 128
#: Slots of :func:`orbit_kept` a step of the time base spans: a time ``x`` goes to the slot
#: ``round(SLOTS_PER_STEP x / dt)`` modulo :data:`KEPT`, so the step times and the half-steps between them
#: (``t -+ 0.5 s`` at dt 1 s), and the quarter steps, have slots of their own.
SLOTS_PER_STEP = 4.0
#: The Sun not given to :func:`world_into` (each body makes its own).
NO_SUN = (0.0, 0.0, 0.0, math.nan)


@jitable
def fixed_part(el):
    """What of a body's orbit (its ``orbit`` row, :data:`sim.ensemble.orbit_loop.ORBIT`) stays the same at every
    step: ``(shape, axes, fixed)``, :func:`sim.world.orbit.orbit_shape` and, when ``fixed``
    (:func:`sim.world.orbit.axes_fixed`: no J2 drift), :func:`sim.world.orbit.orbit_axes`."""
    shape = orbit_shape(el[0], el[1], el[2], MU_KM)
    return shape, orbit_axes(el[3], el[4], shape[2], shape[3]), axes_fixed(el[3], el[4], el[6], el[7])


@jitable
def orbit_at(el, orb, t):
    """``(r, v)`` (km, km/s, ECI) of a body's ``orbit`` row at ``t``: its
    :func:`sim.world.orbit.mean_elements_state` to the bit, from its :func:`fixed_part` ``orb``
    (:func:`sim.world.orbit.shape_state`)."""
    x = shape_state(orb[0], orb[1], orb[2], el[1], el[3], el[4], el[5], el[6], el[7], el[8], t)
    return (x[0], x[1], x[2]), (x[3], x[4], x[5])


@jitable
def new_kept(dt):
    """A body's kept orbit states for :func:`orbit_kept` on a time base of step ``dt``, none yet: rows ``(t, r,
    v)`` (NaN times: no state), the last row's first number the slots a second (:data:`SLOTS_PER_STEP` / ``dt``)."""
    kept = np.empty((KEPT + 1, 7))
    renew_kept(kept, dt)
    return kept


@jitable
def renew_kept(kept, dt):
    """``kept`` (:func:`new_kept`) emptied for another body's states on a time base of step ``dt``: its times
    made NaN (a state is read only at its own time)."""
    for a in range(KEPT):
        kept[a, 0] = np.nan
    kept[KEPT, 0] = SLOTS_PER_STEP / dt


@jitable
def orbit_kept(el, orb, t, kept):
    """:func:`orbit_at` ``(el, orb, t)``, the state kept in ``t``'s slot (:func:`new_kept`,
    :data:`SLOTS_PER_STEP`) when it was made at the same ``t`` (equal and of the same sign: the same formula of
    the same numbers, the same bits), else made and kept there.  The rate feed-forward's ``t + 0.5 s`` of one
    step is a later step's ``t`` and ``t - 0.5 s`` whenever the sums of the time base round alike (two in three
    at dt 0.1 s): one Kepler solve a step where there were three, found in one look (a time whose slot is out of
    an integer's range is not kept)."""
    u = t * kept[KEPT, 0]
    if not abs(u) < 1e15:
        return orbit_at(el, orb, t)
    a = int(math.floor(u + 0.5)) & (KEPT - 1)
    if kept[a, 0] == t and math.copysign(1.0, kept[a, 0]) == math.copysign(1.0, t):
        return (kept[a, 1], kept[a, 2], kept[a, 3]), (kept[a, 4], kept[a, 5], kept[a, 6])
    rv = orbit_at(el, orb, t)
    kept[a, 0] = t
    for b in range(3):
        kept[a, 1 + b] = rv[0][b]
        kept[a, 4 + b] = rv[1][b]
    return rv


@jitable
def sun_at(jd_day, jd_frac, t):
    """``(x, y, z, d)``: the Sun's direction and distance (km, ECI) at ``t`` after the epoch ``jd_day + jd_frac``
    (:func:`sim.world.sun.sun_direction`), as :func:`sim.model.world_kernel.world_values` makes them."""
    sun, au = sun_direction(days_tt_of(jd_day, jd_frac, t), None)
    return sun[0], sun[1], sun[2], au * AU_KM


@jitable
def field_sample(el, orb, k, terms):
    """IGRF (T, ECI) at the sample ``t = k FIELD_SAMPLE`` of a body's orbit: :meth:`sim.model.world.World._sample`
    and :meth:`~sim.model.world.World._field` (:func:`sim.world.magnetic.field_eci`: the position turned into
    ECEF, :func:`sim.world.magnetic.igrf_sum` of ``terms``, one ``(n, m, C, S)`` a row, as
    :func:`sim.world.magnetic.igrf_one` sums them, and the field turned back)."""
    t = k * FIELD_SAMPLE
    r = orbit_at(el, orb, t)[0]
    _, _, rot, p = rotation_at(el[9], el[10], t, None)
    e = eci_to_ecef((r[0] * 1e3, r[1] * 1e3, r[2] * 1e3), rot, p)
    size = int(terms[terms.shape[0] - 1, 0]) + 2
    v = np.zeros((size, size + 1))
    w = np.zeros((size, size + 1))
    return ecef_to_eci(igrf_sum(e[0], e[1], e[2], terms, v, w, None), rot, p)


@jitable
def _samples(el, orb, t, fs, terms):
    """``fs`` (:data:`SAMPLES`) made the IGRF samples around ``t`` (:meth:`sim.model.world.World._bracket`): the
    later sample kept when ``t`` moves on to the next interval."""
    k = float(math.floor(t / FIELD_SAMPLE))
    if k == fs[0]:
        return
    if k == fs[0] + 1.0:
        a = (fs[4], fs[5], fs[6])
    else:
        a = field_sample(el, orb, k, terms)
    b = field_sample(el, orb, k + 1.0, terms)
    fs[0] = k
    fs[1], fs[2], fs[3], fs[4], fs[5], fs[6] = a[0], a[1], a[2], b[0], b[1], b[2]


@jitable
def world_into(world, el, orb, t, inp, srp, fs, terms, kept, given, sensed):
    """The world of :data:`sim.model.advance_craft.WORLD` at ``t`` into ``world``, as
    :func:`sim.model.advance_craft.next_world` writes it from :func:`sim.model.world_kernel.world_into` (its
    torquers apart: :func:`torquers_into`) for an orbit row ``el`` (``orb`` its :func:`fixed_part`) and the
    shared input ``inp`` (:data:`sim.model.world_kernel.INPUTS`: the pointing axes, the target, the mode's,
    field's and atmosphere's numbers; the dipole is the orbit row's, :data:`sim.ensemble.orbit_loop.ORBIT`): the
    time, the orbit's ``(r, v)``, the Sun, the solar
    pressure (``srp``), the shadow, the field (IGRF from the samples ``fs`` made here of ``terms``), the density,
    and a moving mode's command as the world gives it (its sign not yet followed) and its rate feed-forward.
    The orbit's states come from the body's ``kept`` ones when it reads more than one a step
    (:func:`orbit_kept`); ``given`` is the Sun at ``t`` (:func:`sun_at`) when the caller made it once for the bodies
    sharing an epoch, else :data:`NO_SUN`.
    With inertial pointing, no field, no drag and no SRP a step reads the orbit alone: the rest is not made;
    without drag, only what the step reads (no geodetic point, no GMST but for the dipole, the shadow only for
    SRP: what :class:`~sim.model.world.WorldState`'s readers see is made by Python after the call), and with
    ``sensed`` (what the sensors read besides the step, :func:`sim.model.craft_nav.start_inputs`: the Sun, the
    shadow, the Earth and the field) the Sun and the shadow besides, the same numbers as
    :func:`sim.model.world_kernel.world_values`'.  (One function for both, called as it is: a wrapper a call deep
    costs each array argument's reference counts, about 26 ns of a Sun-pointing world; its arrays go to its callees
    :func:`~sim.core.jit_borrow.borrowed`.)"""
    world, el, inp, fs, terms, kept = borrowed((world, el, inp, fs, terms, kept))
    mode, field, air = int(inp[36]), int(inp[37]), int(inp[38])
    many = mode != INERTIAL or field == DIPOLE  # more than one orbit state a step: the states kept
    rv = orbit_kept(el, orb, t, kept) if many else orbit_at(el, orb, t)
    world[2] = t
    r, v = rv
    for a in range(3):
        world[3 + a] = r[a]
        world[6 + a] = v[a]
    if mode == INERTIAL and air == 0 and field == 0 and not srp and not sensed:
        return
    rv_lo = rv_hi = rv_dipole = rv
    if mode != INERTIAL:
        rv_lo = orbit_kept(el, orb, t - 0.5 * FEED_FORWARD_H, kept)
        rv_hi = orbit_kept(el, orb, t + 0.5 * FEED_FORWARD_H, kept)
    if field == DIPOLE:
        rv_dipole = orbit_kept(el, orb, t + DIPOLE_H, kept)
    k = 0.0
    if field == IGRF:
        _samples(el, orb, t, fs, terms)
        k = fs[0]
    if air != 0:  # the geodetic point for the density: every number of the world
        values = world_values(t, el[9], el[10], rv, rv_lo, rv_hi, rv_dipole, mode, (inp[12], inp[13], inp[14]),
                              (inp[15], inp[16], inp[17]), (inp[18], inp[19], inp[20]), (inp[21], inp[22], inp[23]),
                              field, (el[11], el[12], el[13]), (fs[1], fs[2], fs[3]), (fs[4], fs[5], fs[6]), 0.0,
                              0.0, k, air, None)
        _written(world, values[3], values[4], values[5], values[14], values[15], values[16], values[10],
                 values[11], mode, srp)
        return
    # without drag only what the step reads, each by world_values' own parts: the Sun for a moving mode and the
    # pressure, the shadow for the pressure, the Earth's rotation for the dipole
    sun, d, lit = (0.0, 0.0, 0.0), 0.0, 1.0
    if mode != INERTIAL or srp or sensed:
        x = given if not math.isnan(given[3]) else sun_at(el[9], el[10], t)
        sun, d = (x[0], x[1], x[2]), x[3]
        if srp or sensed:
            lit = sunlit_fraction(r, (d * sun[0], d * sun[1], d * sun[2]), None)
    qc, wc = (0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    if mode != INERTIAL:
        qc, wc = moving_command(el[9], el[10], t, rv, rv_lo, rv_hi, sun, mode, (inp[12], inp[13], inp[14]),
                                (inp[15], inp[16], inp[17]), (inp[18], inp[19], inp[20]), (inp[21], inp[22], inp[23]),
                                None)[0:2]
    rot, p = (1.0, 0.0), (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)  # (read with the dipole only)
    if field == DIPOLE:
        _, _, rot, p = rotation_at(el[9], el[10], t, None)
    b, b_rate = field_values(el[9], el[10], t, r, rot, p, rv_dipole, field, (el[11], el[12], el[13]),
                             (fs[1], fs[2], fs[3]), (fs[4], fs[5], fs[6]), sample_fraction(t, k), None)
    _written(world, sun, d, lit, b, b_rate, 0.0, qc, wc, mode, srp)


@jitable
def _written(world, sun, d, lit, b, b_rate, rho, qc, wc, mode, srp):
    """The world's numbers into ``world`` (:data:`sim.model.advance_craft.WORLD`), as ``next_world`` writes them."""
    world[9], world[10], world[11] = sun[0], sun[1], sun[2]
    world[12] = pressure(d * 1e3, lit) if srp else 0.0
    world[13], world[20] = lit, rho
    for a in range(3):
        world[14 + a] = b[a]
        world[17 + a] = b_rate[a]
    if mode != INERTIAL:
        world[24], world[25], world[26], world[27] = qc[0], qc[1], qc[2], qc[3]
        world[28] = 1.0
        world[29], world[30], world[31] = wc[0], wc[1], wc[2]


@jitable
def torquers_into(world, q, t, speeds, norm, wheels, mag, rods):
    """The torquers' dipole held over the step at ``t`` into ``world`` (and the field in body axes and the rods'
    command into ``mag``), as :func:`sim.model.advance_craft.next_world` makes it:
    :func:`sim.gnc.magnetic.torquer_command` in the world's field at the attitude the integrator reads (``Q /
    |Q|`` with elimination, ``norm`` 3), the B-dot sample state in ``mag`` and the held rods in ``rods``' last
    column (:data:`sim.model.advance_craft.MAG`, :attr:`sim.gnc.magnetic.Magnetorquers.table`)."""
    a = renormalize(q, None)[0] if norm == 3 else q
    b, m, d = torquer_command(t, a, (world[14], world[15], world[16]), speeds, int(mag[0]), int(mag[1]), mag[2],
                              mag[3], mag[4], mag[11:20], rods[:, 7], rods[:, 0:3], rods[:, 3:6], rods[:, 6],
                              (mag[5], mag[6], mag[7]), (mag[8], mag[9], mag[10]), wheels[:, 3:6], wheels[:, 6], None)
    for j in range(3):
        mag[20 + j], mag[23 + j], world[21 + j] = b[j], m[j], d[j]


def body_elements(settings, orbits) -> np.ndarray:
    """Each body's orbit as :func:`sim.world.orbit.mean_elements_state` takes it, (n, 9): built on floats, one
    :class:`~sim.world.orbit.KeplerOrbit` a body, exactly as :class:`~sim.model.world.World` builds it from
    ``Simulation(body_settings(j))``'s numbers (the rows of :func:`sim.ensemble.environment.bodies_world` take the
    mean anomaly by numpy's
    ``arctan2``, an ulp off libm's now and then).  ``orbits``: an :class:`~sim.ensemble.sampling.OrbitSample`."""
    el = orbits.elements
    out = np.empty((el.shape[1], 9))
    rad = math.radians
    for j in range(el.shape[1]):
        alt, e, i, raan, argp, nu = (float(x) for x in el[:, j])
        out[j] = KeplerOrbit(R_EARTH_KM + alt, e, rad(i), rad(raan), rad(argp), rad(nu),
                             j2=settings.j2).elements_and_rates
    return out
