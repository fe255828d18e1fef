"""The singular surfaces of a single-gimbal CMG cluster: its momentum envelope, its internal surfaces, which are passable.

Conventions as in :mod:`sim.core.cmg` (docs/PHYSICS.md, "Control moment gyros"): unit gimbal axes ``g``
(shape (n, 3)), spin axes at zero ``s0``, rotor momentum ``h0``, ``t_i = g_i x s_i``.

* A gimbal set is singular when some unit direction ``u`` has ``u . t_i = 0`` for every CMG: no torque
  about ``u`` can be made.  Then each spin axis lies in the plane of ``g_i`` and ``u``, as far towards
  (``eps_i = +1``) or away from (``eps_i = -1``) ``u`` as its gimbal lets it (Margulies and Aubrun,
  "Geometric theory of single-gimbal control moment gyro systems", J. Astronaut. Sci. 26(2), 1978;
  Wie, *Space Vehicle Dynamics and Control*, 2nd ed., ch. 7)::

      s_i = eps_i (g_i x u) x g_i / |g_i x u|,        h(u, eps) = h0 sum_i s_i

  (``(g x u) x g = u - (u.g) g`` for a unit ``g``).  As ``u`` covers the sphere, ``h(u, eps)`` covers a
  surface: all signs ``+1`` the saturation surface, the **momentum envelope** (the largest momentum along
  each ``u``); mixed signs the **internal singular surfaces**; ``h(-u, -eps) = h(u, eps)``, so the sets
  with ``eps_1 = +1`` are all of them.  Undefined where ``u`` is along a gimbal axis.
* **Elliptic or hyperbolic** (Bedrossian, Paradiso and Bergmann, "Steering law design for redundant
  single-gimbal control moment gyros", JGCD 13(6), 1990; Wie, ch. 7, and "Singularity analysis and
  visualization for single-gimbal control moment gyro systems", JGCD 27(2), 2004): moving the gimbals by
  ``ddelta`` in the null space of ``A`` (a null motion: no torque to first order) changes ``u . h`` by
  ``-1/2 ddelta^T Q ddelta`` with ``Q = diag(u . s_i)`` (as ``d^2 s_i/ddelta_i^2 = -s_i``).  With ``N``
  a basis of that null space, ``P = N^T Q N``: definite, no null motion keeps the gimbals on the
  singular surface, and the singularity is **elliptic** (null motion cannot leave it: impassable);
  indefinite, it is **hyperbolic** (null motion can leave it); singular ``P``: degenerate.

The formulas are :func:`sim.core.jit.jitable` and written so that ``u`` may also be columns of
directions, shape (3, N) (numpy's elementwise arithmetic, the trick of the ensemble's columns): one text
for one direction, compiled or not, and for a whole grid of them.
"""

from __future__ import annotations

import math

import numpy as np

from sim.core.jit import jitable

__all__ = ["singular_spin", "singular_momentum", "envelope_point", "singular_angles", "singular_surface",
           "momentum_envelope", "singularity_kind", "singular_section", "sign_sets", "ELLIPTIC", "HYPERBOLIC",
           "DEGENERATE"]

#: :func:`singularity_kind`'s codes.
ELLIPTIC, HYPERBOLIC, DEGENERATE = 1, -1, 0


@jitable
def singular_spin(g, u, signs, i):
    """CMG ``i``'s spin axis on the singular set of ``u``: ``s_i = eps_i (g_i x u) x g_i / |g_i x u|`` (Margulies
    and Aubrun 1978; Wie, ch. 7), as three components (floats, or columns for ``u`` of shape (3, N))."""
    ug = u[0] * g[i, 0] + u[1] * g[i, 1] + u[2] * g[i, 2]
    p0, p1, p2 = u[0] - ug * g[i, 0], u[1] - ug * g[i, 1], u[2] - ug * g[i, 2]
    e = signs[i] / np.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
    return e * p0, e * p1, e * p2


@jitable
def singular_momentum(h0, g, u, signs):
    """The cluster's momentum on the singular set of ``u`` with signs ``eps``: ``h = h0 sum_i s_i`` (Margulies and
    Aubrun 1978; Wie, ch. 7), shape (3,) (or (3, N) for columns ``u``): a point of a singular surface."""
    hx, hy, hz = 0.0 * u[0], 0.0 * u[0], 0.0 * u[0]
    for i in range(g.shape[0]):
        sx, sy, sz = singular_spin(g, u, signs, i)
        hx = hx + h0 * sx
        hy = hy + h0 * sy
        hz = hz + h0 * sz
    return np.array((hx, hy, hz))


@jitable
def envelope_point(h0, g, u):
    """The cluster's largest momentum along the unit direction ``u``: :func:`singular_momentum` with every sign
    ``+1``, each spin axis turned as far towards ``u`` as its gimbal lets it: the saturation surface, the
    outer boundary of the envelope (Wie, ch. 7)."""
    return singular_momentum(h0, g, u, np.ones(g.shape[0]))


@jitable
def singular_angles(g, s0, u, signs):
    """The gimbal angles (rad, shape (n,)) that put each spin axis at :func:`singular_spin`: ``u . t_i = 0`` for
    every CMG, so no torque about ``u`` (Margulies and Aubrun 1978; Wie, ch. 7).  One direction ``u``."""
    n = g.shape[0]
    out = np.empty(n)
    for i in range(n):
        sx, sy, sz = singular_spin(g, u, signs, i)
        t0x = g[i, 1] * s0[i, 2] - g[i, 2] * s0[i, 1]
        t0y = g[i, 2] * s0[i, 0] - g[i, 0] * s0[i, 2]
        t0z = g[i, 0] * s0[i, 1] - g[i, 1] * s0[i, 0]
        out[i] = math.atan2(sx * t0x + sy * t0y + sz * t0z, sx * s0[i, 0] + sy * s0[i, 1] + sz * s0[i, 2])
    return out


def _directions(n_lat: int, n_lon: int, shift: float = 0.0) -> np.ndarray:
    """Unit directions on a latitude-longitude grid, shape (3, n_lat, n_lon): the poles left out by half a step,
    the longitudes turned by ``shift`` of a step (off the pyramid's gimbal axes, where the surfaces are undefined)."""
    lat = np.linspace(-np.pi / 2, np.pi / 2, n_lat + 2)[1:-1]
    lon = (np.arange(n_lon) + shift) * (2 * np.pi / n_lon)
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    return np.array([np.cos(la) * np.cos(lo), np.cos(la) * np.sin(lo), np.sin(la)])


def singular_surface(h0: float, g, signs, n_lat: int = 31, n_lon: int = 60) -> np.ndarray:
    """The singular surface of the signs ``eps`` (:func:`singular_momentum`) over a latitude-longitude grid of
    directions ``u``, shape (n_lat, n_lon, 3) (N m s), the poles excluded by half a step."""
    g = np.asarray(g, dtype=float)
    u = _directions(n_lat, n_lon)
    h = singular_momentum(h0, g, u.reshape(3, -1), np.asarray(signs, dtype=float))
    return np.moveaxis(h.reshape(3, n_lat, n_lon), 0, -1)


def momentum_envelope(h0: float, g, n_lat: int = 31, n_lon: int = 60) -> np.ndarray:
    """The cluster's momentum envelope: :func:`singular_surface` with every sign ``+1``, shape (n_lat, n_lon, 3)."""
    return singular_surface(h0, g, np.ones(len(g)), n_lat, n_lon)


def sign_sets(n: int) -> np.ndarray:
    """The singular surfaces' sign sets ``eps`` with ``eps_1 = +1`` (the others are ``-eps``), shape (2^(n-1), n):
    first all ``+1`` (the envelope), then by the number of ``-1``."""
    sets = [np.array([1.0] + [-1.0 if (k >> b) & 1 else 1.0 for b in range(n - 1)]) for k in range(2 ** (n - 1))]
    return np.array(sorted(sets, key=lambda s: int(np.sum(s < 0))))


def singularity_kind(h0: float, g, u, signs, tol: float = 1e-9) -> np.ndarray:
    """:data:`ELLIPTIC`, :data:`HYPERBOLIC` or :data:`DEGENERATE` for the singular sets of the directions ``u``
    (shape (3, N)) with signs ``eps``: the sign pattern of ``P = N^T Q N``, ``Q = diag(u . s_i)``, ``N`` the null
    space of ``A`` (Bedrossian et al. 1990; Wie 2004; see the module docstring), shape (N,).  ``tol`` is
    relative to ``h0``: eigenvalues of ``P`` below it count as zero."""
    g = np.asarray(g, dtype=float)
    u = np.asarray(u, dtype=float).reshape(3, -1)
    signs = np.asarray(signs, dtype=float)
    n = len(g)
    s = np.array([singular_spin(g, u, signs, i) for i in range(n)])         # (n, 3, N)
    t = np.cross(g[:, :, None], s, axis=1)                                   # t_i = g_i x s_i
    a = h0 * np.moveaxis(t, 2, 0).transpose(0, 2, 1)                       # A, (N, 3, n)
    q = h0 * np.einsum("kN,ikN->Ni", u, s)                                    # u . h0 s_i, (N, n)
    null = np.linalg.svd(a)[2][:, 2:, :]                                     # rank 2: the last n - 2 rows of V^T
    p = np.einsum("Nai,Ni,Nbi->Nab", null, q, null)
    eig = np.linalg.eigvalsh(p)
    small = np.any(np.abs(eig) < tol * h0, axis=1)
    definite = np.all(eig > 0, axis=1) | np.all(eig < 0, axis=1)
    return np.where(small, DEGENERATE, np.where(definite, ELLIPTIC, HYPERBOLIC))


def singular_section(h0: float, g, signs, axis: int, n_lat: int = 90, n_lon: int = 180,
                     refine: int = 4) -> tuple:
    """Where the singular surface of the signs ``eps`` crosses the plane ``h[axis] = 0`` (through the origin).

    The sign changes of ``h[axis]`` between neighbours of a grid of directions ``u``, each refined by
    ``refine`` (at least 1) steps of the secant on the great circle between them; crossings where the
    surface jumps (a direction along a gimbal axis between the neighbours) are dropped.  Neighbouring
    points lie about a grid step's image apart (up to 0.09 h0 for the pyramid on the default 2 deg grid).

    Returns
    -------
    h : ndarray, shape (M, 3)
        Points of the surface (N m s), ``|h[axis]|`` below ``1e-6 h0``.
    u : ndarray, shape (3, M)
        Their singular directions.
    """
    g = np.asarray(g, dtype=float)
    signs = np.asarray(signs, dtype=float)
    grid = _directions(n_lat, n_lon, 0.5)
    f = singular_momentum(h0, g, grid.reshape(3, -1), signs)[axis].reshape(n_lat, n_lon)
    pairs = []
    for da, db in ((0, 1), (1, 0)):              # neighbours along the longitude (closed) and the latitude
        fa, ua = f, grid
        fb, ub = np.roll(f, -db, axis=1), np.roll(grid, -db, axis=2)
        if da:
            fa, ua, fb, ub = f[:-1], grid[:, :-1], f[1:], grid[:, 1:]
        hit = np.signbit(fa) != np.signbit(fb)
        pairs.append((ua[:, hit], ub[:, hit], fa[hit], fb[hit]))
    ua, ub, fa, fb = (np.concatenate([p[k] for p in pairs], axis=-1) for k in range(4))
    for _ in range(refine):                       # the secant (regula falsi) on the arc from ua to ub
        u = fb * ua - fa * ub
        with np.errstate(invalid="ignore", divide="ignore"):   # fa = fb = 0: a nan, dropped below
            u = u / np.linalg.norm(u, axis=0)
        fu = singular_momentum(h0, g, u, signs)[axis]
        left = np.signbit(fu) == np.signbit(fa)
        ua, fa = np.where(left, u, ua), np.where(left, fu, fa)
        ub, fb = np.where(left, ub, u), np.where(left, fb, fu)
    h = singular_momentum(h0, g, u, signs)
    keep = np.abs(h[axis]) < 1e-6 * h0
    return h[:, keep].T, u[:, keep]
