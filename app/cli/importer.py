"""``attitude-sim import``: an attitude file of another tool (a CCSDS AEM) as this project's rows.

The file is read whole and converted (:func:`sim.run.aem.read_aem`) before
the output opens: a malformed or unsupported file is one line naming the
line and the field (exit 2), and no output is touched; its memory is
estimated from the file's states first (:func:`sim.run.aem.count_states`).
Ctrl-C while the rows are written leaves the output file as it was (an
import is written whole or not at all).  One line on stderr says what was
converted.
"""

from __future__ import annotations

import numpy as np

from app.cli.options import UsageError, check_outputs, open_output, say
from app.cli.output import OutputError, finish, stream_csv, stream_npz
from sim import aircraft_angles, DIRECTIONS, ORDERS, Convention, table_converter, read_aem

__all__ = ["add_parser", "cmd_import", "COLUMNS"]

#: The columns written: time, Q (scalar last, inertial -> body), body rates, aircraft angles.
COLUMNS = ("t", "q1", "q2", "q3", "q4", "wx", "wy", "wz", "psi_deg", "theta_deg", "phi_deg")

EXAMPLES = """examples:
  attitude-sim import mission.aem --out mission.csv
  attitude-sim import mission.xml --format npz --out mission.npz
"""


def add_parser(subparsers) -> None:
    """Add ``import`` to ``subparsers``."""
    import argparse

    p = subparsers.add_parser("import", help="read a CCSDS attitude ephemeris message (AEM) into CSV or npz rows",
                              description="Read a CCSDS AEM (version 2, KVN or XML; quaternions, Euler angles "
                              "or spin, either direction) and write t, Q (this project's convention unless "
                              "--quaternion/--direction say otherwise), body rates and aircraft angles.",
                              epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="the AEM (.aem, .kvn or .xml)")
    p.add_argument("--format", choices=("csv", "npz"), default=None,
                   help="csv or npz; default: from the --out suffix, else csv")
    p.add_argument("--out", default="-", metavar="FILE", help="output file, - for stdout (default)")
    p.add_argument("--quaternion", choices=ORDERS, default="scalar-last", help="order of the quaternion columns")
    p.add_argument("--direction", choices=DIRECTIONS, default="inertial-to-body",
                   help="what the quaternion columns transform")
    p.set_defaults(handler=cmd_import)


def cmd_import(args) -> int:
    fmt = args.format or ("npz" if args.out.lower().endswith(".npz") else "csv")
    if fmt == "npz" and args.out == "-":
        raise UsageError("--format npz: give --out FILE.npz")
    check_outputs({"--out": args.out}, {"the attitude file": args.file})
    track = read_aem(args.file)  # whole, or AttitudeFileError (exit 2) before the output opens
    angles = np.degrees(np.array([aircraft_angles(tuple(q)) for q in track.q.tolist()]))
    table = np.column_stack([track.t, track.q, track.w, angles])
    names, convert = table_converter(COLUMNS, Convention(args.quaternion, args.direction))
    rows = [convert(tuple(row)) for row in table.tolist()]
    sink = open_output(args.out, "--out")
    try:
        if fmt == "npz":
            stream_npz(iter(rows), names, len(rows), sink)
        else:
            stream_csv(iter(rows), names, sink)
        finish(sink)
    except OutputError as exc:
        if exc.code == 130 and args.out != "-":  # a file: an import is written whole or not at all
            raise OutputError(f"interrupted; nothing written, {args.out} is as it was", 130) from None
        raise
    finally:
        sink.close()
    say(track.summary)
    return 0
