"""Generate the built-in body meshes ``assets/bodies/{t_handle,phone,satellite,cubesat_3u}.obj``.

Every body is built in BODY coordinates (x nose, y right, z down; the view
shows -z up) in metres, from closed prisms: a convex outline in one plane
extruded along the third axis, with outward normals.  Parts touch face to
face and never overlap, so the solid's volume integrals are the sums of the
parts' and the inertia trimesh computes from the mesh is the solid's.  Each
body is shifted so that its centre of mass is the origin.

* ``t_handle``: Dzhanibekov's wing nut as a T-handle, a flat T in the x-y
  plane (crossbar along y, stem along +x).  Principal moments
  ``Ixx < Iyy < Izz``: spun about y, its intermediate axis, it flips.
* ``phone``: 150 x 72 x 8 mm with rounded corners, the screen on top (-z)
  and a camera bump at the back: spun about y (its intermediate axis), it
  flips like a tennis racket.
* ``satellite``: a 0.6 x 0.5 x 0.5 m bus with two solar panels on booms
  along y and an antenna on the nadir (+z) face.
* ``cubesat_3u``: a 3U CubeSat, 340.5 x 100 x 100 mm, long axis along x,
  cells on the +-z faces.

Output: Wavefront OBJ with vertex colours (``v x y z r g b``), triangles
``f i j k``, ``o name`` per part; caps and sides have their own vertices so
each keeps its colour (the mass-properties code merges coincident vertices).
Run ``python -m tools.make_bodies [folder]`` from the checkout; the output
depends on nothing but this file (the centring uses trimesh, a dependency of
the project; tests/app/cli/test_mass_properties.py checks it).  Then run ``python -m
tools.bake_bodies`` to refresh the baked copies (``<name>.npz``, what the
program loads; a test fails until you do).
"""

import sys
from pathlib import Path

import numpy as np
import trimesh

ARC_POINTS = 8
"""Points per quarter circle of rounded outlines."""

STEEL = (0.72, 0.74, 0.78)
STEEL_DARK = (0.50, 0.53, 0.58)
HANDLE_RED = (0.85, 0.22, 0.16)
HANDLE_RED_DARK = (0.60, 0.14, 0.10)
PHONE_FRAME = (0.62, 0.64, 0.68)
PHONE_BACK = (0.30, 0.45, 0.62)
SCREEN = (0.06, 0.08, 0.12)
LENS = (0.12, 0.12, 0.14)
GOLD = (0.86, 0.66, 0.22)
GOLD_DARK = (0.62, 0.46, 0.14)
PANEL_BLUE = (0.20, 0.34, 0.78)
PANEL_BACK = (0.70, 0.72, 0.76)
BOOM = (0.80, 0.80, 0.82)
ANTENNA = (0.92, 0.92, 0.90)


def rounded_rectangle(x0, x1, y0, y1, radius, n=ARC_POINTS):
    """Counter-clockwise outline of a rectangle with rounded corners (convex).

    Parameters
    ----------
    x0, x1, y0, y1 : float
        The rectangle.
    radius : float
        Corner radius (0 for sharp corners; half the short side for a stadium).
    n : int
        Points per quarter circle.

    Returns
    -------
    numpy.ndarray
        ``(k, 2)`` points.
    """
    if radius <= 0.0:
        return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    corners = ((x1 - radius, y0 + radius, -90.0), (x1 - radius, y1 - radius, 0.0),
               (x0 + radius, y1 - radius, 90.0), (x0 + radius, y0 + radius, 180.0))
    points = []
    for cx, cy, start in corners:
        angles = np.radians(start + np.linspace(0.0, 90.0, n + 1))
        points += list(zip(cx + radius * np.cos(angles), cy + radius * np.sin(angles)))
    return _drop_repeats(np.array(points))


def _drop_repeats(points):
    """Remove consecutive duplicate points (a stadium's corner arcs meet)."""
    keep = np.ones(len(points), dtype=bool)
    keep[1:] = np.linalg.norm(np.diff(points, axis=0), axis=1) > 1e-12
    if np.linalg.norm(points[-1] - points[0]) <= 1e-12:
        keep[-1] = False
    return points[keep]


def prism(outline, low, high, axes, cap_colors, side_color):
    """A closed prism: a convex outline extruded from ``low`` to ``high``.

    Parameters
    ----------
    outline : numpy.ndarray
        ``(k, 2)`` counter-clockwise convex outline in the plane of
        ``axes[0]``, ``axes[1]``.
    low, high : float
        Extent along the third axis ``axes[2]``.
    axes : tuple of int
        ``(u, v, w)``: a cyclic permutation of ``(0, 1, 2)``, so that u x v = w.
    cap_colors : tuple
        RGB of the cap at ``low`` and the cap at ``high``.
    side_color : tuple
        RGB of the sides.

    Returns
    -------
    list of tuple
        ``(vertices, faces, rgb)`` pieces, faces wound outward.
    """
    if axes not in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
        raise ValueError(f"axes {axes} is not a cyclic permutation of (0, 1, 2)")
    k = len(outline)

    def place(points2, w):
        out = np.zeros((len(points2), 3))
        out[:, axes[0]], out[:, axes[1]], out[:, axes[2]] = points2[:, 0], points2[:, 1], w
        return out

    centre = outline.mean(axis=0, keepdims=True)
    ring = np.arange(k)
    fan = np.column_stack((np.full(k, k), ring, (ring + 1) % k))  # counter-clockwise: normal +w
    pieces = [
        (place(np.vstack((outline, centre)), low), fan[:, ::-1], cap_colors[0]),
        (place(np.vstack((outline, centre)), high), fan, cap_colors[1]),
    ]
    side = np.vstack((place(outline, low), place(outline, high)))
    a, b = ring, (ring + 1) % k
    faces = np.vstack((np.column_stack((a, b, b + k)), np.column_stack((a, b + k, a + k))))
    pieces.append((side, faces, side_color))
    return pieces


def box(x, y, z, top, bottom, side):
    """An axis-aligned box ``x = (x0, x1)`` etc.; ``top`` is the -z face (up in the view)."""
    outline = rounded_rectangle(x[0], x[1], y[0], y[1], 0.0)
    return prism(outline, z[0], z[1], (0, 1, 2), (top, bottom), side)


def t_handle():
    """Crossbar (a stadium along y) and stem (along +x, rounded tip): a flat T, 12 mm thick."""
    bar_half_width, bar_length, thickness = 0.009, 0.10, 0.012
    stem_half_width, stem_length = 0.006, 0.085
    bar = rounded_rectangle(-bar_half_width, bar_half_width, -bar_length / 2, bar_length / 2, bar_half_width)
    stem = rounded_tip(bar_half_width, bar_half_width + stem_length, stem_half_width)
    z = (-thickness / 2, thickness / 2)
    return [("crossbar", *_merge(prism(bar, *z, (0, 1, 2), (HANDLE_RED, HANDLE_RED_DARK), HANDLE_RED_DARK))),
            ("stem", *_merge(prism(stem, *z, (0, 1, 2), (STEEL, STEEL_DARK), STEEL_DARK)))]


def rounded_tip(x0, x1, half_width, n=ARC_POINTS):
    """Counter-clockwise outline of a bar from ``x0`` to ``x1`` with a square root and a round tip."""
    centre = x1 - half_width
    angles = np.radians(np.linspace(-90.0, 90.0, 2 * n + 1))
    arc = np.column_stack((centre + half_width * np.cos(angles), half_width * np.sin(angles)))
    return np.vstack(([(x0, -half_width)], arc, [(x0, half_width)]))


def phone():
    """Rounded slab with the screen on top (-z) and a camera bump at the back (+z)."""
    length, width, thickness, corner = 0.150, 0.072, 0.008, 0.009
    outline = rounded_rectangle(-length / 2, length / 2, -width / 2, width / 2, corner)
    slab = prism(outline, -thickness / 2, thickness / 2, (0, 1, 2), (SCREEN, PHONE_BACK), PHONE_FRAME)
    bump = rounded_rectangle(0.040, 0.066, 0.008, 0.030, 0.004)
    lens = prism(bump, thickness / 2, thickness / 2 + 0.0015, (0, 1, 2), (LENS, LENS), PHONE_FRAME)
    return [("phone", *_merge(slab)), ("camera", *_merge(lens))]


def satellite():
    """Bus (gold foil), booms along +-y, solar panels (cells on top, -z), nadir antenna (+z)."""
    bus_x, bus_y, bus_z = 0.30, 0.25, 0.25
    boom_end, panel_end, panel_half_x, panel_half_z, boom_half = 0.38, 1.58, 0.26, 0.012, 0.02
    parts = [("bus", *_merge(box((-bus_x, bus_x), (-bus_y, bus_y), (-bus_z, bus_z), GOLD, GOLD_DARK, GOLD)))]
    for sign, name in ((1.0, "right"), (-1.0, "left")):
        y_boom = tuple(sorted((sign * bus_y, sign * boom_end)))
        y_panel = tuple(sorted((sign * boom_end, sign * panel_end)))
        parts.append((f"{name}_boom", *_merge(box((-boom_half, boom_half), y_boom, (-boom_half, boom_half),
                                                  BOOM, BOOM, BOOM))))
        parts.append((f"{name}_panel", *_merge(box((-panel_half_x, panel_half_x), y_panel,
                                                   (-panel_half_z, panel_half_z), PANEL_BLUE, PANEL_BACK,
                                                   PANEL_BACK))))
    dish = rounded_rectangle(-0.08, 0.08, -0.08, 0.08, 0.08)  # a disc
    parts.append(("antenna", *_merge(prism(dish, bus_z, bus_z + 0.06, (0, 1, 2), (ANTENNA, ANTENNA), ANTENNA))))
    return parts


def cubesat_3u():
    """A 3U CubeSat, 340.5 x 100 x 100 mm (CubeSat Design Specification rev. 14), long axis along x;
    body-mounted cells on the +-z faces, aluminium elsewhere."""
    half_x, half = 0.17025, 0.05
    return [("cubesat", *_merge(box((-half_x, half_x), (-half, half), (-half, half), PANEL_BLUE, PANEL_BLUE,
                                    STEEL)))]


def _merge(pieces):
    """Concatenate prism pieces into ``(vertices, faces, colours)`` of one part."""
    vertices, faces, colors, offset = [], [], [], 0
    for v, f, rgb in pieces:
        vertices.append(v)
        faces.append(f + offset)
        colors.append(np.tile(rgb, (len(v), 1)))
        offset += len(v)
    return np.vstack(vertices), np.vstack(faces), np.vstack(colors)


def centred(parts):
    """Shift every part so that the solid's centre of mass (uniform density) is the origin."""
    vertices = np.vstack([np.round(v, 6) for _, v, _, _ in parts])
    offsets = np.cumsum([0] + [len(v) for _, v, _, _ in parts])
    faces = np.vstack([f + o for (_, _, f, _), o in zip(parts, offsets)])
    solid = trimesh.Trimesh(vertices, faces, process=True)
    assert solid.is_watertight and solid.is_winding_consistent and solid.volume > 0, "not a closed solid"
    centre = solid.center_mass
    return [(name, v - centre, f, c) for name, v, f, c in parts]


def obj_text(title, parts):
    """OBJ text with ``v x y z r g b`` vertex colours for ``(name, vertices, faces, colours)`` parts."""
    lines = [f"# attitude-sim built-in body: {title}; generated by tools/make_bodies.py, do not edit.",
             "# Body coordinates in metres: x nose, y right, z down; the centre of mass is the origin.",
             "# Vertex colours: 'v x y z r g b' with r, g, b in [0, 1]."]
    offset = 1
    for name, vertices, faces, colors in parts:
        lines.append(f"o {name}")
        rounded = np.round(vertices, 6) + 0.0  # + 0.0 turns -0.0 into 0.0
        lines += [f"v {x:.6f} {y:.6f} {z:.6f} {r:.3f} {g:.3f} {b:.3f}"
                  for (x, y, z), (r, g, b) in zip(rounded, colors)]
        lines += [f"f {a} {b} {c}" for a, b, c in faces + offset]
        offset += len(vertices)
    return "\n".join(lines) + "\n"


BODIES = {"t_handle": ("T-handle", t_handle), "phone": ("phone", phone), "satellite": ("small satellite", satellite),
          "cubesat_3u": ("3U CubeSat", cubesat_3u)}


def main(argv):
    """Write every body's OBJ into ``argv[1]`` or ``assets/bodies`` of the checkout."""
    folder = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parents[1] / "assets" / "bodies"
    folder.mkdir(parents=True, exist_ok=True)
    for name, (title, build) in BODIES.items():
        (folder / f"{name}.obj").write_text(obj_text(title, centred(build())), encoding="ascii")


if __name__ == "__main__":
    main(sys.argv)
