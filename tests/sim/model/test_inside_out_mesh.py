"""A closed mesh wound inside out (normals pointing in) is turned outward: the note names the file and says
what was done, and the inertia is the box's closed form (I_xx = m (b^2 + c^2) / 12), as if it were wound outward."""

import pytest

from sim.model import shape

SIZE = (1.0, 0.5, 0.2)  # m
CORNERS = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.25, 0.25) for z in (-0.1, 0.1)]
OUTWARD = [(1, 2, 4), (1, 4, 3), (5, 7, 8), (5, 8, 6), (1, 5, 6), (1, 6, 2),
           (3, 4, 8), (3, 8, 7), (1, 3, 7), (1, 7, 5), (2, 6, 8), (2, 8, 4)]


def _box(path, inside_out):
    faces = [f[::-1] for f in OUTWARD] if inside_out else OUTWARD
    lines = [f"v {x} {y} {z}" for x, y, z in CORNERS] + ["f " + " ".join(map(str, f)) for f in faces]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("inside_out", [True, False])
def test_an_inside_out_box_is_turned_outward_and_said_so(tmp_path, inside_out):
    path = _box(tmp_path / "box.obj", inside_out)
    mesh = shape.load(path)
    if inside_out:
        assert path in mesh.note or "box.obj" in mesh.note
        assert mesh.note.count("inside out") == 1 and mesh.note.endswith("turned outward")
    else:
        assert mesh.note is None
    assert mesh.problem is None
    m = 12.0
    a, b, c = SIZE
    expected = (m * (b * b + c * c) / 12, m * (a * a + c * c) / 12, m * (a * a + b * b) / 12, 0.0, 0.0, 0.0)
    assert mesh.inertia_at(m) == pytest.approx(expected, rel=1e-9, abs=1e-12)  # (Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)
