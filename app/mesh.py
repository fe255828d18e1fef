"""Load the aircraft mesh from a Wavefront OBJ file with vertex colours.

Only the subset written by ``assets/make_aircraft.py`` is needed, and it is
read strictly:

* ``v x y z`` or ``v x y z r g b``: a vertex, optionally with an RGB colour in
  [0, 1] (a common OBJ extension).  Either every vertex has a colour or none.
* ``f i j k ...``: a face with 1-based (or negative, relative) vertex indices;
  ``i/t/n`` forms are accepted and the texture and normal parts ignored.
  Polygons with more than three corners are split into a triangle fan.
* ``#`` comments, blank lines and the statements ``o g s vn vt usemtl
  mtllib`` are ignored.

Anything else raises a :class:`ValueError` naming the file and line.
"""

import importlib.resources
from pathlib import Path

import numpy as np

DEFAULT_RGBA = (0.8, 0.8, 0.8, 1.0)
"""Colour given to every vertex of a file without vertex colours."""

IGNORED_STATEMENTS = frozenset({"o", "g", "s", "vn", "vt", "usemtl", "mtllib"})


def aircraft_path() -> Path:
    """The bundled aircraft mesh, ``assets/aircraft.obj``."""
    return Path(str(importlib.resources.files("assets").joinpath("aircraft.obj")))


def load_obj(path):
    """Read a triangle mesh with optional vertex colours from an OBJ file.

    Parameters
    ----------
    path : str or os.PathLike
        The OBJ file.

    Returns
    -------
    vertices : numpy.ndarray
        ``(n, 3)`` float32 vertex positions.
    faces : numpy.ndarray
        ``(m, 3)`` int32 zero-based vertex indices.
    colors : numpy.ndarray
        ``(n, 4)`` float32 RGBA vertex colours (alpha 1); ``DEFAULT_RGBA``
        for every vertex when the file has no colours.

    Raises
    ------
    ValueError
        If the file is malformed: unknown statements, wrong number of values,
        non-numeric or non-finite numbers, colours outside [0, 1], colours on
        only some vertices, faces with fewer than three corners or indices
        out of range, or no faces at all.
    """
    path = Path(path)
    positions, colours, faces = [], [], []
    with path.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, start=1):
            words = line.split("#", 1)[0].split()
            if not words or words[0] in IGNORED_STATEMENTS:
                continue
            where = f"{path}:{number}"
            if words[0] == "v":
                position, colour = _parse_vertex(words[1:], where)
                if colours and (colour is None) != (colours[0] is None):
                    raise ValueError(f"{where}: either every vertex has a colour or none does")
                positions.append(position)
                colours.append(colour)
            elif words[0] == "f":
                faces += _parse_face(words[1:], len(positions), where)
            else:
                raise ValueError(f"{where}: unsupported OBJ statement {words[0]!r}")
    return _assemble(path, positions, colours, faces)


def _parse_vertex(values, where):
    """Parse the values of a ``v`` statement.

    Parameters
    ----------
    values : list of str
        The words after ``v``.
    where : str
        ``file:line`` for error messages.

    Returns
    -------
    position : list of float
        x, y, z.
    colour : list of float or None
        r, g, b, or None when the vertex has no colour.
    """
    if len(values) not in (3, 6):
        raise ValueError(f"{where}: a vertex needs 3 or 6 values (x y z [r g b]), got {len(values)}")
    numbers = [_parse_float(value, where) for value in values]
    colour = numbers[3:] or None
    if colour is not None and not all(0.0 <= c <= 1.0 for c in colour):
        raise ValueError(f"{where}: vertex colour {colour} outside [0, 1]")
    return numbers[:3], colour


def _parse_float(text, where):
    """Parse one finite number.

    Parameters
    ----------
    text : str
        The word to parse.
    where : str
        ``file:line`` for error messages.

    Returns
    -------
    float
        The value.
    """
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a number") from None
    if not np.isfinite(value):
        raise ValueError(f"{where}: {text!r} is not finite")
    return value


def _parse_face(corners, vertex_count, where):
    """Parse a ``f`` statement into zero-based triangles (a fan for polygons).

    Parameters
    ----------
    corners : list of str
        The words after ``f``, each ``i``, ``i/t``, ``i//n`` or ``i/t/n``.
    vertex_count : int
        Number of vertices defined so far (faces refer backwards only).
    where : str
        ``file:line`` for error messages.

    Returns
    -------
    list of tuple of int
        The triangles.
    """
    if len(corners) < 3:
        raise ValueError(f"{where}: a face needs at least 3 vertices, got {len(corners)}")
    indices = [_parse_index(corner.split("/", 1)[0], vertex_count, where) for corner in corners]
    return [(indices[0], indices[i], indices[i + 1]) for i in range(1, len(indices) - 1)]


def _parse_index(text, vertex_count, where):
    """Convert one OBJ vertex reference to a zero-based index.

    Parameters
    ----------
    text : str
        A 1-based index, or a negative index counting back from the last vertex.
    vertex_count : int
        Number of vertices defined so far.
    where : str
        ``file:line`` for error messages.

    Returns
    -------
    int
        The zero-based index.
    """
    try:
        index = int(text)
    except ValueError:
        raise ValueError(f"{where}: {text!r} is not a vertex index") from None
    zero_based = index - 1 if index > 0 else vertex_count + index
    if index == 0 or not 0 <= zero_based < vertex_count:
        raise ValueError(f"{where}: vertex index {index} out of range (1..{vertex_count} defined)")
    return zero_based


def _assemble(path, positions, colours, faces):
    """Convert the parsed lists to arrays.

    Parameters
    ----------
    path : pathlib.Path
        The file, for error messages.
    positions : list of list of float
        Vertex positions.
    colours : list
        Vertex colours (lists of three floats), or all None.
    faces : list of tuple of int
        Zero-based triangles.

    Returns
    -------
    tuple of numpy.ndarray
        ``vertices``, ``faces`` and ``colors`` as documented in :func:`load_obj`.
    """
    if not faces:
        raise ValueError(f"{path}: no faces found")
    vertices = np.asarray(positions, dtype=np.float32)
    if colours[0] is not None:
        rgb = np.asarray(colours, dtype=np.float32)
        rgba = np.column_stack((rgb, np.ones(len(rgb), dtype=np.float32)))
    else:
        rgba = np.tile(np.asarray(DEFAULT_RGBA, dtype=np.float32), (len(vertices), 1))
    return vertices, np.asarray(faces, dtype=np.int32), rgba
