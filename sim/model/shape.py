"""Bodies as meshes: the built-in bodies, mesh files and their mass properties.

A body is a triangle mesh (what the view draws) plus its mass properties
(what the dynamics use).  The built-ins are Hoffmann's aircraft, whose
inertia is his tensor (Appendix A) and whose mesh is only a picture, and
three bodies whose inertia comes from their mesh: a T-handle, a phone and a
small satellite.  Any OBJ, STL, PLY or glTF file is a body too.  Lengths in
mesh files are metres unless another unit is named (:data:`MESH_UNITS`:
millimetres, centimetres, inches, as CAD tools export them); the mesh is
scaled to metres when it is read, so its inertia at a given mass scales
with the square of the unit.

A closed mesh wound inside out (negative volume: every normal points in,
as some exporters write a mirrored part) is repaired with trimesh's normal
fixing (``trimesh.repair.fix_inversion``), and :attr:`Shape.note` says so in
one line; a mesh that is open, wound inconsistently (neighbouring faces
disagree on the outside) or encloses no volume gives no inertia.

Inertia from a mesh
-------------------
A closed (watertight), consistently wound mesh with outward normals bounds a
solid; at uniform density and total mass ``m`` its centre of mass and its
inertia tensor about that centre are volume integrals, which trimesh
evaluates exactly over the mesh's tetrahedra (``Trimesh.moment_inertia``,
``center_mass``, ``volume``; density 1, scaled to the mass).
trimesh's ``moment_inertia`` is the tensor itself,
``I = integral of (|r|^2 E - r r^T) dm``, so ``I[0, 1] = -integral of x y dm``.
Hoffmann's matrix (FillJ33, Appendix A) writes the products with a minus
sign, ``J[0, 1] = -Jxy``, so the two matrices are the same and Hoffmann's six
numbers are::

    Jxx, Jyy, Jzz = I[0, 0], I[1, 1], I[2, 2]
    Jxy, Jxz, Jyz = -I[0, 1], -I[0, 2], -I[1, 2]     (Jxy = integral of x y dm)

The body frame is the mesh's frame moved to the centre of mass.  A mesh
whose inertia is given explicitly (the aircraft, or ``inertia`` beside a
file) keeps its own origin when it encloses no volume.

Baked built-ins
---------------
Each built-in's OBJ has a baked copy beside it (``<name>.npz``): the arrays
and mass properties that reading the OBJ with trimesh gives, written by
:func:`bake` (``python -m tools.bake_bodies``; a test checks that every
baked copy still equals its OBJ read through trimesh).  Built-ins load from
the baked copy, so trimesh (and scipy, which trimesh imports when it is
installed: tens of MB resident, docs/PERFORMANCE.md) is imported only when a mesh file
of the user's is read.
"""

from __future__ import annotations

import functools
import importlib.resources
import io
import math
import os
import stat as stat_module
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.core.body import HOFFMANN_INERTIA, inertia_tensor
from sim.io.reading import FileRefused, kind_of, read_regular
from sim.io.limits import LIMITS

__all__ = ["bake", "Builtin", "BUILTINS", "DEFAULT_BODY", "MassProperties", "MESH_SUFFIXES", "MESH_UNITS",
           "MAX_TRIANGLES", "MAX_MESH_BYTES", "Shape", "ShapeError", "components", "load", "mass_properties",
           "resolve"]

#: File suffixes read as meshes.
MESH_SUFFIXES = (".obj", ".stl", ".ply", ".glb", ".gltf")
#: Length units of a mesh file's coordinates, in metres.
MESH_UNITS = {"m": 1.0, "cm": 0.01, "mm": 0.001, "in": 0.0254}
#: Largest mesh accepted (triangles): more would not be drawn at an interactive rate (:data:`sim.io.limits.LIMITS`).
MAX_TRIANGLES = LIMITS["mesh_triangles"].high
#: Largest mesh file read, bytes: refused by its size, before it is read (:data:`sim.io.limits.LIMITS`).
MAX_MESH_BYTES = LIMITS["mesh_bytes"].high
#: Mass given to a mesh file when no ``mass`` is set (kg).
DEFAULT_FILE_MASS = 1.0


class ShapeError(ValueError):
    """A body cannot be used: the message names the body or file and says why."""


@dataclass(frozen=True)
class Builtin:
    """A built-in body: a mesh in the ``assets`` package and its mass properties.

    ``inertia`` (Hoffmann's six numbers) is given for a body whose mesh is
    only a picture; otherwise the inertia comes from the mesh at ``mass``.
    """

    name: str
    title: str
    resource: str
    mass: float | None = None
    inertia: tuple | None = None


#: The built-in bodies by name (the order of the window's chooser).
BUILTINS = {b.name: b for b in (
    Builtin("aircraft", "Aircraft (Hoffmann)", "aircraft.obj", inertia=HOFFMANN_INERTIA),
    Builtin("t_handle", "T-handle", "bodies/t_handle.obj", mass=0.25),
    Builtin("phone", "Phone", "bodies/phone.obj", mass=0.2),
    Builtin("satellite", "Satellite", "bodies/satellite.obj", mass=60.0),
    Builtin("cubesat_3u", "3U CubeSat", "bodies/cubesat_3u.obj", mass=4.0),
)}
DEFAULT_BODY = "aircraft"


def components(tensor) -> tuple:
    """Hoffmann's six numbers ``(Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)`` of an inertia tensor.

    ``tensor`` is the matrix ``J = [[Jxx, -Jxy, -Jxz], [-Jxy, Jyy, -Jyz],
    [-Jxz, -Jyz, Jzz]]`` (Hoffmann, Appendix A, FillJ33), which is also
    trimesh's ``moment_inertia``.
    """
    j = np.asarray(tensor, dtype=float)
    return (float(j[0, 0]), float(j[1, 1]), float(j[2, 2]),
            float(-j[0, 1]) + 0.0, float(-j[0, 2]) + 0.0, float(-j[1, 2]) + 0.0)


def resolve(body: str) -> str:
    """A built-in name as it is, or a mesh file as an absolute path; ShapeError otherwise."""
    if not isinstance(body, str) or not body:
        raise ShapeError(f"expected a built-in body ({', '.join(BUILTINS)}) or a mesh file, got {body!r}")
    if body in BUILTINS:
        return body
    path = Path(body).expanduser()
    try:
        info = os.stat(path)
    except FileNotFoundError:
        info = None
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte, no permission on a folder
        reason = getattr(exc, "strerror", None) or "not a valid file name"
        raise ShapeError(f"{body!r}: cannot read ({reason})") from None
    if info is not None and not stat_module.S_ISREG(info.st_mode):
        raise ShapeError(f"{body}: is {kind_of(info.st_mode)}, not a mesh file (a regular file)")
    if path.suffix.lower() not in MESH_SUFFIXES:
        raise ShapeError(f"{body!r} is neither a built-in body ({', '.join(BUILTINS)}) "
                         f"nor a mesh file ({', '.join(MESH_SUFFIXES)})")
    if info is None:
        raise ShapeError(f"{body}: no such file")
    return str(path.resolve())


@dataclass(frozen=True, eq=False)
class Shape:
    """A body's mesh as read, and what its geometry says about its mass.

    Attributes
    ----------
    body : str
        The built-in name or the file's absolute path.
    vertices, faces, colors : numpy.ndarray
        The mesh as in the file (float ``(n, 3)`` in mesh coordinates, int
        ``(m, 3)``, float ``(n, 4)`` RGBA in [0, 1]).
    centre : numpy.ndarray
        The body origin in mesh coordinates: the centre of mass of the
        solid, or the mesh's origin when the inertia is explicit and the mesh
        encloses no volume.
    unit_inertia : numpy.ndarray or None
        Inertia tensor about ``centre`` per kilogram (uniform density), or
        None when the mesh bounds no solid (``problem`` says why).
    problem : str or None
        Why the mesh gives no inertia.
    mass : float or None
        The body's own mass (kg); None for a body with explicit inertia.
    inertia : tuple or None
        The built-in's explicit inertia (Hoffmann's six numbers).
    note : str or None
        What was repaired to read the mesh (its faces turned outward), in
        one line naming the file; None when it was read as it is.
    units : str
        The length unit of the file (a key of :data:`MESH_UNITS`); the
        vertices are in metres.
    """

    body: str
    vertices: np.ndarray
    faces: np.ndarray
    colors: np.ndarray
    centre: np.ndarray
    unit_inertia: np.ndarray | None
    problem: str | None
    mass: float | None
    inertia: tuple | None
    note: str | None = None
    units: str = "m"

    @property
    def size(self) -> float:
        """Largest distance of a vertex from the body origin (m)."""
        return float(np.max(np.linalg.norm(self.vertices - self.centre, axis=1)))

    def inertia_at(self, mass: float) -> tuple:
        """Hoffmann's six numbers about the centre of mass for a total ``mass`` (kg).

        Checked as an explicit inertia is (:func:`sim.core.body.inertia_tensor`:
        the principal moments in the range of ``LIMITS["inertia"]``), so a
        mesh and a mass never give a body the simulation refuses later.
        """
        if self.unit_inertia is None:
            raise ShapeError(f"{self.body}: {self.problem}; give the inertia explicitly")
        with np.errstate(all="ignore"):
            j = mass * self.unit_inertia
            noise = 1e-12 * np.max(np.diag(j))  # rounding in the volume integrals of a symmetric mesh
            comps = components(np.where(np.abs(j) > noise, j, 0.0))
        try:
            inertia_tensor(*comps)
        except ValueError as exc:
            units = "" if self.units == "m" else f", read in {self.units}"
            raise ShapeError(f"{self.body}: the inertia from the mesh at {mass:g} kg{units}: {exc}") from None
        return comps


@dataclass(frozen=True)
class MassProperties:
    """The mass properties in force: ``inertia`` (Hoffmann's six numbers) and where they come from.

    ``explicit`` is True when the inertia was given (a setting, or the
    aircraft's tensor) rather than computed from the mesh at ``mass``;
    ``note`` says what was repaired to read the mesh (:attr:`Shape.note`).
    """

    mass: float | None
    inertia: tuple
    explicit: bool
    note: str | None = None


def mass_properties(body: str = DEFAULT_BODY, mass: float | None = None,
                    inertia: tuple | None = None, units: str = "m") -> MassProperties:
    """The mass properties of a body: explicit ``inertia`` wins, then the built-in's, then the mesh's.

    Parameters
    ----------
    body : str
        A built-in name or a mesh file.
    mass : float, optional
        Total mass (kg) for an inertia from the mesh; default the body's
        own (a file: 1 kg).
    inertia : tuple of 6 floats, optional
        Explicit ``(Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)``, Hoffmann's signs.
    units : str
        The length unit of a mesh file (:data:`MESH_UNITS`).

    Raises
    ------
    ShapeError
        When the inertia must come from a mesh that bounds no solid, the
        file cannot be read as a mesh, or the mesh at ``mass`` gives an
        inertia out of range.
    """
    if inertia is not None:
        return MassProperties(mass, tuple(inertia), True)
    builtin = BUILTINS.get(body)
    if builtin is not None and builtin.inertia is not None:  # no mesh needed
        return MassProperties(builtin.mass if mass is None else mass, builtin.inertia, True)
    shape = load(body, units)
    mass = shape.mass if mass is None else mass
    return MassProperties(mass, shape.inertia_at(mass), False, shape.note)


def load(body: str, units: str = "m") -> Shape:
    """Read a body's mesh (a built-in name or a file) and its geometry's mass properties.

    Files are read again when they change on disk; otherwise the result is
    cached.  ``units`` is the length unit of a file's coordinates
    (:data:`MESH_UNITS`; the built-ins are in metres).

    Raises
    ------
    ShapeError
        Not a built-in and not a readable mesh file (a device, FIFO or
        directory, more than :data:`MAX_MESH_BYTES`, not a mesh, faces that
        name missing vertices), no triangles, or more than
        :data:`MAX_TRIANGLES`.
    """
    if units not in MESH_UNITS:
        raise ShapeError(f"mesh units: unknown unit {units!r} (choose from {', '.join(MESH_UNITS)})")
    body = resolve(body)
    builtin = BUILTINS.get(body)
    if builtin is not None:
        return _load_builtin(body)
    try:
        info = os.stat(body)
    except OSError as exc:
        raise ShapeError(f"{body}: cannot read ({exc.strerror})") from None
    return _load_file(body, info.st_mtime_ns, info.st_size, units)


@functools.lru_cache(maxsize=8)
def _load_builtin(name: str) -> Shape:
    builtin = BUILTINS[name]
    baked = _baked(builtin)
    if baked.is_file():
        with baked.open("rb") as f, np.load(f, allow_pickle=False) as arrays:
            unit = arrays["unit_inertia"]
            problem = str(arrays["problem"])
            return Shape(name, arrays["vertices"], arrays["faces"], arrays["colors"], arrays["centre"],
                         unit if unit.size else None, problem or None, builtin.mass, builtin.inertia)
    return _read_builtin(name)  # no baked copy (an OBJ being edited): read it


def _read_builtin(name: str) -> Shape:
    """A built-in read from its OBJ through trimesh (what :func:`bake` stores)."""
    builtin = BUILTINS[name]
    resource = importlib.resources.files("assets").joinpath(builtin.resource)
    with importlib.resources.as_file(resource) as path:
        return _shape(name, path, builtin.mass, builtin.inertia)


def _baked(builtin: Builtin):
    """The baked copy of a built-in's mesh: ``<resource without suffix>.npz`` in the ``assets`` package."""
    return importlib.resources.files("assets").joinpath(str(Path(builtin.resource).with_suffix(".npz")))


def bake(name: str, folder: str | os.PathLike | None = None) -> Path:
    """Write the baked copy of built-in ``name``, read from its OBJ through trimesh; returns its path.

    ``folder`` defaults to the OBJ's own folder (a source checkout).  The
    arrays are stored as :func:`load` returns them, so a baked built-in
    loads bit for bit as if its OBJ had been read.
    """
    builtin = BUILTINS[name]
    shape = _read_builtin(name)
    with importlib.resources.as_file(_baked(builtin)) as default:
        path = Path(folder) / default.name if folder is not None else Path(default)
    unit = shape.unit_inertia if shape.unit_inertia is not None else np.zeros((0, 3))
    with open(path, "wb") as f:
        np.savez_compressed(f, vertices=shape.vertices, faces=shape.faces, colors=shape.colors,
                            centre=shape.centre, unit_inertia=unit, problem=np.array(shape.problem or ""))
    return path


@functools.lru_cache(maxsize=8)
def _load_file(path: str, _mtime_ns: int, _size: int, units: str = "m") -> Shape:
    return _shape(path, Path(path), DEFAULT_FILE_MASS, None, units, _read_file(path, _mtime_ns, _size))


@functools.lru_cache(maxsize=4)
def _read_file(path: str, _mtime_ns: int, _size: int):
    return _read(path, Path(path))


def _shape(body: str, path: Path, mass, inertia, units: str = "m", read=None) -> Shape:
    vertices, faces, colors = _read(body, path) if read is None else read
    vertices = vertices * MESH_UNITS[units] if units != "m" else vertices
    try:
        with np.errstate(all="ignore"):
            unit_inertia, centre, problem, faces, note = _solid(vertices, faces)
    except Exception as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ShapeError(f"{body}: the mesh's geometry cannot be evaluated ({reason})") from None
    if unit_inertia is None and inertia is not None:
        centre = np.zeros(3)
    if note is not None:
        note = f"{body}: {note}"
    return Shape(body, vertices, faces, colors, centre, unit_inertia, problem, mass, inertia, note, units)


def _binary_stl_problem(data: bytes) -> str | None:
    """Why ``data`` is neither ASCII STL nor a whole binary STL, or None when it may be one of them."""
    if data[:5].lower() == b"solid" and b"facet" in data[:4096].lower():
        return None  # ASCII (or a binary file whose header starts with "solid": its size says which)
    if len(data) < 84:
        return f"{len(data)} bytes is shorter than a binary STL's 84-byte header"
    count = int.from_bytes(data[80:84], "little")
    if 84 + 50 * count != len(data):
        return (f"its header announces {count:,} triangles, {84 + 50 * count:,} bytes, but the file has "
                f"{len(data):,}: neither a whole binary STL nor ASCII STL")
    return None


def _read(body: str, path: Path):
    """Vertices, triangles and RGBA colours of a mesh file, as in the file.

    The file is read whole through :func:`sim.io.reading.read_regular` (a regular
    file of at most :data:`MAX_MESH_BYTES`, refused by its size before it is
    read), then parsed by trimesh from memory.
    """
    suffix = path.suffix.lower()
    kind = suffix[1:].upper()
    try:
        data = read_regular(path, MAX_MESH_BYTES, None, "mesh file")
    except FileRefused as exc:
        raise ShapeError(str(exc)) from None
    if not data.strip():
        raise ShapeError(f"{body}: an empty file, not a {kind} mesh")
    if suffix == ".stl":
        problem = _binary_stl_problem(data)
        if problem is not None:
            raise ShapeError(f"{body}: not a readable STL mesh ({problem})")
    import trimesh

    try:
        resolver = trimesh.resolvers.FilePathResolver(str(path))
        with np.errstate(all="ignore"):
            mesh = trimesh.load(io.BytesIO(data), file_type=suffix[1:], force="mesh", process=False,
                                resolver=resolver)
    except IndexError as exc:  # a face that names a vertex the file does not have
        raise ShapeError(f"{body}: not a readable {kind} mesh: a face names a vertex the file does not have "
                         f"({str(exc)[:120]})") from None
    except ImportError:  # a reader's optional helper: the content is not what that reader expects
        raise ShapeError(f"{body}: not a readable {kind} mesh (its content is not {kind} that trimesh reads)") \
            from None
    except (Exception, RecursionError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ShapeError(f"{body}: not a readable {kind} mesh ({reason[:200]})") from None
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ShapeError(f"{body}: not a {kind} mesh (no triangles found)")
    if len(mesh.faces) > MAX_TRIANGLES:
        raise ShapeError(f"{body}: {len(mesh.faces):,} triangles, more than the {MAX_TRIANGLES:,} "
                         "the view can draw; decimate the mesh first")
    vertices = np.array(mesh.vertices, dtype=float)
    faces = np.array(mesh.faces)
    if vertices.ndim != 2 or vertices.shape[1:] != (3,) or faces.ndim != 2 or faces.shape[1:] != (3,):
        raise ShapeError(f"{body}: not a triangle mesh (vertices {vertices.shape}, faces {faces.shape})")
    if not np.all(np.isfinite(vertices)):
        raise ShapeError(f"{body}: the mesh has non-finite vertex coordinates")
    if faces.dtype.kind not in "iu" or faces.min() < 0 or faces.max() >= len(vertices):
        bad = int(faces.max()) if faces.size and faces.max() >= len(vertices) else int(faces.min())
        raise ShapeError(f"{body}: a face names vertex {bad}, but the mesh has {len(vertices):,} vertices "
                         f"(0 to {len(vertices) - 1:,})")
    return vertices, faces.astype(np.int64), _colors(mesh)


def _colors(mesh) -> np.ndarray:
    """Per-vertex RGBA in [0, 1]: the file's vertex or face colours, else a light grey."""
    n = len(mesh.vertices)
    grey = np.tile([0.78, 0.79, 0.82, 1.0], (n, 1))
    visual = mesh.visual
    try:
        if visual.kind == "vertex":
            return np.asarray(visual.vertex_colors, dtype=float)[:, :4] / 255.0
        if visual.kind == "face":  # the last face's colour at each vertex: flat parts stay flat
            rgba = grey.copy()
            rgba[mesh.faces.ravel()] = np.repeat(np.asarray(visual.face_colors, dtype=float) / 255.0, 3, axis=0)
            return rgba
    except Exception:
        pass
    return grey


def _solid(vertices, faces):
    """``(unit inertia about the centre, centre, None, faces, note)`` or ``(None, origin, problem, faces, note)``.

    A closed, consistently wound mesh whose volume is negative (wound
    inside out) is turned outward (``trimesh.repair.fix_inversion``); the
    faces returned are the file's reversed the same way, so the view draws
    the outside, and ``note`` says what was done.
    """
    import trimesh

    origin = np.zeros(3)
    # Measured in its own box: centred and scaled to 1 along each axis, so trimesh's absolute tolerances
    # (merging vertices closer than 1e-8, the volume's rounding) mean the same for a mesh of 1e-150 or
    # 1e100 m, one 1e15 m from the origin, or a thin plate; a positive scaling keeps the winding, and the
    # results are scaled back: the volume by sx sy sz, the second moments M = S M' S (per unit mass), the
    # inertia I = tr(M) 1 - M.
    vertices = np.asarray(vertices, dtype=float)
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    middle = 0.5 * low + 0.5 * high
    extent = high - low
    if not (np.all(extent > 0.0) and np.all(np.isfinite(extent))):
        return None, origin, "the mesh encloses zero volume", faces, None
    solid = trimesh.Trimesh((vertices - middle) / extent, faces, process=True)  # merges coincident vertices
    note = None
    if not solid.is_watertight:
        return None, origin, "the mesh is not watertight (it has open edges), so it bounds no volume", faces, None
    if not solid.is_winding_consistent:
        return None, origin, "the mesh's faces are not wound consistently, so its volume is undefined", faces, None
    if float(solid.volume) < 0.0:  # closed and consistent, but every normal points in
        trimesh.repair.fix_inversion(solid)  # trimesh's normal fixing: the faces reversed
        faces = faces[:, ::-1].copy()        # the drawn mesh too, so the view shows the outside
        note = "the mesh was wound inside out (its normals pointed in); its faces were turned outward"
    scaled = float(solid.volume)  # of the mesh in its unit box (density 1: mass = volume)
    if not scaled > 0.0:
        return None, origin, "the mesh encloses zero volume", faces, note
    volume = scaled * float(np.prod(extent))
    scale = 0.5 * float(np.max(extent))  # its half size: max |v| for a mesh about the origin
    if volume < 1e-12 * scale ** 3:
        return None, origin, f"the mesh encloses almost no volume ({volume:.3g} m^3: flat or degenerate)", faces, note
    inertia = np.asarray(solid.moment_inertia, dtype=float) / scaled  # about the centre of mass, per unit mass
    second = 0.5 * np.trace(inertia) * np.eye(3) - inertia             # M' = tr(I')/2 1 - I'
    second = extent[:, None] * second * extent[None, :]                # M = S M' S
    unit = np.trace(second) * np.eye(3) - second
    if not np.all(np.isfinite(unit)) or math.isclose(np.trace(unit), 0.0):
        return None, origin, "the mesh's inertia is not finite", faces, note
    return unit, middle + extent * np.asarray(solid.center_mass, dtype=float), None, faces, note
