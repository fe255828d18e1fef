"""The surfaces file (``--surfaces FILE.toml``): optical and drag coefficients of a body's facets.

The format (docs/PHYSICS.md, "Surface coefficients")::

    [default]                 # every facet not matched below (these are the defaults)
    absorbed = 1.0            # fractions of the light absorbed, reflected specularly,
    specular = 0.0            # reflected diffusely: they must sum to 1
    diffuse = 0.0
    drag = 2.2                # the drag coefficient C_d

    [[surface]]               # a group of facets; later entries win over earlier ones
    name = "solar cells"      # for messages only
    color = [0.2, 0.34, 0.78] # the mesh group: facets whose vertices all have this colour (within 0.02)
    normal = [0, 0, -1]       # facets whose outward normal is within `within_deg` (default 5) of this
    within_deg = 5
    box = [[-1, 0.3, -1], [1, 3, 1]]  # facets whose centroid lies in this box (mesh coordinates, m)
    absorbed = 0.8            # the three optical fractions together (summing to 1), or none of them
    specular = 0.1
    diffuse = 0.1
    # drag = 2.2              # and/or the drag coefficient

An entry selects the facets that meet all its criteria (``color``,
``normal``, ``box``; at least one) and sets what it names on them: the
optical fractions (all three), the drag coefficient, or both; what it
leaves out stays as the ``[default]`` or an earlier entry set it.  The built-in meshes colour their parts
(the satellite's cells are (0.2, 0.34, 0.78), their backs (0.7, 0.72, 0.76)),
so a colour is the mesh group of a built-in or of an OBJ with vertex colours.

:func:`read` checks the file (one :class:`SurfaceFileError` naming the file,
the entry and the key) and :func:`coefficients` gives the per-facet arrays
:func:`sim.world.surfaces.facets` takes.
"""

from __future__ import annotations

import functools
import math
import os
import tomllib

import numpy as np

from sim.io.reading import FileRefused, read_regular
from sim.io.limits import LIMITS

__all__ = ["SurfaceFileError", "SurfaceSpec", "read", "coefficients", "DEFAULTS"]

#: The coefficients of a facet nobody named: a black body with the usual free-molecular C_d.
DEFAULTS = {"absorbed": 1.0, "specular": 0.0, "diffuse": 0.0, "drag": 2.2}
_COEFFS = tuple(DEFAULTS)
_SELECTORS = ("color", "normal", "within_deg", "box")
#: How close two colours (RGB in [0, 1]) must be to be one group.
COLOR_TOLERANCE = 0.02


class SurfaceFileError(ValueError):
    """A surfaces file is unreadable or malformed; the message names the file, the entry and the key."""


class SurfaceSpec(tuple):
    """``(default, entries)``: the default coefficients (a dict) and the ``[[surface]]`` entries (dicts), checked."""


def _number(where, key, value, low, high=math.inf):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SurfaceFileError(f"{where} {key}: expected a number, got {value!r}")
    if not low <= value <= high:
        raise SurfaceFileError(f"{where} {key}: {value:g} is outside [{low:g}, {high:g}]")
    return float(value)


def _vector(where, key, value, n=3):
    if not isinstance(value, list) or len(value) != n:
        raise SurfaceFileError(f"{where} {key}: expected {n} numbers, got {value!r}")
    return tuple(_number(where, key, v, -math.inf) for v in value)


def _coefficients(where, table, base):
    out = {} if base is None else dict(base)
    optical = [key for key in _COEFFS[:3] if key in table]
    if base is None:  # an entry: what it names only, the optical fractions together
        if optical and len(optical) != 3:
            raise SurfaceFileError(f"{where}: give absorbed, specular and diffuse together (they sum to 1), "
                                   f"not only {', '.join(optical)}")
    for key in _COEFFS:
        if key in table:
            out[key] = _number(where, key, table[key], 0.0, 1.0 if key != "drag" else 10.0)
    if base is None and not optical:
        return out
    total = out["absorbed"] + out["specular"] + out["diffuse"]
    if abs(total - 1.0) > 1e-9:
        raise SurfaceFileError(f"{where}: absorbed + specular + diffuse = {total:g}, must be 1")
    return out


def parse(text: str, source: str) -> SurfaceSpec:
    """The checked contents of a surfaces file's ``text`` (``source`` names it in messages)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SurfaceFileError(f"{source}: TOML syntax error: {exc}") from None
    for key in data:
        if key not in ("default", "surface"):
            raise SurfaceFileError(f"{source}: unknown section {key!r} (known: default, surface)")
    default = data.get("default", {})
    if not isinstance(default, dict):
        raise SurfaceFileError(f"{source}: [default] must be a table")
    for key in default:
        if key not in _COEFFS:
            raise SurfaceFileError(f"{source}: [default]: unknown key {key!r} (known: {', '.join(_COEFFS)})")
    default = _coefficients(f"{source}: [default]", default, DEFAULTS)
    items = data.get("surface", [])
    if not isinstance(items, list):
        raise SurfaceFileError(f"{source}: [[surface]] must be an array of tables")
    entries = []
    for i, item in enumerate(items):
        where = f"{source}: [[surface]] #{i + 1}"
        if not isinstance(item, dict):
            raise SurfaceFileError(f"{where}: must be a table")
        for key in item:
            if key not in (*_COEFFS, *_SELECTORS, "name"):
                raise SurfaceFileError(f"{where}: unknown key {key!r} (known: name, "
                                       f"{', '.join(_SELECTORS)}, {', '.join(_COEFFS)})")
        if not any(k in item for k in ("color", "normal", "box")):
            raise SurfaceFileError(f"{where}: select its facets by color, normal or box")
        entry = {"coefficients": _coefficients(where, item, None)}
        if "color" in item:
            entry["color"] = _vector(where, "color", item["color"])
        if "normal" in item:
            n = _vector(where, "normal", item["normal"])
            length = math.sqrt(sum(x * x for x in n))
            if not length > 0.0:
                raise SurfaceFileError(f"{where} normal: {list(n)} has no direction")
            entry["normal"] = tuple(x / length for x in n)
            entry["within_deg"] = _number(where, "within_deg", item.get("within_deg", 5.0), 0.0, 180.0)
        elif "within_deg" in item:
            raise SurfaceFileError(f"{where} within_deg: only with a normal")
        if "box" in item:
            box = item["box"]
            if not isinstance(box, list) or len(box) != 2:
                raise SurfaceFileError(f"{where} box: expected [[xmin, ymin, zmin], [xmax, ymax, zmax]], got {box!r}")
            low, high = _vector(where, "box", box[0]), _vector(where, "box", box[1])
            if not all(a <= b for a, b in zip(low, high)):
                raise SurfaceFileError(f"{where} box: each minimum must be at most its maximum")
            entry["box"] = (low, high)
        entries.append(entry)
    return SurfaceSpec((default, tuple(entries)))


@functools.lru_cache(maxsize=8)
def _read(path: str, _mtime_ns: int, _size: int) -> SurfaceSpec:
    try:
        raw = read_regular(path, LIMITS["scenario_bytes"].high, LIMITS["scenario_line_bytes"].high, "surfaces file")
    except FileRefused as exc:
        raise SurfaceFileError(str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SurfaceFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse(text, path)


def read(path) -> SurfaceSpec:
    """The checked contents of the surfaces file at ``path`` (read again when it changes on disk)."""
    name = os.path.abspath(os.fspath(path))
    try:
        info = os.stat(name)
    except FileNotFoundError:
        raise SurfaceFileError(f"{path}: no such surfaces file") from None
    except (OSError, ValueError) as exc:
        raise SurfaceFileError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    return _read(name, info.st_mtime_ns, info.st_size)


def coefficients(spec: SurfaceSpec | None, vertices, faces, colors) -> dict:
    """Per-face ``absorbed``, ``specular``, ``diffuse`` and ``drag`` arrays (m,) of a mesh under ``spec``.

    ``vertices`` (n, 3) and ``faces`` (m, 3) as :func:`sim.world.surfaces.facets`
    takes them, ``colors`` (n, 3 or 4) the vertex colours; ``spec`` None: every
    facet has :data:`DEFAULTS`.
    """
    faces = np.asarray(faces, dtype=np.intp)
    m = len(faces)
    default, entries = spec if spec is not None else (DEFAULTS, ())
    out = {k: np.full(m, default[k]) for k in _COEFFS}
    if not entries:
        return out
    v = np.asarray(vertices, dtype=float)
    p0, p1, p2 = v[faces[:, 0]], v[faces[:, 1]], v[faces[:, 2]]
    cross = np.cross(p1 - p0, p2 - p0)
    length = np.linalg.norm(cross, axis=1)
    normals = cross / np.where(length > 0.0, length, 1.0)[:, None]
    centres = (p0 + p1 + p2) / 3.0
    rgb = np.asarray(colors, dtype=float)[:, :3]
    for entry in entries:
        chosen = np.ones(m, dtype=bool)
        if "color" in entry:
            c = np.asarray(entry["color"])
            for k in range(3):
                chosen &= np.all(np.abs(rgb[faces[:, k]] - c) <= COLOR_TOLERANCE, axis=1)
        if "normal" in entry:
            chosen &= normals @ np.asarray(entry["normal"]) >= math.cos(math.radians(entry["within_deg"]))
        if "box" in entry:
            low, high = (np.asarray(b) for b in entry["box"])
            chosen &= np.all((centres >= low) & (centres <= high), axis=1)
        for k, value in entry["coefficients"].items():
            out[k][chosen] = value
    return out
