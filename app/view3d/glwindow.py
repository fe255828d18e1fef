"""The GL window every 3D scene is, and the widget that embeds it.

:class:`GLWindow` is a pyqtgraph scene (``GLViewMixin``) in a native
``QOpenGLWindow`` rather than a ``QOpenGLWidget``: embedded in the main
window through a window container (:func:`embed`, :class:`GLWindowView`),
it draws straight to its own surface, so the rest of the window is not
recomposited through (software) OpenGL every frame, which raises the
window's frame rate markedly (docs/PERFORMANCE.md).  It also
renders offscreen pictures of itself (:meth:`GLWindow.grab_image`) after
making sure it has a GL context (:meth:`GLWindow.ensure_context`).

Keys: a native window embedded in a container takes the keyboard focus
when it is clicked, and its key events go to it, not to any widget, so the
window's key handling (the flying keys of :mod:`app.window.keys`) would
never see them.  :func:`embed` therefore makes the container the window's
key widget: every key the GL window gets is sent on to the container
first, as if the container had the focus, and only the keys no widget
takes reach the scene's own handling (pyqtgraph's camera keys).

Importing this module before the ``QApplication`` exists enables
``Qt.AA_ShareOpenGLContexts``: pyqtgraph caches compiled shader programs
globally, which is only valid when all GL windows share one context group.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
from OpenGL import GL
from pyqtgraph.opengl.GLViewWidget import GLViewMixin
from pyqtgraph.Qt import QtCore, QtGui, QtWidgets
from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLWindow

__all__ = ["GLWindow", "GLWindowView", "embed"]

if QtCore.QCoreApplication.instance() is None:
    QtCore.QCoreApplication.setAttribute(QtCore.Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


def _opaque() -> None:
    """Make every pixel of the bound framebuffer opaque (alpha 1), its colours kept.

    Blending a translucent item (the shadow, a ghost) writes the source's
    alpha into the framebuffer's alpha too (``GL_SRC_ALPHA,
    GL_ONE_MINUS_SRC_ALPHA`` on all four channels), so an offscreen picture
    would be partly transparent where the window on screen, which has no
    alpha, shows the blended colour; ``QOpenGLFramebufferObject.toImage``
    then divides the colours by that alpha (a premultiplied image), and the
    shadow came out lighter than on screen.  Clearing the alpha channel alone
    (``glColorMask``) gives the picture the screen shows.
    """
    GL.glColorMask(False, False, False, True)
    GL.glClearColor(0.0, 0.0, 0.0, 1.0)
    GL.glClear(GL.GL_COLOR_BUFFER_BIT)
    GL.glColorMask(True, True, True, True)


class GLWindow(GLViewMixin, QOpenGLWindow):
    """A pyqtgraph GL scene in a native OpenGL window, with a depth buffer and an orbit camera of quaternions.

    The camera's rotation is a quaternion, so orbiting it cannot gimbal-lock.

    Parameters
    ----------
    background : tuple of int
        RGB (0-255) behind the scene.
    """

    def __init__(self, background):
        super().__init__(rotationMethod="quaternion")
        surface = QtGui.QSurfaceFormat()
        surface.setDepthBufferSize(24)
        self.setFormat(surface)
        if not QtCore.QCoreApplication.testAttribute(QtCore.Qt.ApplicationAttribute.AA_ShareOpenGLContexts):
            warnings.warn(
                "Qt.AA_ShareOpenGLContexts is off: a second GL window will fail to draw its items; "
                "import app.view3d.glwindow before creating the QApplication",
                RuntimeWarning,
                stacklevel=3,
            )
        self.setBackgroundColor(background)
        self._offscreen = None  # the framebuffer render_rgba draws into, kept between frames
        self._keep = False  # keep_frames: read each frame shown back (a live recording)
        self._kept = None
        self._key_widget = None

    @property
    def key_widget(self):
        """The widget the window's keys are sent to first (its container, set by :func:`embed`), or None."""
        return self._key_widget

    @key_widget.setter
    def key_widget(self, widget) -> None:
        self._key_widget = widget

    def event(self, ev):
        if ev.type() in (QtCore.QEvent.Type.KeyPress, QtCore.QEvent.Type.KeyRelease) and self._key_widget is not None:
            ev.accept()  # QApplication hands a key on to the parent widgets while it is not accepted
            QtWidgets.QApplication.sendEvent(self._key_widget, ev)
            if ev.isAccepted():  # a widget (or the window's key filter) took it
                return True
        return super().event(ev)

    def mousePressEvent(self, ev):
        """Take the keyboard focus, as a click on a native window does on X11 (xcb activates the window on
        every press), also for presses that do not come from the platform (QTest)."""
        if QtGui.QGuiApplication.focusWindow() is not self:
            self.requestActivate()
        super().mousePressEvent(ev)

    def devicePixelRatioF(self):
        return self.devicePixelRatio()

    def look_from(self, center, distance: float, elevation: float, azimuth: float) -> None:
        """Aim the camera at ``center`` (scene axes) from ``distance``, ``elevation`` and ``azimuth`` (degrees).

        The same rotation as pyqtgraph's 'euler' camera at this elevation and azimuth.
        """
        rotation = QtGui.QQuaternion.fromEulerAngles(elevation - 90.0, 0.0, -azimuth - 90.0)
        self.setCameraPosition(pos=QtGui.QVector3D(*(float(c) for c in center)), distance=distance,
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
            _opaque()
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


    def paintGL(self):
        """Draw the scene on screen; while :meth:`keep_frames` is on, read the frame back before it is shown."""
        super().paintGL()
        if self._keep:
            width, height = self.deviceWidth(), self.deviceHeight()
            pixels = np.empty((height, width, 4), dtype=np.uint8)
            GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 4)
            GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, pixels)
            self._kept = pixels

    def keep_frames(self, keep: bool) -> None:
        """Keep (or stop keeping) a copy of each frame drawn on screen: :meth:`kept_frame`.

        A live recording takes its pictures of the view from there instead
        of drawing the scene a second time (a readback costs a small
        fraction of a render with software OpenGL: docs/PERFORMANCE.md).
        """
        self._keep = bool(keep)
        self._kept = None

    def kept_frame(self) -> np.ndarray | None:
        """The last frame drawn on screen while :meth:`keep_frames` is on, as :meth:`render_rgba` returns
        one (RGBA rows bottom-up, device pixels), or None before the first."""
        return self._kept

    def render_rgba(self, width: int, height: int, widest: float | None = None) -> np.ndarray:
        """Render the scene at ``width`` x ``height`` pixels, whatever the window's size: a video's frame.

        The framebuffer is kept for the next call of the same size (no
        allocation per frame) and read back in OpenGL's own RGBA order,
        the cheapest readback here (cheaper than
        ``QOpenGLFramebufferObject.toImage``: docs/PERFORMANCE.md).

        Parameters
        ----------
        width, height : int
            Pixels.
        widest : float, optional
            The camera's field of view is horizontal, so a wider picture
            shows less above and below.  A picture wider than ``widest``
            (width / height) keeps the height of view of that aspect ratio
            and shows more across instead.

        Returns
        -------
        numpy.ndarray
            ``(height, width, 4)`` uint8 RGBA, rows from the bottom up
            (OpenGL's order); a new array each call.
        """
        self.ensure_context()
        fbo = self._offscreen
        if fbo is None or (fbo.width(), fbo.height()) != (width, height):
            fbo = QOpenGLFramebufferObject(width, height, QOpenGLFramebufferObject.Attachment.CombinedDepthStencil)
            self._offscreen = fbo
        pixels = np.empty((height, width, 4), dtype=np.uint8)
        fov = self.opts["fov"]
        if widest is not None and width / height > widest:  # tan(fov/2) grows with the width, height kept
            half = math.atan(math.tan(math.radians(fov) / 2) * width / height / widest)
            self.opts["fov"] = math.degrees(2 * half)
        fbo.bind()
        try:
            GL.glViewport(0, 0, width, height)
            region = (0, 0, width, height)
            self.paint(region=region, viewport=region)
            _opaque()
            GL.glPixelStorei(GL.GL_PACK_ALIGNMENT, 4)
            GL.glReadPixels(0, 0, width, height, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE, pixels)
        finally:
            self.opts["fov"] = fov
            fbo.release()
            self.doneCurrent()
        return pixels

    def release_offscreen(self) -> None:
        """Free the framebuffer of :meth:`render_rgba` (in the window's context, while it has one)."""
        if self._offscreen is not None and self.isValid():
            self.makeCurrent()
            self._offscreen = None
            self.doneCurrent()
        self._offscreen = None


def embed(window, widget, minimum_size) -> QtWidgets.QWidget:
    """Put GL ``window`` (a ``QOpenGLWindow``) into ``widget`` as its only child; returns the container.

    The container takes keyboard focus on a click and is at least
    ``minimum_size`` (width, height).  A :class:`GLWindow` sends the keys it
    gets to the container first (:attr:`GLWindow.key_widget`), so the main
    window's key handling works while the 3D view has the focus.
    """
    container = QtWidgets.QWidget.createWindowContainer(window, widget)
    if isinstance(window, GLWindow):
        window.key_widget = container
    container.setMinimumSize(*minimum_size)
    container.setFocusPolicy(QtCore.Qt.FocusPolicy.ClickFocus)
    layout = QtWidgets.QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(container)
    return container


class GLWindowView(QtWidgets.QWidget):
    """A :class:`GLWindow` as a widget (in a window container, :func:`embed`).

    Parameters
    ----------
    scene : GLWindow
        The scene shown (:attr:`scene`).
    minimum_size : (int, int)
        Smallest width and height, pixels.
    parent : QWidget, optional

    Attributes
    ----------
    scene : GLWindow
    frameSwapped : Signal
        The scene's: a new frame is on screen.
    """

    def __init__(self, scene: GLWindow, minimum_size, parent=None):
        super().__init__(parent)
        self.scene = scene
        embed(scene, self, minimum_size)
        self.frameSwapped = scene.frameSwapped
