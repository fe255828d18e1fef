"""Mesh files whose faces name vertices they do not have, and STL files named in capitals (sim.model.shape.load).

PLY (ascii 1.0): ``element vertex N`` then ``element face M`` with 0-based vertex_indices lists.  Binary STL:
80-byte header, uint32 triangle count, 50 bytes a triangle (84 + 50 n bytes in all).
"""

import struct

import pytest

from sim.model.shape import ShapeError, load

PLY = """ply
format ascii 1.0
element vertex 4
property float x
property float y
property float z
element face 2
property list uchar int vertex_indices
end_header
0 0 0
1 0 0
0 1 0
0 0 1
3 0 1 2
3 0 3 {bad}
"""


@pytest.mark.parametrize("bad", [9, 4, -2])
def test_a_face_naming_a_missing_vertex_is_named(tmp_path, bad):
    path = tmp_path / "bad.ply"
    path.write_text(PLY.format(bad=bad))
    with pytest.raises(ShapeError) as caught:
        load(str(path))
    message = str(caught.value)
    assert message.startswith(str(path)) and f"vertex {bad}" in message and "4 vertices" in message


def test_a_truncated_stl_named_in_capitals_is_still_checked_as_stl(tmp_path):
    triangle = struct.pack("<12fH", 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0)
    data = b"binary STL".ljust(80, b" ") + struct.pack("<I", 4) + triangle * 4   # 84 + 50 * 4 = 284 bytes
    path = tmp_path / "CUT.STL"
    path.write_bytes(data[:-30])
    with pytest.raises(ShapeError) as caught:
        load(str(path))
    message = str(caught.value)
    assert "4 triangles" in message and "284 bytes" in message and "254" in message
