"""Old beside new in one run: every bench row of an older commit and of this tree, interleaved.

``python -m bench.compare --base REV [--only PART ...] [--quick] [--repeats N] [--no-write]``
(``make bench-compare BASE=REV [ONLY="step ensemble"] [QUICK=1]``).

A refactoring must leave every ``make bench`` row within 10 % of the
commit before it, measured in the same run.  This tool checks ``REV`` out
into a temporary git worktree (removed afterwards), and runs each part of
the bench (:data:`bench.__main__.ONLY`; a full run is
:data:`bench.__main__.FULL`) ``--repeats`` times for each side, old and
new alternating (old, new, new, old, ...), so that the machine's load
falls on both alike.  Every run is a fresh interpreter (this venv's: the
dependencies are the project's, not the commit's) whose ``PYTHONPATH`` is
that side's tree, started in a folder of its own, so ``sim``, ``app`` and
``assets`` are that side's code, in the process and in the processes the
bench starts; the run reports the files it imported from and the tool
refuses a run that measured the other tree.

Which bench measures the old side: by default this tree's ``bench/`` with
the old side's code, so both sides are measured by the same procedure (a
changed clock or workload in the bench cannot pass for a change of the
code); when this tree's bench cannot run the old code (it imports a module
the refactoring created), the old side's own ``bench/`` (the part in its
``bench.__main__.ONLY``, or for a bench older than those entries the
module its full run called, :data:`LEGACY`).  ``--bench own`` tries the
old side's own bench first.  The report names the bench used per part and
the bench files that differ between the two trees.

Each row's figure is the median of its repeats (the run whose value is the
middle one, printed as the bench printed it); ``change`` is new over old
minus one; "within 10 %" is ``|change| <= 10 %``, and a row outside says
whether it got better or worse when its unit says which way is better
(times, memory: lower; fps, "x faster": higher).  ``spread`` is each
side's (max - min) / median over its repeats: the noise to read the change
against.  The table goes to stdout and to the section "Old beside new" of
docs/PERFORMANCE.md (replaced there; a full ``make bench`` keeps it).
Exit status 1 when some row got worse by more than 10 %.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.__main__ import COMPARE_HEADING, FULL, ONLY, _machine, _versions, with_section

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "docs" / "PERFORMANCE.md"
#: Largest change of a row counted as unchanged, percent.
LIMIT = 10.0
_MARK = "@@bench-compare@@ "

#: How a bench whose ``ONLY`` predates a part ran it in its full run: part -> (module, function,
#: whether it returns ``(rows, profile)``); every bench since the modules existed calls them so.
LEGACY = {"step": ("bench.step_cost", "run", False), "cli": ("bench.cli_run", "run", False),
          "sweep": ("bench.sweep", "run", False), "gui": ("bench.gui", "run", True)}

# Run in each side's interpreter: the rows of one part, as JSON, and where the code came from.
_DRIVER = r"""
import importlib, json, os, sys
part, quick = sys.argv[1], sys.argv[2] == "1"
only = getattr(importlib.import_module("bench.__main__"), "ONLY", {})
LEGACY = %(legacy)r

def legacy(name):
    module, function, pair = LEGACY[name]
    try:
        run = getattr(importlib.import_module(module), function)
    except (ImportError, AttributeError):
        return None
    return lambda quick: run(quick=quick)[0] if pair else run(quick=quick)

run = only[part][0] if part in only else legacy(part) if part in LEGACY else None
if run is None:
    parts = {*only, *(name for name in LEGACY if name not in only and legacy(name) is not None)}
    print(%(mark)r + json.dumps({"parts": sorted(parts)}), flush=True)
    sys.exit(3)
rows = run(quick)
where = {name: os.path.realpath(sys.modules[name].__file__) for name in ("bench", "sim", "app") if name in sys.modules}
print(%(mark)r + json.dumps({"rows": [{"what": r["what"], "figure": r["figure"]} for r in rows], "where": where}),
      flush=True)
""" % {"mark": _MARK, "legacy": LEGACY}

_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
_LOWER_IS_BETTER = {"us/step", "us/sample", "ns", "ms", "s", "s wall", "MB"}
_HIGHER_IS_BETTER = {"fps", "x faster"}


def parse_figure(figure: str) -> tuple[float | None, str]:
    """``(value, unit)`` of a bench figure such as ``"2.14 us/step"``, ``"1.74x faster"``, ``"+5.1 MB"``.

    Examples
    --------
    >>> parse_figure("2.14 us/step"), parse_figure("1.74x faster"), parse_figure("skipped")
    ((2.14, 'us/step'), (1.74, 'x faster'), (None, 'skipped'))
    """
    match = _NUMBER.search(figure)
    if match is None or match.start() != 0 and figure[:match.start()].strip():
        return None, figure.strip()
    return float(match.group().replace(",", "")), figure[match.end():].strip()


def better(unit: str) -> int:
    """+1 when a larger figure is better, -1 when a smaller one is, 0 when the unit does not say."""
    if unit in _HIGHER_IS_BETTER:
        return 1
    if unit in _LOWER_IS_BETTER:
        return -1
    return 0


class Side:
    """One tree measured: its code on PYTHONPATH, a bench (its own or this tree's), a folder to run in."""

    def __init__(self, label: str, code: Path, bench: Path, stage: Path):
        self.label, self.code, self.bench = label, code, bench
        self.stage = stage
        stage.mkdir(parents=True, exist_ok=True)
        (stage / "bench").symlink_to(bench / "bench", target_is_directory=True)

    def run(self, part: str, quick: bool) -> dict:
        """The JSON the driver printed (``rows`` and ``where``, or ``parts`` when the bench lacks ``part``)."""
        env = dict(os.environ, PYTHONPATH=str(self.code))
        proc = subprocess.run([sys.executable, "-c", _DRIVER, part, "1" if quick else "0"], cwd=self.stage,
                              env=env, capture_output=True, text=True)
        lines = [line[len(_MARK):] for line in proc.stdout.splitlines() if line.startswith(_MARK)]
        if not lines:
            tail = "\n".join(proc.stderr.strip().splitlines()[-15:])
            raise RuntimeError(f"{self.label}: the {part} bench failed (exit {proc.returncode}):\n{tail}")
        result = json.loads(lines[-1])
        if "rows" in result:
            self._check(result["where"])
        return result

    def _check(self, where: dict) -> None:
        for name, tree in (("sim", self.code), ("app", self.code), ("bench", self.bench)):
            if name in where and not Path(where[name]).is_relative_to(tree.resolve()):
                raise RuntimeError(f"{self.label}: {name} was imported from {where[name]}, not from {tree}")


def _git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


def _median_run(figures: list[str]) -> tuple[str, float | None, float | None]:
    """The median run's figure, its value, and the spread (max - min) / median of the runs, percent."""
    values = [parse_figure(f)[0] for f in figures]
    if any(v is None for v in values):
        return figures[-1], None, None
    order = sorted(range(len(values)), key=values.__getitem__)
    middle = order[(len(order) - 1) // 2]
    median = statistics.median(values)
    spread = 100.0 * (max(values) - min(values)) / abs(median) if median and len(values) > 1 else None
    return figures[middle], values[middle], spread


def compare_rows(old: dict, new: dict) -> list[dict]:
    """One row per bench row (old order, then rows only the new side has), from the figures of every repeat."""
    out = []
    for what in list(old) + [w for w in new if w not in old]:
        o = _median_run(old[what]) if what in old else ("—", None, None)
        n = _median_run(new[what]) if what in new else ("—", None, None)
        row = {"what": what, "old": o[0], "new": n[0], "spread": (o[2], n[2]), "change": None, "verdict": ""}
        if what not in old or what not in new:
            row["verdict"] = "only in " + ("new" if what not in old else "old")
        elif o[1] is not None and n[1] is not None and o[1] != 0:
            change = 100.0 * (n[1] - o[1]) / abs(o[1])
            row["change"] = change
            way = better(parse_figure(o[0])[1]) * (1 if change > 0 else -1)
            if abs(change) <= LIMIT:
                row["verdict"] = "yes"
            else:
                row["verdict"] = {1: "no: better", -1: "**no: worse**", 0: "**no**"}[way]
            row["worse"] = abs(change) > LIMIT and way <= 0
        out.append(row)
    return out


def _spread(pair) -> str:
    return " / ".join("—" if s is None else f"{s:.0f} %" for s in pair)


def table(rows: list[dict]) -> str:
    lines = [f"| row | old | new | change | within {LIMIT:g} % | spread old / new |", "|---|---|---|---|---|---|"]
    for r in rows:
        change = "—" if r["change"] is None else f"{r['change']:+.1f} %"
        lines.append(f"| {r['what']} | {r['old']} | {r['new']} | {change} | {r['verdict']} | {_spread(r['spread'])} |")
    return "\n".join(lines)


def _summary(rows: list[dict]) -> str:
    compared = [r for r in rows if r["change"] is not None]
    if not compared:
        return "No row could be compared."
    within = sum(abs(r["change"]) <= LIMIT for r in compared)
    worst = max(compared, key=lambda r: abs(r["change"]))
    median = statistics.median(abs(r["change"]) for r in compared)
    return (f"{within} of {len(compared)} rows within {LIMIT:g} %; median |change| {median:.1f} %; "
            f"largest: {worst['what']} ({worst['change']:+.1f} %).")


def _timed(side: Side, part: str, quick: bool, i: int, repeats: int) -> dict:
    start = time.perf_counter()
    print(f"{part}: run {i + 1}/{repeats}, {side.label} ...", end=" ", file=sys.stderr, flush=True)
    try:
        result = side.run(part, quick)
    except RuntimeError:
        print("failed", file=sys.stderr, flush=True)
        raise
    print(f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return result


def _first_run(choices: list[Side], own: Side, part: str, quick: bool, repeats: int) -> tuple[Side, dict, str]:
    """The old side's first run with the first bench of ``choices`` that runs; (side, result, what to report)."""
    failures = []
    for side in choices:
        try:
            result = _timed(side, part, quick, 0, repeats)
        except RuntimeError as exc:
            if side is choices[-1]:
                raise
            failures.append(str(exc).splitlines()[-1])
            continue
        name = "its own" if side is own else "this tree's"
        return side, result, name + (f" (this tree's failed on the old code: {failures[0]})" if failures else "")
    raise AssertionError("no bench to try")


def run(base: str, parts: list[str], quick: bool, repeats: int, bench: str) -> tuple[str, bool]:
    """Measure ``parts`` for ``base`` and this tree; returns the report (markdown) and whether a row got worse."""
    sha = _git("rev-parse", "--verify", f"{base}^{{commit}}")
    head = _git("rev-parse", "HEAD")
    dirty = bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".", f":!{REPORT.relative_to(ROOT)}"))
    changed_bench = _git("diff", "--name-only", sha, "--", "bench").split()
    tmp = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    tree = tmp / "base"
    _git("worktree", "add", "--detach", "--quiet", str(tree), sha)
    used = {}
    figures = {"old": {}, "new": {}}
    try:
        new = Side(f"new ({head[:8]})", ROOT, ROOT, tmp / "stage-new")
        old_own = Side(f"old ({sha[:8]})", tree, tree, tmp / "stage-old")
        old_current = Side(f"old ({sha[:8]}) with this bench", tree, ROOT, tmp / "stage-old-current")
        own_parts = old_own.run("__parts__", quick)["parts"]
        for part in parts:
            choices = [old_current, old_own] if bench == "current" else [old_own, old_current]
            choices = [side for side in choices if side is old_current or part in own_parts]
            old = None
            for i in range(repeats):
                for label in ("old", "new") if i % 2 == 0 else ("new", "old"):
                    if label == "new":
                        result = _timed(new, part, quick, i, repeats)
                    elif old is None:  # the first old run settles which bench measures the old side
                        old, result, used[part] = _first_run(choices, old_own, part, quick, repeats)
                    else:
                        result = _timed(old, part, quick, i, repeats)
                    for r in result["rows"]:
                        figures[label].setdefault(r["what"], []).append(r["figure"])
    finally:
        try:
            _git("worktree", "remove", "--force", str(tree))
        except subprocess.CalledProcessError:
            shutil.rmtree(tree, ignore_errors=True)
            _git("worktree", "prune")
        shutil.rmtree(tmp, ignore_errors=True)
    rows = compare_rows(figures["old"], figures["new"])
    stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    subject = _git("log", "-1", "--format=%s", sha)
    benches = "; ".join(f"{part}: {who}" for part, who in used.items())
    report = (
        f"{COMPARE_HEADING}\n\n"
        f"Measured {stamp} by `python -m bench.compare --base {base}` (`make bench-compare`): "
        f"parts {', '.join(parts)}{' (quick)' if quick else ''}, {repeats} run{'s' if repeats > 1 else ''} of each "
        f"side, old and new alternating, each a fresh process with its own tree's code, "
        f"on {_machine()}; {_versions()}. A figure is the median of its side's runs; spread is "
        f"(max - min) / median of them.\n\n"
        f"- old: `{base}` = {sha[:10]} ({subject})\n"
        f"- new: this tree, {head[:10]}{' with uncommitted changes' if dirty else ''}\n"
        f"- bench that measured the old side, per part: {benches}\n"
        f"- bench files that differ between the two: {', '.join(changed_bench) or 'none'}\n\n"
        f"{table(rows)}\n\n{_summary(rows)}\n")
    return report, any(r.get("worse") for r in rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the older commit (a branch, tag or hash)")
    parser.add_argument("--only", action="append", metavar="PART",
                        help=f"parts to run ({', '.join(ONLY)}; repeat or separate by commas); "
                             f"default the full run: {', '.join(FULL)}")
    parser.add_argument("--quick", action="store_true", help="the bench's shorter runs")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each side, interleaved (default 3)")
    parser.add_argument("--bench", choices=("current", "own"), default="current",
                        help="the old side's bench first tried: this tree's (default: the same procedure on both "
                             "sides; its own when this tree's cannot run the old code), or its own where it has "
                             "the part")
    parser.add_argument("--no-write", action="store_true", help=f"print only; leave {REPORT.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    parts = [p for item in args.only or [",".join(FULL)] for p in re.split(r"[,\s]+", item) if p]
    unknown = [p for p in parts if p not in ONLY]
    if unknown:
        parser.error(f"--only: unknown part {unknown[0]!r} (choose from {', '.join(ONLY)})")
    if args.repeats < 1:
        parser.error("--repeats: must be >= 1")
    try:
        report, worse = run(args.base, parts, args.quick, args.repeats, args.bench)
    except subprocess.CalledProcessError as exc:
        print(f"bench.compare: git {' '.join(exc.cmd[1:])}: {exc.stderr.strip()}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"bench.compare: {exc}", file=sys.stderr)
        return 2
    print(report)
    if not args.no_write:
        REPORT.write_text(with_section(REPORT.read_text(), COMPARE_HEADING, report))
        print(f"written: {REPORT}, section {COMPARE_HEADING[3:]!r}", file=sys.stderr)
    return 1 if worse else 0


if __name__ == "__main__":
    sys.exit(main())
