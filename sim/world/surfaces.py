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

Each law is a weighted sum over the facets; the sums run in one fixed order
(``numpy.cumsum`` along the facets), so one body (``s`` and ``v`` as
3-tuples of floats: facet arrays of shape ``(F,)``) and an ensemble's
columns (3-tuples of rows: ``(F, N)``) give the same numbers bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["SOLAR_PRESSURE", "ASTRONOMICAL_UNIT", "EARTH_ROTATION_RATE", "Surfaces", "facets", "srp",
           "drag", "relative_velocity"]

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
        # facet constants of the two laws, made once: c x n (F, 3)
        object.__setattr__(self, "_cxn", np.cross(self.centres, self.normals))


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


def _sum(terms):
    """``sum`` over the facets (axis 0) in one fixed order, the same for (F,) and (F, N)."""
    return np.cumsum(terms, axis=0)[-1]


def _cos(normals, u):
    """``n_f . u`` for every facet: (F,) for a 3-tuple of floats, (F, N) for a 3-tuple of rows."""
    ux, uy, uz = u
    if np.ndim(ux) == 0:
        return normals[:, 0] * ux + normals[:, 1] * uy + normals[:, 2] * uz
    return (normals[:, 0, None] * np.asarray(ux)[None, :] + normals[:, 1, None] * np.asarray(uy)[None, :]
            + normals[:, 2, None] * np.asarray(uz)[None, :])


def _col(x, like):
    """The facet constant ``x`` (F,) shaped to multiply ``like`` ((F,) or (F, N))."""
    return x if np.ndim(like) == 1 else x[:, None]


def _out(x, scalar):
    return float(x) if scalar else x


def srp(surfaces: Surfaces, sun, distance: float = ASTRONOMICAL_UNIT, sunlit=1.0) -> tuple:
    """``(torque, force)`` of solar radiation pressure (N m, N; body axes, about the centre of mass).

    ``sun`` the unit vector to the Sun in body axes (floats, or rows: one
    per body), ``distance`` from the Sun (m), ``sunlit`` the visible
    fraction of the solar disc (0 in the umbra).  The law of the module
    docstring summed over the lit facets.
    """
    scalar = np.ndim(sun[0]) == 0
    c = _cos(surfaces.normals, sun)
    lit = np.maximum(c, 0.0)
    a_lit = _col(surfaces.areas, c) * lit
    w_n = a_lit * 2.0 * (_col(surfaces.diffuse, c) / 3.0 + _col(surfaces.specular, c) * c)  # along n
    w_s = a_lit * (1.0 - _col(surfaces.specular, c))  # along s
    p = -SOLAR_PRESSURE * (ASTRONOMICAL_UNIT / distance) ** 2 * sunlit
    sx, sy, sz = sun
    sum_ws = _sum(w_s)
    force, torque = [], []
    wc = [_sum(w_s * _col(surfaces.centres[:, i], c)) for i in range(3)]  # sum w_s c
    for i, si in enumerate((sx, sy, sz)):
        force.append(_out(p * (_sum(w_n * _col(surfaces.normals[:, i], c)) + sum_ws * si), scalar))
    cxs = (wc[1] * sz - wc[2] * sy, wc[2] * sx - wc[0] * sz, wc[0] * sy - wc[1] * sx)
    for i in range(3):
        torque.append(_out(p * (_sum(w_n * _col(surfaces._cxn[:, i], c)) + cxs[i]), scalar))
    return tuple(torque), tuple(force)


def drag(surfaces: Surfaces, velocity, density) -> tuple:
    """``(torque, force)`` of free-molecular drag (N m, N; body axes, about the centre of mass).

    ``velocity`` the body's velocity relative to the air in body axes (m/s;
    floats, or rows), ``density`` the air's (kg/m^3; a float or a row).
    The law of the module docstring over the facets facing the flow.
    """
    scalar = np.ndim(velocity[0]) == 0
    vx, vy, vz = velocity
    speed = np.sqrt(vx * vx + vy * vy + vz * vz)
    safe = np.where(speed > 0.0, speed, 1.0)
    u = (vx / safe, vy / safe, vz / safe)
    c = _cos(surfaces.normals, u)
    w = _col(surfaces.drag * surfaces.areas, c) * np.maximum(c, 0.0)  # C_d A cos a on facets facing the flow
    k = -0.5 * density * speed * speed
    wsum = _sum(w)
    wc = [_sum(w * _col(surfaces.centres[:, i], c)) for i in range(3)]
    force = tuple(_out(k * wsum * ui, scalar) for ui in u)
    cxu = (wc[1] * u[2] - wc[2] * u[1], wc[2] * u[0] - wc[0] * u[2], wc[0] * u[1] - wc[1] * u[0])
    torque = tuple(_out(k * x, scalar) for x in cxu)
    return torque, force


def relative_velocity(r_eci, v_eci) -> tuple:
    """``v - w_E x r`` (m/s, ECI): the velocity relative to an atmosphere turning with the Earth about z
    (``w_E`` = :data:`EARTH_ROTATION_RATE`); Vallado (2013) section 8.6.2.  Arithmetic: floats or rows."""
    x, y, _ = r_eci
    vx, vy, vz = v_eci
    return (vx + EARTH_ROTATION_RATE * y, vy - EARTH_ROTATION_RATE * x, vz)
