"""Mass properties of bodies from meshes (sim.model.shape), the built-in bodies, and bad mesh files.

References are closed forms from the textbook (solid box, cylinder, sphere,
tetrahedron), scipy's Rotation for rotated bodies, and the torque-free motion
of a rigid body (the intermediate-axis flip).  Meshes are written to files
here (OBJ by hand; STL, PLY and GLB exported by trimesh) and read back
through the same path as the program's.
"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import warnings
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh
from scipy.spatial.transform import Rotation

from app.cli import main
from sim.model import shape
from sim.core.body import HOFFMANN_INERTIA, inertia_tensor
from sim.run.scenario import ScenarioError, loads
from sim.model.settings import INERTIA_SCALED, Settings, SettingsError, carried_to, damper_warning
from sim.model.shape import BUILTINS, ShapeError, mass_properties
from sim.model.simulation import Simulation, SimulationFault
from sim.model.rows import HISTORY_COLUMNS

COL = {name: i for i, name in enumerate(HISTORY_COLUMNS)}
ASSETS = Path(__file__).parents[3] / "assets"
TOOLS = Path(__file__).parents[3] / "tools"


# ------------------------------------------------------------------ meshes


def box_mesh(a, b, c):
    """A box ``[-a/2, a/2] x [-b/2, b/2] x [-c/2, c/2]``: 8 corners, 12 triangles wound outward."""
    corners = np.array([[x, y, z] for x in (-a / 2, a / 2) for y in (-b / 2, b / 2) for z in (-c / 2, c / 2)])
    # corner index = 4 i + 2 j + k for x_i, y_j, z_k
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = [(p, q, r) for p, q, r, s in quads] + [(p, r, s) for p, q, r, s in quads]
    return corners, np.array(faces)


def write_obj(path, vertices, faces):
    lines = [f"v {float(x)!r} {float(y)!r} {float(z)!r}" for x, y, z in vertices] + [f"f {i + 1} {j + 1} {k + 1}" for i, j, k in faces]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def write(path, vertices, faces):
    """Write a mesh in the format of ``path``'s suffix (OBJ by hand, others by trimesh)."""
    if path.suffix == ".obj":
        return write_obj(path, vertices, faces)
    trimesh.Trimesh(vertices, faces, process=False).export(str(path))
    return str(path)


def signed_volume(vertices, faces):
    p0, p1, p2 = (np.asarray(vertices, dtype=float)[np.asarray(faces)[:, i]] for i in range(3))
    return np.einsum("ij,ij->i", p0, np.cross(p1, p2)).sum() / 6.0


def box_inertia(m, a, b, c):
    """Solid box about its centre: Ixx = m (b^2 + c^2) / 12, ..."""
    return np.diag([m * (b * b + c * c) / 12.0, m * (a * a + c * c) / 12.0, m * (a * a + b * b) / 12.0])


def tensor(comps):
    """The tensor of Hoffmann's six numbers (his FillJ33)."""
    return inertia_tensor(*comps)


# ------------------------------------------------------------ closed forms


def test_box_inertia_is_exact(tmp_path):
    a, b, c, m = 0.3, 0.5, 1.1, 2.5
    path = write(tmp_path / "box.obj", *box_mesh(a, b, c))
    props = Settings().replace(body=path, mass=m).mass_properties
    assert not props.explicit and props.mass == m
    np.testing.assert_allclose(tensor(props.inertia), box_inertia(m, a, b, c), rtol=1e-12, atol=1e-15)
    assert props.inertia[3:] == (0.0, 0.0, 0.0)


def test_cylinder_inertia_matches_the_closed_form(tmp_path):
    r, h, m = 0.2, 0.9, 3.0
    mesh = trimesh.creation.cylinder(radius=r, height=h, sections=512)  # axis z
    path = write(tmp_path / "cylinder.stl", mesh.vertices, mesh.faces)
    j = tensor(mass_properties(path, m).inertia)
    # Solid cylinder: Izz = m r^2 / 2, Ixx = Iyy = m (3 r^2 + h^2) / 12.
    expected = np.diag([m * (3 * r * r + h * h) / 12, m * (3 * r * r + h * h) / 12, m * r * r / 2])
    np.testing.assert_allclose(np.diag(j), np.diag(expected), rtol=1e-4)
    assert np.max(np.abs(j - np.diag(np.diag(j)))) < 1e-9 * m


def test_fine_sphere_inertia_matches_the_closed_form(tmp_path):
    r, m = 0.7, 5.0
    mesh = trimesh.creation.icosphere(subdivisions=5, radius=r)  # 20,480 triangles
    path = write(tmp_path / "sphere.ply", mesh.vertices, mesh.faces)
    j = tensor(mass_properties(path, m).inertia)
    # Solid sphere: I = 2/5 m r^2 about every axis through the centre.
    np.testing.assert_allclose(j, np.eye(3) * 0.4 * m * r * r, rtol=1e-3, atol=1e-3 * 0.4 * m * r * r)


def test_products_of_inertia_have_hoffmanns_sign(tmp_path):
    # Tetrahedron (0, 0, 0), (a, 0, 0), (0, b, 0), (0, 0, c): integral of x y dV about the origin is
    # a^2 b^2 c / 120; about the centre (a, b, c) / 4 it is a^2 b^2 c / 120 - V a b / 16 with
    # V = a b c / 6, so Hoffmann's Jxy = integral of x y dm = -m a b / 80 (and alike), and
    # Jxx = 3 m (b^2 + c^2) / 80.
    a, b, c, m = 1.0, 2.0, 3.0, 4.0
    vertices = np.array([[0, 0, 0], [a, 0, 0], [0, b, 0], [0, 0, c]], dtype=float)
    faces = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    assert signed_volume(vertices, faces) == pytest.approx(a * b * c / 6)
    comps = mass_properties(write(tmp_path / "tetra.obj", vertices, faces), m).inertia
    expected = (3 * m * (b * b + c * c) / 80, 3 * m * (a * a + c * c) / 80, 3 * m * (a * a + b * b) / 80,
                -m * a * b / 80, -m * a * c / 80, -m * b * c / 80)
    np.testing.assert_allclose(comps, expected, rtol=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rotated_box_gives_the_rotated_tensor(tmp_path, seed):
    a, b, c, m = 0.2, 0.6, 1.0, 1.5
    rotation = Rotation.random(random_state=seed).as_matrix()
    vertices, faces = box_mesh(a, b, c)
    path = write(tmp_path / "rotated.obj", vertices @ rotation.T, faces)
    comps = mass_properties(path, m).inertia
    expected = rotation @ box_inertia(m, a, b, c) @ rotation.T  # J' = R J R^T
    np.testing.assert_allclose(tensor(comps), expected, rtol=1e-10, atol=1e-12)
    # Hoffmann's products: J[0, 1] = -Jxy etc.
    np.testing.assert_allclose(comps[3:], (-expected[0, 1], -expected[0, 2], -expected[1, 2]), atol=1e-12)


def test_offset_mesh_has_the_centred_meshs_inertia(tmp_path):
    vertices, faces = box_mesh(0.4, 0.7, 0.2)
    rotation = Rotation.from_euler("xyz", [20, -35, 50], degrees=True).as_matrix()
    centred = vertices @ rotation.T
    offset = np.array([3.0, -2.0, 5.0])
    a = shape.load(write(tmp_path / "centred.obj", centred, faces))
    b = shape.load(write(tmp_path / "offset.obj", centred + offset, faces))
    np.testing.assert_allclose(b.centre - a.centre, offset, atol=1e-12)
    np.testing.assert_allclose(b.inertia_at(2.0), a.inertia_at(2.0), rtol=1e-9, atol=1e-12)


def test_gltf_binary_is_read(tmp_path):
    a, b, c, m = 0.5, 0.25, 0.125, 1.0
    path = write(tmp_path / "box.glb", *box_mesh(a, b, c))
    np.testing.assert_allclose(tensor(mass_properties(path, m).inertia), box_inertia(m, a, b, c), rtol=1e-9)


def test_gltf_with_external_buffers_is_read(tmp_path):
    a, b, c, m = 1.0, 2.0, 3.0, 6.0
    files = trimesh.Trimesh(*box_mesh(a, b, c), process=False).export(file_type="gltf")
    for name, data in files.items():  # model.gltf and the .bin buffers it names
        (tmp_path / name).write_bytes(data)
    (gltf,) = [name for name in files if name.endswith(".gltf")]
    comps = mass_properties(str(tmp_path / gltf), m).inertia
    np.testing.assert_allclose(tensor(comps), box_inertia(m, a, b, c), rtol=1e-9)


def test_mass_scales_the_inertia_and_explicit_inertia_wins(tmp_path):
    path = write(tmp_path / "box.obj", *box_mesh(1.0, 2.0, 3.0))
    one = np.array(Settings().replace(body=path, mass=1.0).mass_properties.inertia)
    three = np.array(Settings().replace(body=path, mass=3.0).mass_properties.inertia)
    np.testing.assert_allclose(three, 3.0 * one)
    explicit = (1.0, 2.0, 2.5, 0.1, 0.0, 0.0)
    props = Settings().replace(body=path, mass=3.0, inertia=explicit).mass_properties
    assert props.explicit and props.inertia == explicit


def test_mesh_file_default_mass_is_one_kilogram(tmp_path):
    path = write(tmp_path / "box.obj", *box_mesh(1.0, 1.0, 1.0))
    assert Settings().replace(body=path).mass_properties.inertia[0] == pytest.approx(1.0 / 6.0)


# ------------------------------------------------------------ built-in bodies


def test_default_body_is_hoffmanns_aircraft_with_his_tensor():
    props = Settings().mass_properties
    assert props.explicit and props.inertia == HOFFMANN_INERTIA
    assert Simulation().body.components == HOFFMANN_INERTIA
    # mass has nothing to scale: his tensor is given, not computed
    assert Settings().replace(mass=7.0).mass_properties.inertia == HOFFMANN_INERTIA


@pytest.mark.parametrize("name", [n for n in BUILTINS if BUILTINS[n].inertia is None])
def test_meshed_builtins_are_closed_solids_centred_on_their_centre_of_mass(name):
    body = shape.load(name)
    assert body.unit_inertia is not None, body.problem
    assert np.linalg.norm(body.centre) < 1e-5 * body.size  # the generator centred it
    assert signed_volume(body.vertices, body.faces) > 0
    assert len(body.faces) < 2000


def test_builtin_meshes_are_reproduced_by_their_generator(tmp_path):
    spec = importlib.util.spec_from_file_location("make_bodies", TOOLS / "make_bodies.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["make_bodies.py", str(tmp_path)])
    for name in module.BODIES:
        assert (tmp_path / f"{name}.obj").read_text() == (ASSETS / "bodies" / f"{name}.obj").read_text(), name


@pytest.mark.parametrize("name", list(BUILTINS))
def test_baked_builtin_equals_its_obj_read_through_trimesh(name):
    """The .npz beside each OBJ is what trimesh reads from it (after an OBJ edit: python -m tools.bake_bodies)."""
    baked, read = shape.load(name), shape._read_builtin(name)
    for field in ("vertices", "faces", "colors"):
        a, b = getattr(baked, field), getattr(read, field)
        assert a.dtype == b.dtype and np.array_equal(a, b), (name, field)
    np.testing.assert_allclose(baked.centre, read.centre, rtol=0, atol=1e-12 * read.size)
    assert baked.problem == read.problem
    if read.unit_inertia is None:
        assert baked.unit_inertia is None
    else:
        np.testing.assert_allclose(baked.unit_inertia, read.unit_inertia, rtol=1e-12,
                                   atol=1e-15 * np.max(read.unit_inertia))


def test_bake_writes_a_copy_that_loads_like_the_obj(tmp_path):
    path = shape.bake("phone", tmp_path)
    assert path == tmp_path / "phone.npz"
    with np.load(path, allow_pickle=False) as arrays:
        np.testing.assert_array_equal(arrays["vertices"], shape._read_builtin("phone").vertices)
        assert str(arrays["problem"]) == ""


@pytest.mark.subprocess
def test_builtins_and_the_window_never_import_trimesh():
    """trimesh (with scipy.spatial, ~80 MB resident) is imported only for a user's mesh file.

    Top-level scipy is no mark of it any more: numba's own import reads an installed scipy's version
    (10 small modules of scipy's package, no submodule), so scipy.spatial, which trimesh brings, is.
    """
    code = ("import sys; from sim.model import shape; from app.view3d.mesh import body_mesh\n"
            "for name in shape.BUILTINS: body_mesh(name); shape.mass_properties(name)\n"
            "from sim.model.simulation import Simulation; Simulation(body='phone').step(10)\n"
            "print(sorted(m for m in ('trimesh', 'scipy.spatial') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).parents[3])
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_t_handle_principal_axes_are_its_body_axes_in_ascending_order():
    comps = mass_properties("t_handle").inertia
    jxx, jyy, jzz = comps[:3]
    assert jxx < jyy < jzz
    assert comps[3:] == (0.0, 0.0, 0.0)  # symmetric in y and z: no products
    assert jzz < jxx + jyy  # a real (not flat) body: triangle inequality holds strictly


def _flips(w):
    return int(np.count_nonzero(np.diff(np.sign(w)) != 0))


def test_t_handle_flips_about_its_intermediate_axis_only():
    """Torque-free rk4: spun about y with a tiny wobble it turns over; about x or z it keeps spinning."""
    runs = {}
    for axis in range(3):
        rates = [0.01, 0.01, 0.01]
        rates[axis] = 3.0
        sim = Simulation(body="t_handle", integrator="rk4", dt=0.002, rates=tuple(rates))
        ws = []
        for _ in range(100):  # 20 s
            sim.step(100)
            ws.append(sim.snapshot().w)
        runs[axis] = np.array(ws)
        e0 = sim.settings.mass_properties
        assert e0.explicit is False
    assert _flips(runs[1][:, 1]) >= 2  # over and back
    assert _flips(runs[0][:, 0]) == 0 and _flips(runs[2][:, 2]) == 0
    assert np.min(runs[0][:, 0]) > 2.9 and np.min(runs[2][:, 2]) > 2.9


# ------------------------------------------------------------------ bad files


def _open_box(path):
    vertices, faces = box_mesh(1, 1, 1)
    return write(path, vertices, faces[:-1])


def _inside_out_box(path):
    vertices, faces = box_mesh(1, 1, 1)
    return write(path, vertices, faces[:, ::-1])


def _text(path):
    path.write_text("This is a shopping list, not a mesh.\nmilk\neggs\n")
    return str(path)


def _empty(path):
    path.write_bytes(b"")
    return str(path)


def _flat(path):
    return write(path, np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=float), np.array([[0, 1, 2], [0, 2, 1]]))


BAD_FILES = {
    "text.obj": (_text, "not a OBJ mesh"),
    "empty.stl": (_empty, "not a STL mesh"),
    "empty.ply": (_empty, "PLY"),
    "open.stl": (_open_box, "not watertight"),
    "flat.obj": (_flat, "zero volume|almost no volume"),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_bad_file_is_refused_with_its_reason(tmp_path, name):
    make, reason = BAD_FILES[name]
    path = make(tmp_path / name)
    with pytest.raises(SettingsError, match=rf"^body: .*{name}: .*({reason})"):
        Settings().replace(body=path)


@pytest.mark.parametrize("name", BAD_FILES)
def test_bad_file_on_the_command_line_is_one_line_and_exit_2(tmp_path, capsys, name):
    make, reason = BAD_FILES[name]
    path = make(tmp_path / name)
    assert main(["run", "--body", path, "--duration", "0.01", "--out", str(tmp_path / "out.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("attitude-sim: error: --body ")
    assert name in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["open.stl", "flat.obj"])
def test_mesh_without_volume_is_accepted_with_explicit_inertia(tmp_path, name):
    path = BAD_FILES[name][0](tmp_path / name)
    explicit = (1.0, 2.0, 2.5, 0.0, 0.0, 0.0)
    settings = Settings().replace(body=path, inertia=explicit)
    assert settings.mass_properties.inertia == explicit
    assert np.array_equal(shape.load(path).centre, np.zeros(3))  # no volume: the mesh's own origin


def test_explicit_inertia_keeps_being_checked(tmp_path):
    path = _open_box(tmp_path / "open.stl")
    with pytest.raises(SettingsError, match="triangle inequality"):
        Settings().replace(body=path, inertia=(1.0, 1.0, 5.0, 0.0, 0.0, 0.0))


@pytest.mark.parametrize(("body", "reason"), [
    ("teapot", "neither a built-in body"),
    ("model.step", "neither a built-in body"),
    ("missing.stl", "no such file"),
])
def test_unknown_body_is_refused(body, reason):
    with pytest.raises(SettingsError, match=reason):
        Settings().replace(body=body)


@pytest.mark.parametrize("mass", [0.0, -1.0, float("nan"), "heavy", True])
def test_mass_must_be_a_positive_number(mass):
    with pytest.raises(SettingsError, match="^mass: "):
        Settings().replace(mass=mass)


def test_too_many_triangles_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(shape, "MAX_TRIANGLES", 11)  # a box has 12
    path = write(tmp_path / "big.obj", *box_mesh(1, 1, 1))
    with pytest.raises(SettingsError, match="12 triangles, more than the 11 the view can draw; "
                                            "decimate the mesh first"):
        Settings().replace(body=path)


def test_as_many_triangles_as_the_view_draws_are_accepted(tmp_path, monkeypatch):
    monkeypatch.setattr(shape, "MAX_TRIANGLES", 12)  # a box has 12
    assert len(shape.load(write(tmp_path / "just.obj", *box_mesh(1, 1, 1))).faces) == 12


def test_a_file_trimesh_cannot_read_is_refused_with_trimeshs_first_line(tmp_path):
    path = tmp_path / "junk.glb"
    path.write_bytes(b"glTF\x02\x00\x00\x00" + b"garbage" * 3)
    with pytest.raises(Exception) as theirs:
        trimesh.load(str(path), file_type="glb", force="mesh", process=False)
    reason = str(theirs.value).strip().splitlines()[0]
    with pytest.raises(ShapeError) as mine:
        shape.load(str(path))
    assert str(mine.value) == f"{path}: not a readable GLB mesh ({reason})"


def test_a_vertex_at_infinity_is_refused_by_name(tmp_path):
    vertices, faces = box_mesh(1, 1, 1)
    vertices = vertices.copy()
    vertices[3, 1] = np.inf
    path = write_obj(tmp_path / "inf.obj", vertices, faces)
    with pytest.raises(ShapeError) as refused:
        shape.load(path)
    assert str(refused.value) == f"{path}: the mesh has non-finite vertex coordinates"


def test_a_mesh_file_with_an_upper_case_suffix_is_read_by_its_format(tmp_path):
    loaded = shape.load(write_obj(tmp_path / "BOX.OBJ", *box_mesh(1.0, 2.0, 3.0)))
    np.testing.assert_allclose(loaded.inertia_at(1.0)[:3], np.diag(box_inertia(1.0, 1.0, 2.0, 3.0)), rtol=1e-12)


def test_mass_without_effect_warns_on_the_command_line(tmp_path, capsys):
    assert main(["run", "--mass", "3", "--duration", "0.01", "--out", str(tmp_path / "o.csv")]) == 0
    assert "--mass has no effect" in capsys.readouterr().err


def test_body_flag_carries_the_scenarios_tuning_and_explicit_dampers_win(tmp_path, capsys):
    out = tmp_path / "o.csv"
    assert main(["run", "--body", "t_handle", "--rates", "2,0,0", "--duration", "1", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "scaled to its moments of inertia" in err and "too stiff" not in err
    data = np.loadtxt(out, delimiter=",", skiprows=1)
    # the default scenario's roll damper: k / J = 3 / 0.6 = 5 per second on the aircraft, and on the T-handle
    assert data[-1, COL["wx"]] / data[0, COL["wx"]] == pytest.approx((1 - 5 * 0.001) ** 1000, rel=1e-9)
    main(["run", "--body", "t_handle", "--dampers", "3,4,6", "--duration", "0.001", "--out", str(out)])
    assert "dampers are too stiff for this body" in capsys.readouterr().err


# ------------------------------------------------------- scenarios and CLI


def test_command_line_mass_doubles_the_energy(tmp_path):
    energies = []
    for mass in ("0.2", "0.4"):
        out = tmp_path / f"{mass}.csv"
        args = ["run", "--body", "phone", "--mass", mass, "--dampers", "0,0,0", "--rates", "0,1,0",
                "--duration", "0.01", "--out", str(out)]
        assert main(args) == 0
        energies.append(float(out.read_text().splitlines()[1].split(",")[COL["energy"]]))
    jyy = mass_properties("phone", 0.2).inertia[1]
    assert energies[0] == pytest.approx(0.5 * jyy, rel=1e-12)
    assert energies[1] == pytest.approx(2 * energies[0], rel=1e-12)


@pytest.mark.subprocess
def test_scenario_body_is_found_next_to_the_scenario_file(tmp_path):
    write(tmp_path / "brick.obj", *box_mesh(0.2, 0.1, 0.05))
    scenario = tmp_path / "brick.toml"
    scenario.write_text('[settings]\nbody = "brick.obj"\nmass = 2.0\n')
    proc = subprocess.run([sys.executable, "-m", "app.cli", "run", "--scenario", str(scenario), "--duration",
                           "0.01", "--every", "10"], capture_output=True, text=True, cwd="/", timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_scenario_with_a_bad_body_names_the_line():
    with pytest.raises(ScenarioError, match=r"line 3: \[settings\] body: .*neither a built-in"):
        loads('[settings]\ndt = 0.001\nbody = "teapot"\n', source="t.toml")


def test_scenario_with_a_mesh_without_volume_names_the_body_line(tmp_path):
    path = _open_box(tmp_path / "open.stl")
    with pytest.raises(ScenarioError, match=r"line 2: \[settings\] body: .*not watertight"):
        loads(f'[settings]\nbody = "{path}"\n', source="t.toml")


def test_compare_bodies_cannot_change_the_body():
    with pytest.raises(ScenarioError, match="comparison bodies fly the main body"):
        loads('[[compare]]\nlabel = "x"\nbody = "phone"\n', source="t.toml")


def test_shape_error_is_a_value_error():
    assert issubclass(ShapeError, ValueError)


def test_bad_body_for_the_window_exits_2_before_opening_it(tmp_path, capsys):
    # (an inside-out mesh was the example here; issue 23 repairs those, so an open one is refused instead)
    path = _open_box(tmp_path / "open.stl")
    assert main(["gui", "--body", path, "--screenshot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not watertight" in err and not (tmp_path / "x.png").exists()


def test_open_mesh_with_inertia_on_the_command_line(tmp_path):
    path = _open_box(tmp_path / "open.stl")
    out = tmp_path / "o.csv"
    args = ["run", "--scenario", "tennis_racket", "--body", path, "--inertia", "1,2,2.5,0,0,0", "--duration",
            "0.01", "--out", str(out)]
    assert main(args) == 0
    assert main(args[:5] + args[7:]) == 2  # without --inertia: refused


def test_body_changes_are_recorded_and_replayed_bit_for_bit(tmp_path):
    from sim.run.recording import Recorder, replay
    from sim.run.runner import Runner
    from sim.run.scenario import load

    mesh = write(tmp_path / "brick.obj", *box_mesh(0.3, 0.2, 0.1))
    scenario = load("tennis_racket")
    path = tmp_path / "run.jsonl"
    recorder = Recorder(path, scenario)
    runner = Runner(scenario, recorder=recorder)
    rows = [runner.advance(200).rows]
    for key, value in [("mass", 0.5), ("body", "t_handle"), ("mass", None), ("body", mesh),
                       ("inertia", (0.01, 0.02, 0.025, 0.0, 0.0, 0.0)), ("inertia", None)]:
        runner.submit(key, value)
        rows.append(runner.advance(150).rows)
    recorder.close(runner.total_steps)
    assert runner.sim.settings.body == mesh
    replayed, last = replay(path)
    assert np.array_equal(replayed.advance(last).rows, np.vstack(rows))


# ------------------------------------------------------------------ carrying a tuning to another body


def _decay_about_x(body, settings, seconds=1.0):
    """w_x(t) / w_x(0) after ``seconds`` of a damped spin about the body x axis (a principal axis)."""
    sim = Simulation(settings.replace(body=body, rates=(2.0, 0.0, 0.0), angles_deg=(0.0, 0.0, 0.0)))
    sim.step(round(seconds / settings.dt))
    return sim.snapshot().w[0] / 2.0


def test_aircraft_dampers_diverge_on_a_t_handle_and_carried_ones_damp_as_on_the_aircraft():
    """Rate damper about a principal axis: J w' = -k w, so w(t) = w0 exp(-k t / J) (closed form)."""
    aircraft = Settings(dampers_on=True, integrator="rk4")  # dampers (3, 4, 6) N m s on Jxx = 0.6
    t_handle = mass_properties("t_handle").inertia
    assert damper_warning(aircraft.replace(body="t_handle")) is not None
    with pytest.raises(SimulationFault):  # k dt / J = 24: the "damped" rate overflows within steps
        _decay_about_x("t_handle", aircraft)
    carried = aircraft.replace(**carried_to(aircraft, t_handle))
    assert damper_warning(carried.replace(body="t_handle")) is None
    k_over_j = aircraft.dampers[0] / HOFFMANN_INERTIA[0]  # 5 per second on the aircraft
    assert carried.dampers[0] / t_handle[0] == pytest.approx(k_over_j, rel=1e-12)
    assert _decay_about_x("t_handle", carried) == pytest.approx(math.exp(-k_over_j * 1.0), rel=1e-6)


def test_carried_gains_keep_each_axis_natural_frequency_and_come_back():
    base = Settings(dampers_on=True, controller="quaternion", limiter_on=True, torque=(1.0, -2.0, 0.5))
    for name in ("t_handle", "phone", "satellite"):
        inertia = mass_properties(name).inertia
        carried = carried_to(base, inertia)
        for key in INERTIA_SCALED:
            for before, after, j0, j1 in zip(getattr(base, key), carried[key], HOFFMANN_INERTIA, inertia):
                assert after / j1 == pytest.approx(before / j0, rel=1e-12), (name, key)
        moved = base.replace(body=name, **carried)
        back = carried_to(moved, HOFFMANN_INERTIA)
        for key in INERTIA_SCALED:
            np.testing.assert_allclose(back[key], getattr(base, key), rtol=1e-12, atol=0)


def test_carried_controller_settles_the_t_handle_as_it_settles_the_aircraft():
    """A small roll command about a principal axis: the error histories agree in time."""
    diag = (0.6, 1.0, 1.5, 0.0, 0.0, 0.0)  # the aircraft without its product of inertia: decoupled axes
    base = Settings(inertia=diag, dampers_on=True, controller="quaternion", command_deg=(0.0, 0.0, 10.0),
                    slerp_time=0.0, integrator="rk4", dt=0.001)
    t_handle = mass_properties("t_handle").inertia
    carried = base.replace(inertia=None, body="t_handle", **carried_to(base, t_handle))
    histories = []
    for settings in (base, carried):
        sim = Simulation(settings)
        phi = []
        for _ in range(30):  # 3 s
            sim.step(100)
            phi.append(sim.snapshot().angles_deg[2])
        histories.append(np.array(phi))
    assert histories[0][-1] == pytest.approx(10.0, abs=0.5)
    np.testing.assert_allclose(histories[1], histories[0], atol=1e-6)


# ------------------------------------------------- colours, baking, warnings

#: A tetrahedron wound outward (corners 0, e1, e2, e3) and one vertex in no triangle.
TETRA_VERTICES = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [5, 5, 5]], dtype=float)
TETRA_FACES = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
GREY = [0.78, 0.79, 0.82, 1.0]


def write_ply(path, vertex_rgba=None, face_rgba=None):
    """The tetrahedron as ASCII PLY, written by hand, with per-vertex or per-face RGBA bytes."""
    rgba = ["property uchar red", "property uchar green", "property uchar blue", "property uchar alpha"]
    lines = ["ply", "format ascii 1.0", f"element vertex {len(TETRA_VERTICES)}",
             "property float x", "property float y", "property float z"]
    lines += rgba if vertex_rgba is not None else []
    lines += [f"element face {len(TETRA_FACES)}", "property list uchar int vertex_indices"]
    lines += rgba if face_rgba is not None else []
    lines += ["end_header"]
    for i, p in enumerate(TETRA_VERTICES):
        lines.append(" ".join(map(str, p)) + ("" if vertex_rgba is None else " " + " ".join(map(str, vertex_rgba[i]))))
    for i, t in enumerate(TETRA_FACES):
        lines.append("3 " + " ".join(map(str, t)) + ("" if face_rgba is None else " " + " ".join(map(str, face_rgba[i]))))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_vertex_colours_of_a_file_are_its_bytes_over_255(tmp_path):
    rgba = np.array([[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [10, 20, 30, 40], [50, 60, 70, 80]])
    loaded = shape.load(write_ply(tmp_path / "vertex.ply", vertex_rgba=rgba))
    assert loaded.colors.shape == (5, 4)
    np.testing.assert_allclose(loaded.colors, rgba / 255.0, rtol=0, atol=1e-15)


def test_face_colours_paint_each_vertex_with_its_last_face_and_unused_vertices_grey(tmp_path):
    rgba = np.array([[255, 0, 0, 255], [0, 255, 0, 128], [0, 0, 255, 255], [10, 20, 30, 40]])
    loaded = shape.load(write_ply(tmp_path / "face.ply", face_rgba=rgba))
    # vertex 0 is in faces 0, 1, 2 (last: 2); vertices 1, 2, 3 last appear in face 3; vertex 4 in none
    expected = np.array([rgba[2], rgba[3], rgba[3], rgba[3]]) / 255.0
    np.testing.assert_allclose(loaded.colors[:4], expected, rtol=0, atol=1e-15)
    assert loaded.colors[4].tolist() == GREY


def test_a_file_without_colours_is_light_grey(tmp_path):
    loaded = shape.load(write_ply(tmp_path / "plain.ply"))
    assert loaded.colors.tolist() == [GREY] * 5


def test_tetrahedron_inertia_is_the_closed_form(tmp_path):
    """Unit tetrahedron: centre (1/4, 1/4, 1/4); per kg about it, E[x^2] = 1/10 - 1/16 = 3/80 and
    E[xy] = 1/20 - 1/16 = -1/80, so Ixx = 2 * 3/80 and Jxy = E[xy] (Hoffmann's sign) = -1/80."""
    loaded = shape.load(write_ply(tmp_path / "tetra.ply"))
    np.testing.assert_allclose(loaded.centre, [0.25, 0.25, 0.25], rtol=1e-14)
    j = loaded.inertia_at(2.0)
    np.testing.assert_allclose(j, [0.15, 0.15, 0.15, -0.025, -0.025, -0.025], rtol=1e-12)
    assert loaded.vertices.dtype == np.float64 and loaded.faces.dtype == np.int64
    assert loaded.mass == 1.0 and loaded.inertia is None and loaded.problem is None


def test_a_closed_mesh_with_a_flipped_face_is_refused_for_its_winding(tmp_path):
    vertices, faces = box_mesh(1, 1, 1)
    faces = faces.copy()
    faces[0] = faces[0][::-1]
    loaded = shape.load(write(tmp_path / "flipped.obj", vertices, faces))
    assert loaded.unit_inertia is None
    assert loaded.problem == "the mesh's faces are not wound consistently, so its volume is undefined"


def test_a_mesh_enclosing_exactly_zero_volume_says_so_without_a_warning(tmp_path):
    path = _flat(tmp_path / "flat.obj")  # two triangles back to back: their volumes cancel exactly
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would be a second line at the command line
        loaded = shape.load(path)
    assert loaded.problem == "the mesh encloses zero volume"


@pytest.mark.parametrize("name", list(BUILTINS))
def test_bake_stores_what_trimesh_reads_from_the_obj(tmp_path, name):
    """The baked arrays against trimesh's own reading of the OBJ (not against load())."""
    path = shape.bake(name, tmp_path)
    assert path == tmp_path / Path(BUILTINS[name].resource).with_suffix(".npz").name
    mesh = trimesh.load(str(ASSETS / BUILTINS[name].resource), file_type="obj", force="mesh", process=False)
    with np.load(path, allow_pickle=False) as arrays:
        assert set(arrays.files) == {"vertices", "faces", "colors", "centre", "unit_inertia", "problem"}
        np.testing.assert_array_equal(arrays["vertices"], mesh.vertices)
        np.testing.assert_array_equal(arrays["faces"], mesh.faces)
        assert arrays["colors"].shape == (len(mesh.vertices), 4)
        assert np.all((arrays["colors"] >= 0.0) & (arrays["colors"] <= 1.0))
        solid = trimesh.Trimesh(mesh.vertices, mesh.faces)
        if BUILTINS[name].inertia is None:  # a closed solid: trimesh's mass properties at density 1
            np.testing.assert_allclose(arrays["centre"], solid.center_mass, rtol=0, atol=1e-12)
            np.testing.assert_allclose(arrays["unit_inertia"], solid.moment_inertia / solid.volume,
                                       rtol=1e-12, atol=1e-15 * np.max(solid.moment_inertia / solid.volume))
            assert str(arrays["problem"]) == ""
        else:  # the aircraft is a picture: no inertia, the reason kept, its own origin
            assert arrays["unit_inertia"].shape == (0, 3)
            assert str(arrays["problem"]).startswith("the mesh")
            assert arrays["centre"].tolist() == [0.0, 0.0, 0.0]


def test_an_inside_out_box_is_turned_outward_and_says_so(tmp_path):
    # (issue 23: an inside-out closed mesh is repaired, where it used to be refused naming its negative volume)
    vertices, faces = box_mesh(1.0, 2.0, 3.0)
    loaded = shape.load(write(tmp_path / "inside_out.obj", vertices, faces[:, ::-1]))
    assert loaded.problem is None and "wound inside out" in loaded.note and "turned outward" in loaded.note
    np.testing.assert_allclose(np.diag(tensor(loaded.inertia_at(1.0))), np.diag(box_inertia(1.0, 1.0, 2.0, 3.0)))


@pytest.mark.parametrize("thickness, solid", [(1e-7, False), (3e-7, True)])
def test_a_box_thinner_than_1e_12_of_its_size_cubed_bounds_no_solid(tmp_path, thickness, solid):
    """Corners at +-5e5 m (thick enough that no corners merge): the limit is 1e-12 * (5e5)^3 =
    1.25e5 m^3; the boxes of 1e6 x 1e6 x 1e-7 and 3e-7 m hold 1e5 and 3e5 m^3."""
    loaded = shape.load(write_obj(tmp_path / "thin.obj", *box_mesh(1e6, 1e6, thickness)))
    if solid:
        assert loaded.problem is None
        np.testing.assert_allclose(np.diag(tensor(loaded.inertia_at(1.0))),
                                   np.diag(box_inertia(1.0, 1e6, 1e6, thickness)), rtol=1e-6)
    else:
        assert loaded.problem == "the mesh encloses almost no volume (1e+05 m^3: flat or degenerate)"
