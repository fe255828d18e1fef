"""3-D attitude view: the body, its command ghost, references and a gimbal rig.

Axis map
--------
The simulation works in NED inertial axes (x north, y east, z down) and body
axes (x nose, y right wing, z down).  It hands over the Cayley matrix ``C``
with ``x_body = C @ x_inertial``, so ``C.T`` maps body to inertial
coordinates.  The pyqtgraph scene has z up and is tied to NED by the fixed
proper rotation ``S = diag(1, -1, -1)``::

    x_scene = north,  y_scene = west,  z_scene = up,
    x_scene = S @ x_ned,

so a body-fixed point ``b`` is drawn at ``S @ C.T @ b``.  The body's mesh
is stored in body coordinates and placed by that matrix alone; no Euler
angles are computed to draw it.

The scene is laid out for Hoffmann's aircraft (about :data:`REFERENCE_SIZE`
from its centre to a wing tip).  Any other body scales the layout by its
size over that: camera distance and target, ground grid, north arrow, body
axes and the gimbal rig, so a 10 cm T-handle fills the view as the aircraft
does.

Importing this module before the ``QApplication`` exists enables
``Qt.AA_ShareOpenGLContexts``: pyqtgraph caches compiled shader programs
globally, which is only valid when all GL widgets share one context group.
"""

import os
import time
import warnings

import OpenGL

# PyOpenGL checks glGetError after every GL call (about 200 a frame here)
# unless told otherwise before OpenGL.GL is first imported; its documentation
# advises turning the checks off once the drawing code works.  Off here; on
# with ATTITUDE_SIM_GL_CHECKS=1 (the tests set it), for work on the drawing.
OpenGL.ERROR_CHECKING = os.environ.get("ATTITUDE_SIM_GL_CHECKS") == "1"

import numpy as np  # noqa: E402 - the imports below load OpenGL.GL
import pyqtgraph.opengl as gl  # noqa: E402
from pyqtgraph.opengl.GLViewWidget import GLViewMixin  # noqa: E402
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets  # noqa: E402
from OpenGL import GL  # noqa: E402
from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLWindow  # noqa: E402

from app.gimbal import MARKER_SCALE, GimbalRig, scene_matrix  # noqa: E402
from app.glitems import LineItem, MeshItem  # noqa: E402
from app.mesh import body_mesh  # noqa: E402
from sim.body import Body  # noqa: E402
from sim.shape import DEFAULT_BODY  # noqa: E402

if QtCore.QCoreApplication.instance() is None:
    QtCore.QCoreApplication.setAttribute(QtCore.Qt.ApplicationAttribute.AA_ShareOpenGLContexts)

BACKGROUND = (38, 44, 56)
"""Dark blue-grey background (RGB 0-255)."""
GHOST_COLOR = (0.55, 0.85, 1.0, 0.25)
"""RGBA of the command ghost."""
GROUND_Z = -8.0
"""Scene height of the ground grid (the aircraft sits at the origin)."""
RIG_OFFSET = (0.0, -14.0, 0.0)
"""Scene position of the gimbal rig (14 units east of the aircraft)."""
TRIAD_LENGTHS = (7.5, 7.5, 4.0)
"""Lengths of the body x, y, z axes drawn through the aircraft."""
AXIS_COLORS = ((1.0, 0.25, 0.2, 1.0), (0.2, 0.9, 0.3, 1.0), (0.3, 0.5, 1.0, 1.0))
"""Colours of the body x (red), y (green) and z (blue) axes."""
NORTH_COLOR = (0.95, 0.95, 0.8, 1.0)
NORTH_MARKER_ORIGIN = (-11.0, RIG_OFFSET[1] / 2 + 1.0, GROUND_Z + 0.02)
"""Tail of the north arrow: in front of the default camera, between grid lines."""
GRID_COLOR = (200, 210, 230, 70)
HOME_CENTER = (0.0, RIG_OFFSET[1] / 2, -4.0)
"""Default camera target: between aircraft and rig, a little low."""
HOME_DISTANCE = 32.0
HOME_ELEVATION_AZIMUTH = (26.0, 155.0)
"""Default camera elevation and azimuth in degrees: above and to the south-west,
i.e. behind-left of a level aircraft heading north."""
REFERENCE_SIZE = 5.65
"""Size (largest vertex distance from the origin) the layout above is made for: the aircraft's."""
PRINCIPAL_COLORS = ((1.0, 0.62, 0.2, 1.0), (1.0, 0.35, 0.85, 1.0), (0.35, 0.9, 1.0, 1.0))
"""Colours of the principal axes of the smallest, intermediate and largest moment."""
PRINCIPAL_LENGTH = 1.3
"""Half-length of the drawn principal axes, in units of the body's size."""



def as_rotation(matrix):
    """Validate a 3x3 attitude matrix.

    Parameters
    ----------
    matrix : array-like
        A Cayley matrix (inertial to body).

    Returns
    -------
    numpy.ndarray
        The matrix as a float ``(3, 3)`` array (a copy).

    Raises
    ------
    ValueError
        If the shape is not ``(3, 3)`` or an entry is not finite.
    """
    matrix = np.array(matrix, dtype=float)
    if matrix.shape != (3, 3):
        raise ValueError(f"attitude matrix must be 3x3, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)):
        raise ValueError("attitude matrix has non-finite entries")
    return matrix


def triad_item(parent, scale=1.0):
    """Create the body axes (x red nose, y green right, z blue down).

    Parameters
    ----------
    parent : pyqtgraph.opengl.GLGraphicsItem.GLGraphicsItem
        Item carrying the body transform.
    scale : float, optional
        Factor on :data:`TRIAD_LENGTHS`.

    Returns
    -------
    app.glitems.LineItem
        Three segments from the body origin, in body coordinates.
    """
    ends = np.diag(TRIAD_LENGTHS) * scale
    pos = np.zeros((6, 3))
    pos[1::2] = ends
    color = np.repeat(np.asarray(AXIS_COLORS), 2, axis=0)
    return LineItem(pos, color, width=3.0, mode="lines", parentItem=parent)


def principal_axes_points(axes, half_length):
    """Return the principal axes as three segments through the body origin.

    Parameters
    ----------
    axes : array-like
        ``(3, 3)`` unit principal axes as columns (body coordinates), in the
        order of ascending moments (:attr:`sim.body.Body.principal_axes`).
    half_length : float
        Length on each side of the origin.

    Returns
    -------
    numpy.ndarray
        ``(6, 3)`` points for a ``'lines'`` plot.
    """
    axes = np.asarray(axes, dtype=float)
    return np.vstack([(-half_length * axes[:, i], half_length * axes[:, i]) for i in range(3)])


def north_marker_points(origin, length=7.0):
    """Return line segments of an arrow pointing north with an upright 'N'.

    The arrow lies in the horizontal plane; the letter stands beyond its tip
    and reads correctly when seen from the south.

    Parameters
    ----------
    origin : tuple of float
        Scene position of the arrow's tail.
    length : float, optional
        Arrow length.

    Returns
    -------
    numpy.ndarray
        ``(18, 3)`` scene points for a ``'lines'`` plot.
    """
    head = length - 2.0
    arrow = [(0.0, 0.0), (length, 0.0), (length, 0.0), (head, 1.2), (length, 0.0), (head, -1.2)]
    # The letter stands in the plane x = length + 1; its rightward u is scene -y.
    letter = [(0.0, 0.0), (0.0, 3.0), (0.0, 3.0), (2.0, 0.0), (2.0, 0.0), (2.0, 3.0)]
    points = [(x, y, 0.0) for x, y in arrow] + [(length + 1.0, 1.0 - u, v) for u, v in letter]
    return np.asarray(points) + np.asarray(origin, dtype=float)


def _meshdata(mesh):
    """pyqtgraph MeshData of an :class:`app.mesh.BodyMesh`."""
    return gl.MeshData(vertexes=mesh.vertices, faces=mesh.faces, vertexColors=mesh.colors)


class AttitudeScene(GLViewMixin, QOpenGLWindow):
    """OpenGL scene of a rigid body's attitude in NED, in a native GL window.

    Shows the aircraft with its body axes, a translucent command ghost, extra
    translucent bodies for comparisons, a ground grid with a north marker and
    a gimbal rig beside the aircraft.  The mouse orbit camera uses
    quaternions, so it cannot gimbal-lock itself.

    A ``QOpenGLWindow`` (pyqtgraph's ``GLViewMixin``) rather than a
    ``QOpenGLWidget``: embedded through :class:`AttitudeView`, it draws
    straight to its own surface, so the rest of the main window is not
    recomposited through (software) OpenGL every frame; measured here this
    raises the window from about 45 to about 65 frames per second.
    """

    def __init__(self):
        super().__init__(rotationMethod="quaternion")
        surface = QtGui.QSurfaceFormat()
        surface.setDepthBufferSize(24)
        self.setFormat(surface)
        if not QtCore.QCoreApplication.testAttribute(QtCore.Qt.ApplicationAttribute.AA_ShareOpenGLContexts):
            warnings.warn(
                "Qt.AA_ShareOpenGLContexts is off: a second GL window will fail to draw its items; "
                "import app.viewer before creating the QApplication",
                RuntimeWarning,
                stacklevel=2,
            )
        self.setBackgroundColor(BACKGROUND)
        self._body_mesh = body_mesh(DEFAULT_BODY)
        self._mesh = _meshdata(self._body_mesh)
        self._scale = self._body_mesh.size / REFERENCE_SIZE
        self._orientations = {}
        self._bodies = {}
        self._colors = {}
        self._ghost_enabled = True
        self._has_command = False
        self._inertia = None
        self._principal = None
        self._principal_visible = False
        self._references = gl.GLGraphicsItem.GLGraphicsItem()
        self.addItem(self._references)
        self._add_references()
        self._aircraft = MeshItem(self._mesh)
        self.addItem(self._aircraft)
        triad_item(self._aircraft, self._scale)
        self._rig = GimbalRig(self._mesh, MARKER_SCALE * REFERENCE_SIZE / self._body_mesh.size)
        for item in self._rig.items:
            self.addItem(item)
        self._ghost = self._translucent_body(GHOST_COLOR)
        self._ghost.setVisible(False)
        self._lay_out()
        self.set_attitude(np.eye(3))
        self.reset_view()

    def devicePixelRatioF(self):  # noqa: N802 - what GLViewMixin calls; QWindow lacks it
        return self.devicePixelRatio()

    @property
    def aircraft_item(self):
        """app.glitems.MeshItem: the aircraft (built once, only its transform changes)."""
        return self._aircraft

    def _add_references(self):
        """Add the inertial references: ground grid and north marker (scaled with the body)."""
        grid = gl.GLGridItem(size=QtGui.QVector3D(72, 72, 1), color=GRID_COLOR, parentItem=self._references)
        grid.setSpacing(4, 4, 1)
        grid.translate(0.0, RIG_OFFSET[1] / 2, GROUND_Z)
        LineItem(north_marker_points(NORTH_MARKER_ORIGIN), NORTH_COLOR, width=3.0, mode="lines",
                 parentItem=self._references)

    @property
    def body(self):
        """app.mesh.BodyMesh: the body drawn."""
        return self._body_mesh

    @property
    def layout_scale(self):
        """float: the body's size over the aircraft's; the references, rig and camera scale by it."""
        return self._scale

    def set_body(self, body, inertia=None):
        """Draw another body (and its ghosts and rig marker), or new principal axes.

        Nothing happens when both are unchanged.  The layout (grid, north
        arrow, gimbal rig, body axes) scales with the body's size, and the
        camera keeps its direction with distance and target scaled.

        Parameters
        ----------
        body : str
            Built-in name or mesh file (see :mod:`sim.shape`).
        inertia : tuple of 6 floats, optional
            Hoffmann's ``(Jxx, Jyy, Jzz, Jxy, Jxz, Jyz)``, for the principal axes.

        Raises
        ------
        sim.shape.ShapeError
            If the body's mesh cannot be read; the scene is unchanged then.
        """
        if body != self._body_mesh.body:
            self._replace_mesh(body_mesh(body))
        if inertia is not None and tuple(inertia) != self._inertia:
            self._inertia = tuple(inertia)
            self._draw_principal_axes()

    def show_principal_axes(self, visible):
        """Show or hide the body's principal axes of inertia.

        Parameters
        ----------
        visible : bool
            True to show.
        """
        self._principal_visible = bool(visible)
        if self._principal is not None:
            self._principal.setVisible(self._principal_visible)

    def _draw_principal_axes(self):
        if self._principal is not None:
            self._principal.setParentItem(None)
            self._principal = None
        if self._inertia is None:
            return
        axes = Body(self._inertia).principal_axes
        points = principal_axes_points(axes, PRINCIPAL_LENGTH * self._body_mesh.size)
        colors = np.repeat(np.asarray(PRINCIPAL_COLORS), 2, axis=0)
        self._principal = LineItem(points, colors, width=2.5, mode="lines", parentItem=self._aircraft)
        self._principal.setVisible(self._principal_visible)

    def _replace_mesh(self, mesh):
        """Rebuild every item drawing the body from ``mesh`` and scale the layout."""
        ratio = mesh.size / self._body_mesh.size
        self._body_mesh, self._mesh = mesh, _meshdata(mesh)
        self._scale = mesh.size / REFERENCE_SIZE
        aircraft = MeshItem(self._mesh)
        self.addItem(aircraft)
        triad_item(aircraft, self._scale)
        self._swap(self._aircraft, aircraft)
        self._aircraft = aircraft
        ghost = self._translucent_body(GHOST_COLOR)
        ghost.setVisible(self._ghost.visible())
        self._swap(self._ghost, ghost)
        self._ghost = ghost
        for name, item in list(self._bodies.items()):
            replacement = self._translucent_body(self._colors[name])
            self._swap(item, replacement)
            self._bodies[name] = replacement
        self._rig.set_marker(self._mesh, MARKER_SCALE * REFERENCE_SIZE / mesh.size)
        self._lay_out()
        self._draw_principal_axes()
        self.opts["distance"] *= ratio
        self.opts["center"] = self.opts["center"] * ratio
        self.update()

    def _swap(self, old, new):
        """Give ``new`` the attitude of ``old`` and take ``old`` out of the scene."""
        cayley = self._orientations.pop(old, None)
        self._orientations.pop(new, None)
        if cayley is not None:
            self._orient(new, cayley)
        self.removeItem(old)

    def _lay_out(self):
        """Scale the references and the gimbal rig to the body."""
        s = self._scale
        self._references.resetTransform()
        self._references.scale(s, s, s)
        self._rig.set_offset(*(s * np.asarray(RIG_OFFSET)), scale=s)

    def _translucent_body(self, color):
        """Add a translucent copy of the aircraft in a single colour.

        Parameters
        ----------
        color : tuple of float
            RGBA, alpha giving the translucency.

        Returns
        -------
        app.glitems.MeshItem
            The new item, drawn after the opaque items.
        """
        item = MeshItem(self._mesh, color=color, glOptions="translucent")
        item.setDepthValue(10)
        self.addItem(item)
        self._orient(item, np.eye(3))
        return item

    def _orient(self, item, cayley):
        """Draw ``item`` (body coordinates) with the given attitude.

        Parameters
        ----------
        item : pyqtgraph.opengl.GLGraphicsItem.GLGraphicsItem
            Item whose vertices are in body coordinates.
        cayley : array-like
            Cayley matrix ``C`` (inertial to body); nothing is done when it
            equals the previous one.
        """
        previous = self._orientations.get(item)
        if previous is not None and np.array_equal(previous, cayley):
            return
        cayley = as_rotation(cayley)
        self._orientations[item] = cayley
        item.setTransform(scene_matrix(cayley.T))

    def set_attitude(self, cayley):
        """Turn the aircraft to a new attitude.

        Cheap enough for every frame: only the item transform changes, and
        nothing at all when ``C`` is unchanged.

        Parameters
        ----------
        cayley : array-like
            ``(3, 3)`` Cayley matrix ``C`` with ``x_body = C @ x_inertial``.

        Raises
        ------
        ValueError
            If ``C`` is not a finite 3x3 matrix.
        """
        self._orient(self._aircraft, cayley)

    def set_command(self, cayley):
        """Show the command attitude as a ghost, or hide the ghost.

        Parameters
        ----------
        cayley : array-like or None
            Commanded Cayley matrix, or None for no command.

        Raises
        ------
        ValueError
            If ``C`` is not a finite 3x3 matrix.
        """
        if cayley is not None:
            self._orient(self._ghost, cayley)
        self._has_command = cayley is not None
        self._ghost.setVisible(self._has_command and self._ghost_enabled)

    def show_ghost(self, visible):
        """Allow or suppress the command ghost.

        Parameters
        ----------
        visible : bool
            False hides the ghost even while a command is set.
        """
        self._ghost_enabled = bool(visible)
        self._ghost.setVisible(self._ghost_enabled and self._has_command)

    def set_gimbal_angles(self, psi, theta, phi):
        """Turn the gimbal rig.

        Parameters
        ----------
        psi, theta, phi : float
            Yaw, pitch and roll in radians (z-y-x sequence).
        """
        self._rig.set_angles(psi, theta, phi)

    def show_gimbal(self, visible):
        """Show or hide the gimbal rig.

        Parameters
        ----------
        visible : bool
            True to show.
        """
        self._rig.set_visible(visible)

    def add_body(self, name, color):
        """Add a translucent extra body, e.g. the result of another integrator.

        Parameters
        ----------
        name : str
            Key for :meth:`set_body_attitude` and :meth:`remove_body`.
        color : tuple of float
            RGBA in [0, 1]; alpha below 1 makes it translucent.

        Raises
        ------
        ValueError
            If a body with this name exists.
        """
        if name in self._bodies:
            raise ValueError(f"body {name!r} already exists")
        self._bodies[name] = self._translucent_body(tuple(color))
        self._colors[name] = tuple(color)

    def set_body_attitude(self, name, cayley):
        """Turn an extra body.

        Parameters
        ----------
        name : str
            Name given to :meth:`add_body`.
        cayley : array-like
            ``(3, 3)`` Cayley matrix of the body.

        Raises
        ------
        KeyError
            If there is no body of this name.
        """
        self._orient(self._bodies[name], cayley)

    def remove_body(self, name):
        """Remove an extra body.

        Parameters
        ----------
        name : str
            Name given to :meth:`add_body`.

        Raises
        ------
        KeyError
            If there is no body of this name.
        """
        item = self._bodies.pop(name)
        del self._colors[name]
        del self._orientations[item]
        self.removeItem(item)

    def reset_view(self):
        """Look at aircraft and rig from behind-left of the aircraft, slightly above."""
        elevation, azimuth = HOME_ELEVATION_AZIMUTH
        # The same rotation as GLViewWidget's 'euler' camera at this elevation and azimuth.
        rotation = QtGui.QQuaternion.fromEulerAngles(elevation - 90.0, 0.0, -azimuth - 90.0)
        s = self._scale
        self.setCameraPosition(pos=QtGui.QVector3D(*(s * np.asarray(HOME_CENTER))), distance=s * HOME_DISTANCE,
                               rotation=rotation)

    def ensure_context(self, timeout=10.0):
        """Make the window's GL context current, first waiting until Qt has made it.

        ``QOpenGLWindow`` creates its context on its first resize or paint
        event.  Until then ``isValid()`` is False and ``makeCurrent()``
        silently does nothing; a framebuffer object or any GL call made then
        crashes in the driver instead of raising (seen on a busy machine,
        where a window container can be exposed before its embedded window
        has had those events).  So: process events until the window is
        valid, and check that the context really is current.

        Raises
        ------
        RuntimeError
            If the window gets no context within ``timeout`` seconds (for
            example because it is not shown), or it cannot be made current.
        """
        if not self.isValid():
            if not self.isVisible():
                raise RuntimeError("the 3D view is not shown, so it has no OpenGL context to draw with")
            deadline = time.monotonic() + timeout
            while not self.isValid():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the 3D view got no OpenGL context within {timeout:g} s")
                self.requestUpdate()
                QtCore.QCoreApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
        self.makeCurrent()
        if QtGui.QOpenGLContext.currentContext() is not self.context():
            raise RuntimeError("the 3D view's OpenGL context cannot be made current")

    def grab_image(self):
        """Render the scene into an offscreen framebuffer and return it as a QImage.

        ``QOpenGLWindow.grabFramebuffer`` reads whatever the back buffer holds
        after a swap; rendering into a framebuffer object gives the current
        scene every time.
        """
        self.ensure_context()
        width, height = self.deviceWidth(), self.deviceHeight()
        fbo = QOpenGLFramebufferObject(width, height, QOpenGLFramebufferObject.Attachment.CombinedDepthStencil)
        fbo.bind()
        try:
            GL.glViewport(0, 0, width, height)
            region = (0, 0, width, height)
            self.paint(region=region, viewport=region)
            image = fbo.toImage()
        finally:
            fbo.release()
            self.doneCurrent()
        return image

    def render_image(self):
        """Render the scene into a picture (see :meth:`grab_image`).

        Returns
        -------
        numpy.ndarray
            ``(height, width, 3)`` uint8 RGB picture (an independent copy).
        """
        image = self.grab_image().convertToFormat(QtGui.QImage.Format.Format_RGB888)
        width, height = image.width(), image.height()
        rows = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
        rows = rows.reshape(height, image.bytesPerLine())
        return rows[:, : 3 * width].reshape(height, width, 3).copy()


def embed(window, widget, minimum_size) -> QtWidgets.QWidget:
    """Put GL ``window`` (a ``QOpenGLWindow``) into ``widget`` as its only child; returns the container.

    The container takes keyboard focus on a click (so the view's keys work
    once it was clicked) and is at least ``minimum_size`` (width, height).
    """
    container = QtWidgets.QWidget.createWindowContainer(window, widget)
    container.setMinimumSize(*minimum_size)
    container.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
    layout = QtWidgets.QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(container)
    return container


class AttitudeView(QtWidgets.QWidget):
    """The attitude scene as a widget: :class:`AttitudeScene` in a window container.

    Offers the scene's public API (the calls forward to :attr:`scene`).

    Parameters
    ----------
    parent : PySide6.QtWidgets.QWidget, optional
        Parent widget.
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self.scene = AttitudeScene()
        embed(self.scene, self, (200, 150))
        scene = self.scene
        self.frameSwapped = scene.frameSwapped
        for name in ("set_attitude", "set_command", "show_ghost", "set_gimbal_angles", "show_gimbal",
                     "add_body", "set_body_attitude", "remove_body", "reset_view", "render_image",
                     "grab_image", "set_body", "show_principal_axes"):
            setattr(self, name, getattr(scene, name))

    @property
    def aircraft_item(self):
        """app.glitems.MeshItem: the aircraft (built once, only its transform changes)."""
        return self.scene.aircraft_item
