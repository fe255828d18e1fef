"""The ``attitude-sim`` command: its parser and :func:`main`, which maps every failure to an exit code.

``attitude-sim`` (no arguments) or ``attitude-sim gui`` opens the window;
``run`` integrates headless and writes CSV or npz; ``scenarios`` lists the
built-ins; ``replay`` reproduces a recording; ``sweep`` flies an ensemble;
``lab`` measures every integrator's long-run drift.
``video`` renders a scenario to an MP4 or GIF; ``import`` reads a CCSDS AEM.
Bad input exits 2 with one line on stderr, never a traceback; a write error
exits 1 and Ctrl-C 130, each with one line giving the simulated time
reached (:mod:`app.cli.output`).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

from app.cli import gui, importer, lab, run, scenarios, sweep, video
from app.cli.options import PROG, LineParser, UsageError, drop_notes, say
from app.cli.output import OutputError
from sim import (
    OutputRefused, FileRefused, RunTooLong, AttitudeFileError, RecordingError, ScenarioError, SettingsError,
    ShapeError, SimulationFault,
)

__all__ = ["main", "build_parser", "EXAMPLES"]

EXAMPLES = """examples:
  attitude-sim                                   open the window (default scenario)
  attitude-sim gui --scenario gimbal_lock        the window with a built-in scenario
  attitude-sim run --scenario hoffmann           Hoffmann's experiment as CSV on stdout
  attitude-sim run --integrator rk4 --rates 1,0.2,-0.5 --dampers 0,0,0 --duration 20 \\
      --every 100 --out tumble.csv               a torque-free tumble, every 100th step
  attitude-sim run --duration 3600 --format npz --out hour.npz
  attitude-sim replay session.jsonl --out states.csv
  attitude-sim lab --steps 100000 --out lab     the drift lab, shorter: LAB.md and plots in lab/
  attitude-sim video --scenario gimbal_lock --out gimbal_lock.mp4
  attitude-sim run --scenario hoffmann --out hoffmann.aem   a CCSDS attitude ephemeris message
  attitude-sim import mission.aem --out mission.csv        an AEM as rows in this project's convention
"""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("attitude-sim")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``attitude-sim`` and its commands; each command's handler is ``args.handler``."""
    parser = LineParser(prog=PROG, description="Real-time 3D rigid-body attitude simulator "
                        "(Hoffmann's quaternion methods).", epilog=EXAMPLES,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="subcommand", parser_class=LineParser, metavar="COMMAND")
    gui.add_parser(sub)
    run.add_run_parser(sub)
    scenarios.add_parser(sub)
    run.add_replay_parser(sub)
    sweep.add_parser(sub)
    lab.add_parser(sub)
    video.add_parser(sub)
    importer.add_parser(sub)
    return parser


#: Set (to anything) to see the traceback of an unexpected error instead of its one line.
TRACEBACK_ENV = "ATTITUDE_SIM_TRACEBACK"


def main(argv=None) -> int:
    """Run ``attitude-sim`` with ``argv`` (default: the process's); returns the exit code.

    Every failure ends in one line on stderr and an exit code, never a
    traceback: bad input (2), a write error or a numerical fault (1),
    Ctrl-C (130).  What a library raises on bad data is caught here too; an
    error nobody foresaw is named in one line (exit 1), its traceback shown
    only with ``ATTITUDE_SIM_TRACEBACK=1``.  numpy's RuntimeWarnings (an
    overflow in a body that runs away, which the run reports as a fault)
    never reach stderr.
    """
    argv = sys.argv[1:] if argv is None else argv
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    np.seterr(all="ignore")
    drop_notes()
    try:
        parser = build_parser()
        if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help", "--version")):
            argv = ["gui", *argv]
        args = parser.parse_args(argv)
        if args.subcommand is None:
            raise UsageError("a command is needed (gui, run, scenarios, replay, sweep, video, lab, import)")
        return args.handler(args)
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    except (UsageError, SettingsError, ScenarioError, RecordingError, ShapeError, FileRefused, OutputRefused,
            RunTooLong, AttitudeFileError) as exc:
        say(f"{PROG}: error: {exc}")
        return 2
    except OutputError as exc:
        say(f"{PROG}: {'error: ' if exc.code == 1 else ''}{exc}")
        return exc.code
    except SimulationFault as exc:
        say(f"{PROG}: simulation fault: {exc}")
        return 1
    except BrokenPipeError:  # stdout closed while printing the scenario list
        _silence_stdout()
        say(f"{PROG}: error: cannot write stdout: broken pipe (the reader went away)")
        return 1
    except KeyboardInterrupt:
        say(f"{PROG}: interrupted")
        return 130
    except MemoryError:
        say(f"{PROG}: error: out of memory (the machine could not give what the run asked for)")
        return 1
    except RecursionError:
        say(f"{PROG}: error: the input is nested too deeply to be read")
        return 2
    except Exception as exc:
        if os.environ.get(TRACEBACK_ENV):
            raise
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        say(f"{PROG}: internal error: {type(exc).__name__}{': ' + text if text else ''} "
            f"({TRACEBACK_ENV}=1 shows where)")
        return 1


def _silence_stdout():
    """Point stdout at /dev/null, so the flush at exit does not fail again on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
