"""``make stress``: the GUI tests, run again and again on a loaded machine.

A crash that needs a busy machine to show (a paint or a GL call racing the
set-up or tear-down of a window) passes on an idle one.  This script keeps
``--load`` processes spinning on the CPU, runs the GUI test files ``--runs``
times (alternately in file order and in a shuffled order, see
``--shuffle-seed`` in tests/conftest.py) and stops at the first run that
crashes or fails, printing its output.  One line per run; the summary line
says runs and crashes, for docs/RELIABILITY.md.

Usage::

    python -m tests.stress [--runs 10] [--load 4] [FILES...]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Test files that open windows, GL views or Qt threads.
GUI_TESTS = (
    "tests/app/view3d/test_glitems.py",
    "tests/app/view3d/test_viewer.py",
    "tests/app/plots/test_plots.py",
    "tests/app/plots/test_history.py",
    "tests/app/plots/test_compare_plots.py",
    "tests/app/flight/test_worker.py",
    "tests/app/flight/test_flight.py",
    "tests/app/window/test_window.py",
    "tests/app/window/test_window_cycle.py",
    "tests/app/plots/test_window_history.py",
    "tests/app/view3d/test_bodies_gui.py",
    "tests/app/ensemble/test_ensemble_view.py",
    "tests/app/window/test_keys.py",
    "tests/app/window/test_export.py",
    "tests/app/window/test_dialogs.py",
    "tests/app/plots/test_period.py",
    "tests/app/window/test_video.py",
)


def _spin() -> None:  # pragma: no cover - runs in the load processes
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pass


def _crashed(code: int, output: str) -> bool:
    return code < 0 or code >= 128 or "Fatal Python error" in output


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.stress", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of the GUI tests (default 10)")
    parser.add_argument("--load", type=int, default=4, help="busy processes beside them (default 4)")
    parser.add_argument("files", nargs="*", default=list(GUI_TESTS), help="test files (default: the GUI tests)")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.load < 0:
        parser.error("--runs must be >= 1 and --load >= 0")
    load = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.load)]
    for process in load:
        process.start()
    crashes = failures = 0
    start = time.monotonic()
    try:
        for run in range(1, args.runs + 1):
            order = ["-p", "no:cacheprovider", "--window-cycles=20"]  # make test's window churn is 5 cycles
            label = "file order"
            if run % 2 == 0:
                order += [f"--shuffle-seed={run}"]
                label = f"shuffled (seed {run})"
            t0 = time.monotonic()
            proc = subprocess.run([sys.executable, "-X", "faulthandler", "-m", "pytest", "-q", "-x", *order,
                                   *args.files], cwd=ROOT, capture_output=True, text=True,
                                  env={**os.environ, "PYTHONFAULTHANDLER": "1"})
            output = proc.stdout + proc.stderr
            tail = output.strip().splitlines()[-1] if output.strip() else ""
            print(f"run {run}/{args.runs} ({label}, load {args.load}): exit {proc.returncode} in "
                  f"{time.monotonic() - t0:.0f} s: {tail}", flush=True)
            if _crashed(proc.returncode, output):
                crashes += 1
            elif proc.returncode != 0:
                failures += 1
            if proc.returncode != 0:
                print(output[-8000:], flush=True)
                break
    finally:
        for process in load:
            process.terminate()
    print(f"stress: {run} runs, {crashes} crashes, {failures} failing runs, load {args.load}, "
          f"{time.monotonic() - start:.0f} s", flush=True)
    return 1 if crashes or failures else 0


if __name__ == "__main__":
    sys.exit(main())
