"""A body's mesh for drawing: triangles and colours in body coordinates (normals: per face, by the view).

The file is read once, by :func:`sim.model.shape.load` (trimesh: OBJ with vertex
colours, STL, PLY, glTF), which also finds the body origin (the centre of
mass of the solid, see :mod:`sim.model.shape`).  Here the vertices are moved to
that origin and converted to the float32 arrays the view uploads.
:func:`decimated` makes a coarse copy of a mesh, for views that draw a
thousand copies of it (the ensemble's aircraft).
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim import load_shape as load

__all__ = ["BodyMesh", "body_mesh", "aircraft_path", "decimated"]


def aircraft_path() -> Path:
    """The bundled aircraft mesh, ``assets/aircraft.obj``."""
    return Path(str(importlib.resources.files("assets").joinpath("aircraft.obj")))


@dataclass(frozen=True, eq=False)
class BodyMesh:
    """A body's triangles in body coordinates (x nose, y right, z down; origin the centre of mass).

    Attributes
    ----------
    body : str
        Built-in name or mesh file.
    vertices : numpy.ndarray
        ``(n, 3)`` float32 positions (m).
    faces : numpy.ndarray
        ``(m, 3)`` int32 vertex indices, counter-clockwise seen from outside.
    colors : numpy.ndarray
        ``(n, 4)`` float32 RGBA in [0, 1].
    size : float
        Largest distance of a vertex from the origin (m): what the view
        scales its camera, grid, ghosts and gimbal rig by.
    """

    body: str
    vertices: np.ndarray
    faces: np.ndarray
    colors: np.ndarray
    size: float
    units: str = "m"


def body_mesh(body: str, units: str = "m") -> BodyMesh:
    """The mesh of a built-in body or mesh file (its coordinates in ``units``), in metres, moved to the body origin.

    Raises
    ------
    sim.model.shape.ShapeError
        The body is unknown or its file is not a usable mesh (the message
        says why).
    """
    shape = load(body, units)
    vertices = (shape.vertices - shape.centre).astype(np.float32)
    return BodyMesh(shape.body, vertices, shape.faces.astype(np.int32), shape.colors.astype(np.float32),
                    max(shape.size, 1e-9), units)


def decimated(mesh: BodyMesh, most: int) -> BodyMesh:
    """A copy of ``mesh`` with at most ``most`` triangles, by vertex clustering (``mesh`` when it has no more).

    The vertices are gathered in the cells of a grid over the mesh's box,
    each cell's replaced by their mean, and the triangles that collapse (two
    corners in one cell) or repeat dropped; the grid gets coarser until at
    most ``most`` triangles are left.  Each kept triangle keeps its corners'
    order (its winding, so back faces can still be culled) and the colour of
    its first corner; the copy's triangles do not share vertices (one colour
    each).  Thin parts fold flat (a wing's top and bottom meet), which
    back-face culling draws cleanly.  Good enough for copies a few dozen
    pixels across; ``size`` is kept, so the copy is drawn at the scale of the
    original.

    Examples
    --------
    >>> len(decimated(body_mesh("aircraft"), 64).faces) <= 64
    True
    """
    faces = mesh.faces
    if len(faces) <= most:
        return mesh
    vertices = mesh.vertices.astype(float)
    low = vertices.min(axis=0)
    extent = float((vertices.max(axis=0) - low).max()) or 1.0
    for cells in range(48, 0, -1):
        key = np.floor((vertices - low) / (extent / cells)).astype(np.int64)
        _, cluster, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
        cluster = cluster.ravel()
        corners = cluster[faces]
        kept = np.flatnonzero((corners[:, 0] != corners[:, 1]) & (corners[:, 1] != corners[:, 2])
                              & (corners[:, 0] != corners[:, 2]))
        _, first = np.unique(np.sort(corners[kept], axis=1), axis=0, return_index=True)
        kept = kept[np.sort(first)]  # one of each set of corners, in the mesh's order
        if len(kept) <= most:
            break
    centres = np.zeros((len(counts), 3))
    np.add.at(centres, cluster, vertices)
    centres /= counts[:, None]
    points = centres[corners[kept]].reshape(-1, 3).astype(np.float32)
    colors = np.repeat(mesh.colors[faces[kept, 0]], 3, axis=0).astype(np.float32)
    return BodyMesh(mesh.body, points, np.arange(len(points), dtype=np.int32).reshape(-1, 3), colors, mesh.size,
                    mesh.units)
