"""A body's mesh for drawing: triangles and colours in body coordinates (normals: per face, by the view).

The file is read once, by :func:`sim.shape.load` (trimesh: OBJ with vertex
colours, STL, PLY, glTF), which also finds the body origin (the centre of
mass of the solid, see :mod:`sim.shape`).  Here the vertices are moved to
that origin and converted to the float32 arrays the view uploads.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.shape import load

__all__ = ["BodyMesh", "body_mesh", "aircraft_path"]


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
    sim.shape.ShapeError
        The body is unknown or its file is not a usable mesh (the message
        says why).
    """
    shape = load(body, units)
    vertices = (shape.vertices - shape.centre).astype(np.float32)
    return BodyMesh(shape.body, vertices, shape.faces.astype(np.int32), shape.colors.astype(np.float32),
                    max(shape.size, 1e-9), units)
