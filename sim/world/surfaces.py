"""The torques of the body's own surfaces: solar radiation pressure and free-molecular drag, facet by facet.

The body's mesh (:func:`sim.model.shape.load`: vertices in metres, triangles
wound counter-clockwise seen from outside, as trimesh keeps them) gives
facets with area ``A``, outward unit normal ``n`` and centre ``c`` (the
triangle's centroid), taken about the centre of mass, which may be offset
from the mesh's origin (:func:`facets`).  Each facet has optical
coefficients, the fractions of the light it absorbs, reflects specularly
and reflects diffusely (``rho_a + rho_s + rho_d = 1``), and a drag
coefficient ``C_d``.

Solar radiation pressure (Markley & Crassidis 2014, section 3.3.6; Wertz
1978, section 17.2; the same law as Woeske et al. 2019, Adv. Space Res. 63,
eq. for the flat plate): with ``s`` the unit vector to the Sun in body axes
and ``cos t = n . s``, a lit facet (``cos t > 0``) feels

    F = -P A cos t [ 2 (rho_d / 3 + rho_s cos t) n + (1 - rho_s) s ]

with ``P = 4.56e-6 N/m^2 (1 AU / d)^2`` at the distance ``d`` from the Sun,
times the visible fraction of the solar disc (1 in sunlight, 0 in the
umbra, between in the penumbra).

Free-molecular drag (Markley & Crassidis 2014, section 3.3.6; Wertz 1978,
section 17.2): with ``v`` the velocity of the body relative to the air, in
body axes, and ``cos a = n . v / |v|``, a facet facing the flow
(``cos a > 0``) feels

    F = -1/2 rho C_d A |v|^2 cos a  v / |v|

(the molecules are taken as stopped, with no momentum carried back along
the normal beyond what ``C_d`` lumps in).  The air co-rotates with the
Earth: :func:`relative_velocity` gives ``v - w_E x r`` in ECI.

The torque of each force acts at the facet's centre: ``T = sum c x F``.
Facets do not shadow each other (neither from the Sun nor from the flow):
a concave body (a panel beside a box) is lit and dragged on every facet
that faces the Sun or the flow, which overstates the force on the hidden
parts.  Both laws are exact for convex bodies.

Each law is a weighted sum over the facets, written once as a compiled formula
(:func:`srp_facets`, :func:`drag_facets`: :mod:`sim.core.jit`) that adds the
facets' terms one by one in the mesh's order, for one body or for each body
of an ensemble's column (:func:`summed`, one loop for both laws: :func:`law_columns`), so
a body alone and the same body in a column give the same numbers bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.core.jit import jitable, kernel

__all__ = ["SOLAR_PRESSURE", "ASTRONOMICAL_UNIT", "EARTH_ROTATION_RATE", "Surfaces", "facets", "srp",
           "drag", "relative_velocity", "srp_facets", "drag_facets", "SRP_LAW", "DRAG_LAW", "summed", "law_columns",
           "TABLE_COLUMNS"]

#: Solar radiation pressure at 1 AU on an absorbing surface, N/m^2 (Wertz 1978, section 17.2).
SOLAR_PRESSURE = 4.56e-6
#: The astronomical unit, m (IAU 2012 Resolution B2).
ASTRONOMICAL_UNIT = 1.495978707e11
#: The Earth's rotation rate, rad/s (IERS Conventions 2010, section 1.2).
EARTH_ROTATION_RATE = 7.292115e-5


@dataclass(frozen=True, eq=False)
class Surfaces:
    """Facets about the centre of mass, body axes: ``areas`` (F,) m^2, outward unit ``normals`` (F, 3),
    ``centres`` (F, 3) m from the centre of mass, and per facet ``absorbed``, ``specular``, ``diffuse``
    (fractions summing to 1) and ``drag`` (the drag coefficient C_d), each (F,)."""

    areas: np.ndarray
    normals: np.ndarray
    centres: np.ndarray
    absorbed: np.ndarray
    specular: np.ndarray
    diffuse: np.ndarray
    drag: np.ndarray

    def __post_init__(self):
        # the facet constants of the two laws, made once, one row per facet (TABLE_COLUMNS)
        table = np.column_stack([self.normals, self.centres, np.cross(self.centres, self.normals), self.areas,
                                 self.specular, self.diffuse, self.drag * self.areas])
        object.__setattr__(self, "table", np.ascontiguousarray(table, dtype=float).reshape(-1, len(TABLE_COLUMNS)))


#: The columns of :attr:`Surfaces.table`, what the compiled sums read: ``n`` (3), ``c`` (3), ``c x n`` (3),
#: ``A``, ``rho_s``, ``rho_d``, ``C_d A``.
TABLE_COLUMNS = ("nx", "ny", "nz", "cx", "cy", "cz", "cnx", "cny", "cnz", "area", "specular", "diffuse", "cd_area")


def _per_facet(value, n: int, name: str) -> np.ndarray:
    a = np.broadcast_to(np.asarray(value, dtype=float), (n,)).copy()
    if not np.all(np.isfinite(a)) or np.any(a < 0.0):
        raise ValueError(f"surfaces: {name} must be finite and not negative")
    return a


def facets(vertices, faces, centre_of_mass=(0.0, 0.0, 0.0), absorbed=1.0, specular=0.0, diffuse=0.0,
           drag=2.2) -> Surfaces:
    """The facets of a triangle mesh (``vertices`` (n, 3) m, ``faces`` (m, 3) counter-clockwise seen from
    outside) about ``centre_of_mass`` (mesh coordinates, m), with the optical and drag coefficients given
    for all facets (floats) or per face (arrays of m).  Faces of zero area are left out.

    Raises
    ------
    ValueError
        A coefficient negative or not finite, or ``absorbed + specular + diffuse`` not 1.
    """
    v = np.asarray(vertices, dtype=float)
    f = np.asarray(faces, dtype=np.intp)
    p0, p1, p2 = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    cross = np.cross(p1 - p0, p2 - p0)
    double_area = np.linalg.norm(cross, axis=1)
    keep = double_area > 0.0
    m = len(f)
    coeffs = [_per_facet(x, m, name) for x, name in ((absorbed, "absorbed"), (specular, "specular"),
                                                      (diffuse, "diffuse"), (drag, "the drag coefficient"))]
    if not np.allclose(coeffs[0] + coeffs[1] + coeffs[2], 1.0, rtol=0, atol=1e-9):
        raise ValueError("surfaces: absorbed + specular + diffuse must be 1 on every surface")
    centres = (p0 + p1 + p2) / 3.0 - np.asarray(centre_of_mass, dtype=float)
    return Surfaces(0.5 * double_area[keep], cross[keep] / double_area[keep, None], centres[keep],
                    *(c[keep] for c in coeffs))


@jitable
def srp_facets(table, sx, sy, sz, p):
    """Solar radiation pressure summed over the lit facets: ``(Tx, Ty, Tz, Fx, Fy, Fz)`` (N m, N; body axes).

    Markley & Crassidis (2014) section 3.3.6, Wertz (1978) section 17.2 (the
    law of the module docstring): a facet with ``cos t = n . s > 0`` feels
    ``F = P A cos t [2 (rho_d / 3 + rho_s cos t) n + (1 - rho_s) s]`` with
    ``P`` = ``p`` (the pressure times the visible fraction, negative: it
    pushes away from the Sun), at its centre ``c``: ``T = c x F``.  ``table``:
    :attr:`Surfaces.table`; ``s``: the unit vector to the Sun, body axes.
    The facets are added in their order, one by one.
    """
    fnx = fny = fnz = tnx = tny = tnz = ws = wcx = wcy = wcz = 0.0
    for f in range(table.shape[0]):
        nx, ny, nz = table[f, 0], table[f, 1], table[f, 2]
        c = nx * sx + ny * sy + nz * sz
        a_lit = table[f, 9] * (c if c > 0.0 or c != c else 0.0)   # numpy's maximum: NaN passes
        w_n = a_lit * 2.0 * (table[f, 11] / 3.0 + table[f, 10] * c)  # along n
        w_s = a_lit * (1.0 - table[f, 10])  # along s
        fnx += w_n * nx
        fny += w_n * ny
        fnz += w_n * nz
        tnx += w_n * table[f, 6]
        tny += w_n * table[f, 7]
        tnz += w_n * table[f, 8]
        ws += w_s
        wcx += w_s * table[f, 3]
        wcy += w_s * table[f, 4]
        wcz += w_s * table[f, 5]
    return (p * (tnx + (wcy * sz - wcz * sy)), p * (tny + (wcz * sx - wcx * sz)), p * (tnz + (wcx * sy - wcy * sx)),
            p * (fnx + ws * sx), p * (fny + ws * sy), p * (fnz + ws * sz))


@jitable
def drag_facets(table, vx, vy, vz, density):
    """Free-molecular drag summed over the facets facing the flow: ``(Tx, Ty, Tz, Fx, Fy, Fz)`` (N m, N; body axes).

    Markley & Crassidis (2014) section 3.3.6, Wertz (1978) section 17.2 (the
    law of the module docstring): with ``u = v / |v|`` and ``cos a = n . u > 0``
    a facet feels ``F = -1/2 rho C_d A |v|^2 cos a u`` at its centre ``c``:
    ``T = c x F``.  ``table``: :attr:`Surfaces.table`; ``v``: the velocity
    relative to the air (m/s, body axes); ``density`` (kg/m^3).
    """
    speed = math.sqrt(vx * vx + vy * vy + vz * vz)
    safe = speed if speed > 0.0 else 1.0
    ux, uy, uz = vx / safe, vy / safe, vz / safe
    w_sum = wcx = wcy = wcz = 0.0
    for f in range(table.shape[0]):
        c = table[f, 0] * ux + table[f, 1] * uy + table[f, 2] * uz
        w = table[f, 12] * (c if c > 0.0 or c != c else 0.0)  # C_d A cos a on the facets facing the flow
        w_sum += w
        wcx += w * table[f, 3]
        wcy += w * table[f, 4]
        wcz += w * table[f, 5]
    k = -0.5 * density * speed * speed
    return (k * (wcy * uz - wcz * uy), k * (wcz * ux - wcx * uz), k * (wcx * uy - wcy * ux),
            k * w_sum * ux, k * w_sum * uy, k * w_sum * uz)


#: The laws :func:`summed` adds over the facets.
SRP_LAW, DRAG_LAW = 0, 1


@jitable
def summed(law, table, x, y, z, s):
    """A law's sum over the facets: :func:`srp_facets` (``SRP_LAW``: ``x, y, z`` the unit vector to the Sun,
    ``s`` the signed pressure) or :func:`drag_facets` (``DRAG_LAW``: the velocity relative to the air, ``s``
    the density)."""
    if law == SRP_LAW:
        return srp_facets(table, x, y, z, s)
    return drag_facets(table, x, y, z, s)


@kernel
def _one(law, table, x, y, z, s):
    return summed(law, table, x, y, z, s)


@kernel
def law_columns(law, table, x, y, z, s):
    """:func:`summed` for each body of a column: rows ``x, y, z`` (N,) and ``s`` (N,) -> (6, N)."""
    out = np.empty((6, x.shape[0]))
    for j in range(x.shape[0]):
        out[0, j], out[1, j], out[2, j], out[3, j], out[4, j], out[5, j] = summed(law, table, x[j], y[j], z[j], s[j])
    return out


def _torque_force(law, table, vector, s) -> tuple:
    """``(torque, force)`` of :func:`summed`: for one body (floats) or for each of a column (rows)."""
    if np.ndim(vector[0]) == 0 and np.ndim(s) == 0:
        out = _one(law, table, float(vector[0]), float(vector[1]), float(vector[2]), float(s))
        return out[:3], out[3:]
    out = law_columns(law, table, *_rows(vector[0], vector[1], vector[2], s))
    return (out[0], out[1], out[2]), (out[3], out[4], out[5])


def _rows(*values):
    """``values`` (floats or rows) as contiguous float rows of one common length."""
    return [np.array(v) for v in np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in values))]


@jitable
def pressure(distance=ASTRONOMICAL_UNIT, sunlit=1.0):
    """``-P (1 AU / d)^2`` times the visible fraction: the signed pressure :func:`srp_facets` takes (floats or rows).

    The square is ``x * x``: numpy's and numba's ``** 2`` are that, libm's ``pow`` (Python's float ``**``) is not
    always (about 1 in 1,000 distances here differ by an ulp), and the compiled loop must give Python's bits."""
    x = ASTRONOMICAL_UNIT / distance
    return -SOLAR_PRESSURE * (x * x) * sunlit


def srp(surfaces: Surfaces, sun, distance: float = ASTRONOMICAL_UNIT, sunlit=1.0) -> tuple:
    """``(torque, force)`` of solar radiation pressure (N m, N; body axes, about the centre of mass).

    ``sun`` the unit vector to the Sun in body axes (floats, or rows: one
    per body), ``distance`` from the Sun (m), ``sunlit`` the visible
    fraction of the solar disc (0 in the umbra).  :func:`srp_facets`.
    """
    return _torque_force(SRP_LAW, surfaces.table, sun, pressure(distance, sunlit))


def drag(surfaces: Surfaces, velocity, density) -> tuple:
    """``(torque, force)`` of free-molecular drag (N m, N; body axes, about the centre of mass).

    ``velocity`` the body's velocity relative to the air in body axes (m/s;
    floats, or rows), ``density`` the air's (kg/m^3; a float or a row).
    :func:`drag_facets`.
    """
    return _torque_force(DRAG_LAW, surfaces.table, velocity, density)


@jitable
def relative_velocity(r_eci, v_eci) -> tuple:
    """``v - w_E x r`` (m/s, ECI): the velocity relative to an atmosphere turning with the Earth about z
    (``w_E`` = :data:`EARTH_ROTATION_RATE`); Vallado (2013) section 8.6.2.  Arithmetic: floats or rows."""
    x, y, _ = r_eci
    vx, vy, vz = v_eci
    return (vx + EARTH_ROTATION_RATE * y, vy - EARTH_ROTATION_RATE * x, vz)
