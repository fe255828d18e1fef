"""Video frames of the window or of its 3D view, and File > Record video's live recording.

:class:`FrameGrab` takes the pictures (the whole window, or only the 3D view
rendered offscreen at the video's size) that an
:class:`app.encoder.VideoEncoder` encodes (ffmpeg in its own process, fed
by a writer thread).  ``attitude-sim video`` renders with them frame by
frame in simulated time (:mod:`app.window.render`).

:class:`LiveRecording` (File > Record video, :mod:`app.window.video_ui`)
records the window the user flies, at wall-clock time: a timer takes a
picture whenever a frame's slot comes up.  The simulation runs in its own
thread and never waits: when the encoder is behind, the picture is dropped
and counted, and the video shows the previous picture in its slot, so its
timeline stays the wall clock's.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QRegion
from PySide6.QtWidgets import QWidget

from app.encoder import WHATS, VideoEncoder
from app.ffmpeg import LIVE_PRESET, EncoderError
from app.window.pictures import grab_window

__all__ = ["FrameGrab", "LiveRecording", "VIEW_ASPECT", "even", "paint_legend"]

#: A video of the 3D view wider than this (width / height) shows as much above and below as one of
#: this aspect ratio, and more across: the home camera frames the aircraft and the rig for about 4:3.
VIEW_ASPECT = 4 / 3


def even(n: float) -> int:
    """The even whole number at or above ``n`` (H.264's 4:2:0 needs even sizes)."""
    return int(math.ceil(n / 2.0) * 2)


def paint_legend(pixels: np.ndarray, legend: QWidget) -> np.ndarray:
    """A picture of the 3D view (RGBA, rows bottom-up) with the window's ``legend`` of it in its top-right corner.

    The legend (the label above the 3D view naming the command ghost, the
    estimate and the comparison bodies by colour) is painted over a dark box,
    so that a video of the view alone explains its ghosts as the window does.
    An empty legend leaves the picture as it is.

    Returns
    -------
    ndarray, shape (height, width, 4)
        A new array (or ``pixels`` when there is nothing to paint).
    """
    if not legend.text():
        return pixels
    height, width, _ = pixels.shape
    rows = np.ascontiguousarray(pixels[::-1])  # top-down for the painter
    image = QImage(rows.data, width, height, 4 * width, QImage.Format.Format_RGBA8888)
    size, pad = legend.sizeHint(), 6
    box = QRect(width - size.width() - 2 * pad - 8, 8, size.width() + 2 * pad, size.height() + 2 * pad)
    painter = QPainter(image)
    try:
        painter.fillRect(box, QColor(20, 21, 26, 210))
        legend.render(painter, box.topLeft() + QPoint(pad, pad), QRegion(QRect(QPoint(0, 0), size)),
                      QWidget.RenderFlag.DrawChildren)
    finally:
        painter.end()
    drawn = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes()).reshape(height, width, 4)
    return drawn[::-1].copy()


class FrameGrab:
    """Pictures of a :class:`~app.window.main.MainWindow` for a video, one a call of :meth:`take`.

    Parameters
    ----------
    window : MainWindow
    what : {"window", "view"}
        ``"view"``: the 3D view's scene rendered offscreen at ``size``
        (OpenGL RGBA, rows bottom-up); ``"window"``: the whole window as
        drawn now, the 3D views painted in (BGRA, rows top-down), at the
        window's size.
    size : (int, int)
        Width and height of the pictures (``"view"``), or the size the
        window had when the recording started (``"window"``: a picture of
        another size is scaled to it).
    hide : sequence of QWidget
        Widgets left out of a picture of the window (the recording mark
        and its Stop button).
    widest : float, optional
        A picture of the view wider than this aspect ratio shows as much
        above and below as one of this aspect ratio
        (:meth:`~app.view3d.glwindow.GLWindow.render_rgba`); None: as the
        view on screen would at that size.
    kept : bool
        Take the 3D views as last shown on screen
        (:meth:`~app.view3d.glwindow.GLWindow.keep_frames`) rather than
        drawing them again: a live recording, where the window draws them
        anyway.  Until the first frame is shown, and when the view's size
        is no longer the picture's, the scene is drawn.

    Attributes
    ----------
    frame_size : (int, int)
    pixels : str
        ``"rgba"`` or ``"bgra"`` (:class:`~app.encoder.VideoEncoder`'s ``pixels``).
    bottom_up : bool
    """

    def __init__(self, window, what: str, size, hide=(), widest: float | None = None, kept: bool = False):
        if what not in WHATS:
            raise ValueError(f"what: one of {WHATS}, got {what!r}")
        self.window = window
        self.what = what
        self.frame_size = (int(size[0]), int(size[1]))
        self.pixels, self.bottom_up = ("rgba", True) if what == "view" else ("bgra", False)
        self._hide = tuple(hide)
        self._widest = widest
        self._kept = kept
        if kept:
            for scene in self._scenes():
                scene.keep_frames(True)

    def take(self) -> np.ndarray:
        """The picture now: ``(height, width, 4)`` uint8, a new array each call."""
        if self.what == "view":
            scene = self.window.viewer.scene
            pixels = scene.kept_frame() if self._kept else None
            if pixels is None or pixels.shape[:2] != self.frame_size[::-1]:
                pixels = scene.render_rgba(*self.frame_size, widest=self._widest)
            return paint_legend(pixels, self.window.legend)  # the ghosts explained, as above the view
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)  # labels that changed size
        shown = [widget for widget in self._hide if widget.isVisible()]
        for widget in shown:  # not painted; shown again before any layout or paint event
            widget.setVisible(False)
        try:
            image = grab_window(self.window, kept=self._kept)
        finally:
            for widget in shown:
                widget.setVisible(True)
        width, height = self.frame_size
        if (image.width(), image.height()) != (width, height):  # the window was resized while recording
            image = image.scaled(QSize(width, height), Qt.AspectRatioMode.IgnoreAspectRatio,
                                 Qt.TransformationMode.SmoothTransformation)
        image = image.convertToFormat(QImage.Format.Format_RGB32)  # bytes B, G, R, 255 (little-endian)
        rows = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
        rows = rows.reshape(height, image.bytesPerLine())[:, :4 * width]
        return rows.copy().reshape(height, width, 4)  # a copy: the image's memory goes with it

    def _scenes(self):
        return (self.window.viewer.scene, self.window.ensemble.scene)

    def release(self) -> None:
        """Free the 3D view's offscreen framebuffer, and stop keeping the frames shown."""
        for scene in self._scenes():
            scene.keep_frames(False)
        self.window.viewer.scene.release_offscreen()


class LiveRecording(QObject):
    """File > Record video: the window (or its 3D view) as the user flies it, to an MP4 or a GIF.

    A precise timer looks twice per frame period whether the next frame's
    slot (wall time since the start times ``fps``) has come, takes a
    picture and gives it to the encoder without waiting
    (``VideoEncoder(drop=True)``): a picture that finds the encoder behind
    is dropped and counted.  Stopping finishes the file in a thread;
    :attr:`finished` or :attr:`failed` then say how it went.

    Parameters
    ----------
    window : MainWindow
    path : path-like
        ``.mp4`` or ``.gif``.
    what : {"window", "view"}
    fps : int
    hide : sequence of QWidget
        Widgets left out of the pictures of the window (the recording mark).

    Raises
    ------
    app.ffmpeg.EncoderError
        The file cannot be written (nothing was started).

    Attributes
    ----------
    finished : Signal(object)
        The :class:`~app.encoder.Encoded` video, once the file is complete.
    failed : Signal(str)
        Why the video could not be written (one line).
    """

    finished = Signal(object)
    failed = Signal(str)

    def __init__(self, window, path, what: str = "window", fps: int = 30, hide=(), parent=None):
        super().__init__(parent)
        self.path = str(path)
        self.what = what
        self.fps = int(fps)
        self.size = size = self.size_of(window, what)
        self._grab = FrameGrab(window, what, size, hide, kept=True)
        try:
            self._encoder = VideoEncoder(path, size, self.fps, pixels=self._grab.pixels,
                                         bottom_up=self._grab.bottom_up, drop=True, preset=LIVE_PRESET)
        except BaseException:
            self._grab.release()
            raise
        self._start = time.perf_counter()
        self._next = 0
        self._finishing = None
        self.result = None
        self.error = None
        self._timer = QTimer(self, timerType=Qt.TimerType.PreciseTimer, interval=max(1, 500 // self.fps))
        self._timer.timeout.connect(self._tick)
        self._tick()
        self._timer.start()

    @staticmethod
    def size_of(window, what: str) -> tuple[int, int]:
        """The size of a video of ``what`` started now: the window's or the 3D view's, rounded down to even."""
        widget = window.viewer if what == "view" else window
        return even(widget.width() - 1), even(widget.height() - 1)

    @property
    def recording(self) -> bool:
        """True until :meth:`stop`."""
        return self._timer.isActive()

    @property
    def seconds(self) -> float:
        """Wall time recorded so far, s."""
        return time.perf_counter() - self._start if self.recording else self._next / self.fps

    @property
    def dropped(self) -> int:
        """Pictures dropped so far because the encoder was behind."""
        return self._encoder.dropped

    def _tick(self) -> None:
        slot = int((time.perf_counter() - self._start) * self.fps)
        if slot < self._next:
            return
        try:
            self._encoder.put(self._grab.take(), slot)
        except EncoderError as exc:
            self._timer.stop()
            self._encoder.abort()
            self._grab.release()
            self.error = str(exc)
            self.failed.emit(self.error)
            return
        self._next = slot + 1

    def stop(self) -> None:
        """Stop taking pictures and finish the file in a thread (:attr:`finished` or :attr:`failed`)."""
        if not self._timer.isActive():
            return
        self._timer.stop()
        self._grab.release()
        self._finishing = threading.Thread(target=self._finish, name="attitude-sim video finish", daemon=True)
        self._finishing.start()

    def _finish(self) -> None:
        try:
            self.result = self._encoder.close()
        except EncoderError as exc:
            self.error = str(exc)
            self.failed.emit(self.error)
            return
        self.finished.emit(self.result)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the file is finished (after :meth:`stop`); True when it is."""
        if self._finishing is None:
            return not self.recording
        self._finishing.join(timeout)
        return not self._finishing.is_alive()

    def abort(self) -> None:
        """Stop at once and write nothing (an existing file stays)."""
        self._timer.stop()
        self._grab.release()
        self._encoder.abort()
