"""The lean GL items draw what pyqtgraph's own items draw (the oracle), with less per frame."""

import gc

import numpy as np
import pyqtgraph.opengl as gl
import pytest

from app.view3d.gimbal import ring_mesh
from pyqtgraph.Qt import QtGui

from app.view3d.glitems import LIT_SHADER, InstancedMeshItem, LineItem, MeshItem, PointsItem
from app.view3d.mesh import body_mesh


@pytest.fixture
def stage(view):
    """The 3D view (conftest) emptied: every item of the attitude scene hidden."""
    for item in view.scene.items:
        item.setVisible(False)
    return view


def render_alone(view, make):
    """The picture of the item ``make()`` alone in the view.

    The item is freed before returning, while the view's GL context lives,
    so its GL buffers are released in the context that made them.
    """
    item = make()
    view.scene.addItem(item)
    try:
        return view.render_image().astype(int)
    finally:
        view.scene.removeItem(item)
        del item
        gc.collect()


def tilted(item):
    item.rotate(35.0, 1.0, 0.3, 0.2)
    item.scale(1.6, 1.6, 1.6)
    return item


def aircraft_mesh():
    mesh = body_mesh("aircraft")
    return gl.MeshData(vertexes=mesh.vertices, faces=mesh.faces, vertexColors=mesh.colors)


@pytest.mark.gl
def test_mesh_with_vertex_colours_draws_as_pyqtgraphs_mesh_item(stage):
    mesh = aircraft_mesh()
    ours = render_alone(stage, lambda: tilted(MeshItem(mesh)))
    theirs = render_alone(stage, lambda: tilted(gl.GLMeshItem(meshdata=mesh, smooth=False, shader=LIT_SHADER)))
    assert (np.abs(ours - render_alone(stage, gl.GLGraphicsItem.GLGraphicsItem)).sum(-1) > 30).mean() > 0.01
    assert np.abs(ours - theirs).max() <= 2


@pytest.mark.gl
def test_translucent_single_colour_mesh_draws_as_pyqtgraphs(stage):
    mesh = ring_mesh(5.0, (0, 1))
    color = (0.3, 0.8, 1.0, 0.4)
    ours = render_alone(stage, lambda: tilted(MeshItem(mesh, color=color, glOptions="translucent")))
    theirs = render_alone(stage, lambda: tilted(gl.GLMeshItem(meshdata=mesh, color=color, smooth=False,
                                                              shader=LIT_SHADER, glOptions="translucent")))
    assert np.abs(ours - theirs).max() <= 2


@pytest.mark.gl
@pytest.mark.parametrize("mode", ["lines", "line_strip"])
def test_lines_draw_as_pyqtgraphs_line_plot_item(stage, mode):
    pos = np.array([[0, 0, 0], [6, 0, 0], [6, 4, 0], [0, 4, 3], [-5, -3, 1]], float)
    colors = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 1, 1], [1, 1, 0, 1], [1, 0, 1, 1]], float)
    points = pos[:4] if mode == "lines" else pos
    for color in (colors[:len(points)], (0.9, 0.9, 0.9, 1.0)):
        ours = render_alone(stage, lambda: tilted(LineItem(points, color, width=3.0, mode=mode)))
        theirs = render_alone(stage, lambda: tilted(gl.GLLinePlotItem(
            pos=points, color=color, width=3.0, mode=mode, glOptions="opaque")))
        assert np.abs(ours - theirs).max() <= 2
        assert (ours.sum(-1) != ours[0, 0].sum()).mean() > 0.001  # something was drawn


@pytest.mark.gl
def test_points_land_where_pyqtgraphs_scatter_points_land_in_their_colours(stage):
    pos = np.array([[0.0, 0.0, 0.0], [5.0, -6.0, 2.0], [-4.0, -10.0, -3.0]])
    colors = np.array([[1.0, 0.2, 0.2, 1.0], [0.2, 1.0, 0.2, 1.0], [0.3, 0.4, 1.0, 1.0]])
    background = render_alone(stage, gl.GLGraphicsItem.GLGraphicsItem)
    ours = render_alone(stage, lambda: PointsItem(pos, colors, size=[12.0, 12.0, 12.0]))
    theirs = render_alone(stage, lambda: gl.GLScatterPlotItem(pos=pos, color=colors, size=12.0, pxMode=True))
    drawn = np.abs(theirs - background).sum(-1) > 30
    # pyqtgraph's sprites shade their colour; each drawn pixel belongs to the nearest of the three
    nearest = np.argmin([np.abs(theirs - np.round(255 * c[:3])).sum(-1) for c in colors], axis=0)
    for k, color in enumerate(colors):
        ours_k = np.abs(ours - np.round(255 * color[:3])).sum(-1) < 12   # exact colour (the rim is darker)
        theirs_k = drawn & (nearest == k)
        assert ours_k.sum() > 20 and theirs_k.sum() > 20, k
        centre = np.argwhere(ours_k).mean(axis=0)
        assert np.abs(centre - np.argwhere(theirs_k).mean(axis=0)).max() <= 1.5, k
    # set_data moves and recolours them; an empty item draws nothing
    def moved():
        item = PointsItem(pos, colors)
        item.set_data(pos[:1], colors[2:3], 12.0)
        return item
    image = render_alone(stage, moved)
    blue = np.abs(image - np.round(255 * colors[2, :3])).sum(-1) < 12
    red = np.abs(image - np.round(255 * colors[0, :3])).sum(-1) < 12
    assert blue.sum() > 20 and red.sum() == 0
    assert np.array_equal(render_alone(stage, lambda: PointsItem(np.zeros((0, 3)), np.zeros((0, 4)))), background)


def _placements():
    """Three copies: offsets (3, 3) and axes (3, 3, 3), rotations times scales (scipy draws the rotations)."""
    from scipy.spatial.transform import Rotation

    turns = Rotation.from_euler("ZYX", [[30, 20, -40], [-120, 60, 10], [170, -35, 80]], degrees=True).as_matrix()
    axes = turns * np.array([1.0, 0.6, 0.8])[:, None, None]
    return np.array([[-9.0, 0.0, 0.0], [4.0, -8.0, 2.0], [6.0, 9.0, -1.0]]), axes


def _group(mesh, offsets, axes, tint=None):
    """The same copies as separate MeshItems, each placed by its own item transform (the oracle)."""
    group = gl.GLGraphicsItem.GLGraphicsItem()
    for offset, axis in zip(offsets, axes):
        matrix = np.eye(4)
        matrix[:3, :3], matrix[:3, 3] = axis, offset
        item = MeshItem(mesh, color=tint, parentItem=group)
        item.setTransform(QtGui.QMatrix4x4(*matrix.ravel()))
    return group


@pytest.mark.gl
def test_instanced_copies_draw_as_one_mesh_item_per_copy(stage):
    mesh = aircraft_mesh()
    offsets, axes = _placements()

    def instanced(tints=None):
        item = InstancedMeshItem(mesh)
        item.set_instances(offsets, axes, tints)
        return item

    ours = render_alone(stage, instanced)
    theirs = render_alone(stage, lambda: _group(mesh, offsets, axes))
    background = render_alone(stage, gl.GLGraphicsItem.GLGraphicsItem)
    assert (np.abs(ours - background).sum(-1) > 30).mean() > 0.01, "the copies are drawn"
    # the same picture but for a few edge pixels: the shader places each vertex as offset + axes @ p,
    # pyqtgraph's matrices as one product, and float32 rounds the two a little differently
    assert (np.abs(ours - theirs).max(-1) > 2).sum() <= 20
    placed = instanced().placements
    assert np.allclose(placed[0], offsets) and np.allclose(placed[1], axes, atol=1e-6) and not placed[2].any()
    # a tint of alpha 1 colours the mesh's greys red and leaves its coloured lights (red and green wing tips)
    tinted = render_alone(stage, lambda: instanced(np.tile((1.0, 0.0, 0.0, 1.0), (3, 1))))
    drawn = np.abs(ours - background).sum(-1) > 30
    grey = drawn & (np.ptp(ours, axis=-1) < 20)
    green = drawn & (ours[..., 1] > ours[..., 0] + 60)
    assert grey.sum() > 500 and green.sum() > 10
    red = tinted[..., 0] > tinted[..., 1:].max(-1) + 40
    assert red[grey].mean() > 0.95 and red[green].mean() < 0.5
    assert np.array_equal(render_alone(stage, lambda: InstancedMeshItem(mesh)), background), "no copies: nothing"


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="size"):
        PointsItem(np.zeros((2, 3)), np.ones((2, 4)), size=np.ones(3))
    with pytest.raises(ValueError, match="color"):
        PointsItem(np.zeros((2, 3)), np.ones((3, 4)))
    with pytest.raises(ValueError, match="mode"):
        LineItem(np.zeros((2, 3)), (1, 1, 1, 1), mode="points")
    with pytest.raises(ValueError, match="pos"):
        LineItem(np.zeros((2, 2)), (1, 1, 1, 1))
    with pytest.raises(ValueError, match="color"):
        LineItem(np.zeros((3, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="vertex colours"):
        MeshItem(ring_mesh(5.0, (0, 1)))
    with pytest.raises(ValueError, match="axes"):
        InstancedMeshItem(aircraft_mesh()).set_instances(np.zeros((2, 3)), np.zeros((3, 3, 3)))
    with pytest.raises(ValueError, match="tints"):
        InstancedMeshItem(aircraft_mesh()).set_instances(np.zeros((2, 3)), np.zeros((2, 3, 3)), np.zeros((2, 3)))


@pytest.mark.parametrize("body", ["aircraft", "satellite", "phone", "t_handle"])
def test_a_decimated_mesh_keeps_its_shape_winding_and_colours(body):
    from app.view3d.mesh import decimated

    mesh = body_mesh(body)
    coarse = decimated(mesh, 64)
    assert 20 <= len(coarse.faces) <= 64 < len(mesh.faces) and coarse.size == mesh.size
    extent = np.ptp(mesh.vertices, axis=0).max()
    # the box shrinks by at most a grid cell (a vertex moves to its cell's mean); the grid has <= 48 cells
    assert np.abs(coarse.vertices.min(0) - mesh.vertices.min(0)).max() <= extent / 8
    assert np.abs(coarse.vertices.max(0) - mesh.vertices.max(0)).max() <= extent / 8

    def volume(m):  # signed: positive when the triangles are wound counter-clockwise seen from outside
        t = m.vertices[m.faces].astype(float)
        return np.einsum("ij,ij->i", t[:, 0], np.cross(t[:, 1], t[:, 2])).sum() / 6.0

    assert volume(coarse) > 0.3 * volume(mesh) > 0.0, "the winding is kept: back faces can be culled"
    assert {tuple(c) for c in coarse.colors.round(4)} <= {tuple(c) for c in mesh.colors.round(4)}
    assert decimated(mesh, 10_000) is mesh
