"""Ensembles: N rigid bodies integrated at once, one column per body.

The vectorised twin of :class:`sim.simulation.Simulation`.  Quaternions are
scalar last, Hoffmann's convention (see :mod:`sim`); body ``j`` is column
``j`` of ``q`` (4, N) and ``w`` (3, N).  Every body runs the same equations in
the same order of floating-point operations as the single-body path
(:mod:`sim.integrators`, :mod:`sim.control`, :mod:`sim.norm`,
:mod:`sim.simulation`), so ``Simulation(ens.body_settings(j))`` given the
same inputs follows column ``j`` bit for bit.  Two exceptions, both at the
level of an ulp: the Euler controller and its command angles use numpy's
``arctan2``/``hypot``, which round differently from ``math.atan2``/``hypot``
in a few per cent of cases.

Initial conditions (:class:`EnsembleSpec`) depend only on ``(seed, body
index)``: any split of the bodies into chunks (``start``/``count``) gives the
same bodies and, stepped alike, bit-identical results.

What differs between bodies: the initial attitude, the initial rates, the
inertia and the controller gains.  Everything else (torque, dampers,
controller, limiter, integrator, norm handling, dt, commands) is shared and
set with :meth:`Ensemble.set` as on a :class:`Simulation`.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from sim.body import Body
from sim.control import CONTROLLERS
from sim.integrators import full_quat, half_quat, qdot, rates, rk4
from sim.interpolation import SlerpPath
from sim.quaternion import aircraft_angles, from_aircraft_angles
from sim.settings import Settings, SettingsError, number, validate
from sim.simulation import NORM_FAULT

__all__ = ["Ensemble", "EnsembleSpec", "ATTITUDES", "uniform_quaternions"]

#: Initial attitude modes of :class:`EnsembleSpec`.
ATTITUDES = ("random", "grid", "same")

_DEG = 180.0 / math.pi
_MAX_BODIES = 100_000_000
_MAX_INERTIA_SPREAD = 50.0
_INERTIA_TRIES = 16
# Random streams per body (see _uniforms): attitude 0-2, rates 3-8, inertia 16 + 6 k.
_STREAMS = 128


# ----------------------------------------------------------------- the spec
@dataclass(frozen=True)
class EnsembleSpec:
    """How the N bodies differ from the settings' single body.

    Validated at construction: a bad value raises
    :class:`~sim.settings.SettingsError` naming the field.

    Attributes
    ----------
    bodies : int
        Number of bodies N (>= 1).
    seed : int
        Seed of every random draw (>= 0).  Body ``i``'s draws depend only on
        ``(seed, i)``: a SplitMix64 hash of the two (and a stream number)
        gives its uniforms.
    attitudes : str
        ``"random"``: uniform on SO(3), Shoemake's method (1992) from three
        uniforms: ``Q = (sqrt(1-u1) sin 2pi u2, sqrt(1-u1) cos 2pi u2,
        sqrt(u1) sin 2pi u3, sqrt(u1) cos 2pi u3)``.  ``"grid"``: the same
        map applied to the additive recurrence ``u_k = frac(1/2 + (i+1) /
        g^k)``, ``g`` the real root of ``x^4 = x + 1`` (Roberts' R3
        low-discrepancy sequence): a deterministic, even cover of SO(3) for
        any N (Shoemake's map carries the uniform measure on the unit cube to
        the uniform measure on SO(3)).  ``"same"``: ``settings.angles_deg``
        for every body.  Sampled attitudes are stored as aircraft angles
        (degrees, Hoffmann (7.21)) and turned into ``Q`` exactly as
        :meth:`Simulation.reset` does.
    rate_spread : float
        rad/s: each initial rate component is ``settings.rates[k] +
        rate_spread * N(0, 1)`` (Box-Muller from two uniforms).
    inertia_spread : float
        Percent, 0 to 50: each component of the inertia in force (``settings.mass_properties``: Jxx, Jyy,
        Jzz, Jxy, Jxz, Jyz) is multiplied by ``1 + spread/100 * U(-1, 1)``;
        a draw whose tensor is not physical (not positive definite, or the
        principal moments break the triangle inequality) is drawn again
        from the body's next stream (up to 16 times, then the nominal
        inertia).
    gains_grid : tuple or None
        ``((k1...), (k2...), (k3...))``: the cartesian product of controller
        gains; body ``i`` takes the ``(i mod len)``-th combination
        (``itertools.product`` order).  None: ``settings.gains`` for all.
    settle_deg : float
        Threshold of the settling-time metric, degrees, in (0, 180].
    """

    bodies: int = 1000
    seed: int = 0
    attitudes: str = "random"
    rate_spread: float = 0.0
    inertia_spread: float = 0.0
    gains_grid: tuple | None = None
    settle_deg: float = 1.0

    def __post_init__(self):
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        set_("bodies", _integer("bodies", self.bodies, 1, _MAX_BODIES))
        set_("seed", _integer("seed", self.seed, 0, 2**64 - 1))
        if self.attitudes not in ATTITUDES:
            raise SettingsError(f"attitudes: unknown value {self.attitudes!r} (choose from {', '.join(ATTITUDES)})")
        set_("rate_spread", _real("rate_spread", self.rate_spread, 0.0, 1e3))
        set_("inertia_spread", _real("inertia_spread", self.inertia_spread, 0.0, _MAX_INERTIA_SPREAD))
        set_("settle_deg", _real("settle_deg", self.settle_deg, 0.0, 180.0, low_open=True))
        if self.gains_grid is not None:
            grid = self.gains_grid
            if isinstance(grid, str) or not hasattr(grid, "__len__") or len(grid) != 3:
                raise SettingsError(f"gains_grid: expected three lists of gains (x, y, z), got {grid!r}")
            axes = []
            for k, values in enumerate(grid):
                if isinstance(values, str) or not hasattr(values, "__iter__"):
                    values = (values,)
                values = tuple(_real(f"gains_grid[{k}]", v, 0.0, 1e6) for v in values)
                if not values:
                    raise SettingsError(f"gains_grid[{k}]: needs at least one gain")
                axes.append(values)
            set_("gains_grid", tuple(axes))


def _integer(key, value, low, high):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise SettingsError(f"{key}: expected a whole number, got {value!r}")
    value = int(value)
    if not low <= value <= high:
        raise SettingsError(f"{key}: {value} must be between {low} and {high}")
    return value


def _real(key, value, low, high, low_open=False):
    x = number(key, value, low=-math.inf, high=math.inf)  # a finite number, as every setting
    if x < low or (low_open and x == low) or x > high:
        raise SettingsError(f"{key}: {x:g} must be {'>' if low_open else '>='} {low:g} and <= {high:g}")
    return x


# ----------------------------------------------------------- random draws
_M64 = (1 << 64) - 1


def _mix(z):
    """SplitMix64's finaliser (Steele, Lea, Flood 2014) on a uint64 array."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _uniforms(seed: int, index: np.ndarray, stream: int) -> np.ndarray:
    """Uniforms in [0, 1), one per body index, that depend only on ``(seed, index, stream)``.

    A counter-based generator: the SplitMix64 finaliser of
    ``key(seed) + golden * (index * 128 + stream + 1)``; its top 53 bits.
    """
    with np.errstate(over="ignore"):
        key = _mix(np.array([seed], dtype=np.uint64))[0]
        counter = index.astype(np.uint64) * np.uint64(_STREAMS) + np.uint64(stream + 1)
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


def _r3(index: np.ndarray) -> tuple:
    """Roberts' R3 sequence ``frac(1/2 + (i+1) / g^k)``, ``g^4 = g + 1``."""
    g = 1.2207440846057596
    n = (index + 1).astype(np.float64)
    return tuple(np.mod(0.5 + n * (1.0 / g**k), 1.0) for k in (1, 2, 3))


def _normals(seed, index, stream) -> np.ndarray:
    """Standard normals (Box-Muller from streams ``stream``, ``stream + 1``)."""
    u1 = _uniforms(seed, index, stream)
    u2 = _uniforms(seed, index, stream + 1)
    return np.array([math.sqrt(-2.0 * math.log(1.0 - a)) * math.cos(2.0 * math.pi * b) for a, b in zip(u1, u2)])


# ------------------------------------------------- column versions of sim/
def _norm_hoffmann(q):
    """Hoffmann's norm controller ``Q <- Q + Q (1 - |Q|)`` on columns (:func:`sim.norm.hoffmann`)."""
    q1, q2, q3, q4 = q
    qn = 1.0 - np.sqrt(q1 * q1 + q2 * q2 + q3 * q3 + q4 * q4)
    return (q1 + q1 * qn, q2 + q2 * qn, q3 + q3 * qn, q4 + q4 * qn), qn


def _norm_renormalize(q):
    """``Q <- Q / |Q|`` on columns (:func:`sim.norm.renormalize`)."""
    q1, q2, q3, q4 = q
    n = np.sqrt(q1 * q1 + q2 * q2 + q3 * q3 + q4 * q4)
    return (q1 / n, q2 / n, q3 / n, q4 / n), 1.0 - n


def _norm_none(q):
    return q, 0.0


_NORMS = {"hoffmann": _norm_hoffmann, "renormalize": _norm_renormalize, "none": _norm_none}


def _aircraft_angles(q):
    """Aircraft angles ``(psi, theta, phi)`` of columns, Hoffmann (7.21) (:func:`sim.quaternion.aircraft_angles`)."""
    q1, q2, q3, q4 = q
    s1, s2, s3, s4 = q1 * q1, q2 * q2, q3 * q3, q4 * q4
    c11 = s1 - s2 - s3 + s4
    c12 = 2.0 * (q1 * q2 - q3 * q4)
    c13 = 2.0 * (q1 * q3 + q2 * q4)
    horizontal = np.hypot(c11, c12)
    theta = np.arctan2(-c13, horizontal)
    psi = np.arctan2(c12, c11)
    phi = np.arctan2(2.0 * (-q1 * q4 + q2 * q3), -s1 - s2 + s3 + s4)
    singular = horizontal <= 1e-12 * (s1 + s2 + s3 + s4)
    if np.any(singular):
        c21 = 2.0 * (q1 * q2 + q3 * q4)
        c22 = -s1 + s2 - s3 + s4
        psi = np.where(singular, 0.0, psi)
        phi = np.where(singular, np.arctan2(np.where(c13 < 0.0, c21, -c21), c22), phi)
    return psi, theta, phi


class _Torque:
    """Column twin of :class:`sim.control.TorqueModel`: ``T(Q, w)`` for tuples of rows.

    Sum of the command torque, the dampers and the attitude controller, then
    optionally limited, Hoffmann 9.9; the same operations in the same order.
    ``gains`` may hold one value per body; ``qc`` one column per body.
    """

    def __init__(self):
        self.command = (0.0, 0.0, 0.0)
        self.dampers_on = False
        self.dampers = (0.0, 0.0, 0.0)
        self.controller = "none"
        self.gains = (0.0, 0.0, 0.0)
        self.axes = (True, True, True)
        self.shortest_path = True
        self.limiter_on = False
        self.limits = (1.0, 1.0, 1.0)
        self.qc = (0.0, 0.0, 0.0, 1.0)
        self.command_angles = (0.0, 0.0, 0.0)

    def __call__(self, q, w):
        tx, ty, tz = self.command
        if self.dampers_on:
            k = self.dampers
            tx = tx - k[0] * w[0]
            ty = ty - k[1] * w[1]
            tz = tz - k[2] * w[2]
        g, axes = self.gains, self.axes
        if self.controller == "quaternion":
            # Hoffmann (9.8): dQ = Qc - Q, or -Qc - Q when shorter; (9.9): T = 2 K V(Q) dQ.
            qc = self.qc
            d1, d2, d3, d4 = (qc[0] - q[0], qc[1] - q[1], qc[2] - q[2], qc[3] - q[3])
            if self.shortest_path:
                r1, r2, r3, r4 = (-qc[0] - q[0], -qc[1] - q[1], -qc[2] - q[2], -qc[3] - q[3])
                shorter = r1 * r1 + r2 * r2 + r3 * r3 + r4 * r4 < d1 * d1 + d2 * d2 + d3 * d3 + d4 * d4
                d1, d2, d3, d4 = (np.where(shorter, r1, d1), np.where(shorter, r2, d2),
                                  np.where(shorter, r3, d3), np.where(shorter, r4, d4))
            q1, q2, q3, q4 = q
            if axes[0]:
                tx = tx + 2.0 * g[0] * (-q4 * d1 + q3 * d2 - q2 * d3 + q1 * d4)
            if axes[1]:
                ty = ty + 2.0 * g[1] * (-q3 * d1 - q4 * d2 + q1 * d3 + q2 * d4)
            if axes[2]:
                tz = tz + 2.0 * g[2] * (q2 * d1 - q1 * d2 - q4 * d3 + q3 * d4)
        elif self.controller == "euler":
            # Hoffmann 9.3: -K sin(angle - command) per axis.
            psi, theta, phi = _aircraft_angles(q)
            psic, thetac, phic = self.command_angles
            if axes[0]:
                tx = tx + -g[0] * np.sin(phi - phic)
            if axes[1]:
                ty = ty + -g[1] * np.sin(theta - thetac)
            if axes[2]:
                tz = tz + -g[2] * np.sin(psi - psic)
        if self.limiter_on:
            lx, ly, lz = self.limits
            tx = np.minimum(np.maximum(tx, -lx), lx)
            ty = np.minimum(np.maximum(ty, -ly), ly)
            tz = np.minimum(np.maximum(tz, -lz), lz)
        return (tx, ty, tz)


def _angle_deg(p, q, fold):
    """``2 atan2(|P^Q|, P.Q)`` in degrees for columns, Hoffmann's bivector angle (Appendix C).

    ``fold``: take ``|P.Q|`` so that ``Q`` and ``-Q`` agree (the rotation
    angle between attitudes, [0, 180]); otherwise the angle along the
    quaternion's own path, [0, 360].
    """
    p1, p2, p3, p4 = p
    q1, q2, q3, q4 = q
    b = np.sqrt((p1 * q2 - p2 * q1) ** 2 + (p1 * q3 - p3 * q1) ** 2 + (p1 * q4 - p4 * q1) ** 2
                + (p2 * q3 - p3 * q2) ** 2 + (p2 * q4 - p4 * q2) ** 2 + (p3 * q4 - p4 * q3) ** 2)
    dot = p1 * q1 + p2 * q2 + p3 * q3 + p4 * q4
    return np.degrees(2.0 * np.arctan2(b, np.abs(dot) if fold else dot))


def _terms(rows, r):
    """Non-zero terms ``(k, M[r, k])`` of row ``r`` of a 3x3 matrix held as 9 row-major entries.

    An entry is an array with one value per body, or one float for all.
    """
    out = []
    for k in range(3):
        m = rows[3 * r + k]
        if np.any(np.asarray(m) != 0.0):
            out.append((k, m))
    return out


def _matvec(terms, v, out, tmp):
    """``out[r] = sum_k M[r, k] v[k]`` left to right over the non-zero terms of each row."""
    for r, row in enumerate(terms):
        o = out[r]
        (k, m), rest = row[0], row[1:]
        np.multiply(m, v[k], out=o)
        for k, m in rest:
            np.multiply(m, v[k], out=tmp)
            o += tmp


class _Rows:
    """What the scalar integrators read from a :class:`~sim.body.Body`: ``j_rows``, ``j_inv_rows``."""

    __slots__ = ("j_rows", "j_inv_rows")

    def __init__(self, j_rows, j_inv_rows):
        self.j_rows, self.j_inv_rows = j_rows, j_inv_rows


class _ColumnSlerp:
    """One :class:`~sim.interpolation.SlerpPath` per body, evaluated on columns, Hoffmann Appendix C.

    The preparation (angle, shortest-path sign, mode) runs body by body with
    ``SlerpPath`` itself; evaluation repeats its formula
    ``R = qi sin((1-t) a)/sin a + qe sin(t a)/sin a`` (linear below 1 deg,
    about body x when antipodal) with the same operations, then renormalises.
    """

    def __init__(self, qi: np.ndarray, qe: tuple, shortest_path: bool):
        n = qi.shape[1]
        self.qi, self.qe, self.perp = np.empty((4, n)), np.empty((4, n)), np.zeros((4, n))
        self.angle = np.empty(n)
        mode = []
        for j in range(n):
            path = SlerpPath(qi[:, j], qe, shortest_path)
            self.qi[:, j], self.qe[:, j], self.angle[j] = path.qi, path.qe, path.angle
            if path._perp is not None:
                self.perp[:, j] = path._perp
            mode.append(path._mode)
        mode = np.array(mode)
        self.sine, self.linear, self.antipodal = mode == "sine", mode == "linear", mode == "antipodal"

    def __call__(self, t: float) -> np.ndarray:
        t = 0.0 if t < 0.0 else (1.0 if t > 1.0 else t)
        qi, qe = self.qi, self.qe
        with np.errstate(all="ignore"):
            s = np.sin(self.angle)
            r = qi * (np.sin((1.0 - t) * self.angle) / s) + qe * (np.sin(t * self.angle) / s)
        if self.linear.any():
            r = np.where(self.linear, qi * (1.0 - t) + qe * t, r)
        if self.antipodal.any():
            r = np.where(self.antipodal, qi * math.cos(math.pi * t) + self.perp * math.sin(math.pi * t), r)
        n = np.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3])
        r = r / n
        if t == 1.0 and self.antipodal.any():
            r = np.where(self.antipodal, qe, r)
        return r


# ---------------------------------------------------------------- ensemble


class Ensemble:
    """N rigid bodies integrated at once, the column twin of :class:`~sim.simulation.Simulation`.

    Parameters
    ----------
    settings : Settings
        What the bodies share (integrator, norm, dt, torque, dampers,
        controller, limiter, command) and the nominal body the spec
        disperses around.
    spec : EnsembleSpec
        How the bodies differ.
    start, count : int
        This object holds the bodies with global indices ``start ..
        start+count-1`` (``count`` defaults to ``spec.bodies - start``).
    track : bool
        Keep the per-step metrics (peak torque and rate, path length,
        settling time; about a fifth of the cost of a torque-free half-quat
        step).  With False, :meth:`metrics` reports those four as nan.

    Attributes
    ----------
    n : int
        Number of bodies held.
    index : ndarray, shape (n,)
        Their global indices.
    q : ndarray, shape (4, n)
        Attitude quaternions, scalar last (inertial -> body), one column per body.
    w : ndarray, shape (3, n)
        Body rates, rad/s.
    faulted : ndarray of bool, shape (n,)
        Bodies whose state became non-finite (or whose norm ran away with
        norm handling ``"none"``, :data:`sim.simulation.NORM_FAULT`): each is
        frozen at its last good state while the others go on.
    fault_t : ndarray, shape (n,)
        Time of the last good state of a faulted body (nan while fine), as
        :class:`~sim.simulation.SimulationFault` reports it.

    ``q`` and ``w`` are views of the current state, whose buffer alternates
    with the next state's at every step: read them after stepping, copy
    them to keep a state.  Writing into them changes the state.

    Examples
    --------
    >>> ens = Ensemble(Settings(dampers_on=True, controller="quaternion", command_deg=(0, 0, 0),
    ...                         slerp_time=0.0, dt=0.01), EnsembleSpec(bodies=100, seed=1))
    >>> ens.step(3000)
    >>> bool(ens.error_deg().max() < 1.0)
    True
    """

    def __init__(self, settings: Settings | None = None, spec: EnsembleSpec = EnsembleSpec(), *,
                 start: int = 0, count: int | None = None, track: bool = True):
        if not isinstance(spec, EnsembleSpec):
            raise TypeError(f"spec must be an EnsembleSpec, got {type(spec).__name__}")
        start = _integer("start", start, 0, spec.bodies - 1)
        count = spec.bodies - start if count is None else _integer("count", count, 1, spec.bodies - start)
        self._settings = settings or Settings()
        self.spec = spec
        self.index = np.arange(start, start + count, dtype=np.int64)
        self.n = count
        n = count
        self.track = bool(track)
        self._x = np.zeros((8, n))          # q (4), w (3), norm correction: the state
        self._xn = np.zeros((8, n))         # the next state (the two swap after each step)
        self._p = None                      # full-quat's P (4, n)
        self.faulted = np.zeros(n, dtype=bool)
        self.fault_t = np.full(n, np.nan)
        # scratch of the half-quat path
        self._tq = np.zeros((3, n))
        self._c3, self._a3 = np.empty((3, n)), np.empty((3, n))
        self._d4, self._e4, self._f4 = np.empty((4, n)), np.empty((4, n)), np.empty((4, n))
        self._s1, self._s2, self._s3 = np.empty(n), np.empty(n), np.empty(n)
        self._mask = np.empty(n, dtype=bool)
        self._const_tt = 0.0
        self._tm = _Torque()
        self._sample()
        self._apply_all()
        self.reset()

    # ------------------------------------------------------ initial samples
    def _sample(self):
        """Draw every body's initial sample from ``(spec.seed, index)``."""
        s, spec, idx = self._settings, self.spec, self.index
        n = self.n
        if spec.attitudes == "same":
            angles = np.repeat(np.array(s.angles_deg, dtype=float)[:, None], n, axis=1)
        else:
            if spec.attitudes == "random":
                u = [_uniforms(spec.seed, idx, k) for k in range(3)]
            else:
                u = _r3(idx)
            qs = uniform_quaternions(*u)
            angles = np.empty((3, n))
            for j in range(n):
                angles[:, j] = [math.degrees(a) for a in aircraft_angles(tuple(float(x) for x in qs[:, j]))]
        self._angles0 = angles
        q0 = np.empty((4, n))
        for j in range(n):  # exactly as Simulation.reset
            q0[:, j] = [float(x) for x in from_aircraft_angles(*(math.radians(float(a)) for a in angles[:, j]))]
        self._q0 = q0
        w0 = np.repeat(np.array(s.rates, dtype=float)[:, None], n, axis=1)
        if spec.rate_spread > 0.0:
            for k in range(3):
                w0[k] = w0[k] + spec.rate_spread * _normals(spec.seed, idx, 3 + 2 * k)
            np.clip(w0, -1e4, 1e4, out=w0)  # the range Settings accepts
        self._w0 = w0
        self._sample_inertia()
        if spec.gains_grid is not None:
            combos = np.array(list(itertools.product(*spec.gains_grid)), dtype=float)
            self._gains = combos[idx % len(combos)].T.copy()
        else:
            self._gains = None

    def _sample_inertia(self):
        s, spec, n = self._settings, self.spec, self.n
        own = s.mass_properties.inertia  # explicit, or the body's own (sim.shape)
        nominal = np.array(own, dtype=float)
        if spec.inertia_spread == 0.0:
            self._inertia = np.repeat(nominal[:, None], n, axis=1)
            body = Body(own)
            self._jr, self._jir = body.j_rows, body.j_inv_rows
            return
        p = spec.inertia_spread / 100.0
        body = Body(own)
        inertia = np.repeat(nominal[:, None], n, axis=1)
        jr = np.repeat(np.array(body.j_rows)[:, None], n, axis=1)
        jir = np.repeat(np.array(body.j_inv_rows)[:, None], n, axis=1)
        pending = np.arange(n)
        for attempt in range(_INERTIA_TRIES):
            if pending.size == 0:
                break
            u = [_uniforms(spec.seed, self.index[pending], 16 + 6 * attempt + k) for k in range(6)]
            still = []
            for m, j in enumerate(pending):
                comps = tuple(float(c * (1.0 + p * (2.0 * uk[m] - 1.0))) for c, uk in zip(nominal, u))
                try:
                    body = Body(comps)  # what Simulation(body_settings(j)) builds, rows and all
                except ValueError:
                    still.append(j)
                    continue
                inertia[:, j], jr[:, j], jir[:, j] = comps, body.j_rows, body.j_inv_rows
            pending = np.array(still, dtype=np.int64)
        self._inertia = inertia
        self._jr, self._jir = tuple(jr), tuple(jir)

    def initial(self) -> dict:
        """Each body's initial sample.

        Returns
        -------
        dict of ndarray
            ``index`` (n,), ``q0`` (4, n), ``angles_deg0`` (3, n) aircraft
            angles (psi, theta, phi), ``rates0`` (3, n), ``inertia`` (6, n)
            (Jxx, Jyy, Jzz, Jxy, Jxz, Jyz), ``gains`` (3, n).
        """
        gains = self._gains if self._gains is not None else np.repeat(
            np.array(self._settings.gains, dtype=float)[:, None], self.n, axis=1)
        return {"index": self.index.copy(), "q0": self._q0.copy(), "angles_deg0": self._angles0.copy(),
                "rates0": self._w0.copy(), "inertia": self._inertia.copy(), "gains": gains.copy()}

    def body_settings(self, j: int) -> Settings:
        """Local body ``j``'s initial state as single-body :class:`Settings`.

        ``Simulation(ens.body_settings(j))`` given the same inputs flies
        exactly column ``j``.
        """
        j = _integer("j", j, 0, self.n - 1)
        changes = {"angles_deg": tuple(float(a) for a in self._angles0[:, j]),
                   "rates": tuple(float(a) for a in self._w0[:, j]),
                   "inertia": tuple(float(a) for a in self._inertia[:, j])}
        if self._gains is not None:
            changes["gains"] = tuple(float(a) for a in self._gains[:, j])
        return self._settings.replace(**changes)

    # ------------------------------------------------------------- inputs
    @property
    def settings(self) -> Settings:
        return self._settings

    def set(self, key: str, value) -> None:
        """Change one shared setting between steps, as :meth:`Simulation.set`.

        Validated the same way (a bad value raises SettingsError).
        ``command_deg`` starts a SLERP from each body's current command;
        ``integrator``, ``norm`` and ``dt`` switch without touching the
        state.  ``angles_deg`` and ``rates`` move the nominal body the
        samples disperse around (taking effect at the next :meth:`reset`);
        ``inertia``, ``body`` and ``mass`` re-draw every body's inertia about
        the new nominal at once.  With a ``gains_grid`` the bodies keep their grid gains.
        """
        value = validate(key, value)
        self._settings = self._settings.replace(**{key: value})
        if key == "command_deg":
            self._start_command()
        elif key == "dt":
            self._t0, self._k0 = self._t, self._k
            self._dt = value
            self._segments.append((self._k0, self._t0, value))
        elif key in ("angles_deg", "rates"):
            self._sample()
            self._apply_all()
        else:
            if key in ("inertia", "body", "mass"):
                self._sample_inertia()
            self._apply_all()

    def update(self, changes: dict) -> None:
        """Set several settings; all are validated before any takes effect."""
        checked = {k: validate(k, v) for k, v in changes.items()}
        for key, value in checked.items():
            self.set(key, value)

    def _apply_all(self):
        s = self._settings
        tm = self._tm
        tm.command = s.torque
        tm.dampers_on, tm.dampers = s.dampers_on, s.dampers
        tm.controller, tm.axes = s.controller, s.axes
        tm.gains = tuple(self._gains) if self._gains is not None else s.gains
        tm.shortest_path = s.shortest_path
        tm.limiter_on, tm.limits = s.limiter_on, s.limits
        self._dt = s.dt
        self._norm = _NORMS[s.norm]
        self._norm_name = s.norm
        self._rows = _Rows(self._jr, self._jir)
        # Row r of J as its non-zero terms (k, J[r, k]): a zero product adds exactly nothing to a
        # finite sum, so skipping it changes no result (Hoffmann's aircraft has 5 non-zeros of 9).
        self._jterms = [_terms(self._jr, r) for r in range(3)]
        self._jiterms = [_terms(self._jir, r) for r in range(3)]
        g = np.array(tm.gains, dtype=float).reshape(3, -1)
        self._g2 = 2.0 * g  # 2 K of (9.9), per body or shared
        full = s.integrator == "full-quat"
        if full:
            self._integrate = functools.partial(full_quat, form=s.full_quat_form)
        else:
            self._integrate = {"half-quat": half_quat, "rk4": rk4}[s.integrator]
        if getattr(self, "_full", None) is not None and full != self._full:
            # Switching keeps the attitude and the rates: derive the other state.
            self._p = np.array(qdot(tuple(self.q), tuple(self.w))) if full else None
        self._full = full
        self._fast = s.integrator == "half-quat" and s.controller in ("none", "quaternion")
        self._const_torque = not s.dampers_on and s.controller == "none"
        if self._const_torque:
            tq = self._tq
            tq[:] = np.array(s.torque).reshape(3, 1)
            if s.limiter_on:
                lim = np.array(s.limits).reshape(3, 1)
                np.maximum(tq, -lim, out=tq)
                np.minimum(tq, lim, out=tq)
            self._const_tt = float(tq[0, 0] ** 2 + tq[1, 0] ** 2 + tq[2, 0] ** 2)
        self._zero_torque = self._const_torque and not self._tq.any()
        if hasattr(self, "_qc"):
            self._command_angles()

    # ------------------------------------------------------------ command
    def _set_qc(self, qc, shared: bool):
        qc = np.array(qc, dtype=float).reshape(4, -1)
        self._qc = qc
        self._qc_neg = -qc
        c = math.cos(math.radians(self.spec.settle_deg) / 2.0)
        self._settle_threshold = (c * c) * (qc[0] * qc[0] + qc[1] * qc[1] + qc[2] * qc[2] + qc[3] * qc[3])
        tm = self._tm
        # One command for all bodies (a float each), or one per body (a row each): the choice
        # depends on the inputs only, never on how many bodies this chunk holds.
        self._qc_shared = shared
        tm.qc = tuple(float(x) for x in qc[:, 0]) if self._qc_shared else tuple(qc)
        self._command_angles()

    def _command_angles(self):
        """Aircraft angles of the command for the Euler controller (only when it is on)."""
        tm = self._tm
        if tm.controller == "euler":
            tm.command_angles = aircraft_angles(tm.qc) if self._qc_shared else _aircraft_angles(tm.qc)

    def _start_command(self):
        """A new target starts a SLERP from each body's current command, Hoffmann Appendix C."""
        s = self._settings
        if s.command_deg is None:
            return
        angles = tuple(math.radians(a) for a in s.command_deg)
        target = tuple(float(x) for x in from_aircraft_angles(*angles))
        if s.slerp_time <= 0.0:
            self._path = None
            self._set_qc(target, shared=True)
            return
        if self._qc_shared:
            self._path = SlerpPath(self._qc[:, 0], target, s.shortest_path)
        else:
            self._path = _ColumnSlerp(self._qc, target, s.shortest_path)
        self._cmd_t0, self._cmd_duration = self._t, s.slerp_time

    def _update_command(self):
        u = (self._t - self._cmd_t0) / self._cmd_duration
        if u >= 1.0:
            self._set_qc(self._path(1.0), shared=isinstance(self._path, SlerpPath))
            self._path = None
        else:
            self._set_qc(self._path(u), shared=isinstance(self._path, SlerpPath))

    # ------------------------------------------------------------ stepping
    def reset(self) -> None:
        """Back to the initial samples at t = 0; each body's command starts at its attitude.

        A ``command_deg`` in the settings is then a change at t = 0, as in
        :meth:`Simulation.reset`.
        """
        self._x[0:4] = self._q0
        self._x[4:7] = self._w0
        self._x[7] = 0.0
        self._p = np.array(qdot(tuple(self.q), tuple(self.w))) if self._full else None
        self._t = self._t0 = 0.0
        self._k = self._k0 = 0
        self.faulted[:] = False
        self.fault_t[:] = np.nan
        self._path = None
        self._set_qc(self._q0, shared=False)
        if self._settings.command_deg is not None:
            self._start_command()
        # metrics
        n = self.n
        self._peak_ww = self._w0[0] ** 2 + self._w0[1] ** 2 + self._w0[2] ** 2
        self._peak_tt = np.zeros(n)
        self._peak_const_tt = self._const_tt if self._const_torque else 0.0
        self._travel = np.zeros(n)
        self._energy0 = self.energy()
        self._segments = [(0, 0.0, self._dt)]   # (k0, t0, dt): t of step k is t0 + (k - k0) dt
        self._last_out = np.where(self._outside(), 0, -1).astype(np.int64)
        self._tracked = self.track

    @property
    def q(self) -> np.ndarray:
        """Attitude quaternions (4, n), scalar last (inertial -> body); a view of the current state."""
        return self._x[0:4]

    @property
    def w(self) -> np.ndarray:
        """Body rates (3, n), rad/s; a view of the current state."""
        return self._x[4:7]

    @property
    def t(self) -> float:
        return self._t

    @property
    def steps(self) -> int:
        return self._k

    def energy(self) -> np.ndarray:
        """Kinetic energy ``T = 1/2 w^T J w`` of each body, Hoffmann (5.1) (as :meth:`Simulation.energy`)."""
        jr = self._jr
        wx, wy, wz = self.w
        return 0.5 * (wx * (jr[0] * wx + jr[1] * wy + jr[2] * wz)
                      + wy * (jr[3] * wx + jr[4] * wy + jr[5] * wz)
                      + wz * (jr[6] * wx + jr[7] * wy + jr[8] * wz))

    def step(self, k: int = 1) -> None:
        """Advance every body ``k`` fixed steps (a faulted body stays frozen at its last good state)."""
        with np.errstate(all="ignore"):
            for _ in range(k):
                if self._fast:
                    self._half_quat_step()
                else:
                    self._general_step()
                self._commit()

    def _general_step(self):
        """One step through the scalar integrators of :mod:`sim.integrators`, fed tuples of rows."""
        tm = self._tm
        first = []

        def torque(q, w):
            t = tm(q, w)
            if not first:
                first.append(t)
            return t

        p = None if self._p is None else tuple(self._p)
        q, w, p = self._integrate(tuple(self.q), tuple(self.w), p, self._dt, torque, self._rows)
        q, correction = self._norm(q)
        if p is not None:
            w = rates(q, p)
            self._pn = np.array(np.broadcast_arrays(*p))
        xn = self._xn
        for i in range(4):
            xn[i] = q[i]
        for i in range(3):
            xn[4 + i] = w[i]
        xn[7] = correction
        t = first[0]
        for i in range(3):
            self._tq[i] = t[i]

    def _torque_into(self):
        """Column torque of :class:`_Torque` (command, dampers, quaternion controller, limiter) into ``_tq``."""
        s, tm = self._settings, self._tm
        q, w, tq = self.q, self.w, self._tq
        q1, q2, q3, q4 = q
        if s.dampers_on:
            c3 = self._c3
            np.multiply(np.array(s.dampers).reshape(3, 1), w, out=c3)
            np.subtract(np.array(s.torque).reshape(3, 1), c3, out=tq)
        else:
            tq[:] = np.array(s.torque).reshape(3, 1)
        if s.controller == "quaternion":
            d, e = self._d4, self._e4
            np.subtract(self._qc, q, out=d)
            if s.shortest_path:
                np.subtract(self._qc_neg, q, out=e)
                s1, s2, sq = self._s1, self._s2, self._f4
                for src, acc in ((e, s2), (d, s1)):  # ((x1^2 + x2^2) + x3^2) + x4^2
                    np.multiply(src, src, out=sq)
                    np.add(sq[0], sq[1], out=acc)
                    acc += sq[2]
                    acc += sq[3]
                np.less(s2, s1, out=self._mask)
                np.copyto(d, e, where=self._mask)
            d1, d2, d3, d4 = d
            t1, t2 = self._s1, self._s2
            g2, axes = self._g2, s.axes
            if axes[0]:  # (-q4 d1 + q3 d2) - q2 d3 + q1 d4
                np.multiply(q3, d2, out=t1)
                np.multiply(q4, d1, out=t2)
                t1 -= t2
                np.multiply(q2, d3, out=t2)
                t1 -= t2
                np.multiply(q1, d4, out=t2)
                t1 += t2
                t1 *= g2[0]
                tq[0] += t1
            if axes[1]:  # (-q3 d1 - q4 d2) + q1 d3 + q2 d4
                np.multiply(q3, d1, out=t1)
                np.multiply(q4, d2, out=t2)
                t1 += t2
                np.multiply(q1, d3, out=t2)
                np.subtract(t2, t1, out=t1)
                np.multiply(q2, d4, out=t2)
                t1 += t2
                t1 *= g2[1]
                tq[1] += t1
            if axes[2]:  # (q2 d1 - q1 d2) - q4 d3 + q3 d4
                np.multiply(q2, d1, out=t1)
                np.multiply(q1, d2, out=t2)
                t1 -= t2
                np.multiply(q4, d3, out=t2)
                t1 -= t2
                np.multiply(q3, d4, out=t2)
                t1 += t2
                t1 *= g2[2]
                tq[2] += t1
        if s.limiter_on:
            lim = np.array(s.limits).reshape(3, 1)
            np.maximum(tq, -lim, out=tq)
            np.minimum(tq, lim, out=tq)

    def _half_quat_step(self):
        """:func:`sim.integrators.half_quat` and the norm handling on preallocated columns.

        Hoffmann Appendix A: ``w <- w + dt J^-1 (T - w x J w)`` (4.3), then
        ``Q <- Q + dt/2 V(Q)^T [w_new; 0]`` (5.18); the same operations in the
        same order as the scalar step.
        """
        if not self._const_torque:
            self._torque_into()
        dt = self._dt
        x0, xn = self._x, self._xn
        q1, q2, q3, q4 = x0[0:4]
        wx, wy, wz = w = x0[4:7]
        tq, cv, d = self._tq, self._c3, self._d4
        lv, wn = d[0:3], xn[4:7]
        t1, t2 = self._s1, self._s2
        # L = J w, row by row (jr0 wx + jr1 wy) + jr2 wz
        _matvec(self._jterms, w, lv, t2)
        lx, ly, lz = lv
        # R = T - w x L; with T = 0, -(a - b) is b - a exactly
        zero = self._zero_torque
        for r, (a, b, c, e) in enumerate(((wy, lz, wz, ly), (wz, lx, wx, lz), (wx, ly, wy, lx))):
            if zero:
                np.multiply(c, e, out=cv[r])
                np.multiply(a, b, out=t2)
                cv[r] -= t2
            else:
                np.multiply(a, b, out=t1)
                np.multiply(c, e, out=t2)
                t1 -= t2
                np.subtract(tq[r], t1, out=cv[r])
        # A = J^-1 R, then w_new = w + dt A
        _matvec(self._jiterms, cv, wn, t2)
        wn *= dt
        wn += w
        x, y, z = wn
        # Q_new = Q + h V(Q)^T w_new
        d1, d2, d3, d4 = d
        np.multiply(q4, x, out=d1)      # -q4 x - q3 y = -(q4 x + q3 y)
        np.multiply(q3, y, out=t2)
        d1 += t2
        np.multiply(q2, z, out=t2)
        np.subtract(t2, d1, out=d1)
        np.multiply(q3, x, out=d2)      # (q3 x - q4 y) - q1 z
        np.multiply(q4, y, out=t2)
        d2 -= t2
        np.multiply(q1, z, out=t2)
        d2 -= t2
        np.multiply(q1, y, out=d3)      # -q2 x + q1 y = q1 y - q2 x
        np.multiply(q2, x, out=t2)
        d3 -= t2
        np.multiply(q4, z, out=t2)
        d3 -= t2
        np.multiply(q1, x, out=d4)      # (q1 x + q2 y) + q3 z
        np.multiply(q2, y, out=t2)
        d4 += t2
        np.multiply(q3, z, out=t2)
        d4 += t2
        d *= 0.5 * dt
        qn = xn[0:4]
        np.add(x0[0:4], d, out=qn)
        # norm handling, sim/norm.py
        norm = self._norm_name
        if norm == "none":
            xn[7] = 0.0
            return
        s = self._s3
        np.multiply(qn, qn, out=d)
        np.add(d[0], d[1], out=s)
        s += d[2]
        s += d[3]
        np.sqrt(s, out=s)
        if norm == "hoffmann":
            np.subtract(1.0, s, out=xn[7])
            np.multiply(qn, xn[7], out=d)
            qn += d
        else:
            np.divide(qn, s, out=qn)
            np.subtract(1.0, s, out=xn[7])

    def _bad(self):
        """Bodies whose next state is a fault (as :meth:`Simulation.step` decides), or None.

        A state is bad when ``q + w + correction`` is not finite, or with norm
        handling ``none`` when ``||Q| - 1|`` exceeds :data:`NORM_FAULT`.  The
        half-quat path checks only the correction (or the norm): its ``Q``
        is built from every component of the new ``w``, so a non-finite ``w``
        always reaches ``Q``.
        """
        xn = self._xn
        bad = None
        if self._norm_name == "none":
            qn = xn[0:4]
            err = np.abs(np.sqrt(qn[0] * qn[0] + qn[1] * qn[1] + qn[2] * qn[2] + qn[3] * qn[3]) - 1.0)
            if not (err <= NORM_FAULT).all():
                bad = ~(err <= NORM_FAULT)
            if self._fast:
                return bad
        elif self._fast:
            return None if math.isfinite(float(xn[7].sum())) else ~np.isfinite(xn[7])
        s = self._s3
        np.add.reduce(xn, axis=0, out=s)
        if not math.isfinite(float(s.sum())):
            nonfinite = ~np.isfinite(s)
            bad = nonfinite if bad is None else (bad | nonfinite)
        return bad

    def _commit(self):
        """Accept the next state where it is good; flag and freeze the bodies where it is not."""
        bad = self._bad()
        if bad is not None:
            new = bad & ~self.faulted
            self.faulted |= new
            self.fault_t[new] = self._t
        ok = None
        if self.faulted.any():
            ok = ~self.faulted
            np.copyto(self._xn, self._x, where=self.faulted)
            if self._p is not None:
                np.copyto(self._pn, self._p, where=self.faulted)
        self._x, self._xn = self._xn, self._x
        if self._p is not None:
            self._p = self._pn
        self._k += 1
        self._t = self._t0 + (self._k - self._k0) * self._dt
        if self._path is not None:
            self._update_command()
        if self.track:
            self._track(ok)
        else:
            self._tracked = False

    def _track(self, ok):
        """Per-body peak |w| and |T|, angle travelled (sum of |w| dt) and the last step outside settle_deg."""
        w = self.w
        s1, s2, sq = self._s1, self._s2, self._c3
        np.multiply(w, w, out=sq)
        np.add(sq[0], sq[1], out=s1)
        s1 += sq[2]
        np.maximum(self._peak_ww, s1, out=self._peak_ww)
        np.sqrt(s1, out=s1)
        s1 *= self._dt
        if ok is not None:
            s1 *= ok
        self._travel += s1
        if self._const_torque:
            self._peak_const_tt = max(self._peak_const_tt, self._const_tt)
        else:
            tq = self._tq
            np.multiply(tq, tq, out=sq)
            np.add(sq[0], sq[1], out=s1)
            s1 += sq[2]
            if ok is not None:
                s1 *= ok
            np.maximum(self._peak_tt, s1, out=self._peak_tt)
        np.copyto(self._last_out, self._k, where=self._outside())

    def _outside(self) -> np.ndarray:
        """Bodies farther than ``settle_deg`` from the command: ``(Q.Qc)^2 < cos^2(a/2) |Q|^2 |Qc|^2``.

        ``|Q| = 1`` is taken except with norm handling ``none``.
        """
        q, qc = self.q, self._qc
        s1, s2, prod = self._s1, self._s2, self._d4
        np.multiply(q, qc, out=prod)
        np.add(prod[0], prod[1], out=s1)
        s1 += prod[2]
        s1 += prod[3]
        s1 *= s1
        threshold = self._settle_threshold
        if self._norm_name == "none":
            np.multiply(q[0], q[0], out=s2)
            s2 += q[1] * q[1]
            s2 += q[2] * q[2]
            s2 += q[3] * q[3]
            s2 *= threshold
            threshold = s2
        return np.less(s1, threshold, out=self._mask)

    # ------------------------------------------------------------ readouts
    def error_deg(self) -> np.ndarray:
        """Rotation angle between each ``Q`` and its command ``Qc``, degrees in [0, 180].

        Hoffmann's bivector angle (Appendix C) folded so ``Q`` and ``-Q``
        agree: ``2 atan2(|Q^Qc|, |Q.Qc|)`` (:func:`sim.quaternion.rotation_angle`).
        """
        return _angle_deg(self.q, self._qc, fold=True)

    def nose(self) -> np.ndarray:
        """Body x axis (the nose) in inertial axes, shape (3, n).

        The first row of the Cayley matrix ``C(Q)``, Hoffmann (2.12), over
        ``|Q|^2`` (``C`` of a non-unit ``Q`` is ``|Q|^2`` times a rotation).
        """
        q1, q2, q3, q4 = self.q
        s1, s2, s3, s4 = q1 * q1, q2 * q2, q3 * q3, q4 * q4
        qq = s1 + s2 + s3 + s4
        return np.array([s1 - s2 - s3 + s4, 2.0 * (q1 * q2 - q3 * q4), 2.0 * (q1 * q3 + q2 * q4)]) / qq

    def metrics(self) -> dict:
        """Per-body results of the run so far.

        Returns
        -------
        dict of ndarray, shape (n,)
            ``final_error_deg``: :meth:`error_deg` now.  ``settling_time``: s,
            the first time from which on the error stayed within
            ``spec.settle_deg`` up to now (0 if it always was; nan if it is
            outside now).  ``peak_torque``: N m, largest ``|T|`` applied at
            the start of a step.  ``peak_rate``: rad/s, largest ``|w|`` of the
            states so far.  ``travelled_deg``: the rotation angle travelled
            from the initial attitude, measured on the quaternion's own
            continuous path without folding ``Q`` and ``-Q``: ``2 atan2(|Q0^Q|,
            Q0.Q)`` in [0, 360] (Hoffmann's bivector angle, Appendix C).  A
            body that comes to rest at its command turned the short way when
            this is <= 180 and the long way round (unwinding) when > 180.
            ``path_deg``: the length of the path, the sum of ``|w_new| dt``
            over the steps (a body that wobbles or overshoots travels farther
            than its net turn).
            ``energy_drift``: ``T/T0 - 1`` (meaningful for torque-free runs;
            nan when ``T0 = 0``).  ``faulted`` (bool) and ``fault_t`` (s, nan
            while fine).
        """
        e0 = self._energy0
        with np.errstate(all="ignore"):
            drift = np.where(e0 != 0.0, self.energy() / np.where(e0 != 0.0, e0, 1.0) - 1.0, np.nan)
        out = {"final_error_deg": self.error_deg(), "settling_time": self._settling_time(),
               "peak_torque": np.sqrt(np.maximum(self._peak_tt, self._peak_const_tt)),
               "peak_rate": np.sqrt(self._peak_ww), "travelled_deg": _angle_deg(self._q0, self.q, fold=False),
               "path_deg": np.degrees(self._travel),
               "energy_drift": drift, "faulted": self.faulted.copy(), "fault_t": self.fault_t.copy()}
        if not self._tracked:
            for key in ("settling_time", "peak_torque", "peak_rate", "path_deg"):
                out[key] = np.full(self.n, np.nan)
        return out

    def _settling_time(self) -> np.ndarray:
        """Time of the step after the last one outside ``settle_deg`` (0 if none; nan if outside now)."""
        k = self._last_out + 1
        t = np.zeros(self.n)
        ends = [seg[0] for seg in self._segments[1:]] + [np.iinfo(np.int64).max]
        for (k0, t0, dt), end in zip(self._segments, ends):
            sel = (k > k0) & (k <= end)
            t[sel] = t0 + (k[sel] - k0) * dt
        t[self._last_out < 0] = 0.0
        t[self._last_out >= self._k] = np.nan
        return t
