"""The ensemble's bodies with sensors and an estimator, each through the single body's compiled navigation (issue 42).

:func:`advance_nav_bodies` takes up to ``n`` steps of every body of an :class:`~sim.ensemble.Ensemble` flying an
estimator (a Monte Carlo of MEKFs, ``mekf_monte_carlo``) in one call: a loop over the bodies ``lo..hi`` (a nogil
kernel, run in ranges on threads by :func:`sim.ensemble.compiled.on_threads`), each taking its steps with
:func:`sim.model.advance_craft.craft_step` (the spacecraft's step :func:`~sim.model.advance_craft.advance_craft`
takes), the norm mode and the fault checks of that loop (flown on the truth, the plain body's
:func:`sim.core.advance.checked_step`, the same bits for a quarter of the call), and between two steps the navigation of
:func:`sim.gnc.sensing.navigation`, the formulas the single body's loop (:mod:`sim.model.craft_nav`) and Python's
:class:`~sim.model.navigation.Navigation` call, on that body's row of the ensemble's navigation: the end of the
step just taken (the gyro's sample of the mean of its true rates, the MEKF's propagation), the score of the new
state for the estimate window (the error and the NEES, :func:`score_of`), then the start of the next step (the star
tracker when due, its update, the torque law held at the estimate).  The order is the ensemble's own
(:meth:`sim.ensemble.environment.Surroundings._navigate_after`), so each body is bit for bit what the ensemble's
numpy path gives, and that is bit for bit its :class:`~sim.model.simulation.Simulation`.

The noise is not drawn here: body ``j``'s streams are the ensemble's (:class:`sim.gnc.sensors.Streams`, drawn from
``SeedSequence([sensor_seed, index[j], id])`` in blocks), read from their present blocks at the stream's index in
its row of ``ctl`` (:data:`sim.model.craft_nav.CTL`); every body samples at the same instants, so the blocks run
out at the same step for all: the loop stops before a step whose navigation would read past a block
(:func:`sim.model.craft_nav.ready`) and Python ends that step and starts the next, taking the next blocks
(:class:`sim.ensemble.nav_steps.NavSteps`).

On the orbit the bodies share (an estimator flies on no other), the world of each step is made once in the loop for
every body as :func:`sim.ensemble.orbit_loop.advance_orbit_bodies` makes it
(:func:`sim.ensemble.orbit_world.world_into`, ``sensed``:
the orbit, the Sun and the shadow the sensors see, the field, a moving mode's command and rate), then each body's
torquers (:func:`~sim.ensemble.orbit_world.torquers_into`) and command (its sign followed), and the sensors read it
as the single body's loop does (:func:`sim.model.craft_nav.start_inputs`: the sun sensors, the magnetometer in the
world's field or IGRF of the epoch's year, the star tracker blinded by the Sun and the Earth).

Covered (:meth:`sim.ensemble.nav_steps.NavSteps._nav_covered`): an estimator, no thrusters or CMGs, half-quat, rk4
or rkmk4 with the norm
modes and torque laws of :func:`sim.model.advance_craft.covers`, no SLERP under way; without an orbit no wheels
and no environment torque; on the shared orbit what :func:`sim.ensemble.orbit_loop.covers` covers (wheels, the
gravity gradient, SRP, drag in the exponential atmosphere, the field with the torquers, the disturbance, any
pointing mode; a Kepler orbit).  The rest steps through the numpy columns as before.
"""

from __future__ import annotations

import numpy as np

from sim.core.advance import OK, as_tuples, checked_step, inertia, normed, status_of
from sim.core.algebra import dot_QQ
from sim.core.jit import jitable, kernel
from sim.core.wheel_program import program
from sim.ensemble.compiled import track_body
from sim.gnc.sensing import INP_SIZE, estimate_error, navigation
from sim.ensemble.orbit_world import NO_SUN, SAMPLES, fixed_part, new_kept, torquers_into, world_into
from sim.gnc.pointing import INERTIAL
from sim.model import advance_craft as craft
from sim.model import world_kernel as wk
from sim.model.craft_row import wheel_reaction
from sim.model.craft_nav import CTL_SIZE, ready, start_inputs

__all__ = ["advance_nav_bodies", "score_of", "nav_end", "nav_start", "nav_hold", "no_orbit", "WARM_AFTER",
           "LOAD_AT_ONCE", "CHUNK"]

#: Body-steps an ensemble with an estimator takes through the numpy columns before the process loads
#: :func:`advance_nav_bodies` (from the disk cache about 0.5 s; a first compile, in a child process, 20-40 s):
#: the rule of :class:`sim.core.jit.Kernel`.  The numbers are the same either way.
WARM_AFTER = 200_000
#: Bodies from which an ensemble with an estimator starts loading :func:`advance_nav_bodies` (in a thread) at its
#: first step: the navigation's kernels run as Python until they load, at about 0.1-0.5 ms a body-step, so a
#: Monte Carlo of 1,000 MEKFs in the window's ensemble process would crawl for seconds.
LOAD_AT_ONCE = 100
#: Most body-steps in one call (about 0.1-0.3 s): Ctrl-C is seen between calls.  The gyro's block of 256 samples
#: ends a call sooner (:mod:`sim.gnc.sensors`).
CHUNK = 500_000
_FLAGS, _WORLD = max(craft.FLAGS.values()) + 1, sum(craft.WORLD["torque"])
#: The length of an orbit row (:data:`sim.ensemble.orbit_loop.ORBIT`).
_ORBIT_ROW = 14


@jitable
def score_of(qt, qe, pe, true_bias, fbias, j, mekf, e):
    """``(|a|^2, NEES)`` of body ``j``'s estimate against the true attitude ``qt``: the error ``a`` and the NEES of
    :func:`sim.gnc.sensing.estimate_error` (the text of :func:`sim.gnc.sensing.estimate_columns`' readouts), ``a``
    squared and summed x, y, z in that order; ``e`` (6,) scratch."""
    a, nees = estimate_error(qt, qe, pe, true_bias, fbias, mekf, j, e)
    return a[0] * a[0] + a[1] * a[1] + a[2] * a[2], nees


@jitable
def nav_end(nav, ends, dt, world, par, flags):
    """The end of a step of the bodies of ``nav`` (their navigation, :data:`sim.model.craft_nav.NAV_FIELDS`, a
    row each): the gyro's sample of the mean of the true rates ``ends[0]``, ``ends[1]`` (N, 3) at both ends of
    the step and the MEKF's propagation (:func:`sim.gnc.sensing.navigation`'s ``end``, what
    :meth:`sim.model.navigation.Navigation.end_step` runs), the gyro's stream index moved on."""
    ctl, cfg = nav[0], nav[1]
    inp = np.zeros(INP_SIZE)
    inp[4] = dt
    if cfg[84] != 0.0:
        inp[0], inp[17] = 1.0, ctl[5]
        ctl[5] += 1.0
    navigation(nav[7], ends, inp, cfg, nav[2], nav[3], nav[4], nav[5], nav[6], nav[7], nav[8], nav[9], nav[10],
               nav[11], nav[12], world, par, flags)


@jitable
def nav_start(nav, q, t, dt, ends, world, par, flags):
    """The start of a step at ``t`` of the bodies of ``nav`` (what :meth:`sim.model.navigation.Navigation.sample`
    runs): the sensors due in ``[t, t + dt)`` sampled from the true ``q`` (N, 4) and the ``world`` the bodies share
    (:func:`sim.model.craft_nav.start_inputs`: its Sun, shadow, Earth and field; without one, none, lit) and their
    updates, TRIAD or QUEST (:func:`sim.gnc.sensing.navigation`'s ``start``), the streams' indices moved on."""
    navigation(q, ends, start_inputs(nav, t, dt, world), nav[1], nav[2], nav[3], nav[4], nav[5], nav[6], nav[7],
               nav[8], nav[9], nav[10], nav[11], nav[12], world, par, flags)


@jitable
def nav_hold(nav, j, dt, ends, world, par, flags):
    """The torque law at body ``j``'s estimate written into its ``world`` (:func:`sim.gnc.sensing.navigation`'s
    ``hold`` on that body's rows, what :class:`sim.model.navigation.HeldTorque` holds over the step)."""
    inp = np.zeros(INP_SIZE)
    inp[4] = dt
    inp[1] = 1.0
    inp[21] = 1.0
    b = j + 1
    navigation(nav[7][j:b], ends, inp, nav[1], nav[2], nav[3], nav[4], nav[5], nav[6], nav[7][j:b], nav[8][j:b],
               nav[9][j:b], nav[10][j:b], nav[11][j:b], nav[12][j:b], world, par, flags)


@kernel
def advance_nav_bodies(x, par, flags, world0, n, s0, t0, faulted, done, track, k0, c2, rate_under, peak_ww,
                       first_under, travel, peak_tt, last_out, nav, mekf, sums, taken, plain, table, orbit, shared,
                       terms, wheels, groups, mags, rods, lo, hi):
    """Up to ``n`` steps of the bodies ``lo <= j < hi`` (column ``j`` of ``x``, (8 + wheels, m): q, w, correction,
    the wheels' speeds) with their navigation (the module docstring), in place; it holds no GIL
    (:func:`sim.ensemble.compiled.on_threads`).  Step by step: on an orbit the world of the step (made once for
    every body,
    :func:`sim.ensemble.orbit_world.world_into`, ``sensed``, then each body's torquers and command), the navigation over
    the range's rows (one call of :func:`sim.gnc.sensing.navigation` for them all, as the numpy path's), then
    each body's step.

    ``par`` (m, 58) and ``flags``: :func:`sim.model.advance_craft.pack`'s, one ``par`` row per body; ``world0``
    (m, 39) each body's ``world`` (:data:`sim.model.advance_craft.WORLD`: its command, followed in place on an
    orbit, and the torque held at its estimate of the first step's start when it flies on it).  The step
    ``k0 + i`` (``i`` from 0) is at ``t = t0 + (s0 + i) dt``.  The start of the first step's navigation is taken
    (Python's); the end of the last is left to Python, with each body's rates at the start of that step in its
    ``ctl`` row.

    ``nav``: the ensemble's navigation (:data:`sim.model.craft_nav.NAV_FIELDS`, ``ctl`` one row per body, the
    stream indices read from row ``lo`` and written back there), updated in place; ``mekf`` whether the NEES is
    the MEKF's; ``sums`` (2, m) the estimate window's sums of ``|a|^2`` and of the NEES, each step's added after
    its end (:func:`score_of`).  ``faulted``, ``done`` and the metrics (``track = (on, torque, norm_none, -)``,
    ``peak_ww`` .. ``last_out``) as :func:`sim.ensemble.orbit_loop.advance_orbit_bodies` (the torque of a step
    that of its first stage on the body, the settle band on the command of the new step); ``taken[j]`` the steps
    the call took (the same for every body: the navigation's blocks end them).  ``plain``: the body's step is
    the plain body's :func:`sim.core.advance.checked_step` on the head of ``par`` and ``flags`` (their layouts
    begin with its own; the same bits, a quarter of the craft step's call), else
    :func:`sim.model.advance_craft.craft_step`.

    On an orbit (``orbit`` one row, :data:`sim.ensemble.orbit_loop.ORBIT`: the orbit the bodies share; (0, 14)
    without one) as :func:`~sim.ensemble.orbit_loop.advance_orbit_bodies` takes them: ``table`` the facets,
    ``shared`` the world's input, ``terms`` IGRF's terms (1, T, 4), ``wheels`` and ``groups`` the wheels'
    tables, ``mags`` and ``rods`` each body's torquers, followed in place.
    """
    r = hi - lo
    # the range's own copies (an array shared by the threads costs atomic reference counts on one counter)
    ctl = nav[0][lo].copy()
    one = (ctl, nav[1].copy(), nav[2].copy(), nav[3][lo:hi].copy(), nav[4][lo:hi].copy(), nav[5][lo:hi].copy(),
           nav[6][lo:hi].copy(), nav[7][lo:hi].copy(), nav[8][lo:hi].copy(), nav[9][lo:hi].copy(),
           nav[10][lo:hi].copy(), nav[11][lo:hi].copy(), nav[12][lo:hi].copy(), nav[13])
    fl = flags.copy()
    p = par[lo:hi].copy()
    world = world0[lo:hi].copy()
    state = x[:, lo:hi].copy()
    tab, wh, gr = table.copy(), wheels.copy(), groups.copy()
    mg, rd = mags[lo:hi].copy(), rods[lo:hi].copy()
    nw = wh.shape[0]
    bufs = np.zeros((r, 9, nw))  # each body's craft-step buffer, its wheels' speeds in row 6
    for a in range(r):
        for c in range(nw):
            bufs[a, 6, c] = state[8 + c, a]
    on_orbit = orbit.shape[0] > 0
    base = np.zeros(_WORLD)  # the world the bodies share, made once a step
    inp = shared.copy()
    el = np.zeros(orbit.shape[1])
    el[0], el[8] = 7000.0, 1e-3  # (without an orbit a placeholder of the types, never read)
    if on_orbit:
        for c in range(el.shape[0]):
            el[c] = orbit[0, c]
    orb = fixed_part(el)
    fs = np.full(SAMPLES, np.nan)
    kept = new_kept(p[0, 34])  # the orbit's states, read again at later steps (orbit_world.orbit_kept)
    tm = terms[0].copy()
    mode, field = int(inp[36]), int(inp[37])
    srp = fl[12] != 0
    ends = np.zeros((2, r, 3))
    qa = np.zeros((r, 4))
    e = np.zeros(6)
    tt = np.zeros(r)
    alive = np.empty(r, dtype=np.bool_)
    good = np.zeros(r, dtype=np.int64)
    for a in range(r):
        alive[a] = not faulted[lo + a]
    hold = ctl[1] != 0.0
    dt, norm = p[0, 34], fl[1]
    i = 0
    while True:
        t = t0 + (s0 + i) * dt
        if on_orbit:  # the world at the step's start (Simulation._update_world), each body's torquers and command
            world_into(base, el, orb, t, inp, srp, fs, tm, kept, NO_SUN, True)
            for a in range(r):
                wa = world[a]
                for c in range(21):
                    wa[c] = base[c]
                if field != 0:
                    torquers_into(wa, (state[0, a], state[1, a], state[2, a], state[3, a]), t, bufs[a, 6], norm,
                                  wh, mg[a], rd[a])
                if mode != INERTIAL:  # CommandInterpolator.follow: the sign continuous with the present command
                    qw = (base[24], base[25], base[26], base[27])
                    sign = -1.0 if dot_QQ(qw, (wa[24], wa[25], wa[26], wa[27])) < 0.0 else 1.0
                    for c in range(4):
                        wa[24 + c] = sign * qw[c]
                    for c in range(28, 32):
                        wa[c] = base[c]
        if i > 0 and track[0] != 0:  # Tracker.track after step k0 + i, on the command of the new step
            for a in range(r):
                j = lo + a
                wa = world[a]
                m = track_body((peak_ww[j], first_under[j], travel[j], peak_tt[j], last_out[j]), k0 + i,
                               (state[0, a], state[1, a], state[2, a], state[3, a]),
                               (state[4, a], state[5, a], state[6, a]), (wa[24], wa[25], wa[26], wa[27]), c2,
                               alive[a], tt[a], dt, track[2] != 0, rate_under)
                peak_ww[j], first_under[j], travel[j], peak_tt[j], last_out[j] = m
        if i == n:
            break
        if i > 0:  # the end of the step just taken, each body's score, the start of this one
            if not ready(one, t, dt):
                break
            for a in range(r):
                for c in range(3):
                    ends[1, a, c] = state[4 + c, a]
            nav_end(one, ends, dt, world[0], p[0], fl)
            for a in range(r):
                q = (state[0, a], state[1, a], state[2, a], state[3, a])
                ee, score = score_of(q, one[7], one[9], one[10], one[8], a, mekf, e)
                sums[0, lo + a] += ee
                sums[1, lo + a] += score
                for c in range(4):
                    qa[a, c] = q[c]
            nav_start(one, qa, t, dt, ends, world[0], p[0], fl)
            if hold:
                for a in range(r):
                    nav_hold(one, a, dt, ends, world[a], p[a], fl)
        for a in range(r):
            j = lo + a
            q = (state[0, a], state[1, a], state[2, a], state[3, a])
            w = (state[4, a], state[5, a], state[6, a])
            for c in range(3):
                ends[0, a, c] = w[c]
            tt[a] = 0.0
            if alive[a]:
                buf = bufs[a]
                speeds = buf[6]
                if track[0] != 0 and track[1] != 0:  # |T|^2 of the step's first stage (Ensemble._general_step)
                    jr = inertia(p[a])[0]
                    tq = craft.craft_load(q, w, speeds, t, world[a], p[a], fl, jr, wh, tab, buf[0])
                    if nw > 0:  # the body's torque: T_ext and the wheels' reaction (LoadModel.body_torque)
                        rw = wheel_reaction(buf[0], speeds, wh, gr, buf[1])
                        tq = (tq[0] + rw[0], tq[1] + rw[1], tq[2] + rw[2])
                    tt[a] = tq[0] * tq[0] + tq[1] * tq[1] + tq[2] * tq[2]
                if plain:
                    pt, ft = as_tuples(p[a], fl)
                    jr, jir = inertia(pt)
                    status, q1, w1, c1 = checked_step(q, w, pt, ft, jr, jir)
                else:
                    q1, w1 = craft.craft_step(q, w, speeds, t, world[a], p[a], fl, wh, gr, tab, buf)
                    q1, c1 = normed(q1, norm)
                    sw = 0.0 + w1[0] + w1[1] + w1[2]  # Python's sum(w), left to right from 0, the wheels after
                    for c in range(nw):
                        sw = sw + buf[7, c]
                    status = status_of(q1, sw, c1, norm)
                if status == OK:
                    state[0, a], state[1, a], state[2, a], state[3, a] = q1
                    state[4, a], state[5, a], state[6, a] = w1
                    state[7, a] = c1
                    for c in range(nw):
                        speeds[c] = buf[7, c]
                    good[a] += 1
                else:
                    alive[a] = False
                    faulted[j] = True
        i += 1
    for a in range(r):
        j = lo + a
        for c in range(8):
            x[c, j] = state[c, a]
        for c in range(nw):
            x[8 + c, j] = bufs[a, 6, c]
        for c in range(4):
            world0[j, 24 + c] = world[a, 24 + c]  # the command (followed on an orbit)
        for c in range(mg.shape[1]):
            mags[j, c] = mg[a, c]
        for c in range(rd.shape[1]):
            rods[j, c, 7] = rd[a, c, 7]
        done[j] = good[a]
        taken[j] = i
        nav[0][j, 9], nav[0][j, 10], nav[0][j, 11] = ends[0, a, 0], ends[0, a, 1], ends[0, a, 2]  # the last w0
    for c in range(9):
        nav[0][lo, c] = ctl[c]
    nav[7][lo:hi], nav[8][lo:hi], nav[9][lo:hi] = one[7], one[8], one[9]  # the estimate, its bias and covariance
    nav[10][lo:hi], nav[11][lo:hi], nav[12][lo:hi] = one[10], one[11], one[12]  # the gyro's bias, availability, rates


def no_orbit(n: int) -> tuple:
    """``(table, orbit, shared, terms, wheels, groups, mags, rods)`` of :func:`advance_nav_bodies` for ``n``
    bodies without an orbit (no facets, no world, no wheels, no torquers)."""
    wheels, groups = program(None)
    return (craft.NO_SURFACES, np.zeros((0, _ORBIT_ROW)), wk.new_input(), np.zeros((1, 1, 4)), wheels, groups,
            np.zeros((n, craft.MAG_SIZE)), np.zeros((n, 0, craft.NO_RODS.shape[1])))


def _sample() -> tuple:
    """Arguments of :func:`advance_nav_bodies` of the types it is compiled for (no step taken)."""
    from sim.model.craft_nav import NO_NAV
    x, par, flags = np.zeros((8, 1)), np.zeros((1, 58)), np.zeros(_FLAGS, dtype=np.int64)
    track, i1, f1 = np.zeros(4, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1)
    nav = (np.zeros((1, CTL_SIZE)), *NO_NAV[1:])
    return (x, par, flags, np.zeros((1, _WORLD)), 0, 0, 0.0, np.zeros(1, dtype=np.bool_), i1, track, 0, 0.0, 0.0,
            f1, i1, f1, f1, i1, nav, True, np.zeros((2, 1)), i1, True, *no_orbit(1), 0, 0)


advance_nav_bodies.warms(_sample, WARM_AFTER)  # the warm-up rule of sim.core.jit.Kernel
