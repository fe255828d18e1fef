"""``attitude-sim gui``: the flags checked here, without Qt; then the window.

The scenario and the body are loaded and ``--after`` is checked on the
command line, so bad input exits 2 with one line before any window or Qt
library is loaded.  The window itself (:func:`app.window.launch.run_gui`)
is imported inside :func:`cmd_gui`: the only import of :mod:`app.window`
from :mod:`app.cli`, named in the import contract "app.cli imports neither
Qt nor the window nor view3d" (pyproject.toml), so that ``run``, ``sweep``
and the rest of the command line never load Qt.
"""

from __future__ import annotations

import math

from app.cli.linked import add_link_flags, link_rate, open_link
from app.cli.options import (UsageError, add_body_flags, check_outputs, flush_notes, note, say_body_note,
                             scenario_inputs, with_body)
from app.ffmpeg import parse_size
from sim import SettingsError, read_aem, load_scenario as load

__all__ = ["add_parser", "cmd_gui", "MAX_AFTER"]

#: Longest --after accepted, s (a screenshot, not a soak).
MAX_AFTER = 3600.0


def add_parser(subparsers) -> None:
    """Add ``gui`` to ``subparsers``."""
    gui = subparsers.add_parser("gui", help="open the window (the default)")
    gui.add_argument("--scenario", default="default", help="built-in name or .toml file")
    gui.add_argument("--screenshot", metavar="FILE.png", help="save a picture of the window and exit")
    gui.add_argument("--after", type=float, default=2.0, metavar="S",
                     help=f"seconds to run before the screenshot (default 2, at most {MAX_AFTER:g})")
    gui.add_argument("--size", metavar="WxH",
                     help="the window's size in pixels, e.g. 1280x720 (default: the size saved last; 1400x900 for "
                          "a screenshot); the smallest supported is 1280x720 (docs/WINDOW.md)")
    gui.add_argument("--attitude-file", metavar="FILE.aem",
                     help="play a CCSDS attitude file (AEM) beside the simulation, as File > Open attitude file does")
    add_body_flags(gui)
    add_link_flags(gui, record=False)
    gui.set_defaults(handler=cmd_gui)


def cmd_gui(args) -> int:
    scenario = with_body(load(args.scenario), args)  # fail early, on the command line
    say_body_note(scenario.settings)
    if args.screenshot is not None and not (math.isfinite(args.after) and 0 <= args.after <= MAX_AFTER):
        raise UsageError(f"--after: must be a time in [0, {MAX_AFTER:g}] s, got {args.after}")
    inputs = scenario_inputs(args, scenario)
    if args.attitude_file is not None:
        read_aem(args.attitude_file)  # a file it cannot read: one line, exit 2, before any window
        inputs = {**inputs, "--attitude-file": args.attitude_file}
    check_outputs({"--screenshot": args.screenshot}, inputs)
    size = None
    if args.size is not None:
        try:
            size = parse_size(args.size)
        except SettingsError as exc:
            raise UsageError(f"--size {args.size}: {exc}") from None
    link_rate(args)  # --link-rate without --link: refused
    link = open_link(args) if args.link is not None else None  # bound here: a port in use is one line, exit 2
    if link is not None:
        note(f"link: states on {link.address} at {link.rate:g} Hz, inputs on {link.input_address}")
    flush_notes()
    from app.window.launch import run_gui  # Qt is loaded for the window only (see the module docstring)

    return run_gui(scenario, screenshot=args.screenshot, after=args.after, link=link,
                   attitude_file=args.attitude_file, size=size)
