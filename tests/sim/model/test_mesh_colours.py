"""A mesh file's colours as the view draws them (:func:`sim.model.shape.load`): face colours carried to the
vertices of each face, so a part coloured in the file keeps its colour."""

import numpy as np

from sim.model.shape import load

_TETRA = ((0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3))   # outward faces of the corner tetrahedron


def _ply(path, parts):
    """An ASCII PLY of corner tetrahedra, one at each offset, all faces of each the given RGBA (0-255)."""
    vertices, faces = [], []
    for k, (offset, rgba) in enumerate(parts):
        for v in ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)):
            vertices.append(" ".join(str(offset[i] + v[i]) for i in range(3)))
        for f in _TETRA:
            faces.append("3 " + " ".join(str(4 * k + i) for i in f) + " " + " ".join(str(c) for c in rgba))
    head = ["ply", "format ascii 1.0", f"element vertex {len(vertices)}", "property float x", "property float y",
            "property float z", f"element face {len(faces)}", "property list uchar int vertex_indices",
            "property uchar red", "property uchar green", "property uchar blue", "property uchar alpha", "end_header"]
    path.write_text("\n".join(head + vertices + faces) + "\n")
    return str(path)


def test_face_colours_of_a_ply_colour_each_faces_vertices(tmp_path):
    """Two separate tetrahedra, one red and one half-transparent blue: every vertex of each has its part's colour
    (the file's 0-255 over 255), none the default grey."""
    path = _ply(tmp_path / "two.ply", [((0, 0, 0), (255, 0, 0, 255)), ((3, 0, 0), (0, 0, 255, 128))])
    shape = load(path)
    assert shape.colors.shape == (8, 4)
    np.testing.assert_allclose(shape.colors[:4], np.tile((1.0, 0.0, 0.0, 1.0), (4, 1)), rtol=0, atol=1e-15)
    np.testing.assert_allclose(shape.colors[4:], np.tile((0.0, 0.0, 1.0, 128 / 255), (4, 1)), rtol=0, atol=1e-15)
