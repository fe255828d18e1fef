"""What ffmpeg is asked for a video: the formats and frame rates, the checks of a target, the command lines.

:func:`check_output` says before any work whether a video of a size and frame rate can be written to a path
(:func:`video_format`, :func:`check_size`, :func:`check_fps`, :func:`check_target`); :func:`encode_command`
is the ffmpeg command that turns raw frames on its standard input into the MP4 (or the GIF's lossless
intermediate), :func:`palette_commands` the GIF's two palette passes.  The ffmpeg is imageio-ffmpeg's
(:func:`ffmpeg_exe`).  :class:`app.encoder.VideoEncoder` runs these commands; nothing here starts a process.
No Qt.
"""

from __future__ import annotations

import os
import stat

from sim import OutputRefused, PartialFile, kind_of, LIMITS, SettingsError

__all__ = ["EncoderError", "FORMATS", "FPS_CHOICES", "GIF_FPS", "X264_PRESET", "LIVE_PRESET", "X264_CRF",
           "video_format", "check_size", "check_fps", "check_target", "check_output", "parse_size", "ffmpeg_exe",
           "encode_command", "palette_commands"]

#: Video formats by file suffix.
FORMATS = {".mp4": "mp4", ".gif": "gif"}
#: Frame rates offered.  A GIF takes 30 only: its frame delays are hundredths of a
#: second, and browsers play delays under 2/100 s as 1/10 s.
FPS_CHOICES = (30, 60)
GIF_FPS = (30,)
#: libx264 preset: about twice medium's speed on the 3D view, with a file as small as medium's
#: (synthetic pictures); superfast is faster still but its files much larger (docs/PERFORMANCE.md).
X264_PRESET = "veryfast"
#: libx264 preset of a live recording (File > Record video), which must keep up with the wall clock on
#: the cores the window and the simulation leave: superfast is the fastest preset measured.
LIVE_PRESET = "superfast"
#: libx264 constant rate factor (18-23 is visually lossless to good; lower is larger).
X264_CRF = 20
#: GIF: the 128 colours of the whole video (smaller than 256 with no visible change, docs/PERFORMANCE.md;
#: 64 tinted the north marker), an ordered dither (small, steady between
#: frames, no crawling noise) and only the changed rectangle of each frame.
GIF_PALETTE = "palettegen=stats_mode=diff:max_colors=128"
GIF_USE = "paletteuse=dither=bayer:bayer_scale=5:diff_mode=rectangle"


class EncoderError(Exception):
    """The video cannot be written; the message is one line saying why (the target is left as it was)."""


def ffmpeg_exe() -> str:
    """The ffmpeg program (imageio-ffmpeg's); EncoderError when there is none."""
    try:
        import imageio_ffmpeg
    except ImportError:  # pragma: no cover - a dependency of the package
        raise EncoderError("video needs the Python package imageio-ffmpeg (pip install imageio-ffmpeg)") from None
    try:
        return imageio_ffmpeg.get_ffmpeg_exe()
    except RuntimeError as exc:
        raise EncoderError(f"no ffmpeg to encode the video: {exc}") from None


def video_format(path) -> str:
    """``"mp4"`` or ``"gif"`` from the suffix of ``path``; EncoderError otherwise."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FORMATS:
        raise EncoderError(f"a video is written as .mp4 (H.264) or .gif, from the file's suffix "
                           f"(got {suffix or 'none'!r})")
    return FORMATS[suffix]


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` as ``(1280, 720)``, each checked against :data:`sim.io.limits.LIMITS` (SettingsError)."""
    parts = str(text).lower().replace(" ", "").split("x")
    if len(parts) != 2:
        raise SettingsError(f"expected WIDTHxHEIGHT in pixels, e.g. 1280x720, got {text!r}")
    width = LIMITS["video_width"].number(parts[0], "width")
    height = LIMITS["video_height"].number(parts[1], "height")
    return width, height


def check_size(size, fmt: str) -> None:
    """EncoderError when ``size`` cannot be encoded as ``fmt`` (H.264's 4:2:0 needs even sizes)."""
    width, height = size
    if fmt == "mp4" and (width % 2 or height % 2):
        raise EncoderError(f"an MP4 (H.264, yuv420p) needs an even width and height, "
                           f"e.g. {width + width % 2}x{height + height % 2}")


def check_fps(fps: int, fmt: str) -> None:
    """EncoderError when ``fmt`` does not take ``fps`` frames per second (:data:`FPS_CHOICES`, a GIF 30)."""
    allowed = GIF_FPS if fmt == "gif" else FPS_CHOICES
    if fps not in allowed:
        raise EncoderError(f"a{'n' if fmt == 'mp4' else ''} {fmt.upper()} takes {' or '.join(map(str, allowed))} "
                           "frames per second" + (" (GIF frame delays are hundredths of a second, and browsers "
                                                  "slow shorter ones down)" if fmt == "gif" else ""))


def check_target(path) -> None:
    """EncoderError unless a video can be written to ``path``; nothing is changed.

    The folder must exist and be writable (the partial file is created and
    removed again), and the target must be a regular file or nothing (never
    a directory or a device).
    """
    name = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(name))
    if not os.path.isdir(folder):
        raise EncoderError(f"no such folder {folder}")
    try:
        info = os.stat(name)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise EncoderError(f"cannot write ({exc.strerror})") from None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise EncoderError(f"is {kind_of(info.st_mode)}, not a video file")
    try:
        part = PartialFile(name, "the video")  # the partial file is created beside it ...
    except OutputRefused as exc:
        raise EncoderError(f"cannot write ({exc.strerror})") from None
    part.discard()  # ... and removed again: nothing is changed


def check_output(path, size, fps: int) -> str:
    """Check before any work that a video of ``size`` at ``fps`` can be written to ``path``; returns its format.

    :func:`video_format`, :func:`check_size`, :func:`check_fps`,
    :func:`check_target`; EncoderError with one line naming the path otherwise.
    """
    try:
        fmt = video_format(path)
        check_size(size, fmt)
        check_fps(fps, fmt)
        check_target(path)
    except EncoderError as exc:
        raise EncoderError(f"{os.fspath(path)}: {exc}") from None
    return fmt


def encode_command(fmt: str, target: str, size, frame_size, fps: int, *, pixels: str = "rgba",
                   bottom_up: bool = False, preset: str = X264_PRESET) -> list[str]:
    """The ffmpeg command that reads raw ``pixels`` frames of ``frame_size`` from its standard input at ``fps``.

    It writes ``target``: with ``fmt`` ``"mp4"`` the H.264 video of ``size`` (BT.709, TV range, yuv420p,
    libx264 ``preset`` at :data:`X264_CRF`), else the GIF's lossless RGB intermediate (Matroska), which
    :func:`palette_commands` turn into the GIF.  ``bottom_up`` frames (a GL framebuffer) are flipped.
    """
    size, frame_size = tuple(size), tuple(frame_size)
    filters = (["vflip"] if bottom_up else []) + (
        [f"scale={size[0]}:{size[1]}:flags=area"] if frame_size != size else [])
    command = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
               "-f", "rawvideo", "-pix_fmt", pixels, "-s", f"{frame_size[0]}x{frame_size[1]}",
               "-r", str(fps), "-i", "pipe:0", "-an"]
    if fmt == "mp4":
        filters.append("scale=out_color_matrix=bt709:out_range=tv")
        command += ["-vf", ",".join(filters), "-c:v", "libx264", "-preset", preset, "-crf", str(X264_CRF),
                    "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709",
                    "-color_trc", "bt709", "-color_range", "tv", "-movflags", "+faststart",
                    "-f", "mp4", target]
    else:  # lossless RGB intermediate; the palette passes run after the last frame
        command += (["-vf", ",".join(filters)] if filters else []) + [
            "-c:v", "libx264rgb", "-qp", "0", "-preset", "ultrafast", "-f", "matroska", target]
    return command


def palette_commands(stage: str, palette: str, target: str) -> tuple[list[str], list[str]]:
    """The GIF's two passes over the lossless intermediate ``stage``: the palette of the whole video
    (:data:`GIF_PALETTE`, into ``palette``), then the frames with it (:data:`GIF_USE`, into ``target``)."""
    common = [ffmpeg_exe(), "-hide_banner", "-nostdin", "-loglevel", "error", "-y"]
    return ([*common, "-i", stage, "-vf", GIF_PALETTE, "-frames:v", "1", "-update", "1", "-f", "image2", palette],
            [*common, "-i", stage, "-i", palette, "-lavfi", GIF_USE, "-loop", "0", "-f", "gif", target])
