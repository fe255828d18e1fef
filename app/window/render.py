"""``attitude-sim video``: a scenario rendered off screen to an MP4 or a GIF, frame by frame in simulated time.

:func:`render_video` opens an *unpaced* window
(:class:`~app.window.main.MainWindow` with ``paced=False``: no simulation
thread, no frame timer) and steps its flight itself: frame ``k`` shows the
state at the first step boundary at or after ``k * speed / fps`` s of
simulated time (:meth:`app.worker.SimulationWorker.advance_to`), so the
video is smooth and the same on every run, whatever the machine's speed.
Each frame's picture (:class:`~app.window.video.FrameGrab`) goes to an
:class:`~app.encoder.VideoEncoder`, which encodes in its own process while
the next frame is drawn; when it is behind, the drawing waits: every frame
is in the file.  :mod:`app.cli.video` calls it after checking the flags.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop

from app.encoder import VideoEncoder, frame_count
from app.ensemble.view import MAX_BODIES
from app.window.launch import application, display_problem
from app.window.main import MainWindow
from app.window.video import VIEW_ASPECT, FrameGrab, even

__all__ = ["render_video", "frame_count", "VideoError", "VideoFault", "SHOW_TIMEOUT", "SMALLEST_WINDOW"]

#: Seconds to wait for the window to be laid out and its 3D view to get an OpenGL context.
SHOW_TIMEOUT = 10.0


class VideoError(Exception):
    """The video cannot be made here (no OpenGL context, a size the window cannot take): one line."""


def _wait_until(ready, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            return False
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.005)
    return True


#: The smallest window drawn for a video, pixels: the smallest size the window is laid out for
#: (docs/WINDOW.md); a smaller video is drawn at this size or more and scaled down, its plots whole.
SMALLEST_WINDOW = (1280, 720)


def _window_size(window: MainWindow, size) -> tuple[int, int]:
    """The size to draw the window at for a video of ``size``: at least its minimum and :data:`SMALLEST_WINDOW`,
    the same aspect ratio."""
    minimum = window.minimumSizeHint().expandedTo(window.minimumSize())
    scale = max(1.0, min(SMALLEST_WINDOW[0] / size[0], SMALLEST_WINDOW[1] / size[1]),  # one side at the smallest
                minimum.width() / size[0], minimum.height() / size[1])
    return even(size[0] * scale), even(size[1] * scale)


def _open(scenario, what: str, size) -> tuple[MainWindow, FrameGrab]:
    """An unpaced window showing ``scenario``, laid out for the video, its 3D view with an OpenGL context."""
    problem = display_problem()
    if problem is not None:
        raise VideoError(f"{problem}; render on a virtual screen: xvfb-run -a attitude-sim video ...")
    if scenario.ensemble is not None and scenario.ensemble.bodies > MAX_BODIES:
        raise VideoError(f"{scenario.ensemble.bodies:,} bodies: the window flies at most {MAX_BODIES:,} "
                         "(attitude-sim sweep runs more)")
    application()
    window = MainWindow(scenario, remember_geometry=False, paced=False)
    try:
        if what == "window":
            width, height = _window_size(window, size)
            window.resize(width, height)
        else:  # only the 3D view is drawn: the plots are left alone
            window.plot_tabs.hide()
        window.show()
        if what == "window" and not _wait_until(lambda: (window.width(), window.height()) == (width, height),
                                                SHOW_TIMEOUT):
            raise VideoError(f"the window cannot take {width}x{height} pixels here (it has "
                             f"{window.width()}x{window.height()})")
        try:
            window.viewer.scene.ensure_context(SHOW_TIMEOUT)
        except RuntimeError as exc:
            raise VideoError(f"no OpenGL context for the 3D view: {exc}") from None
        _wait_until(lambda: False, 0.05)  # the layout settles at its size
        frame_size = tuple(size) if what == "view" else (width, height)
        return window, FrameGrab(window, what, frame_size, widest=VIEW_ASPECT)
    except BaseException:
        _close(window)
        raise


def _close(window: MainWindow) -> None:
    window.viewer.scene.release_offscreen()
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


class VideoFault(Exception):
    """The simulation faulted while a video was made: ``fault`` (:class:`app.worker.Fault`) and ``result``,
    the video of the frames before it (:class:`app.encoder.Encoded`)."""

    def __init__(self, fault, result):
        super().__init__(str(fault))
        self.fault, self.result = fault, result


def render_video(scenario, out, *, fps: int = 30, size=(1280, 720), what: str = "window", speed: float = 1.0,
                 progress=None, timings=None, stop=None):
    """Render ``scenario`` to the video file ``out``, off screen, frame by frame in simulated time.

    Parameters
    ----------
    scenario : Scenario
        What flies; its ``duration`` is the video's (in simulated time).
    out : path-like
        ``.mp4`` (H.264) or ``.gif``.
    fps : int
        Frames per second of video.
    size : (int, int)
        Width and height of the video, pixels.  The whole window is drawn
        at this size, or larger with the same aspect ratio when it is below
        the window's minimum size, and scaled down by the encoder.
    what : {"window", "view"}
    speed : float
        Simulated seconds per second of video (the window's speed factor).
    progress : callable, optional
        ``progress(n)`` after every ``n`` frames (a tqdm bar's ``update``).
    timings : dict, optional
        Filled with the seconds spent stepping, drawing the window's
        frame, taking the picture and putting it to the encoder (bench).
    stop : callable, optional
        Called between frames and before the video is moved into place;
        it raises to stop (:class:`app.cli.output.stop_signals` after
        Ctrl-C or SIGTERM).  Whatever it raises leaves no partial file
        and no ffmpeg running, and an existing file untouched.

    Returns
    -------
    app.encoder.Encoded

    Raises
    ------
    VideoError
        No display or OpenGL context.
    app.ffmpeg.EncoderError
        The file cannot be written; no partial file is left, an existing one is untouched.
    VideoFault
        The simulation faulted: the video of the frames before the fault was written (as ``run`` keeps
        the rows before a fault).
    """
    frames = frame_count(scenario.duration, fps, speed)
    fault = None
    window, grab = _open(scenario, what, size)
    spent = {"step": 0.0, "frame": 0.0, "grab": 0.0, "encode": 0.0} if timings is None else timings
    for key in ("step", "frame", "grab", "encode"):
        spent.setdefault(key, 0.0)
    try:
        if stop is not None:
            stop()  # a signal while the window opened
        with VideoEncoder(out, size, fps, frame_size=grab.frame_size, pixels=grab.pixels,
                          bottom_up=grab.bottom_up) as encoder:
            worker = window.flight.worker
            for k in range(frames):
                if stop is not None:
                    stop()
                t0 = time.perf_counter()
                worker.advance_to(k * speed / fps)
                if worker.fault is not None and k > 0:  # a simulation fault: the frames before it are the video
                    fault = worker.fault
                    break
                t1 = time.perf_counter()
                window.show_frame(view_only=what == "view")
                t2 = time.perf_counter()
                picture = grab.take()
                t3 = time.perf_counter()
                encoder.put(picture)
                t4 = time.perf_counter()
                spent["step"] += t1 - t0
                spent["frame"] += t2 - t1
                spent["grab"] += t3 - t2
                spent["encode"] += t4 - t3
                if progress is not None:
                    progress(1)
            t0 = time.perf_counter()
            result = encoder.close(stop=stop)
            spent["encode"] += time.perf_counter() - t0
            spent["encoder_write"] = encoder.write_seconds
            if fault is not None:
                raise VideoFault(fault, result)
            return result
    finally:
        _close(window)
