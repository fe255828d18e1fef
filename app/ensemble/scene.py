"""The ensemble's sphere: every body's nose direction as a point on the unit sphere.

A body's nose (its x axis) in inertial axes is a point on the unit sphere;
an ensemble of N bodies is N points, drawn in one call
(:class:`~app.view3d.glitems.PointsItem`), each coloured by its attitude error
(:mod:`app.ensemble.colors`).  A controller pulls the points together at
the command's nose direction (a ring); with shortest path off, bodies that
unwind take the long way round the sphere.  The aircraft's own nose is a
white cross.  A translucent shell dims the points on the far side.

Beside the points, the scene can draw the bodies themselves
(:meth:`EnsembleScene.show_aircraft`, :meth:`EnsembleScene.set_aircraft`):
small copies of the body's mesh, one instanced draw call
(:class:`~app.view3d.glitems.InstancedMeshItem`), each turned by its body's
attitude as the attitude view turns the aircraft (``S C^T``, :func:`scene_matrix`)
and standing on the sphere at its nose point, nose outwards.

Scene axes are the attitude view's (see :mod:`app.view3d.layout`):
``x_scene = S @ x_ned`` with ``S = diag(1, -1, -1)`` (north, west, up), and
the default camera looks from the same direction as the attitude view's, so
the sphere shows the nose directions as the aircraft is seen there.

:meth:`EnsembleScene.pick` finds the point under the mouse: a click (press
and release without dragging) emits :attr:`EnsembleScene.picked`.
"""

from __future__ import annotations

# app.view3d first: its package sets PyOpenGL's error checking before OpenGL.GL is loaded
from app.view3d.glwindow import GLWindow, GLWindowView  # isort: skip

import numpy as np
import pyqtgraph.opengl as gl
from OpenGL import GL
from pyqtgraph.Qt import QtCore, QtGui

from app.view3d.gimbal import SCENE_FROM_NED, scene_matrix
from app.view3d.glitems import InstancedMeshItem, LineItem, MeshItem, PointsItem
from app.view3d.layout import GHOST_COLOR, HOME_ELEVATION_AZIMUTH, SCENE_BACKGROUND
from app.view3d.mesh import decimated

__all__ = ["EnsembleScene", "EnsembleSceneView", "LabelItem", "POINT_SIZE", "LONG_WAY_SIZE", "PICK_PIXELS",
           "aircraft_size"]

#: Diameter of a body's point, pixels.
POINT_SIZE = 6.0
#: Diameter of the point of a body that has travelled more than 180 deg (the long way), pixels.
LONG_WAY_SIZE = 10.0
#: A click selects the nearest visible point within this many pixels.
PICK_PIXELS = 10.0
#: Most mouse travel, pixels, between press and release that still counts as a click.
CLICK_SLOP = 4.0
#: Camera distance from the sphere's centre (radius 1).
SPHERE_DISTANCE = 3.1
SHELL_COLOR = (0.10, 0.12, 0.17, 0.5)
SPHERE_GRID_COLOR = (0.55, 0.6, 0.7, 0.25)
AXIS_COLOR = (0.85, 0.87, 0.9, 1.0)
MARKER_COLOR = (1.0, 1.0, 1.0, 1.0)
COMMAND_RING_COLOR = (*GHOST_COLOR[:3], 1.0)
#: Most triangles of the mesh each aircraft is drawn with (heavier meshes are decimated: a thousand copies).
AIRCRAFT_TRIANGLES = 64
#: Largest and smallest drawn aircraft: the distance from its centre to its farthest vertex, in sphere radii.
AIRCRAFT_SIZE = (0.16, 0.035)


def aircraft_size(count: int) -> float:
    """How large ``count`` aircraft are drawn on the unit sphere (sphere radii, centre to farthest vertex).

    About half the spacing of ``count`` points spread evenly over the sphere
    (``sqrt(4 pi / count)``), within :data:`AIRCRAFT_SIZE`.

    Examples
    --------
    >>> round(aircraft_size(1000), 3), aircraft_size(1), aircraft_size(10**6)
    (0.056, 0.16, 0.035)
    """
    high, low = AIRCRAFT_SIZE
    return float(min(high, max(low, 0.5 * np.sqrt(4.0 * np.pi / max(count, 1)))))


def _circle(radius: float, segments: int, axis: int, offset: float = 0.0) -> np.ndarray:
    """Segments (``"lines"`` pairs) of a circle about coordinate ``axis`` at ``offset`` along it."""
    angles = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    u, v = radius * np.cos(angles), radius * np.sin(angles)
    points = np.zeros((segments + 1, 3))
    others = [i for i in range(3) if i != axis]
    points[:, others[0]], points[:, others[1]], points[:, axis] = u, v, offset
    return np.repeat(points, 2, axis=0)[1:-1]


def sphere_grid() -> np.ndarray:
    """Line segments of the sphere's grid in scene axes: the equator, parallels at +-30 and +-60 deg,
    meridians every 30 deg (lines of constant heading)."""
    parts = [_circle(np.cos(np.radians(lat)), 96, 2, np.sin(np.radians(lat))) for lat in (-60, -30, 0, 30, 60)]
    t = np.linspace(0.0, 2.0 * np.pi, 97)
    for lon in np.radians(np.arange(0, 180, 30)):  # each great circle through the poles: two meridians
        circle = np.stack([np.cos(t) * np.cos(lon), np.cos(t) * np.sin(lon), np.sin(t)], axis=1)
        parts.append(np.repeat(circle, 2, axis=0)[1:-1])
    return np.concatenate(parts)


def axis_stubs() -> np.ndarray:
    """Stubs of the inertial axes N, E, D beyond the sphere (scene axes, ``"lines"`` pairs)."""
    return np.concatenate([[1.02 * axis, 1.3 * axis] for axis in SCENE_FROM_NED.T])


#: Strokes of the axis letters in a unit box (x right, y up).
LETTERS = {
    "N": ((0, 0), (0, 1), (0, 1), (0.75, 0), (0.75, 0), (0.75, 1)),
    "E": ((0, 0), (0, 1), (0, 1), (0.65, 1), (0, 0.5), (0.5, 0.5), (0, 0), (0.65, 0)),
    "D": ((0, 0), (0, 1), (0, 1), (0.4, 1), (0.4, 1), (0.7, 0.5), (0.7, 0.5), (0.4, 0), (0.4, 0), (0, 0)),
}


class LabelItem(LineItem):
    """A letter of line strokes at a point of the scene, always upright and facing the camera.

    Parameters
    ----------
    letter : str
        A key of :data:`LETTERS`.
    anchor : sequence of 3 floats
        Scene position of the letter's centre.
    height : float
        Letter height in scene units.
    """

    def __init__(self, letter: str, anchor, height: float = 0.11, color=(0.85, 0.87, 0.9, 1.0), width=1.5):
        strokes = np.array(LETTERS[letter], dtype=float) - (0.35, 0.5)
        super().__init__(np.column_stack([strokes, np.zeros(len(strokes))]), color, width=width, mode="lines")
        self._anchor = QtGui.QVector3D(*(float(a) for a in anchor))
        self._height = float(height)

    def modelViewMatrix(self) -> QtGui.QMatrix4x4:
        """Translation to the anchor in eye space and a scale: the camera's rotation left out."""
        view = self.view()
        matrix = QtGui.QMatrix4x4()
        if view is None:
            return matrix
        matrix.translate(view.currentModelView().map(self._anchor))
        matrix.scale(self._height)
        return matrix

    def mvpMatrix(self) -> QtGui.QMatrix4x4:
        view = self.view()
        return QtGui.QMatrix4x4() if view is None else view.currentProjection() * self.modelViewMatrix()


def _cross(size: float = 0.07) -> np.ndarray:
    """A "+" in the plane x = 1 (body axes): the mark of a nose on the sphere."""
    return np.array([[1.0, -size, 0.0], [1.0, size, 0.0], [1.0, 0.0, -size], [1.0, 0.0, size]])


class EnsembleScene(GLWindow):
    """The unit sphere with one point per body, the command's ring and the aircraft's cross.

    A native GL window like the attitude scene (:class:`~app.view3d.glwindow.GLWindow`,
    embedded by :class:`EnsembleSceneView`).  Drag to orbit, wheel to zoom.

    Signals
    -------
    picked(int)
        The index of the point clicked.
    """

    picked = QtCore.Signal(int)

    def __init__(self):
        super().__init__(SCENE_BACKGROUND)
        self._nose_ned = np.zeros((3, 0))
        self._press = None
        self._points = PointsItem(np.zeros((0, 3)), np.zeros((0, 4)), POINT_SIZE)
        self.addItem(self._points)
        self._aircraft = None  # (InstancedMeshItem, its BodyMesh) while the bodies are drawn
        shell = gl.MeshData.sphere(rows=24, cols=48, radius=0.995)
        self._shell = MeshItem(shell, color=SHELL_COLOR, glOptions={
            GL.GL_DEPTH_TEST: True, GL.GL_BLEND: True, GL.GL_CULL_FACE: True,
            "glBlendFunc": (GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA)})
        self._shell.setDepthValue(10)  # after the points: dims those behind it
        self.addItem(self._shell)
        self.addItem(LineItem(sphere_grid(), SPHERE_GRID_COLOR, glOptions="translucent"))
        self.addItem(LineItem(axis_stubs(), AXIS_COLOR, width=1.5, mode="lines"))
        for letter, axis in zip("NED", SCENE_FROM_NED.T):
            self.addItem(LabelItem(letter, 1.42 * axis, color=AXIS_COLOR))
        self._command = LineItem(_circle(0.08, 32, 0, 1.0), COMMAND_RING_COLOR, width=2.5)
        self._command.setDepthValue(11)
        self._main = LineItem(_cross(), MARKER_COLOR, width=2.5)
        self._main.setDepthValue(11)
        for item in (self._command, self._main):
            item.setVisible(False)
            self.addItem(item)
        self.reset_view()

    # ----------------------------------------------------------- drawing
    @property
    def points_item(self) -> PointsItem:
        """The bodies' points (for tests and benchmarks)."""
        return self._points

    def set_bodies(self, nose_ned, colors, sizes=POINT_SIZE) -> None:
        """Show one point per body.

        Parameters
        ----------
        nose_ned : array_like, shape (3, n)
            Each body's nose direction (unit x axis) in NED axes.
        colors : array_like, shape (n, 4)
            RGBA per body.
        sizes : float or array_like, shape (n,)
            Point diameters, pixels.
        """
        nose_ned = np.asarray(nose_ned, dtype=float)
        if nose_ned.ndim != 2 or nose_ned.shape[0] != 3:
            raise ValueError(f"nose_ned: expected shape (3, n), got {nose_ned.shape}")
        self._nose_ned = nose_ned
        self._points.set_data((SCENE_FROM_NED @ nose_ned).T, colors, sizes)

    @property
    def aircraft_item(self) -> InstancedMeshItem | None:
        """The bodies' aircraft while they are drawn (:meth:`show_aircraft`), else None."""
        return None if self._aircraft is None else self._aircraft[0]

    def show_aircraft(self, mesh) -> None:
        """Draw the bodies as copies of ``mesh`` (an :class:`app.view3d.mesh.BodyMesh`), or not (None).

        A mesh of more than :data:`AIRCRAFT_TRIANGLES` triangles is drawn
        decimated (:func:`app.view3d.mesh.decimated`), back faces culled.
        Nothing is drawn until :meth:`set_aircraft` places them.
        """
        if self._aircraft is not None:
            if mesh is self._aircraft[1]:
                return
            self.removeItem(self._aircraft[0])
            self._aircraft = None
        if mesh is not None:
            coarse = decimated(mesh, AIRCRAFT_TRIANGLES)
            item = InstancedMeshItem(gl.MeshData(vertexes=coarse.vertices, faces=coarse.faces,
                                                 vertexColors=coarse.colors),
                                     glOptions={GL.GL_DEPTH_TEST: True, GL.GL_BLEND: False, GL.GL_CULL_FACE: True})
            self.addItem(item)
            self._aircraft = (item, mesh)

    def set_aircraft(self, body_to_ned, size: float, colors=None) -> None:
        """Place the aircraft: one per matrix of ``body_to_ned`` (shape (m, 3, 3), ``C^T`` of each body).

        Each stands on the sphere at its nose point, nose outwards, turned as
        the attitude view turns the aircraft (``S C^T``, ``S`` =
        ``SCENE_FROM_NED``), and ``size`` sphere radii from its centre to
        its farthest vertex.  ``colors`` (m, 4): each one's colour (its
        point's), given to the mesh's grey parts; None: the mesh's own.
        """
        if self._aircraft is None:
            return
        item, mesh = self._aircraft
        turn = SCENE_FROM_NED @ np.asarray(body_to_ned, dtype=float)  # (m, 3, 3): body axes in scene axes
        tail = max(-float(mesh.vertices[:, 0].min()), 0.0) / mesh.size  # the tail's distance behind the centre
        offsets = turn[:, :, 0] * (1.0 + size * tail)  # the tail on the sphere, at the nose point
        item.set_instances(offsets, turn * (size / mesh.size), colors)

    def set_marks(self, main_cayley, command_cayley) -> None:
        """Mark the aircraft's nose (a cross) and its command's (a ring); None hides a mark.

        Parameters
        ----------
        main_cayley, command_cayley : array_like, shape (3, 3), or None
            Cayley matrices ``C`` (inertial to body).
        """
        for item, cayley in ((self._main, main_cayley), (self._command, command_cayley)):
            item.setVisible(cayley is not None)
            if cayley is not None:
                item.setTransform(scene_matrix(np.asarray(cayley, dtype=float).T))

    def reset_view(self) -> None:
        """Look at the sphere from where the attitude view looks at the aircraft."""
        self.look_from((0.0, 0.0, 0.0), SPHERE_DISTANCE, *HOME_ELEVATION_AZIMUTH)

    # ----------------------------------------------------------- picking
    def project(self) -> tuple[np.ndarray, np.ndarray]:
        """Window positions (logical pixels, shape (n, 2)) of the points and whether each faces the camera."""
        scene = SCENE_FROM_NED @ self._nose_ned
        ratio = self.devicePixelRatio()
        width, height = self.width() * ratio, self.height() * ratio
        viewport = (0, 0, width, height)
        mvp = self.projectionMatrix(viewport, viewport) * self.viewMatrix()
        matrix = np.array(mvp.data(), dtype=float).reshape(4, 4).T  # Qt stores column-major
        clip = matrix @ np.vstack([scene, np.ones(scene.shape[1])])
        ndc = clip[:2] / clip[3]
        pixels = np.stack([(ndc[0] + 1.0) * 0.5 * width, (1.0 - ndc[1]) * 0.5 * height], axis=1) / ratio
        camera = self.cameraPosition()
        eye = np.array([camera.x(), camera.y(), camera.z()])
        front = eye @ scene > 1.0  # on the near side of the tangent cone from the camera
        return pixels, front

    def pick(self, x: float, y: float) -> int | None:
        """Index of the point nearest to window position ``(x, y)`` within :data:`PICK_PIXELS`, front side first."""
        if self._nose_ned.shape[1] == 0:
            return None
        pixels, front = self.project()
        distance = np.hypot(pixels[:, 0] - x, pixels[:, 1] - y)
        for side in (front, ~front):
            candidates = np.where(side & (distance <= PICK_PIXELS), distance, np.inf)
            if np.isfinite(candidates).any():
                return int(np.argmin(candidates))
        return None

    def mousePressEvent(self, ev):
        self._press = ev.position()
        super().mousePressEvent(ev)

    def mouseReleaseEvent(self, ev):
        press, self._press = self._press, None
        if press is not None and ev.button() == QtCore.Qt.MouseButton.LeftButton:
            moved = ev.position() - press
            if abs(moved.x()) + abs(moved.y()) <= CLICK_SLOP:
                index = self.pick(ev.position().x(), ev.position().y())
                if index is not None:
                    self.picked.emit(index)
        super().mouseReleaseEvent(ev)


class EnsembleSceneView(GLWindowView):
    """:class:`EnsembleScene` as a widget (a window container), like :class:`~app.view3d.attitude_view.AttitudeView`.

    Attributes
    ----------
    picked : Signal(int)
        The scene's: the index of the point clicked.
    """

    def __init__(self, parent=None):
        super().__init__(EnsembleScene(), (160, 140), parent)
        self.picked = self.scene.picked
