"""The navigation inside the spacecraft's compiled loop (issue 42): the sensors, the estimator and the torque held
at the estimate between two steps of :func:`sim.model.advance_craft.advance_craft`.

Between the step just taken and the next, :func:`ended` and :func:`started` run :func:`sim.gnc.sensing.navigation`, the one
navigation step :class:`sim.model.navigation.Navigation` calls from Python, in the loop's order
(docs/PHYSICS.md, "The navigation loop"): the gyro's sample of the mean of the true rates over the step just
taken and the MEKF's propagation (its end), then at the next step's start ``t`` the sensors due in
``[t, t + dt)`` (:func:`sim.gnc.sensors.sample_due`, the star tracker at its rate, the sun sensors and the
magnetometer at ``vector_rate``) sampled from the true attitude and the world the loop made
(:func:`sim.model.advance_craft.next_world`), the updates, TRIAD or QUEST, and (``hold``) the torque law at the
estimate written into the craft's ``world``.

The noise is not drawn here: numpy's generators draw it in Python, in blocks, in the same order as ever
(:class:`sim.gnc.sensors.Streams`); the loop reads each stream's block from its index in ``ctl`` (:data:`CTL`)
and moves the index on.  Before a step whose navigation would need a number past the end of a block,
:func:`ready` says no and the loop returns: Python takes the next blocks (:meth:`Navigation.step
<sim.model.navigation.Navigation.step>`) and calls again.  So a seed gives the same samples one step a call,
many steps a call and in Python.

The navigation's arrays travel as one tuple, :data:`NAV_FIELDS` in order (:meth:`Navigation.loop_arrays
<sim.model.navigation.Navigation.loop_arrays>`; :data:`NO_NAV` without one).
"""

from __future__ import annotations

import numpy as np

from sim.core.jit import jitable
from sim.core.jit_borrow import borrowed
from sim.gnc.sensing import INP_SIZE, navigation
from sim.gnc.sensors import sample_due
from sim.model.world_kernel import rotation_at
from sim.world.frames import ecef_to_eci, eci_to_ecef
from sim.world.magnetic import igrf_sum

__all__ = ["CTL", "CTL_SIZE", "NAV_FIELDS", "NO_NAV", "igrf_eci", "ready", "ended", "started", "start_inputs", "end_step",
           "start_step"]

#: Layout of ``ctl``, the loop's navigation numbers: name -> (first index, length).  ``on`` 1 when the loop runs
#: the navigation, ``hold`` 1 when the law flies on the estimate, ``world`` 1 when the loop makes a world (the Sun,
#: the shadow, the Earth and the field of the craft's ``world`` are seen; else none, in the Sun), ``star_rate``
#: and ``vector_rate`` the samples per second, ``field`` 1 when the magnetometer reads the world's field,
#: ``k_gyro``.. ``k_mag`` each stream's next sample in its block (read and written by the loop), ``w0`` the true
#: rates at the start of the last step taken (written by the loop: Python ends that step), ``igrf`` 1 when the
#: magnetometer reads IGRF of the epoch's year (``terms``, :func:`igrf_eci`: the run has no field of its own),
#: ``jd`` the epoch's Julian day and fraction.
CTL = {"on": (0, 1), "hold": (1, 1), "world": (2, 1), "star_rate": (3, 1), "vector_rate": (4, 1), "k_gyro": (5, 1),
       "k_star": (6, 1), "k_sun": (7, 1), "k_mag": (8, 1), "w0": (9, 3), "igrf": (12, 1), "jd": (13, 2)}
CTL_SIZE = 15
#: The navigation's arrays of :func:`sim.model.advance_craft.advance_craft`'s last argument, in order.
NAV_FIELDS = ("ctl", "cfg", "normals", "gyro", "star", "sun", "mag", "qe", "fbias", "pe", "true_bias",
              "available", "rates", "terms")


def _none() -> tuple:
    """The navigation tuple of a run without one (``ctl[on]`` 0): empty arrays of the types the loop takes."""
    f1, f2, f3 = np.zeros(CTL_SIZE), np.zeros((0, 3)), np.zeros((0, 1, 1))
    return (f1, np.zeros(0), f2, f3, f3, f3, f3, f2, f2, np.zeros((0, 3, 3)), f2, np.zeros((0, 4)), f2, np.zeros((0, 4)))


#: :func:`_none`'s tuple.
NO_NAV = _none()


@jitable
def igrf_eci(terms, jd_day, jd_frac, t, x_km, y_km, z_km) -> tuple:
    """The magnetometer's field without a field of the run's own (:func:`sim.model.navigation.magnetic_field`):
    IGRF of ``terms`` (:attr:`sim.world.magnetic.Gauss.terms` as rows ``(n, m, C, S)``) at the ECI position
    ``(x, y, z)`` km at ``t`` s after the epoch ``jd_day + jd_frac``, through the one ECI <-> ECEF turn
    (:func:`sim.world.magnetic.field_eci`, the Earth's rotation and precession of
    :func:`sim.model.world_kernel.rotation_at`), T, ECI."""
    _, _, rot, p = rotation_at(jd_day, jd_frac, t, None)
    size = int(terms[terms.shape[0] - 1, 0]) + 2
    v = np.zeros((size, size + 1))
    w = np.zeros((size, size + 1))
    x, y, z = eci_to_ecef((1e3 * x_km, 1e3 * y_km, 1e3 * z_km), rot, p)
    return ecef_to_eci(igrf_sum(x, y, z, terms, v, w, None), rot, p)


@jitable
def _has(block, k) -> bool:
    """Whether ``block`` (N, samples, width) holds the sample ``k``."""
    return k < block.shape[1]


@jitable
def ready(nav, t, dt) -> bool:
    """Whether the blocks of ``nav`` hold every number :func:`ended` and :func:`started` read at the start ``t`` of a step: the gyro's
    sample of the step before, the star tracker's when due, the sun sensors' and the magnetometer's when due."""
    ctl, cfg = nav[0], nav[1]
    if cfg[84] != 0.0 and not _has(nav[3], int(ctl[5])):
        return False
    if cfg[85] != 0.0 and sample_due(t, dt, ctl[3]) and not _has(nav[4], int(ctl[6])):
        return False
    if (cfg[86] != 0.0 or cfg[87] != 0.0) and sample_due(t, dt, ctl[4]):
        if cfg[86] != 0.0 and not _has(nav[5], int(ctl[7])):
            return False
        if cfg[87] != 0.0 and not _has(nav[6], int(ctl[8])):
            return False
    return True


@jitable
def _inputs(dt):
    """:func:`sim.gnc.sensing.navigation`'s ``inp`` (:data:`sim.gnc.sensing.INP`) of the step ``dt``, no phase."""
    inp = np.zeros(INP_SIZE)
    inp[4] = dt
    return inp


@jitable
def _ends(w0, w1):
    """The true rates at both ends of a step as the navigation's ``ends`` (2, 1, 3)."""
    ends = np.empty((2, 1, 3))
    for i in range(3):
        ends[0, 0, i] = w0[i]
        ends[1, 0, i] = w1[i]
    return ends


@jitable
def ended(nav, q, w0, w1, dt, world, par, flags):
    """The end of the step just taken (the module docstring), its true rates ``w0`` at its start and ``w1`` at its
    end: the gyro's sample of their mean and the MEKF's propagation (:func:`sim.gnc.sensing.navigation`'s phase
    ``end``, what :meth:`sim.model.navigation.Navigation.propagate` runs); the gyro stream's index moved on."""
    ctl, cfg = nav[0], nav[1]
    if cfg[84] == 0.0:
        return
    inp = _inputs(dt)
    inp[0], inp[17] = 1.0, ctl[5]
    ctl[5] += 1.0
    _navigate(nav, q, _ends(w0, w1), inp, world, par, flags)


@jitable
def _navigate(nav, q, ends, inp, world, par, flags):
    """:func:`sim.gnc.sensing.navigation` of one body at the true attitude ``q`` with the phases of ``inp``."""
    qa = np.empty((1, 4))
    qa[0, 0], qa[0, 1], qa[0, 2], qa[0, 3] = q[0], q[1], q[2], q[3]
    navigation(qa, ends, inp, nav[1], nav[2], nav[3], nav[4], nav[5], nav[6], nav[7], nav[8], nav[9], nav[10],
               nav[11], nav[12], world, par, flags)


@jitable
def started(nav, q, w, t, dt, world, par, flags):
    """The start of the step at ``t`` at the true attitude ``q`` (the module docstring): the sensors due, the
    updates, TRIAD or QUEST (:func:`start_inputs`) and the torque held at the estimate (``ctl[hold]``)."""
    inp = start_inputs(nav, t, dt, world)
    inp[21] = nav[0][1]
    _navigate(nav, q, np.zeros((2, 0, 3)), inp, world, par, flags)


@jitable
def start_inputs(nav, t, dt, world):
    """:func:`sim.gnc.sensing.navigation`'s ``inp`` (:data:`sim.gnc.sensing.INP`) of the start of the step at ``t``,
    with what :meth:`sim.model.navigation.Navigation.step` passes it in Python: the sensors due in ``[t, t + dt)``
    (:func:`sim.gnc.sensors.sample_due`), and with a world (``ctl[world]``) the Sun, the shadow, the Earth from the
    spacecraft (m) and the field read from the craft's ``world`` (:data:`sim.model.advance_craft.WORLD`; IGRF of
    the epoch's year, :func:`igrf_eci`, with ``ctl[igrf]``), else none, in the Sun; each stream's index moved on.
    No hold (``inp[21]`` 0).  The one text of the single body's loop (:func:`started`) and of the ensemble's
    (:func:`sim.ensemble.nav_bodies.nav_start`)."""
    ctl, cfg = nav[0], nav[1]
    inp = _inputs(dt)
    inp[1] = 1.0
    inp[5] = 1.0
    if ctl[2] != 0.0:
        inp[8], inp[9], inp[10] = world[9], world[10], world[11]
        inp[5] = world[13]
        inp[11], inp[12], inp[13] = -1e3 * world[3], -1e3 * world[4], -1e3 * world[5]
        inp[6] = inp[7] = 1.0
    if cfg[85] != 0.0 and sample_due(t, dt, ctl[3]):
        inp[2], inp[18] = 1.0, ctl[6]
        ctl[6] += 1.0
    if (cfg[86] != 0.0 or cfg[87] != 0.0) and sample_due(t, dt, ctl[4]):
        inp[3] = 1.0
        if cfg[86] != 0.0:
            inp[19] = ctl[7]
            ctl[7] += 1.0
        if cfg[87] != 0.0:
            inp[20] = ctl[8]
            ctl[8] += 1.0
            if ctl[12] != 0.0:
                inp[14], inp[15], inp[16] = igrf_eci(nav[13], ctl[13], ctl[14], t, world[3], world[4], world[5])
            else:
                inp[14], inp[15], inp[16] = world[14], world[15], world[16]
    return inp


@jitable
def end_step(nav, done, q, w, t, dt, world, par, flags) -> bool:
    """What the craft's loop calls first before each step at ``t`` from ``(q, w)`` (``done`` the steps taken in
    this call): with a navigation (``ctl[on]``) and a step before it in this call, :func:`ended` that step (its
    history row is written next, between its end and the next start), or False, nothing done, when a block runs
    out for it or for the next start (:func:`ready`).  Called at every step: its arrays borrowed (sim.core.jit_borrow)."""
    nav, world, par, flags = borrowed((nav, world, par, flags))
    ctl = nav[0]
    if ctl[0] == 0.0 or done == 0:
        return True
    if not ready(nav, t, dt):
        return False
    ended(nav, q, (ctl[9], ctl[10], ctl[11]), w, dt, world, par, flags)
    return True


@jitable
def start_step(nav, done, q, w, t, dt, world, par, flags):
    """After :func:`end_step` (and the row): with a navigation and a step before it in this call, :func:`started`
    the step at ``t``; then ``w`` kept as ``ctl[w0]``.  Its arrays borrowed, as :func:`end_step`'s."""
    nav, world, par, flags = borrowed((nav, world, par, flags))
    ctl = nav[0]
    if ctl[0] == 0.0:
        return
    if done > 0:
        started(nav, q, w, t, dt, world, par, flags)
    ctl[9], ctl[10], ctl[11] = w[0], w[1], w[2]
