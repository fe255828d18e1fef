"""Video files from frames: H.264 MP4 or an optimised GIF, encoded by ffmpeg in its own process; no Qt.

A :class:`VideoEncoder` takes frames (raw RGBA or BGRA pixels, as a GL
framebuffer or a ``QImage`` holds them) from the thread that draws them and
hands them to a writer thread, which pipes them to an ffmpeg process: the
drawing thread never waits for the encoding, and the encoding runs on the
other core.  The ffmpeg is the one imageio-ffmpeg bundles
(:func:`imageio_ffmpeg.get_ffmpeg_exe`; the environment variable
``IMAGEIO_FFMPEG_EXE`` names another).  The file's format follows its suffix
(:data:`FORMATS`):

* ``.mp4``: H.264 (libx264, preset :data:`X264_PRESET`), yuv420p with the
  BT.709 matrix and ``+faststart``, which every browser plays; the size
  must be even (4:2:0 chroma);
* ``.gif``: an optimised GIF, in two passes so that memory stays bounded:
  the frames go to a lossless intermediate beside the target, then
  ffmpeg's ``palettegen`` picks the 256 colours of the whole video and
  ``paletteuse`` writes the GIF with an ordered dither and only the changed
  rectangle of each frame.

Whole files or none: ffmpeg writes ``FILE.<random>.part`` (and the GIF's
intermediates ``FILE.<random>.part.mkv``, ``.part.png``) beside the target,
each created empty and exclusively first, so ffmpeg only ever opens a fresh
private name (never a file or link planted there), and only a complete
video is moved over it (:class:`sim.io.files.PartialFile`), so
a failure (a full disk, Ctrl-C, an encoder error) leaves an existing file
as it was and no partial file behind.

Two ways to feed it.  A command that renders a video (``attitude-sim
video``) puts every frame and waits when the encoder is behind
(``drop=False``): every frame is in the file.  A live recording
(File > Record video in the window) must never wait (``drop=True``): a
frame that finds the queue full is dropped and counted, and the video keeps
its timeline by showing the previous frame once more in its slot.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass

from app.ffmpeg import X264_PRESET, EncoderError, check_output, encode_command, palette_commands
from sim import OutputRefused, PartialFile

__all__ = ["VideoEncoder", "Encoded", "WHATS", "QUEUE_FRAMES", "frame_count", "frames_seconds", "FRAME_SECONDS"]

#: What a video shows: the whole window, or only its 3D view.
WHATS = ("window", "view")
#: Frames waiting for the encoder at most (each is width x height x 4 bytes).
QUEUE_FRAMES = 8
#: Wall seconds per frame at 1280x720, window opening and file finishing included, by what is drawn
#: (docs/PERFORMANCE.md, "video of the view / of the window": 600 frames in 10.2 and 13.8 s).
FRAME_SECONDS = {"view": 10.2 / 600, "window": 13.8 / 600}
#: The pixels those frames had.
FRAME_SECONDS_PIXELS = 1280 * 720
#: Most seconds to wait for ffmpeg to finish after the last frame.
FINISH_TIMEOUT = 600.0


def frame_count(duration: float, fps: int, speed: float = 1.0) -> int:
    """Frames of a video of ``duration`` simulated seconds at ``fps``, ``speed`` simulated s per video s (at least 1)."""
    return max(1, round(duration * fps / speed))


def frames_seconds(frames: int, size, what: str) -> float:
    """Estimated wall seconds to draw, read back and encode ``frames`` of ``size`` (:data:`FRAME_SECONDS`).

    Scaled by the pixels above 1280x720 (drawing, reading back and encoding
    grow with them); below it the measured cost stands (the window is drawn
    at its minimum size at least).
    """
    return frames * FRAME_SECONDS[what] * max(1.0, size[0] * size[1] / FRAME_SECONDS_PIXELS)


@dataclass(frozen=True)
class Encoded:
    """A video written.

    Attributes
    ----------
    path : str
    frames : int
        Frames in the file (repeats included).
    dropped : int
        Frames given while the encoder was behind, left out (``drop=True`` only).
    repeated : int
        Slots of the timeline that show the previous frame again: the dropped
        frames and the slots no frame was given for.
    seconds : float
        Length of the video, s.
    bytes : int
        Size of the file.
    """

    path: str
    frames: int
    dropped: int
    repeated: int
    seconds: float
    bytes: int


class VideoEncoder:
    """Frames in, a video file out: ffmpeg in its own process fed by a writer thread.

    Parameters
    ----------
    path : path-like
        The video; its suffix picks the format (:data:`FORMATS`).
    size : (int, int)
        Width and height of the video, pixels.
    fps : int
        Frames per second (:data:`FPS_CHOICES`; a GIF takes 30).
    frame_size : (int, int), optional
        Width and height of the frames given, when they differ from
        ``size`` (ffmpeg scales them, averaging pixels).
    pixels : {"rgba", "bgra"}
        Byte order of the frames' pixels: ``"rgba"`` as ``glReadPixels``
        gives ``GL_RGBA``, ``"bgra"`` as a ``QImage`` of ``Format_RGB32``
        holds them on a little-endian machine.
    bottom_up : bool
        The frames' rows run from the bottom up (OpenGL's order).
    drop : bool
        Never wait: :meth:`put` drops a frame when :data:`QUEUE_FRAMES`
        frames are waiting already (a live recording).  Otherwise
        :meth:`put` waits for room (every frame is encoded).
    preset : str
        libx264's speed preset (MP4): :data:`X264_PRESET`, or
        :data:`LIVE_PRESET` for a live recording, which must keep up.

    Raises
    ------
    EncoderError
        When the file cannot be written or ffmpeg cannot be started.
    """

    def __init__(self, path, size, fps: int, *, frame_size=None, pixels: str = "rgba",
                 bottom_up: bool = False, drop: bool = False, preset: str = X264_PRESET):
        self.path = os.fspath(path)
        self.format = check_output(self.path, size, fps)
        if pixels not in ("rgba", "bgra"):
            raise ValueError(f"pixels: 'rgba' or 'bgra', got {pixels!r}")
        self.size = (int(size[0]), int(size[1]))
        self.frame_size = self.size if frame_size is None else (int(frame_size[0]), int(frame_size[1]))
        self.fps = int(fps)
        self._frame_bytes = 4 * self.frame_size[0] * self.frame_size[1]
        self._drop = bool(drop)
        try:
            self._part = PartialFile(self.path, "the video")
        except OutputRefused as exc:
            raise EncoderError(f"{self.path}: cannot write ({exc.strerror})") from None
        try:  # the GIF's intermediates: fresh private files beside it too, removed with it
            self._stage = self._part.stage(".mkv") if self.format == "gif" else self._part.partial
            self._palette = self._part.stage(".png") if self.format == "gif" else None
        except OSError as exc:
            self._part.discard()
            raise EncoderError(f"{self.path}: cannot write ({exc.strerror})") from None
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUE_FRAMES)
        self._error: str | None = None
        self._closed = False
        self._given = 0  # slots given to put (the next slot by default)
        self.frames = 0  # frames written to ffmpeg (the writer thread's)
        self.dropped = 0
        self.repeated = 0
        #: Seconds the writer thread spent waiting for ffmpeg to take frames (the encoder's share of the work).
        self.write_seconds = 0.0
        self._stderr = tempfile.TemporaryFile()
        command = encode_command(self.format, self._stage, self.size, self.frame_size, self.fps, pixels=pixels,
                                 bottom_up=bottom_up, preset=preset)
        try:
            self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                             stderr=self._stderr, start_new_session=True)
        except OSError as exc:
            self._stderr.close()
            raise EncoderError(f"cannot start ffmpeg ({exc.strerror or exc})") from None
        self._thread = threading.Thread(target=self._write, name="attitude-sim video encoder", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ frames in
    def put(self, frame, slot: int | None = None) -> bool:
        """Give the next frame (any C-contiguous buffer of the frame size's RGBA/BGRA bytes).

        The encoder keeps a reference to ``frame`` until it is written: do
        not change it afterwards.

        Parameters
        ----------
        slot : int, optional
            The frame's place in the video's timeline (frame number from 0),
            for a live recording: slots skipped since the last frame show
            that frame again.  Default: the next slot.

        Returns
        -------
        bool
            False when the frame was dropped (``drop=True`` and the encoder
            is behind).

        Raises
        ------
        EncoderError
            When ffmpeg failed; the video cannot be completed (call :meth:`abort`).
        """
        if self._closed:
            raise RuntimeError("put: the encoder is closed")
        if self._error is not None:
            raise EncoderError(self._error)
        view = memoryview(frame)
        if view.nbytes != self._frame_bytes:
            raise ValueError(f"put: a frame of {self.frame_size[0]}x{self.frame_size[1]} has "
                             f"{self._frame_bytes} bytes, got {view.nbytes}")
        slot = self._given if slot is None else int(slot)
        if slot < self._given:
            return False  # a slot already given (a timeline going backwards): nothing to add
        self._given = slot + 1
        if self._drop:
            try:
                self._queue.put_nowait((slot, frame))
            except queue.Full:
                self.dropped += 1
                return False
            return True
        while True:  # wait for room, but notice a dead encoder
            try:
                self._queue.put((slot, frame), timeout=0.5)
                return True
            except queue.Full:
                if self._error is not None:
                    raise EncoderError(self._error) from None

    @property
    def behind(self) -> int:
        """Frames waiting for the encoder now."""
        return self._queue.qsize()

    def _write(self) -> None:
        """The writer thread: frames from the queue into ffmpeg's input, skipped slots repeated."""
        pipe = self._process.stdin
        previous, last = None, -1
        try:
            while True:
                item = self._queue.get()
                if item is None:  # abort
                    return
                slot, frame = item
                start = time.perf_counter()
                if frame is None:  # the end: the slots given after the last frame written show it
                    for _ in range(slot - last - 1 if previous is not None else 0):
                        pipe.write(previous)
                        self.frames += 1
                        self.repeated += 1
                    return
                if previous is not None:
                    for _ in range(slot - last - 1):
                        pipe.write(previous)
                        self.frames += 1
                        self.repeated += 1
                elif slot > 0:  # the first frame given late: it fills the slots before it
                    for _ in range(slot):
                        pipe.write(frame)
                        self.frames += 1
                        self.repeated += 1
                pipe.write(frame)
                self.frames += 1
                self.write_seconds += time.perf_counter() - start
                previous, last = frame, slot
        except Exception as exc:
            if not isinstance(exc, (OSError, ValueError)):
                self._error = f"cannot write {self.path}: {type(exc).__name__}: {exc}"
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._process.wait(2.0)  # its last words reach stderr first
                self._error = self._failure("stopped")
            with contextlib.suppress(queue.Empty):
                while True:
                    self._queue.get_nowait()

    # ----------------------------------------------------------- file out
    def close(self, stop=None) -> Encoded:
        """Finish the video: encode what is queued, (GIF) the palette passes, move it into place.

        Blocks until the file is complete (seconds for a long GIF).
        ``stop``, if given, is called before each pass and before the move;
        whatever it raises kills ffmpeg, removes the partial files and is
        raised again (the target untouched).

        Raises
        ------
        EncoderError
            When ffmpeg failed or no frame was given; no partial file is
            left and an existing file at :attr:`path` is untouched.
        """
        if self._closed:
            raise RuntimeError("close: the encoder is closed already")
        self._closed = True
        try:
            while self._thread.is_alive():  # the end mark, unless the writer stopped already
                try:
                    self._queue.put((self._given, None), timeout=0.5)
                    break
                except queue.Full:
                    pass
            self._thread.join()
            with contextlib.suppress(OSError):
                self._process.stdin.close()
            try:
                code = self._process.wait(FINISH_TIMEOUT)
            except subprocess.TimeoutExpired:
                raise EncoderError(f"ffmpeg did not finish {self.path} within {FINISH_TIMEOUT:g} s") from None
            if self._error is not None:
                raise EncoderError(self._error)
            if code != 0:
                raise EncoderError(self._failure(f"failed (exit code {code})"))
            if self.frames == 0:
                raise EncoderError(f"{self.path}: no frame was recorded")
            if stop is not None:
                stop()
            if self.format == "gif":
                self._palette_passes(stop)
            if stop is not None:
                stop()
            self._part.commit()
        except EncoderError:
            self._discard()
            raise
        except BaseException:
            self._kill()
            self._discard()
            raise
        finally:
            self._stderr.close()
        return Encoded(self.path, self.frames, self.dropped, self.repeated, self.frames / self.fps,
                       os.path.getsize(self.path))

    def abort(self) -> None:
        """Stop at once: ffmpeg is killed, no file is written (an existing one stays). Never raises."""
        if self._closed:
            return
        self._closed = True
        self._kill()
        with contextlib.suppress(queue.Full):
            self._queue.put_nowait(None)
        self._thread.join(5.0)
        self._discard()
        with contextlib.suppress(OSError):
            self._stderr.close()

    def __enter__(self) -> VideoEncoder:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:
            self.abort()

    def _palette_passes(self, stop=None) -> None:
        """The GIF from the lossless intermediate: the palette of the whole video, then the frames."""
        for command in palette_commands(self._stage, self._palette, self._part.partial):
            if stop is not None:
                stop()
            try:
                done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, timeout=FINISH_TIMEOUT, start_new_session=True)
            except subprocess.TimeoutExpired:
                raise EncoderError(f"ffmpeg did not finish {self.path} within {FINISH_TIMEOUT:g} s") from None
            if done.returncode != 0:
                raise EncoderError(self._failure(f"failed (exit code {done.returncode})", done.stderr))

    def _failure(self, what: str, text: bytes | None = None) -> str:
        """One line: the encoder ``what``, with ffmpeg's last message (its stderr) and the reason."""
        if text is None:
            with contextlib.suppress(OSError, ValueError):
                self._stderr.seek(0)
                text = self._stderr.read()
        lines = [line.strip() for line in (text or b"").decode("utf-8", "replace").splitlines() if line.strip()]
        reason = lines[-1] if lines else ""
        return f"cannot write {self.path}: the encoder {what}" + (f": {reason}" if reason else "")

    def _kill(self) -> None:
        with contextlib.suppress(OSError):
            self._process.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self._process.wait(5.0)
        with contextlib.suppress(OSError):
            self._process.stdin.close()

    def _discard(self) -> None:
        self._part.discard()  # the partial video and the GIF's intermediates
