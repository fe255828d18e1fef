"""Pictures of the window: the whole window with its 3D views painted in, and PNG files.

``QWidget.grab`` does not capture the OpenGL views, so :func:`grab_window`
paints each view's own offscreen rendering over it.  The window's
screenshot (``attitude-sim gui --screenshot``) and its videos
(:mod:`app.window.video`) take their pictures here.
"""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect, Qt
from PySide6.QtGui import QImage, QPainter

from sim import write_whole

__all__ = ["grab_window", "view_image", "save_png"]


def grab_window(window, kept: bool = False) -> QImage:
    """A picture of the whole window (a :class:`~app.window.main.MainWindow`) with the 3D view in it.

    ``QWidget.grab`` does not capture the OpenGL views reliably, so each
    view's own framebuffer (the 3D view's, the ensemble sphere's and the orbit view's when shown)
    is painted over it at the view's place.  The F1 help is a window of its
    own (:mod:`app.window.help_window`), not in the picture.

    Parameters
    ----------
    kept : bool
        Paint each view's last frame shown on screen when it keeps one
        (:meth:`~app.view3d.glwindow.GLWindow.keep_frames`: a live
        recording), instead of drawing the scene again.
    """
    image = window.grab().toImage()
    painter = QPainter(image)
    views = [window.viewer] + ([window.ensemble.view] if window.ensemble.view.isVisible() else [])
    views += [window.orbit_view] if window.orbit_view.isVisible() else []
    for view in views:
        painter.drawImage(QRect(view.mapTo(window, QPoint(0, 0)), view.size()), view_image(view.scene, kept))
    painter.end()
    return image


def view_image(scene, kept: bool = False) -> QImage:
    """A picture of a GL scene (:class:`~app.view3d.glwindow.GLWindow`): drawn now, or with ``kept``
    its last frame shown on screen when it keeps one."""
    pixels = scene.kept_frame() if kept else None
    if pixels is None:
        return scene.grab_image()
    height, width, _ = pixels.shape
    image = QImage(pixels.data, width, height, 4 * width, QImage.Format.Format_RGBA8888)
    return image.flipped(Qt.Orientation.Vertical)  # a copy: OpenGL's rows run bottom-up


def save_png(image: QImage, path) -> None:
    """Write ``image`` to ``path`` as PNG; a write error raises OSError with the reason."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise OSError(f"the picture could not be encoded as PNG ({image.width()}x{image.height()})")
    with write_whole(path, binary=True) as f:  # moved into place when complete (sim.io.files)
        f.write(data.data())
