"""Plant mutants by hand, one at a time, and see which tests kill them (docs/RELIABILITY.md).

mutmut's own ``--retest`` needs its ``mutants/`` folder and a new stats run
(about 15 minutes on this machine).  This tool needs neither: it reads
mutants exported as JSON lines (``tools/mutate.py --export``: one object a
line with ``name``, ``path``, ``orig`` and ``mutant``, the original and the
mutated function's code), writes each mutated function into the checkout in
place of the original, runs pytest with the given arguments, and puts the
file back, whatever happens::

    python tools/plant.py build/mutate/survivors/sim.run.stk.jsonl -- tests/sim/core/test_stk_file.py
    python tools/plant.py FILE --only sim.run.stk.x_stk_epoch__mutmut_2 -- tests/sim/core/test_stk_file.py

As in ``make mutate``, tests marked qt, gl, subprocess, timing or source are
left out unless ``--all-tests`` is given (here a child process would run the
planted code, which mutmut's children never do; a later ``-m`` replaces this
one).  It prints one line a mutant (killed, survived, or "not planted" when the
function has changed since the export) and exits 1 if any survived.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def plant(source: str, orig: str, mutant: str) -> str | None:
    """``source`` with the function whose code is ``orig`` replaced by ``mutant``, or None if no
    function (or more than one) of ``source`` has that code.

    Functions are compared and swapped as libcst nodes, as mutmut cut them out: a method comes
    dedented, but its docstring's lines keep their indentation, so text matching misses it.
    """
    import libcst

    module = libcst.parse_module(source)
    new = libcst.parse_module(mutant).body[0]
    want = orig.strip()
    found = []

    class Swap(libcst.CSTTransformer):
        def leave_FunctionDef(self, before, after):
            # A kernel formula comes from tools/mutate.py's copy undecorated (plain_kernels): compared without
            # its decorators, planted with them.
            bare = before.with_changes(decorators=[])
            if libcst.Module([before]).code.strip() == want or libcst.Module([bare]).code.strip() == want:
                found.append(before)
                return new.with_changes(leading_lines=before.leading_lines,
                                        decorators=new.decorators or before.decorators)
            return after

    planted = module.visit(Swap())
    return planted.code if len(found) == 1 else None


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        raise SystemExit("usage: plant.py FILE.jsonl [--only NAME ...] -- PYTEST ARGS")
    cut = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mutants", type=Path, help="mutants as JSON lines (tools/mutate.py --export)")
    parser.add_argument("--only", nargs="+", default=(), help="only these mutants (by name)")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds a mutant's test run may take; beyond it the mutant counts as survived "
                             "(make mutate's --budget: a mutant only a slower test kills survives)")
    parser.add_argument("--all-tests", action="store_true",
                        help="also the tests make mutate leaves out (marked qt, gl, subprocess, timing, source)")
    args = parser.parse_args(argv[:cut])
    tests = argv[cut + 1:]
    if not args.all_tests:  # the tests that can kill a mutant in make mutate (a child process runs the planted code)
        tests = ["-m", "not qt and not gl and not subprocess and not timing and not source", *tests]
    rows = [json.loads(line) for line in args.mutants.read_text().splitlines() if line.strip()]
    if args.only:
        rows = [r for r in rows if r["name"] in args.only]
    def pytest(budget=None):
        # No bytecode written: a mutant of the original's size, planted and put back within
        # one second, would otherwise leave a .pyc that later runs take for the original.
        try:
            return subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                                  cwd=ROOT, capture_output=True, text=True, timeout=budget,
                                  env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        except subprocess.TimeoutExpired:  # the child is killed: no test failed within the budget
            return subprocess.CompletedProcess([], 0, "", "")

    clean = pytest()
    if clean.returncode != 0:  # a mutant is killed only by tests that pass on the code as it is
        print(clean.stdout[-3000:], clean.stderr[-2000:], file=sys.stderr)
        raise SystemExit(f"plant.py: the tests do not pass unmutated (pytest exit {clean.returncode})")
    # A stop from outside (timeout's SIGTERM, Ctrl-C) unwinds through the ``finally`` that puts the file back.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    survived = 0
    for row in rows:
        path = ROOT / row["path"]
        original = path.read_text()
        planted = plant(original, row["orig"], row["mutant"])
        if planted is None:
            print(f"not planted  {row['name']} (the function changed since the export)", flush=True)
            continue
        try:
            path.write_text(planted)
            result = pytest(args.budget)
        finally:
            path.write_text(original)
        # pytest's exit codes: 1 a test failed; 0 all passed; 5 none collected; 2-4 an error
        # of collection or usage (a mutant that breaks the import is killed by any test).
        verdict = {0: "survived", 5: "no tests"}.get(result.returncode, "killed")
        survived += verdict != "killed"
        print(f"{verdict:12s} {row['name']}", flush=True)
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
