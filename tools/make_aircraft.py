"""Generate ``assets/aircraft.obj``, the low-poly aircraft drawn by the 3D view.

The mesh is built in BODY coordinates: x toward the nose, y toward the right
wing, z down, so the vertical fin points toward -z.  The aircraft is about
10 units long (x from -5 to +5) and about 11 units in span.

Every part (fuselage, canopy, wing panels, tailplane, fin) is a closed
"loft": a sequence of convex cross-sections joined by quads and closed by
two fans.  Parts do not share vertices, so each part keeps its own colour.
All faces are wound counter-clockwise seen from outside (outward normals).

Output format: Wavefront OBJ with one common extension, vertex colours written
as ``v x y z r g b`` (r, g, b in [0, 1]).  Faces are triangles ``f i j k``
with 1-based vertex indices; ``o name`` lines label the parts.

Run ``python -m tools.make_aircraft [output.obj]`` from the checkout; the
output depends on nothing but this file, so the asset is reproducible byte
for byte (tests/app/view3d/test_viewer.py checks it).  Then run ``python -m
tools.bake_bodies`` to refresh its baked copy (``aircraft.npz``, what the
program loads; a test fails until you do).
"""

import sys
from pathlib import Path

import numpy as np

BODY_GREY = (0.80, 0.82, 0.85)
CANOPY_BLUE = (0.16, 0.26, 0.42)
LEFT_RED = (0.88, 0.10, 0.10)
RIGHT_GREEN = (0.10, 0.72, 0.22)

#: The checkout's assets folder (the default output).
ASSETS = Path(__file__).resolve().parents[1] / "assets"

RING_POINTS = 12
"""Points per fuselage cross-section."""

# Fuselage stations: x, half-width (y), half-height (z), centre z.
FUSELAGE = (
    (4.60, 0.22, 0.22, 0.05),
    (4.00, 0.45, 0.45, 0.02),
    (3.00, 0.62, 0.65, 0.00),
    (1.50, 0.70, 0.72, 0.00),
    (-0.50, 0.66, 0.68, 0.00),
    (-2.50, 0.42, 0.48, -0.10),
    (-4.30, 0.20, 0.26, -0.25),
    (-4.90, 0.10, 0.14, -0.30),
)
NOSE_TIP = (5.00, 0.0, 0.05)

# Canopy stations: x, half-width, height above the canopy base.
CANOPY = (
    (3.40, 0.20, 0.12),
    (2.90, 0.38, 0.33),
    (2.20, 0.42, 0.38),
    (1.40, 0.30, 0.20),
)
CANOPY_BASE_Z = -0.50
CANOPY_TIPS = ((3.80, 0.0, CANOPY_BASE_Z), (0.80, 0.0, CANOPY_BASE_Z))

# Lifting surfaces: span position, leading-edge x, chord, thickness, offset.
# For wings and tailplane the span runs along +y and the offset is z;
# for the fin the span runs along -z (up) and the offset is y.
WING_ROOT = (0.00, 1.90, 2.60, 0.28, 0.20)
WING_TIP = (5.60, 0.70, 1.20, 0.10, -0.29)
WING_TIP_PANEL_START = 4.20
"""Span station where the coloured wing tip panel begins."""
TAIL_ROOT = (0.00, -3.70, 1.30, 0.12, -0.20)
TAIL_TIP = (2.20, -4.30, 0.70, 0.06, -0.20)
FIN_ROOT = (0.30, -2.90, 2.00, 0.14, 0.00)
FIN_TIP = (2.30, -4.20, 0.80, 0.07, 0.00)


def ellipse_ring(x, half_width, half_height, z_centre, n=RING_POINTS):
    """Return an elliptic fuselage cross-section at station ``x``.

    Parameters
    ----------
    x : float
        Body x of the section.
    half_width, half_height : float
        Semi-axes along body y and body z.
    z_centre : float
        Body z of the section centre.
    n : int, optional
        Number of points.

    Returns
    -------
    numpy.ndarray
        ``(n, 3)`` points.
    """
    angle = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    return np.column_stack(
        (np.full(n, x), half_width * np.cos(angle), z_centre + half_height * np.sin(angle))
    )


def canopy_ring(x, half_width, height, n=7):
    """Return a half-elliptic canopy cross-section (upper half, toward -z).

    Parameters
    ----------
    x : float
        Body x of the section.
    half_width : float
        Semi-axis along body y.
    height : float
        Height of the canopy above ``CANOPY_BASE_Z`` (toward -z).
    n : int, optional
        Number of points; the straight base closes the polygon.

    Returns
    -------
    numpy.ndarray
        ``(n, 3)`` points.
    """
    angle = np.linspace(0.0, np.pi, n)
    return np.column_stack(
        (np.full(n, x), half_width * np.cos(angle), CANOPY_BASE_Z - height * np.sin(angle))
    )


def airfoil(leading_edge, chord, thickness):
    """Return a hexagonal airfoil outline in (chordwise x, thickness) coordinates.

    Parameters
    ----------
    leading_edge : float
        Body x of the leading edge.
    chord : float
        Chord length (the trailing edge is at ``leading_edge - chord``).
    thickness : float
        Maximum thickness.

    Returns
    -------
    numpy.ndarray
        ``(6, 2)`` outline, leading edge first.
    """
    half = 0.5 * thickness
    u = np.array([0.0, 0.15, 0.55, 1.0, 0.55, 0.15])
    v = np.array([0.0, half, 0.7 * half, 0.0, -0.7 * half, -half])
    return np.column_stack((leading_edge - chord * u, v))


def surface_section(station, vertical):
    """Return a 3-D section of a wing, tailplane or fin.

    Parameters
    ----------
    station : tuple of float
        ``(span, leading_edge, chord, thickness, offset)``.
    vertical : bool
        False for a surface spanning +y (offset is z), True for a fin spanning
        -z, i.e. upward (offset is y).

    Returns
    -------
    numpy.ndarray
        ``(6, 3)`` points.
    """
    span, leading_edge, chord, thickness, offset = station
    outline = airfoil(leading_edge, chord, thickness)
    ones = np.ones(len(outline))
    if vertical:
        return np.column_stack((outline[:, 0], offset + outline[:, 1], -span * ones))
    return np.column_stack((outline[:, 0], span * ones, offset + outline[:, 1]))


def interpolate_station(root, tip, span):
    """Return the station at ``span`` on the straight taper from root to tip.

    Parameters
    ----------
    root, tip : tuple of float
        Stations ``(span, leading_edge, chord, thickness, offset)``.
    span : float
        Span position between the two.

    Returns
    -------
    tuple of float
        The interpolated station.
    """
    t = (span - root[0]) / (tip[0] - root[0])
    return tuple((1.0 - t) * np.asarray(root) + t * np.asarray(tip))


def loft(rings, start_apex=None, end_apex=None):
    """Join cross-sections into a closed triangle mesh with outward faces.

    Parameters
    ----------
    rings : sequence of numpy.ndarray
        Convex cross-sections, each ``(k, 3)`` with the same ``k`` and the
        same sense of rotation.
    start_apex, end_apex : array-like of float, optional
        Points closing the first and last section; the section centroid
        (a flat cap) when omitted.

    Returns
    -------
    vertices : numpy.ndarray
        ``(n, 3)`` float array.
    faces : numpy.ndarray
        ``(m, 3)`` int array, wound counter-clockwise seen from outside.
    """
    rings = [np.asarray(r, dtype=float) for r in rings]
    k = len(rings[0])
    start = rings[0].mean(axis=0) if start_apex is None else np.asarray(start_apex, float)
    end = rings[-1].mean(axis=0) if end_apex is None else np.asarray(end_apex, float)
    vertices = np.vstack(rings + [start, end])
    s, e = len(vertices) - 2, len(vertices) - 1
    j = np.arange(k)
    jn = (j + 1) % k
    faces = []
    for i in range(len(rings) - 1):
        a, b, c, d = i * k + j, i * k + jn, (i + 1) * k + jn, (i + 1) * k + j
        faces += [np.column_stack((a, b, c)), np.column_stack((a, c, d))]
    last = (len(rings) - 1) * k
    faces.append(np.column_stack((np.full(k, s), jn, j)))
    faces.append(np.column_stack((np.full(k, e), last + j, last + jn)))
    faces = np.vstack(faces)
    if signed_volume(vertices, faces) < 0.0:
        faces = faces[:, ::-1]
    return vertices, faces


def signed_volume(vertices, faces):
    """Return the signed volume enclosed by a triangle mesh.

    Parameters
    ----------
    vertices : numpy.ndarray
        ``(n, 3)`` points.
    faces : numpy.ndarray
        ``(m, 3)`` vertex indices.

    Returns
    -------
    float
        Positive when the faces are wound counter-clockwise seen from outside.
    """
    p0, p1, p2 = (vertices[faces[:, i]] for i in range(3))
    return float(np.einsum("ij,ij->i", p0, np.cross(p1, p2)).sum() / 6.0)


def mirror_y(vertices, faces):
    """Mirror a part to the other side (y -> -y), keeping faces outward.

    Parameters
    ----------
    vertices : numpy.ndarray
        ``(n, 3)`` points.
    faces : numpy.ndarray
        ``(m, 3)`` vertex indices.

    Returns
    -------
    tuple of numpy.ndarray
        Mirrored vertices and re-wound faces.
    """
    return vertices * np.array([1.0, -1.0, 1.0]), faces[:, ::-1]


def wing_parts():
    """Return the wing panels as ``(name, vertices, faces, rgb)`` tuples.

    Each wing is an inner grey panel and an outer coloured tip panel:
    left (y < 0) red, right (y > 0) green.

    Returns
    -------
    list of tuple
        Four parts.
    """
    mid = interpolate_station(WING_ROOT, WING_TIP, WING_TIP_PANEL_START)
    inner = loft([surface_section(WING_ROOT, False), surface_section(mid, False)])
    tip = loft([surface_section(mid, False), surface_section(WING_TIP, False)])
    return [
        ("right_wing", *inner, BODY_GREY),
        ("right_wing_tip", *tip, RIGHT_GREEN),
        ("left_wing", *mirror_y(*inner), BODY_GREY),
        ("left_wing_tip", *mirror_y(*tip), LEFT_RED),
    ]


def aircraft_parts():
    """Return every part of the aircraft as ``(name, vertices, faces, rgb)``.

    Returns
    -------
    list of tuple
        The fuselage, canopy, wing panels, tailplane halves and fin.
    """
    fuselage = loft([ellipse_ring(*station) for station in reversed(FUSELAGE)], end_apex=NOSE_TIP)
    canopy = loft([canopy_ring(*station) for station in CANOPY], *CANOPY_TIPS)
    tail = loft([surface_section(TAIL_ROOT, False), surface_section(TAIL_TIP, False)])
    fin = loft([surface_section(FIN_ROOT, True), surface_section(FIN_TIP, True)])
    return [
        ("fuselage", *fuselage, BODY_GREY),
        ("canopy", *canopy, CANOPY_BLUE),
        *wing_parts(),
        ("right_tailplane", *tail, BODY_GREY),
        ("left_tailplane", *mirror_y(*tail), BODY_GREY),
        ("fin", *fin, BODY_GREY),
    ]


def obj_text(parts):
    """Format parts as OBJ text with ``v x y z r g b`` vertex colours.

    Parameters
    ----------
    parts : list of tuple
        ``(name, vertices, faces, rgb)`` tuples.

    Returns
    -------
    str
        The file contents.
    """
    lines = [
        "# attitude-sim aircraft, generated by tools/make_aircraft.py; do not edit.",
        "# Body coordinates: x nose, y right wing, z down (the fin points to -z).",
        "# Vertex colours: 'v x y z r g b' with r, g, b in [0, 1].",
        "# Left wing tip (y < 0) red, right wing tip (y > 0) green.",
    ]
    offset = 1
    for name, vertices, faces, rgb in parts:
        lines.append(f"o {name}")
        colour = " ".join(f"{c:.3f}" for c in rgb)
        rounded = np.round(vertices, 4) + 0.0  # + 0.0 turns -0.0 into 0.0
        lines += [f"v {x:.4f} {y:.4f} {z:.4f} {colour}" for x, y, z in rounded]
        lines += [f"f {a} {b} {c}" for a, b, c in faces + offset]
        offset += len(vertices)
    return "\n".join(lines) + "\n"


def main(argv):
    """Write the aircraft OBJ to ``argv[1]`` or ``assets/aircraft.obj`` of the checkout.

    Parameters
    ----------
    argv : list of str
        Command line arguments.
    """
    target = Path(argv[1]) if len(argv) > 1 else ASSETS / "aircraft.obj"
    target.write_text(obj_text(aircraft_parts()), encoding="ascii")


if __name__ == "__main__":
    main(sys.argv)
