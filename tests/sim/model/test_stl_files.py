"""STL files as body meshes (sim.model.shape): ASCII and binary STL written here byte by byte from the format
(binary: an 80-byte header, a little-endian uint32 triangle count, then 50 bytes a triangle: normal and three
vertices as 12 float32 and a uint16), their mass properties against the closed form of a solid box, and the
refusal of a binary file whose size disagrees with its header, naming the sizes."""

import struct

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.model.shape import ShapeError, load, mass_properties
from sim.core.body import inertia_tensor

A, B, C = 0.3, 0.2, 0.1       # the box's sides, m
MASS = 4.0


def _box_triangles(rotation):
    """The box [-A/2, A/2] x [-B/2, B/2] x [-C/2, C/2] turned by ``rotation``: (normal, v1, v2, v3), outward."""
    corners = np.array([[x, y, z] for x in (-A / 2, A / 2) for y in (-B / 2, B / 2) for z in (-C / 2, C / 2)])
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = [(p, q, r) for p, q, r, s in quads] + [(p, r, s) for p, q, r, s in quads]
    v = corners @ rotation.T
    out = []
    for i, j, k in faces:
        n = np.cross(v[j] - v[i], v[k] - v[i])
        out.append((n / np.linalg.norm(n), v[i], v[j], v[k]))
    return out


def _binary(triangles, header=b"binary STL written by a test"):
    data = header.ljust(80, b" ")[:80] + struct.pack("<I", len(triangles))
    for n, *vs in triangles:
        data += struct.pack("<12fH", *n, *(x for v in vs for x in v), 0)
    return data


def _ascii(triangles, name="box"):
    lines = [f"solid {name}"]
    for n, *vs in triangles:
        lines += ["  facet normal " + " ".join(repr(float(x)) for x in n), "    outer loop"]
        lines += ["      vertex " + " ".join(repr(float(x)) for x in v) for v in vs]
        lines += ["    endloop", "  endfacet"]
    return ("\n".join(lines + [f"endsolid {name}"]) + "\n").encode()


def _expected(rotation):
    """The solid box's inertia about its centre, m (b^2 + c^2) / 12 ..., turned: R diag R^T."""
    diag = MASS / 12.0 * np.diag([B * B + C * C, A * A + C * C, A * A + B * B])
    return rotation @ diag @ rotation.T


ROTATION = Rotation.from_rotvec([0.4, -0.3, 0.8]).as_matrix()


@pytest.mark.parametrize("kind", ["binary", "ascii"])
def test_a_box_in_stl_has_the_solid_boxs_inertia(tmp_path, kind):
    """A turned box (so no normal component is a round float32: each of the normal's four bytes counts)."""
    triangles = _box_triangles(ROTATION)
    path = tmp_path / f"box_{kind}.stl"
    path.write_bytes(_binary(triangles) if kind == "binary" else _ascii(triangles))
    assert len(load(str(path)).faces) == 12
    got = inertia_tensor(*mass_properties(str(path), MASS).inertia)
    assert np.allclose(got, _expected(ROTATION), rtol=0, atol=2e-6 * np.trace(_expected(ROTATION)))


def test_a_binary_stl_whose_header_starts_with_solid_is_binary(tmp_path):
    """Some exporters begin the binary header with "solid": without "facet" text it is judged by its size."""
    path = tmp_path / "solid_header.stl"
    path.write_bytes(_binary(_box_triangles(ROTATION), header=b"solid box exported as binary"))
    got = inertia_tensor(*mass_properties(str(path), MASS).inertia)
    assert np.allclose(got, _expected(ROTATION), rtol=0, atol=2e-6 * np.trace(_expected(ROTATION)))


@pytest.mark.parametrize("header", [b"binary STL written by a test", b"facets of a box, binary"])
@pytest.mark.parametrize("cut", [50, 7])
def test_a_truncated_binary_stl_is_refused_naming_its_sizes(tmp_path, header, cut):
    """The header announces 24 triangles, 84 + 50 * 24 = 1,284 bytes; the file lacks ``cut`` of them.  A header
    that mentions facets but does not start with "solid" is still a binary header."""
    data = _binary(_box_triangles(ROTATION) * 2, header=header)
    assert len(data) == 1284
    path = tmp_path / "cut.stl"
    path.write_bytes(data[:-cut])
    with pytest.raises(ShapeError) as caught:
        load(str(path))
    message = str(caught.value)
    assert str(path) in message and "24 triangles" in message
    assert "1,284 bytes" in message and f"{1284 - cut:,}" in message


def test_a_binary_stl_of_no_triangles_is_refused_as_empty(tmp_path):
    """84 bytes, count 0: a whole binary STL, with nothing in it (not "shorter than its header")."""
    path = tmp_path / "none.stl"
    path.write_bytes(_binary([]))
    with pytest.raises(ShapeError, match="no triangles") as caught:
        load(str(path))
    assert "shorter" not in str(caught.value)


def test_a_file_shorter_than_the_header_is_refused_by_its_size(tmp_path):
    path = tmp_path / "short.stl"
    path.write_bytes(_binary([])[:83])
    with pytest.raises(ShapeError, match=r"83 bytes .*84-byte header"):
        load(str(path))
