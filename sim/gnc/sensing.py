"""The sensors' formulas, one sample of one body each, compiled (issue 42): what :mod:`sim.gnc.sensors`'
classes and :class:`sim.model.navigation.Navigation`'s loop both run.

Each formula is a :func:`sim.core.jit.jitable` on one row ``j`` of a column of bodies, reading its standard
normals from a block of a :class:`sim.gnc.sensors.Streams` (``noise[j, k]``, the ``k``-th sample of the
block): the numbers are drawn by numpy's generators in Python, in the same order as before, and consumed
here, so a seed gives the same samples compiled, with ``NUMBA_DISABLE_JIT=1`` and in every body count.
Conventions as :mod:`sim.gnc.sensors` (``Q`` scalar last, inertial -> body, ``x_B = C(Q) x_I``).

A vector shared by every body (the Sun, the field, the Earth seen from the spacecraft: one world) is
passed as one row, shape ``(1, 3)``; one per body as ``(N, 3)``; none as ``(0, 3)`` (:func:`row_of`).
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.advance import law_torque
from sim.core.algebra import product_QQ
from sim.core.angles import to_body
from sim.core.jit import jitable, kernel
from sim.core.ops import clip_float
from sim.gnc.attitude import delta_q
from sim.gnc.estimation import quest_row, triad_row, wahba_row
from sim.gnc.kalman import error_of, nees_of, propagate_row, update_attitude_row, update_vector_row

__all__ = ["row_of", "excluded_one", "excluded_rows", "gyro_sample", "tracker_sees", "star_tracker_sample", "coarse_sun_cells", "sun_vector_of",
           "magnetometer_sample", "gyro_rows", "star_tracker_rows", "coarse_sun_rows", "sun_vector_rows",
           "magnetometer_rows", "tracker_sees_rows", "star_tracker_update", "vector_update", "wahba_update",
           "gyro_update", "navigation", "estimate_error", "estimate_row", "navigation_step", "CFG", "CFG_SIZE", "INP", "INP_SIZE", "KINDS",
           "estimate_columns"]


@jitable
def row_of(a, j):
    """Row ``j`` of ``a`` (N, 3), or its only row when it holds one (a vector shared by every body)."""
    return a[j] if a.shape[0] > 1 else a[0]


@jitable
def excluded_one(ax, ay, az, tx, ty, tz, angle, radius):
    """Whether target ``t`` comes within ``angle`` of the sensor axis ``a``: ``acos(a.t / |a||t|) - radius < angle``.

    ``radius`` (rad) is the target's angular radius (the Earth's limb: ``asin(R / |r|)``), 0 for a point
    (the Sun).  The cosine is clipped to ``[-1, 1]`` (a NaN passes).
    """
    cos = (ax * tx + ay * ty + az * tz) / (math.sqrt(ax * ax + ay * ay + az * az)
                                           * math.sqrt(tx * tx + ty * ty + tz * tz))
    if cos > 1.0:
        cos = 1.0
    elif cos < -1.0:
        cos = -1.0
    return math.acos(cos) - radius < angle


@jitable
def tracker_sees(qj, axis, sun, has_sun, sunlit, sun_angle, earth, has_earth, earth_angle, earth_radius):
    """Whether a star tracker of boresight ``axis`` (body axes) at attitude ``qj`` sees: neither the lit Sun
    (``sunlit > 0``; ``sun`` a unit vector, ECI, read when ``has_sun``) within ``sun_angle`` (rad) of its
    boresight nor the Earth's limb (``earth`` from the spacecraft to the Earth's centre, ECI, m, read when
    ``has_earth``; its limb ``asin(earth_radius / |earth|)``) within ``earth_angle`` (:func:`excluded_one`)."""
    ok = True
    if has_sun:
        x, y, z = to_body(qj, (sun[0], sun[1], sun[2]))
        if excluded_one(axis[0], axis[1], axis[2], x, y, z, sun_angle, 0.0) and sunlit > 0.0:
            ok = False
    if has_earth:
        ex, ey, ez = earth[0], earth[1], earth[2]
        ratio = earth_radius / math.sqrt(ex * ex + ey * ey + ez * ez)
        if ratio > 1.0:
            ratio = 1.0
        elif ratio < 0.0:
            ratio = 0.0
        x, y, z = to_body(qj, (ex, ey, ez))
        if excluded_one(axis[0], axis[1], axis[2], x, y, z, earth_angle, math.asin(ratio)):
            ok = False
    return ok


@jitable
def gyro_sample(out, bias, w, m, n, arw, rrw, quantum, max_rate, dt):
    """One gyro sample of the mean rate ``w`` over ``dt`` into ``out`` (3,), the true ``bias`` (3,) moved on in
    place: Farrenkopf's model, discrete (Crassidis & Junkins 2012 §7.2; see :class:`sim.gnc.sensors.Gyro`)::

        beta+ = beta + sigma_u sqrt(dt) N_u
        w~    = M w + (beta + beta+) / 2 + sqrt(sigma_v^2 / dt + sigma_u^2 dt / 12) N_v

    rounded to whole counts of ``quantum`` (when > 0) and clipped to ``max_rate``.  ``n``: six normals,
    ``N_v`` then ``N_u``; ``m``: :meth:`sim.gnc.sensors.GyroModel.matrix`."""
    walk = rrw * math.sqrt(dt)
    noise = math.sqrt(arw * arw / dt + rrw * rrw * dt / 12.0)
    for i in range(3):
        new = bias[i] + walk * n[3 + i]
        x = (w[0] * m[i, 0] + w[1] * m[i, 1] + w[2] * m[i, 2]) + 0.5 * (bias[i] + new) + noise * n[i]
        bias[i] = new
        if quantum > 0.0:
            x = np.rint(x / quantum) * quantum
        out[i] = clip_float(x, -max_rate, max_rate)


@jitable
def star_tracker_sample(qj, n, sigma, axes, drop):
    """A star tracker's attitude ``Q_m = δQ(e) . Q`` with ``e = T (sigma_c N_1, sigma_c N_2, sigma_r N_3)`` (``T``
    the sensor axes as columns, :func:`sim.gnc.sensors.sensor_axes`), and whether the sample is kept
    (``N_4 >= drop``, :class:`sim.gnc.sensors.StarTracker`)."""
    v1, v2, v3 = n[0] * sigma[0], n[1] * sigma[1], n[2] * sigma[2]
    e = delta_q(v1 * axes[0, 0] + v2 * axes[0, 1] + v3 * axes[0, 2],
                v1 * axes[1, 0] + v2 * axes[1, 1] + v3 * axes[1, 2],
                v1 * axes[2, 0] + v2 * axes[2, 1] + v3 * axes[2, 2])
    return product_QQ(e, qj), n[3] >= drop


@jitable
def coarse_sun_cells(out, qj, sun, sunlit, normals, noise, n):
    """Photocells' outputs ``I_i = max(0, max(0, n_i . C(Q) s) sunlit + noise N_i)`` into ``out`` (cells,):
    the cosine law (Markley & Crassidis 2014 ch. 4; :class:`sim.gnc.sensors.CoarseSunSensors`).  A NaN passes."""
    x, y, z = to_body(qj, (sun[0], sun[1], sun[2]))
    for i in range(normals.shape[0]):
        c = x * normals[i, 0] + y * normals[i, 1] + z * normals[i, 2]
        c = (c if not c < 0.0 else 0.0) * sunlit + noise * n[i]
        out[i] = c if not c < 0.0 else 0.0


@jitable
def sun_vector_of(cells, normals, threshold):
    """The Sun's direction in body axes from the cells' outputs, ``s = sum I_i n_i / |...|``, its length before
    normalising, and whether it is trusted (length ``>= threshold``): :func:`sim.gnc.sensors.coarse_sun_vector`."""
    x = y = z = 0.0
    for i in range(normals.shape[0]):
        x += cells[i] * normals[i, 0]
        y += cells[i] * normals[i, 1]
        z += cells[i] * normals[i, 2]
    length = math.sqrt(x * x + y * y + z * z)
    d = length if length > 0.0 else 1.0
    return x / d, y / d, z / d, length, length >= threshold


@jitable
def magnetometer_sample(qj, field, bias, noise, n):
    """A magnetometer's ``b~ = C(Q) B + bias + noise N`` (T, body axes; :class:`sim.gnc.sensors.Magnetometer`)."""
    x, y, z = to_body(qj, (field[0], field[1], field[2]))
    return (x + bias[0] + noise * n[0], y + bias[1] + noise * n[1], z + bias[2] + noise * n[2])


# ------------------------------------------------------------------ the row loops the sensor classes call
@kernel
def excluded_rows(a, t, angle, radius):
    """:func:`excluded_one` of each row of ``a``, ``t`` (N, 3), ``radius`` (N,)."""
    out = np.empty(a.shape[0], dtype=np.bool_)
    for j in range(a.shape[0]):
        out[j] = excluded_one(a[j, 0], a[j, 1], a[j, 2], t[j, 0], t[j, 1], t[j, 2], angle, radius[j])
    return out


@kernel
def gyro_rows(bias, w, m, noise, k, arw, rrw, quantum, max_rate, dt):
    """:func:`gyro_sample` of each body ``j`` (``w`` (N, 3) or (1, 3), ``noise[j, k]``); ``bias`` (N, 3) in place."""
    out = np.empty((bias.shape[0], 3))
    for j in range(bias.shape[0]):
        gyro_sample(out[j], bias[j], row_of(w, j), m, noise[j, k], arw, rrw, quantum, max_rate, dt)
    return out


@kernel
def star_tracker_rows(q, noise, k, sigma, axes, drop):
    """:func:`star_tracker_sample` of each body: ``(q_measured (N, 4), kept (N,))``."""
    out = np.empty((q.shape[0], 4))
    kept = np.empty(q.shape[0], dtype=np.bool_)
    for j in range(q.shape[0]):
        qm, kept[j] = star_tracker_sample((q[j, 0], q[j, 1], q[j, 2], q[j, 3]), noise[j, k], sigma, axes, drop)
        out[j, 0], out[j, 1], out[j, 2], out[j, 3] = qm
    return out, kept


@kernel
def tracker_sees_rows(q, axis, sun, sunlit, sun_angle, earth, earth_angle, earth_radius):
    """:func:`tracker_sees` of each body; ``sun``, ``earth`` (0, 3) to leave them out, ``sunlit`` (N,) or (1,)."""
    ok = np.empty(q.shape[0], dtype=np.bool_)
    has_sun, has_earth = sun.shape[0] > 0, earth.shape[0] > 0
    for j in range(q.shape[0]):
        s = row_of(sun, j) if has_sun else axis
        e = row_of(earth, j) if has_earth else axis
        ok[j] = tracker_sees((q[j, 0], q[j, 1], q[j, 2], q[j, 3]), axis, s, has_sun,
                             sunlit[j if sunlit.shape[0] > 1 else 0], sun_angle, e, has_earth, earth_angle, earth_radius)
    return ok


@kernel
def coarse_sun_rows(q, sun, sunlit, normals, noise_sigma, noise, k):
    """:func:`coarse_sun_cells` of each body: (N, cells)."""
    out = np.empty((q.shape[0], normals.shape[0]))
    for j in range(q.shape[0]):
        coarse_sun_cells(out[j], (q[j, 0], q[j, 1], q[j, 2], q[j, 3]), row_of(sun, j),
                         sunlit[j if sunlit.shape[0] > 1 else 0], normals, noise_sigma, noise[j, k])
    return out


@kernel
def sun_vector_rows(cells, normals, threshold):
    """:func:`sun_vector_of` of each row of ``cells`` (N, cells): ``(s (N, 3), length (N,), valid (N,))``."""
    out = np.empty((cells.shape[0], 3))
    length = np.empty(cells.shape[0])
    valid = np.empty(cells.shape[0], dtype=np.bool_)
    for j in range(cells.shape[0]):
        out[j, 0], out[j, 1], out[j, 2], length[j], valid[j] = sun_vector_of(cells[j], normals, threshold)
    return out, length, valid


@kernel
def magnetometer_rows(q, field, bias, noise_sigma, noise, k):
    """:func:`magnetometer_sample` of each body: (N, 3), T."""
    out = np.empty((q.shape[0], 3))
    for j in range(q.shape[0]):
        out[j, 0], out[j, 1], out[j, 2] = magnetometer_sample((q[j, 0], q[j, 1], q[j, 2], q[j, 3]), row_of(field, j),
                                                              bias, noise_sigma, noise[j, k])
    return out


# ------------------------------------------------------------------ the navigation loop: one step (a kernel call from
# Python, or inside the craft's compiled loop between two steps: sim.model.craft_nav)
#: Layout of a navigation's constant numbers ``cfg`` (:func:`navigation_step`): name -> (first index, length).
#: ``kind`` the estimator (:data:`KINDS`), ``m`` the gyro's matrix, ``star_*`` the tracker's noise, axes, covariance,
#: ``qd`` the MEKF's process noise over the ``dt`` of the step (:func:`sim.gnc.estimation.process_noise`), then
#: 1 / 0 for each sensor on board.
CFG = {"kind": (0, 1), "m": (1, 9), "arw": (10, 1), "rrw": (11, 1), "quantum": (12, 1), "max_rate": (13, 1),
       "star_sigma": (14, 3), "star_axes": (17, 9), "drop": (26, 1), "boresight": (27, 3), "sun_angle": (30, 1),
       "earth_angle": (31, 1), "star_cov": (32, 9), "sun_sigma": (41, 1), "threshold": (42, 1), "mag_bias": (43, 3),
       "mag_sigma": (46, 1), "earth_radius": (47, 1), "qd": (48, 36), "gyro": (84, 1), "star": (85, 1),
       "sun": (86, 1), "mag": (87, 1)}
CFG_SIZE = 88
#: Layout of one call's inputs ``inp``: the phases run (``end``: the gyro's sample over the step just taken and
#: the MEKF's propagation; ``start``: the samples due at the step's start, the updates, TRIAD or QUEST; ``hold``:
#: the torque law at the estimate into the craft kernel's ``world``), which sensors are due, ``dt``, the world
#: seen (the Sun, shadow, the Earth from the spacecraft (m), the field (T), ECI), each stream's sample index.
INP = {"end": (0, 1), "start": (1, 1), "star_due": (2, 1), "vector_due": (3, 1), "dt": (4, 1), "sunlit": (5, 1),
       "has_sun": (6, 1), "has_earth": (7, 1), "sun": (8, 3), "earth": (11, 3), "field": (14, 3), "k_gyro": (17, 1),
       "k_star": (18, 1), "k_sun": (19, 1), "k_mag": (20, 1), "hold": (21, 1)}
INP_SIZE = 22
#: The estimators by their code in ``cfg``.
KINDS = {"truth": 0, "triad": 1, "quest": 2, "mekf": 3}


@jitable
def star_tracker_update(q, noise, k, sigma, axes, drop, axis, sun, has_sun, sunlit, sun_angle, earth, has_earth,
                        earth_angle, earth_radius, available, fq, fbias, fp, cov, mekf):
    """A star tracker's sample of each body ``j`` (:func:`star_tracker_sample`, :func:`tracker_sees` at the
    true ``q``), ``available[j, 1]`` set, and with ``mekf`` each valid sample's update of the filters ``fq``
    (N, 4), ``fbias``, ``fp`` (:func:`sim.gnc.kalman.update_attitude_row`, ``R = cov``).  ``sun``, ``earth``:
    one vector shared by the bodies, read when ``has_sun``, ``has_earth``."""
    eye = np.eye(3)
    res = np.empty(3)
    for j in range(q.shape[0]):
        qj = (q[j, 0], q[j, 1], q[j, 2], q[j, 3])
        qm, kept = star_tracker_sample(qj, noise[j, k], sigma, axes, drop)
        ok = tracker_sees(qj, axis, sun, has_sun, sunlit, sun_angle, earth, has_earth, earth_angle,
                          earth_radius) and kept
        available[j, 1] = 1.0 if ok else 0.0
        if ok and mekf:
            update_attitude_row(fq, fbias, fp, j, qm, cov, eye, res)


@jitable
def vector_update(q, sun_noise, ks, normals, sun_sigma, threshold, sun, sunlit, mag_noise, km, field, use_mag,
                  mag_bias, mag_sigma, available, b, r, sigma, valid, fq, fbias, fp, mekf):
    """The vector sensors' samples of each body ``j``: the coarse sun sensors (when ``normals`` has rows:
    :func:`coarse_sun_cells`, :func:`sun_vector_of`, ``sigma = noise / max(|s|, threshold)``) into slot 0 of
    ``b``, ``r``, ``sigma``, ``valid`` (N, 2, ...), then the magnetometer (``use_mag``: :func:`magnetometer_sample`
    over ``|B|``, ``sigma = noise / |B|``) into the next slot; ``available[j, 2]``, ``[j, 3]`` set.  With
    ``mekf`` each valid vector updates the filters ``fq`` (N, 4), ``fbias``, ``fp`` in that order
    (:func:`sim.gnc.kalman.update_vector_row`, ``R = sigma^2 I``).  Returns the slots filled."""
    cells = np.empty(normals.shape[0])
    rr = np.zeros((3, 3))
    h3 = np.zeros((3, 3))
    res = np.empty(3)
    use_sun = normals.shape[0] > 0
    strength = 1.0
    if use_mag:
        strength = math.sqrt(field[0] * field[0] + field[1] * field[1] + field[2] * field[2])
    slots = 0
    for j in range(q.shape[0]):
        qj = (q[j, 0], q[j, 1], q[j, 2], q[j, 3])
        slot = 0
        if use_sun:
            coarse_sun_cells(cells, qj, sun, sunlit, normals, sun_sigma, sun_noise[j, ks])
            b[j, 0, 0], b[j, 0, 1], b[j, 0, 2], length, ok = sun_vector_of(cells, normals, threshold)
            r[j, 0, 0], r[j, 0, 1], r[j, 0, 2] = sun[0], sun[1], sun[2]
            sigma[j, 0] = sun_sigma / (threshold if length < threshold else length)
            valid[j, 0] = ok
            available[j, 2] = 1.0 if ok else 0.0
            slot = 1
        if use_mag:
            x, y, z = magnetometer_sample(qj, field, mag_bias, mag_sigma, mag_noise[j, km])
            b[j, slot, 0], b[j, slot, 1], b[j, slot, 2] = x / strength, y / strength, z / strength
            r[j, slot, 0], r[j, slot, 1], r[j, slot, 2] = field[0] / strength, field[1] / strength, field[2] / strength
            sigma[j, slot] = mag_sigma / strength
            valid[j, slot] = True
            available[j, 3] = 1.0
        slots = slot + 1 if use_mag else slot
        if mekf:
            for i in range(slots):
                if valid[j, i]:
                    s2 = sigma[j, i] * sigma[j, i]
                    rr[0, 0], rr[1, 1], rr[2, 2] = s2, s2, s2
                    update_vector_row(fq, fbias, fp, j, b[j, i, 0], b[j, i, 1], b[j, i, 2], r[j, i], rr, h3, res)
    return slots


@jitable
def wahba_update(b, r, sigma, valid, kind, qe, pe):
    """TRIAD (``kind`` 1, :func:`sim.gnc.estimation.triad_row`) or QUEST (2, :func:`~sim.gnc.estimation.quest_row`,
    weights ``1 / sigma^2``) of each body from its two vectors (``b``, ``r`` (N, 2, 3)), the more accurate first
    (the slot of the smaller mean ``sigma`` over the bodies), into ``qe`` (N, 4), and Wahba's covariance of
    the two into ``pe`` (N, 3, 3) (:func:`sim.gnc.estimation.wahba_row`); a body without both vectors valid
    keeps its last solution."""
    n = b.shape[0]
    m0 = m1 = 0.0
    for j in range(n):
        m0 += sigma[j, 0]
        m1 += sigma[j, 1]
    first = 1 if m1 / n < m0 / n else 0
    second = 1 - first
    bb = np.empty((2, 3))
    rr = np.empty((2, 3))
    ss = np.empty(2)
    aa = np.empty(2)
    for j in range(n):
        if not (valid[j, first] and valid[j, second]):
            continue
        for i, slot in ((0, first), (1, second)):
            for c in range(3):
                bb[i, c] = b[j, slot, c]
                rr[i, c] = r[j, slot, c]
            ss[i] = sigma[j, slot]
            aa[i] = 1.0 / (ss[i] * ss[i])
        if kind == 1:
            qs = triad_row(bb[0], bb[1], rr[0], rr[1])
        else:
            qs = quest_row(bb, rr, aa, 50, 1e-15)
        qe[j, 0], qe[j, 1], qe[j, 2], qe[j, 3] = qs
        for i in range(2):
            size = math.sqrt(bb[i, 0] * bb[i, 0] + bb[i, 1] * bb[i, 1] + bb[i, 2] * bb[i, 2])
            for c in range(3):
                bb[i, c] = bb[i, c] / size
        wahba_row(bb, ss, pe[j])


@jitable
def gyro_update(w0, w1, bias, m, noise, k, arw, rrw, quantum, max_rate, dt, available, rates, fq, fbias, fp, qd,
                mekf):
    """The gyro's sample of the mean of the true rates ``w0``, ``w1`` (N, 3) of each body (:func:`gyro_sample`,
    ``bias`` (N, 3) moved on), ``available[j, 0]`` set; with ``mekf`` the filters ``fq`` (N, 4), ``fbias``,
    ``fp`` each propagated over ``dt`` (:func:`sim.gnc.kalman.propagate_row`, ``Q_d = qd``) and ``rates`` the
    bias-corrected sample, else the raw sample."""
    w = np.empty(3)
    raw = np.empty(3)
    phi = np.empty((6, 6))
    tmp = np.empty((6, 6))
    for j in range(bias.shape[0]):
        for i in range(3):
            w[i] = 0.5 * (w0[j, i] + w1[j, i])
        gyro_sample(raw, bias[j], w, m, noise[j, k], arw, rrw, quantum, max_rate, dt)
        available[j, 0] = 1.0
        if mekf:
            propagate_row(fq, fbias, fp, j, raw[0], raw[1], raw[2], dt, qd, phi, tmp)
            for i in range(3):
                rates[j, i] = raw[i] - fbias[j, i]
        else:
            for i in range(3):
                rates[j, i] = raw[i]


@jitable
def _matrix(cfg, first, rows, cols):
    """``cfg[first:first + rows cols]`` as a (rows, cols) array, row major."""
    out = np.empty((rows, cols))
    for i in range(rows):
        for j in range(cols):
            out[i, j] = cfg[first + i * cols + j]
    return out


@jitable
def navigation(q, ends, inp, cfg, normals, gyro_noise, star_noise, sun_noise, mag_noise, qe, fbias, pe,
               true_bias, available, rates, world, par, flags):
    """One step of the navigation loop of ``N`` bodies (:mod:`sim.model.navigation`), the phases ``inp`` asks for
    (:data:`INP`; constants ``cfg``, :data:`CFG`), in the order of the loop:

    1. ``end``: the gyro's sample of the mean of the true rates ``ends[0]``, ``ends[1]`` (N, 3) at both ends of
       the step just taken
       and the MEKF's propagation (:func:`gyro_update`);
    2. ``start``, at the true attitude ``q`` (N, 4) of the next step's start: the star tracker when due
       (:func:`star_tracker_update`), the sun sensors and the magnetometer when due (:func:`vector_update`),
       each sample updating the MEKF in turn, or TRIAD or QUEST from the two vectors (:func:`wahba_update`);
    3. ``hold`` (one body flying on its estimate): the torque law of the craft kernel (``par``, ``flags``,
       :func:`sim.core.advance.law_torque`, the command and rate feed-forward of ``world``) at the estimate
       ``qe[0]`` and ``rates[0]``, written into ``world``'s ``held`` and ``torque``
       (:data:`sim.model.advance_craft.WORLD`).

    The standard normals are read from each stream's block at its index in ``inp`` (drawn by numpy in Python,
    :class:`sim.gnc.sensors.Streams`).  The estimate ``qe`` (N, 4) and its covariance ``pe`` (the MEKF's (N, 6, 6),
    or TRIAD's and QUEST's (N, 3, 3)), the filters' ``fbias``, the gyro's ``true_bias``, ``available`` and
    ``rates`` are updated in place."""
    kind = cfg[0]
    mekf = kind == 3.0
    if inp[0] != 0.0 and cfg[84] != 0.0:
        gyro_update(ends[0], ends[1], true_bias, _matrix(cfg, 1, 3, 3), gyro_noise, int(inp[17]), cfg[10], cfg[11], cfg[12],
                    cfg[13], inp[4], available, rates, qe, fbias, pe, _matrix(cfg, 48, 6, 6), mekf)
    if inp[1] == 0.0:
        return
    sun = (inp[8], inp[9], inp[10])
    if inp[2] != 0.0:
        star_tracker_update(q, star_noise, int(inp[18]), cfg[14:17], _matrix(cfg, 17, 3, 3), cfg[26], cfg[27:30],
                            sun, inp[6] != 0.0, inp[5], cfg[30], (inp[11], inp[12], inp[13]), inp[7] != 0.0,
                            cfg[31], cfg[47], available, qe, fbias, pe, _matrix(cfg, 32, 3, 3), mekf)
    if inp[3] != 0.0:
        n = q.shape[0]
        b = np.zeros((n, 2, 3))
        r = np.zeros((n, 2, 3))
        sigma = np.zeros((n, 2))
        valid = np.zeros((n, 2), dtype=np.bool_)
        slots = vector_update(q, sun_noise, int(inp[19]), normals, cfg[41], cfg[42], sun, inp[5], mag_noise,
                              int(inp[20]), (inp[14], inp[15], inp[16]), cfg[87] != 0.0, cfg[43:46], cfg[46],
                              available, b, r, sigma, valid, qe, fbias, pe, mekf)
        if (kind == 1.0 or kind == 2.0) and slots == 2:
            wahba_update(b, r, sigma, valid, int(kind), qe, pe)
    if inp[21] != 0.0:
        wd = (rates[0, 0], rates[0, 1], rates[0, 2])
        if world[28] != 0.0:
            wd = (wd[0] - world[29], wd[1] - world[30], wd[2] - world[31])
        t = law_torque((qe[0, 0], qe[0, 1], qe[0, 2], qe[0, 3]), wd, (world[24], world[25], world[26], world[27]),
                       par, flags)
        world[35], world[36], world[37], world[38] = 1.0, t[0], t[1], t[2]  # held, torque (sim.model.advance_craft.WORLD)


@kernel
def navigation_step(q, ends, inp, cfg, normals, gyro_noise, star_noise, sun_noise, mag_noise, qe, fbias, pe,
                    true_bias, available, rates, world, par, flags):
    """:func:`navigation`: one kernel call a step (:class:`sim.model.navigation.Navigation`)."""
    navigation(q, ends, inp, cfg, normals, gyro_noise, star_noise, sun_noise, mag_noise, qe, fbias, pe,
               true_bias, available, rates, world, par, flags)


#: Radians to degrees, as :mod:`sim.model.navigation` reports the estimate.
_DEG = 180.0 / math.pi


@jitable
def estimate_error(q_true, qe, pe, true_bias, fbias, mekf, j, e):
    """``(a, NEES)`` of body ``j``'s estimate ``qe[j]`` against its true attitude ``q_true`` (a 4-tuple): the error
    ``a`` of ``Q_true = δQ(a) . Q̂`` (:func:`sim.gnc.kalman.error_of`, rad) and the NEES
    (:func:`sim.gnc.kalman.nees_of`; Bar-Shalom et al. 2001 §5.4) of ``(a, β - β̂)`` against the MEKF's ``P``
    (6x6: ``true_bias`` the gyro's true bias, (0, 3) for no gyro: zeros; ``fbias`` the filter's estimate), or of
    ``a`` against TRIAD's and QUEST's (3x3); ``e`` (6,) scratch, left holding the error vector.  The one text of
    :func:`estimate_row` and of the ensemble's estimate window (:func:`sim.ensemble.nav_bodies.score_of`)."""
    a = error_of(q_true, (qe[j, 0], qe[j, 1], qe[j, 2], qe[j, 3]))
    for i in range(3):
        e[i] = a[i]
        if mekf:
            beta = true_bias[j, i] if true_bias.shape[0] > 0 else 0.0
            e[3 + i] = beta - fbias[j, i]
    return a, nees_of(e, pe[j], 6 if mekf else 3)


@jitable
def estimate_row(q_true, qe, pe, true_bias, fbias, mekf, j, out, o, e):
    """Body ``j``'s estimate readouts (:data:`sim.model.navigation.ESTIMATE_COLUMNS`) into ``out[o:o + 17]``
    against its true attitude ``q_true`` (a 4-tuple): ``qe[j]``, the error ``a`` and the NEES of
    :func:`estimate_error` (the error in deg), 3 sigma per axis from ``pe[j]``'s attitude block (deg), the gyro's
    true bias (``true_bias``, (0, 3) for no gyro: zeros) and the filter's estimate (``fbias``; NaN when not
    ``mekf``); ``e`` scratch of 6.  Returns ``a`` (rad).  The one text of :func:`estimate_columns` and of the
    craft's history row (:func:`sim.model.craft_row.craft_row`)."""
    a, nees = estimate_error(q_true, qe, pe, true_bias, fbias, mekf, j, e)
    for i in range(4):
        out[o + i] = qe[j, i]
    for i in range(3):
        out[o + 4 + i] = a[i] * _DEG
        out[o + 7 + i] = 3.0 * math.sqrt(pe[j, i, i]) * _DEG
        out[o + 10 + i] = true_bias[j, i] if true_bias.shape[0] > 0 else 0.0
        out[o + 13 + i] = fbias[j, i] if mekf else np.nan
    out[o + 16] = nees
    return a


@kernel
def estimate_columns(q_true, qe, pe, true_bias, fbias, mekf, err, out):
    """The estimate's readouts of each body ``j`` (:data:`sim.model.navigation.ESTIMATE_COLUMNS`) into ``out``
    (N, 17), the error into ``err`` (N, 3), rad: :func:`estimate_row` against the true attitude ``q_true[j]``."""
    e = np.empty(6)
    for j in range(qe.shape[0]):
        a = estimate_row((q_true[j, 0], q_true[j, 1], q_true[j, 2], q_true[j, 3]), qe, pe, true_bias, fbias, mekf, j,
                         out[j], 0, e)
        for i in range(3):
            err[j, i] = a[i]
