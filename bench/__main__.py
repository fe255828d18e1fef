"""Run every benchmark, print one table, and write it to docs/PERFORMANCE.md.

``python -m bench [--quick] [--no-write] [--only step|ensemble|estimation|cli|sweep|link|video|gui|memory|live|orbit-window|spacecraft-window|peer]``.  A full run (no ``--only``) writes the head of
docs/PERFORMANCE.md anew (the machine, the table of figures, the GUI thread's profile) and keeps every section below it
as it is (:func:`full_report`).
Timings are medians of repeated runs; comparisons are ratios taken in the
same run.  Benchmarks report; they are not tests.  ``--only`` runs one part
and replaces its rows in the table of docs/PERFORMANCE.md, leaving the rest
of the report as it was: ``step`` the step costs (seconds), ``ensemble`` the
ensemble rows (seconds, no window), ``cli`` and ``sweep`` the command line's
(minutes), ``link`` the live link's round trip at 1 kHz (20 s), ``peer`` attitude-sim beside Basilisk (``make peer`` first, 1 minute), ``video`` the videos rendered (3 minutes, needs a display), ``gui`` the window's (15 minutes, needs a display), ``memory``
just the fresh window's RSS beside the libraries' floor (2 minutes).
``python -m bench.compare --base REV`` runs the same parts for an older
commit and this tree, interleaved, and tables old beside new
(:mod:`bench.compare`).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

from bench import api_step, cli_run, ensemble, gui, peer, step_cost
from bench import estimation as estimation_bench
from bench import link as link_bench
from bench import video as video_bench
from bench import sweep as sweep_bench

REPORT = Path(__file__).resolve().parents[1] / "docs" / "PERFORMANCE.md"


def _versions() -> str:
    names = ["numpy", "scipy", "PySide6-Essentials", "pyqtgraph", "PyOpenGL"]
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return f"Python {platform.python_version()}, " + ", ".join(found)


def _machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {cpu}"


def _status(ok) -> str:
    return "—" if ok is None else ("pass" if ok else "**miss**")


def table(rows) -> str:
    lines = ["| what | figure | budget | | note |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['what']} | {r['figure']} | {r['budget']} | {_status(r['ok'])} | {r.get('note', '')} |")
    return "\n".join(lines)


def _figures_table(lines: list[str]) -> list[int]:
    """Indices of the report's table of figures: the table under its ``| what | figure`` header."""
    start = next((i for i, line in enumerate(lines) if line.startswith("| what | figure")), len(lines))
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return list(range(start, end))


def _replace_rows(text: str, rows, prefixes) -> str:
    """``text`` with the table rows whose first cell starts with one of ``prefixes`` replaced by ``rows``.

    Only rows of the table of figures; other tables (the comparison's) stay as they are.
    """
    lines = text.splitlines()
    table_lines = _figures_table(lines)
    old = [i for i in table_lines if lines[i][2:].startswith(prefixes)]
    new = table(rows).splitlines()[2:]
    anchor = [i for i in table_lines if lines[i].startswith("| window's simulation thread")]
    at = old[0] if old else (anchor[0] if anchor else table_lines[-1]) + 1
    kept = [line for i, line in enumerate(lines) if i not in old]
    at -= sum(1 for i in old if i < at)
    return "\n".join(kept[:at] + new + kept[at:]) + "\n"


#: The section of the report that ``python -m bench.compare`` writes; a full run keeps it.
COMPARE_HEADING = "## Old beside new"
#: The heading of the GUI thread's profile, which a full run writes after the table.
PROFILE_HEADING = "## Profile of the GUI thread"


def section(text: str, heading: str) -> str:
    """The section of ``text`` under the line starting with ``heading``, up to the next ``## `` heading ("" if none)."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    if start is None:
        return ""
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "".join(lines[start:end])


def sections(text: str) -> list[str]:
    """``text`` cut at its ``## `` headings: what comes before the first, then each section with its heading."""
    lines = text.splitlines(keepends=True)
    cuts = [0] + [i for i, line in enumerate(lines) if line.startswith("## ")] + [len(lines)]
    return ["".join(lines[a:b]) for a, b in zip(cuts, cuts[1:])]


def full_report(old: str, head: str) -> str:
    """The report of a full run: ``head`` (the title, the machine, the table of figures and the profile of the
    GUI thread) in place of the ``old`` report's part before its first section after the profile, then every
    other section of ``old`` as it was: the reading of the table and the engineers' measured sections (the
    report is their one text), ``python -m bench.compare``'s."""
    rest = "".join(part for part in sections(old)[1:] if not part.startswith(PROFILE_HEADING))
    return head.rstrip("\n") + "\n" + ("\n" + rest.lstrip("\n") if rest else "")


def with_section(text: str, heading: str, body: str) -> str:
    """``text`` with its section under ``heading`` replaced by ``body`` (appended when it has none)."""
    old = section(text, heading)
    body = body.rstrip("\n") + "\n"
    if not old:
        return text.rstrip("\n") + "\n\n" + body
    return text.replace(old, body + ("\n" if old.endswith("\n\n") else ""), 1)


#: ``--only`` choices: how to run the rows, and the first words of the rows they replace.
#: A full run is the parts of :data:`FULL` (``gui`` holds the memory rows).
ONLY = {
    "step": (lambda quick: step_cost.run(quick=quick),
             ("step cost", "rkmk4 against rk4", "solve_ivp RK45", "numpy half-quat", "window's simulation thread")),
    "ensemble": (lambda quick: ensemble.run(quick=quick), ("ensemble", "C -O2", "rk4 ensemble", "solve_ivp DOP853")),
    "cli": (lambda quick: cli_run.run(quick=quick), ("attitude-sim run",)),
    "sweep": (lambda quick: sweep_bench.run(quick=quick), ("sweep ",)),
    "gui": (lambda quick: gui.run(quick=quick)[0],
            ("GUI ", "real-time factor", "input latency", "start-up", "RSS after", "memory growth")),
    "memory": (lambda quick: gui.memory_rows(1 if quick else 3), ("RSS after 20 s",)),
    "orbit-window": (lambda quick: [gui.orbit_day_row(quick)], ("GUI a day of orbit",)),
    "spacecraft-window": (lambda quick: gui.spacecraft_rows(quick), ("GUI 100x ",)),
    "live": (lambda quick: gui.ensemble_rows(quick), ("GUI with a 1,000-body", "GUI with a 10,000-body",
                                                      "GUI with 10,000 bodies")),
    "video": (lambda quick: video_bench.run(quick=quick), ("video of the",)),
    "estimation": (lambda quick: estimation_bench.rows(quick), ("MEKF ",)),
    "link": (lambda quick: link_bench.run(quick=quick), ("link round trip",)),
    "api": (lambda quick: api_step.run(quick=quick), ("api step",)),
    "peer": (lambda quick: peer.run(quick=quick), ("peer, ",)),
}
#: The parts of a full run, in order (``make bench``; ``make bench-compare`` without ``--only``).
FULL = ("step", "api", "ensemble", "estimation", "cli", "sweep", "link", "video", "gui")
#: The parts of ``make bench``'s full run: :data:`FULL` and the peers (the C step, and Basilisk when `make peer`
#: has installed it), whose rows an old commit's comparison would not move.
REPORTED = (*FULL[:-1], "peer", FULL[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--quick", action="store_true", help="shorter runs (for a smoke check)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/PERFORMANCE.md")
    parser.add_argument("--only", choices=sorted(ONLY),
                        help="run only these rows and replace them in docs/PERFORMANCE.md")
    args = parser.parse_args(argv)
    if args.only:
        print(f"running: {args.only} ...", file=sys.stderr, flush=True)
        run, prefixes = ONLY[args.only]
        rows = run(args.quick)
        print(table(rows))
        if not args.no_write:
            REPORT.write_text(_replace_rows(REPORT.read_text(), rows, prefixes))
            print(f"rows replaced in: {REPORT}", file=sys.stderr)
        return 0
    rows = []
    for name in REPORTED[:-1]:
        print(f"running: {name}{' (about 3 minutes)' if name == 'sweep' else ''} ...", file=sys.stderr, flush=True)
        rows += ONLY[name][0](args.quick)
    print("running: window (this takes about 15 minutes; --quick for 2) ...", file=sys.stderr, flush=True)
    gui_rows, profile = gui.run(quick=args.quick)
    rows += gui_rows
    text = table(rows)
    print(text)
    if not args.no_write:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        kind = "quick run" if args.quick else "full run"
        head = (f"# Performance\n\nMeasured {stamp} ({kind}) by `make bench` on {_machine()}; "
                f"{_versions()}; OpenGL: Mesa llvmpipe under Xvfb.\n\n{text}\n\n"
                f"{PROFILE_HEADING} (cProfile, 1x, top by own time)\n\n```\n{profile.strip()}\n```\n")
        REPORT.write_text(full_report(REPORT.read_text() if REPORT.exists() else "", head))
        print(f"written: {REPORT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
