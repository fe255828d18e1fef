"""``attitude-sim video``: a scenario rendered off screen to an MP4 or a GIF, frame by frame in simulated time.

The flags are checked here without Qt, so bad input (a scenario, a
setting, the size, the file) exits 2 with one line before anything is
drawn: ``run``'s settings and body flags (:func:`app.cli.options.add_settings_flags`)
and ``sweep``'s ensemble flags (:func:`app.cli.sweep.add_ensemble_flags`).
The rendering itself (:func:`app.window.render.render_video`) is imported
inside :func:`cmd_video`, after the checks: with the window of ``gui``
(:mod:`app.cli.gui`), the only imports of :mod:`app.window` from
:mod:`app.cli`, each named in the import contract "app.cli imports neither
Qt nor the window nor view3d" (pyproject.toml).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from app.cli.flags import NUMERIC, add_numeric
from app.cli.options import UsageError, add_settings_flags, check_outputs, say, scenario_from_args, scenario_inputs
from app.cli.output import OutputError, Stopped, stop_signals
from app.cli.sweep import ENSEMBLE_FLAGS, add_ensemble_flags, spec_from_args
from app.encoder import QUEUE_FRAMES, WHATS, frame_count, frames_seconds
from app.ffmpeg import FPS_CHOICES, EncoderError, check_fps, check_size, check_target, parse_size, video_format
from sim.api import plan
from sim import EnsembleSpec, LIMITS, check_cost, SettingsError, damper_warning, stability_warning

__all__ = ["add_parser", "cmd_video", "VIDEO_EXAMPLES"]

VIDEO_EXAMPLES = """examples:
  attitude-sim video --scenario gimbal_lock --out gimbal_lock.mp4
  attitude-sim video --scenario tennis_racket --what view --size 1920x1080 --fps 60 --out racket.mp4
  attitude-sim video --scenario gimbal_lock --what view --size 480x270 --speed 2 --out gimbal_lock.gif
  attitude-sim video --scenario ensemble_long_way --bodies 2000 --seed 7 --out long_way.mp4

Frame k shows the state at the first step at or after k x speed / fps
seconds of simulated time, so a video is the same on every run. By default a
video shows the scenario's whole duration at the scenario's own speed (1 unless
it says), as the window opens it: sun_pointing's 4,800 s at 100x in 48 s. On a machine
without a display, run it on a virtual screen: xvfb-run -a attitude-sim video
... The gains grid is written as for sweep (attitude-sim sweep --help).
"""


def add_parser(subparsers) -> None:
    """Add ``video`` to ``subparsers``."""
    video = subparsers.add_parser(
        "video", help="render a scenario to an MP4 or GIF video, off screen",
        description="Render a scenario to a video: the whole window or its 3D view, H.264 MP4 or GIF, "
                    "one frame every 1/fps s of simulated time (each flag overrides the scenario).",
        epilog=VIDEO_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_settings_flags(video)
    add_ensemble_flags(video)
    group = video.add_argument_group("video")
    group.add_argument("--out", required=True, metavar="FILE.mp4|FILE.gif",
                       help="the video: H.264 MP4 (browsers play it) or an optimised GIF, from the suffix; "
                            "written whole or not at all")
    group.add_argument("--fps", type=int, choices=FPS_CHOICES, default=30,
                       help="frames per second (default 30; a GIF takes 30)")
    group.add_argument("--size", default="1280x720", metavar="WxH",
                       help=f"width x height in pixels (default 1280x720; width "
                            f"{LIMITS['video_width'].describe()}, height {LIMITS['video_height'].describe()}, "
                            "even for MP4)")
    group.add_argument("--what", choices=WHATS, default="window",
                       help="the whole window (default) or only its 3D view")
    add_numeric(group, "--speed")
    video.set_defaults(handler=cmd_video)


def _speed(text, scenario) -> float:
    """--speed: simulated seconds per second of video, in the window's range (:data:`sim.io.limits.LIMITS`);
    without it the scenario's own (:attr:`~sim.run.scenario.Scenario.start_speed`), as the window opens it."""
    if text is None:
        return scenario.start_speed
    return NUMERIC["--speed"].read(text)


def _scenario(args):
    """The scenario of the flags, with the ensemble flags applied (they start an ensemble if it has none)."""
    scenario = scenario_from_args(args)
    if any(getattr(args, flag) is not None for flag in ENSEMBLE_FLAGS):
        scenario = replace(scenario, ensemble=spec_from_args(args, scenario.ensemble or EnsembleSpec()))
    return scenario


def _check_length(args, scenario, speed: float) -> int:
    """The video's frames, refused (UsageError) when the video itself would be longer than the longest video.

    What is limited is the video's own length, ``duration / speed`` (its
    frames over its fps), not the simulated time it shows: an orbit
    scenario's hours at its own speed make a video of a minute.
    """
    frames = frame_count(scenario.duration, args.fps, speed)
    limit, length = LIMITS["video_seconds"], scenario.duration / speed
    if not limit.accepts(length):
        where = f"--duration {args.duration}" if args.duration is not None else "the scenario's duration"
        raise UsageError(f"{where} at --speed {speed:g}: a video of {length:.10g} s ({frames:,} frames at "
                         f"{args.fps} fps) is longer than the longest video, {limit.high:g} s; give a higher "
                         "--speed or a shorter --duration")
    return frames


def _check_cost(scenario, frames: int, size, what: str) -> None:
    """The video's steps and frames through the one estimate (sim.io.limits.check_cost), before any work.

    The simulation's cost per step is measured on the scenario's bodies
    (:func:`sim.api.plan`, as ``run``'s); the frames' from the rows of
    docs/PERFORMANCE.md (:func:`app.encoder.frames_seconds`).  The memory:
    the frames waiting for the encoder.
    """
    steps = plan(scenario)
    seconds = steps.seconds + frames_seconds(frames, size, what)
    check_cost(f"a video of {frames:,} frames at {size[0]}x{size[1]} and {steps.steps:,} steps", seconds=seconds,
               memory=QUEUE_FRAMES * 4.0 * size[0] * size[1] * 2,
               hint="give a shorter --duration, a larger --dt, a higher --speed or a smaller --size")


def cmd_video(args) -> int:
    scenario = _scenario(args)
    check_outputs({"--out": args.out}, scenario_inputs(args, scenario))  # as run: never over an input
    for warning in (stability_warning(scenario.settings), damper_warning(scenario.settings)):
        if warning:
            say(warning)
    try:
        size = parse_size(args.size)
    except SettingsError as exc:
        raise UsageError(f"--size {args.size}: {exc}") from None
    speed = _speed(args.speed, scenario)
    for flag, value, check in (("--out", args.out, lambda: video_format(args.out)),
                               ("--size", args.size, lambda: check_size(size, video_format(args.out))),
                               ("--fps", args.fps, lambda: check_fps(args.fps, video_format(args.out))),
                               ("--out", args.out, lambda: check_target(args.out))):
        try:
            check()
        except EncoderError as exc:
            raise UsageError(f"{flag} {value}: {exc}") from None
    frames = _check_length(args, scenario, speed)
    _check_cost(scenario, frames, size, args.what)
    from app.window.render import VideoError, VideoFault, render_video  # Qt: after every check (module docstring)

    bar = None
    if sys.stderr is not None and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=frames, unit="frame", desc="video", leave=False, file=sys.stderr, mininterval=0.5)
    try:
        with stop_signals() as stop:  # Ctrl-C and SIGTERM stop between frames, never inside Qt's callbacks
            result = render_video(scenario, args.out, fps=args.fps, size=size, what=args.what, speed=speed,
                                  progress=None if bar is None else bar.update, stop=stop)
    except Stopped as exc:
        if bar is not None:
            bar.close()
            bar = None
        say(f"attitude-sim: {exc}; {args.out} was not touched")
        return exc.code
    except VideoFault as exc:  # as run: the frames before the fault are kept, exit 1 with the fault
        say(f"attitude-sim: simulation fault: {exc}; {exc.result.path} holds the {exc.result.frames} frames "
            "before it")
        return 1
    except VideoError as exc:
        raise UsageError(str(exc)) from None
    except EncoderError as exc:
        raise OutputError(str(exc), 1) from None
    finally:
        if bar is not None:
            bar.close()
    say(f"wrote {result.path}: {result.frames} frames, {result.seconds:g} s at {args.fps} fps, "
        f"{size[0]}x{size[1]}, {args.what}, {result.bytes / 1e6:.2f} MB")
    return 0
