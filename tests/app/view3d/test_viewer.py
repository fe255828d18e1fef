"""Tests of the aircraft mesh, the gimbal rig geometry and the 3-D attitude view.

Tests marked ``gl`` need an OpenGL context: an X display (Xvfb) with Qt's xcb
platform.  They skip themselves elsewhere and never touch GL under the
offscreen platform.  The others are pure numpy.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from pyqtgraph.Qt import QtGui
from scipy.spatial.transform import Rotation

from app.view3d.gimbal import RING_PLANES, gimbal_axes, ring_matrices, ring_mesh
from app.view3d.mesh import aircraft_path, body_mesh

S = np.diag([1.0, -1.0, -1.0])


def cayley(psi_deg, theta_deg, phi_deg):
    """Cayley matrix (inertial to body) from z-y-x angles, with scipy as the oracle."""
    return Rotation.from_euler("ZYX", np.radians([psi_deg, theta_deg, phi_deg])).as_matrix().T


def signed_volume(vertices, faces):
    """Volume enclosed by a triangle mesh, positive for outward faces."""
    p0, p1, p2 = (np.asarray(vertices, dtype=float)[faces[:, i]] for i in range(3))
    return np.einsum("ij,ij->i", p0, np.cross(p1, p2)).sum() / 6.0


def changed_fraction(image, reference, tolerance=40):
    """Share of pixels whose RGB differs from ``reference`` by more than ``tolerance``."""
    diff = np.abs(image.astype(int) - np.asarray(reference, dtype=int)).sum(axis=-1)
    return float((diff > tolerance).mean())


# --------------------------------------------------------------------------- mesh


@pytest.fixture(scope="module")
def aircraft():
    mesh = body_mesh("aircraft")
    return mesh.vertices, mesh.faces, mesh.colors


def test_aircraft_asset_is_a_sane_mesh(aircraft):
    vertices, faces, colors = aircraft
    assert vertices.dtype == np.float32 and vertices.shape[1] == 3
    assert faces.dtype == np.int32 and faces.shape[1] == 3
    assert colors.shape == (len(vertices), 4)
    assert 100 <= len(faces) <= 2000
    assert np.all(np.isfinite(vertices)) and np.all((colors >= 0) & (colors <= 1))
    assert faces.min() == 0 and faces.max() == len(vertices) - 1
    lo, hi = vertices.min(axis=0), vertices.max(axis=0)
    assert 9.0 <= hi[0] - lo[0] <= 11.0
    nose = vertices[np.argmax(vertices[:, 0])]
    assert nose[0] > 4.5 and abs(nose[1]) < 0.1, "nose on the centre line at +x"
    assert abs(hi[1] + lo[1]) < 1e-3, "wings symmetric in y"


def test_fin_points_up_at_the_tail(aircraft):
    vertices = aircraft[0]
    fin = vertices[vertices[:, 2] < -1.5]
    assert len(fin) > 0 and vertices[:, 2].min() < -2.0
    assert np.all(fin[:, 0] < -2.5), "only the fin rises above the fuselage, at the tail"
    assert np.all(np.abs(fin[:, 1]) < 0.2)
    assert vertices[:, 2].max() < 1.0, "nothing hangs far below"


def test_wing_tips_left_red_right_green(aircraft):
    vertices, _, colors = aircraft
    left = colors[vertices[:, 1] < -5.0]
    right = colors[vertices[:, 1] > 5.0]
    assert len(left) and len(right)
    assert np.all(left[:, 0] > 0.7) and np.all(left[:, 1:3] < 0.3)
    assert np.all(right[:, 1] > 0.6) and np.all(right[:, [0, 2]] < 0.3)
    body = colors[np.abs(vertices[:, 1]) < 0.5]
    assert np.all(body[:, :3].min(axis=1) > 0.1)


def test_aircraft_is_closed_with_outward_faces(aircraft):
    vertices, faces, _ = aircraft
    edges = np.vstack([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    directed = set(map(tuple, edges))
    assert len(directed) == len(edges)
    assert all((b, a) in directed for a, b in directed)
    assert signed_volume(vertices, faces) > 5.0


def test_asset_is_reproduced_by_its_generator():
    script = Path(__file__).parents[3] / "tools" / "make_aircraft.py"
    spec = importlib.util.spec_from_file_location("make_aircraft", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.obj_text(module.aircraft_parts()) == aircraft_path().read_text(encoding="ascii")


# ------------------------------------------------------------------------- gimbal


@pytest.mark.parametrize(("psi", "theta", "phi"), [(10, 20, 30), (-170, 85, 120), (45, -60, -45)])
def test_inner_ring_carries_the_body_frame(psi, theta, phi):
    outer, middle, inner = ring_matrices(*np.radians([psi, theta, phi]))
    np.testing.assert_allclose(inner, cayley(psi, theta, phi), atol=1e-12)
    np.testing.assert_allclose(outer, cayley(psi, 0, 0), atol=1e-12)
    np.testing.assert_allclose(middle, cayley(psi, theta, 0), atol=1e-12)


@pytest.mark.parametrize("theta", [90.0, -90.0])
@pytest.mark.parametrize(("psi", "phi"), [(0.0, 0.0), (30.0, 20.0), (-120.0, 75.0)])
def test_gimbal_lock_aligns_yaw_and_roll_axes(psi, theta, phi):
    yaw, pitch, roll = gimbal_axes(*np.radians([psi, theta, phi]))
    np.testing.assert_allclose(yaw, [0.0, 0.0, 1.0], atol=1e-12)
    assert abs(yaw @ roll) == pytest.approx(1.0, abs=1e-12)
    assert abs(pitch @ yaw) < 1e-12


def test_yaw_and_roll_axes_apart_away_from_lock():
    yaw, _, roll = gimbal_axes(*np.radians([30.0, 30.0, 20.0]))
    assert abs(yaw @ roll) == pytest.approx(np.sin(np.radians(30.0)))


def test_gimbal_lock_loses_a_degree_of_freedom():
    """At theta = 90 deg only psi - phi matters: the rings differ, the attitude not."""
    a = ring_matrices(*np.radians([30.0, 90.0, 20.0]))
    b = ring_matrices(*np.radians([10.0, 90.0, 0.0]))
    np.testing.assert_allclose(a[2], b[2], atol=1e-12)
    assert not np.allclose(a[0], b[0])


@pytest.mark.parametrize("plane", RING_PLANES)
def test_ring_meshes_are_closed_and_outward(plane):
    mesh = ring_mesh(4.0, plane)
    assert signed_volume(mesh.vertexes(), mesh.faces().astype(int)) > 0.0


# --------------------------------------------------------------------------- view


# the ``view`` fixture (an AttitudeView of 480x360 on screen) is in conftest.py


def background_of(image):
    """The top-left pixel: sky in the default view."""
    return image[0, 0]


@pytest.mark.gl
def test_picture_shows_the_aircraft(view):
    view.show_gimbal(False)
    image = view.render_image()
    assert image.shape == (360, 480, 3) and image.dtype == np.uint8
    assert changed_fraction(image, background_of(image)) > 0.02
    bright_grey = (image.min(axis=-1) > 110) & (np.ptp(image, axis=-1) < 40)
    assert bright_grey.mean() > 0.01, "the lit light grey aircraft, not only grid lines"
    assert background_of(image).astype(int).sum() > 60, "background is not black"


@pytest.mark.gl
def test_different_attitudes_give_different_pictures(view):
    view.set_attitude(cayley(0, 0, 0))
    level = view.render_image()
    view.set_attitude(cayley(0, 0, 90))
    rolled = view.render_image()
    assert changed_fraction(rolled, level) > 0.01
    view.set_attitude(cayley(0, 0, 0))
    assert changed_fraction(view.render_image(), level) < 0.001


@pytest.mark.gl
@pytest.mark.parametrize(("angles", "body", "scene"), [
    ((90, 0, 0), (5, 0, 0), (0, -5, 0)),     # nose east: scene -y
    ((0, 90, 0), (5, 0, 0), (0, 0, 5)),      # nose up
    ((0, 0, 90), (0, 5, 0), (0, 0, -5)),     # right roll: right wing down
    ((0, 0, 0), (0, 0, -2), (0, 0, 2)),      # fin up
])
def test_aircraft_transform_maps_body_to_scene(view, angles, body, scene):
    view.set_attitude(cayley(*angles))
    mapped = view.aircraft_item.transform().map(QtGui.QVector3D(*body))
    np.testing.assert_allclose([mapped.x(), mapped.y(), mapped.z()], scene, atol=1e-5)


@pytest.mark.gl
def test_aircraft_transform_is_s_times_c_transposed(view):
    c = Rotation.from_rotvec([0.3, -1.1, 0.7]).as_matrix().T
    view.set_attitude(c)
    matrix = view.aircraft_item.transform().matrix()
    np.testing.assert_allclose(matrix[:3, :3], S @ c.T, atol=1e-6)
    np.testing.assert_allclose(matrix[:3, 3], 0.0)


@pytest.mark.gl
def test_same_attitude_twice_rebuilds_nothing(view):
    c = cayley(10, 20, 30)
    view.set_attitude(c)
    item = view.aircraft_item
    meshdata, transform = item.meshdata, item.transform()
    view.set_attitude(c.tolist())
    assert item.meshdata is meshdata
    assert item.transform() is transform, "unchanged C must not even set the transform"
    view.set_attitude(cayley(10, 20, 31))
    assert item.meshdata is meshdata and item.transform() is not transform


@pytest.mark.gl
@pytest.mark.parametrize("bad", [np.eye(2), [[1, 0, 0], [0, 1, 0], [0, 0, np.nan]]])
def test_set_attitude_rejects_bad_matrices(view, bad):
    with pytest.raises(ValueError):
        view.set_attitude(bad)


@pytest.mark.gl
def test_ghost_can_be_shown_and_hidden(view):
    view.show_gimbal(False)
    plain = view.render_image()
    view.set_command(cayley(40, 0, 60))
    assert changed_fraction(view.render_image(), plain) > 0.005
    view.show_ghost(False)
    assert changed_fraction(view.render_image(), plain) < 0.001
    view.show_ghost(True)
    assert changed_fraction(view.render_image(), plain) > 0.005
    view.set_command(None)
    assert changed_fraction(view.render_image(), plain) < 0.001


@pytest.mark.gl
def test_gimbal_rig_can_be_hidden_and_turns(view):
    with_rig = view.render_image()
    view.set_gimbal_angles(*np.radians([40.0, 30.0, 60.0]))
    assert changed_fraction(view.render_image(), with_rig) > 0.002
    view.show_gimbal(False)
    assert changed_fraction(view.render_image(), with_rig) > 0.01


@pytest.mark.gl
def test_extra_bodies_share_one_mesh(view):
    plain = view.render_image()
    before = list(view.scene.items)
    view.add_body("rk4", (1.0, 0.4, 0.2, 0.3))
    view.add_body("euler", (0.4, 1.0, 0.2, 0.3))
    items = [item for item in view.scene.items if item not in before]
    assert len(items) == 2 and items[0].meshdata is items[1].meshdata
    view.set_body_attitude("rk4", cayley(0, 45, 0))
    view.set_body_attitude("euler", cayley(0, -45, 0))
    assert changed_fraction(view.render_image(), plain) > 0.005
    with pytest.raises(ValueError):
        view.add_body("rk4", (1.0, 1.0, 1.0, 0.3))
    view.remove_body("rk4")
    view.remove_body("euler")
    with pytest.raises(KeyError):
        view.set_body_attitude("rk4", np.eye(3))
    assert changed_fraction(view.render_image(), plain) < 0.001


@pytest.mark.gl
def test_reset_view_restores_the_camera(view):
    home = view.scene.cameraParams()
    home["center"] = QtGui.QVector3D(home["center"])  # pan() moves the centre in place
    view.scene.orbit(70.0, 40.0)
    view.scene.pan(3.0, 1.0, 0.0)
    assert view.scene.cameraParams() != home
    view.reset_view()
    again = view.scene.cameraParams()
    assert again["distance"] == home["distance"] and again["center"] == home["center"]
    assert abs(QtGui.QQuaternion.dotProduct(again["rotation"], home["rotation"])) == pytest.approx(1.0)


def test_wheels_drawn_bit_by_bit_are_the_wheels_drawn_at_once(view):
    """The wheels' drawing made again only where it changed (the arrow with the speed, the ring with the
    saturation; issue 42) is the drawing of the last speeds made from nothing, whatever came before."""
    from app.view3d.layout import SATURATED_COLOR, wheel_points

    axes = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.6, 0.8))
    colors = ((1.0, 0.5, 0.0, 1.0), (0.2, 0.8, 0.2, 1.0), (0.3, 0.3, 1.0, 1.0))
    view.set_wheels(axes, colors)
    steps = [((0.1, -0.2, 0.3), (False, False, False)), ((0.5, -0.2, 1.0), (False, False, True)),
             ((0.6, -1.0, 0.9), (False, True, False)), ((0.6, -0.4, -0.2), (False, False, False))]
    scene = view.scene
    for fractions, full in steps:
        view.set_wheel_speeds(fractions, full)
        for (ring, arrow), axis, color, f, sat in zip(scene.wheel_items, axes, colors, fractions, full):
            want_ring, want_arrow = wheel_points(axis, scene.body.size, f)
            shade = SATURATED_COLOR if sat else color
            np.testing.assert_allclose(ring.pos, want_ring, atol=1e-6)
            np.testing.assert_allclose(arrow.pos, want_arrow, atol=1e-6)
            for item in (ring, arrow):
                np.testing.assert_allclose(item.colors, np.tile(shade, (len(item.pos), 1)), atol=1e-6)
                assert item.width == (5.0 if sat else 2.5)
