"""Mutation testing with mutmut: ``make mutate`` (docs/RELIABILITY.md, "Mutation testing").

Each *part* is a set of files to mutate (globs relative to the checkout, ``*``
spans folders) and the tests that may kill their mutants.  A part runs in its
own copy of the checkout, ``build/mutate/<part>/``, with its own mutmut
configuration (a generated ``setup.cfg``), so that

* the physics (``sim``) is tested by the GUI-free tests only (``-m "not qt
  and not gl"``, no soak): no QApplication is ever made, and a mutant costs
  a second, not a window;
* the plots and readouts (``app``) are tested by their own Qt tests on one
  virtual screen (``xvfb-run``) that every mutant's test process connects to.

mutmut runs with ``process_isolation = forkserver``: the main process never
imports pytest, Qt or a test; a server process collects the tests once and
forks one fresh child per mutant, so no mutant inherits a QApplication, a
thread or a Dask cluster.  Only the tests that call the mutated function
(mutmut's stats run) are run for a mutant, fastest first
(``tools/mutate_order.py``), stopping at the first failure.

The report (printed, and written to ``build/mutate/report.md``): the share of
mutants killed overall, per part and per module, then every survivor with its
diff (``build/mutate/survivors.txt``).  A timeout counts as killed.  The
results stay in ``build/mutate/<part>/mutants/``; ``mutmut show NAME`` or
``mutmut run NAME`` there looks at one mutant again.

Usage (the Makefile passes its variables)::

    python tools/mutate.py --jobs 1 \\
        --part sim 'sim/*' 'tests -m "not qt and not gl and not subprocess and not timing and not source" --ignore=tests/project/test_soak.py' \\
        --part app 'app/readouts.py app/plots.py' 'tests/app/controls/test_readouts.py tests/app/plots/test_plots.py'
    python tools/mutate.py --report-only --part sim 'sim/*' '' --part app '...' ''
    python tools/mutate.py --retest ...    # the survivors again, after new tests
    python tools/mutate.py --resume ...    # go on with the mutants not yet tested
    python tools/mutate.py --export ...    # survivors as JSON lines for tools/plant.py
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "build" / "mutate"
#: Survivors judged equivalent (no observable behaviour can tell them from the code), one file a
#: module: ``tools/equivalent/sim.run.stk.txt``, a line ``<mutant name>  <reason>``, # comments.
EQUIVALENT = ROOT / "tools" / "equivalent"

#: pytest options for every run: no pytest-xvfb (the app part shares one screen from
#: xvfb-run; the sim part needs none) and no cache writes from thousands of children.
PYTEST_ARGS = ["-p", "no:xvfb", "-p", "no:cacheprovider"]

#: What is left out of a part's copy of the checkout.
SKIP = {".git", ".venv", "build", "out", "mutants", ".pytest_cache", ".hypothesis", "__pycache__", "*.egg-info"}

#: mutmut's exit codes, grouped as reported (mutmut.stats.status_by_exit_code).
KILLED = {1, 3}
TIMEOUT = {24, -24, 36, 152}
#: Not a verdict: mutmut 3.8's fork server writes 255 (and calls it "timeout") when pytest raised or
#: exited 4 in the child, e.g. a test id not found, so no test ran.  Reported as not run ("other")
#: and tested again by --retest (docs/RELIABILITY.md, "What a 255 was").
NOT_RUN = {255}
SURVIVED = {0}
NO_TESTS = {5, 33}


#: mutmut with its clean run skipped (``--no-clean-run``): before the mutants, mutmut runs their tests on the
#: unmutated code once more, after its stats step has run every selected test on that code and required them all
#: to pass.  With the kernels run as Python the stats step alone ran beyond 27 minutes here (2026-11-29).  Only
#: for a run whose stats step has passed on the code and tests as they are (a start, or --resume without changes).
NO_CLEAN_RUN = ("import sys\n"
                "from mutmut.workers import isolation\n"
                "from mutmut.__main__ import cli\n"
                "for runner in (isolation.ForkServerRunner, isolation.ForkRunner):\n"
                "    runner.run_clean_tests = lambda self, tests: 0\n"
                "sys.argv[0] = 'mutmut'\n"
                "sys.exit(cli())\n")


def equivalents(folder: Path = EQUIVALENT) -> dict[str, str]:
    """The mutants named equivalent, with their reasons (docs/RELIABILITY.md, "Mutation testing")."""
    found = {}
    for path in sorted(folder.glob("*.txt")) if folder.is_dir() else []:
        for line in path.read_text().splitlines():
            name, _, reason = line.strip().partition(" ")
            if name and not name.startswith("#"):
                found[name] = reason.strip()
    return found


#: The decorators of sim/core/jit.py: a formula (``@jitable``) and a compiled entry point (``@kernel``).
KERNEL_DECORATORS = {"jitable", "kernel"}


def plain_kernels(source: str) -> str:
    """``source`` with each module-level function decorated only by ``@jitable`` / ``@kernel`` (with or without
    arguments) written undecorated, the decorators applied by an assignment after it: ``def f(..)`` then
    ``f = jitable(f)``.  The same objects at import; but mutmut 3.8 leaves every decorated function unmutated
    (its file_mutation: a decorator runs at definition), which would leave every kernel formula of issue 42
    without a mutant.  Written this way mutmut mutates them, and with ``NUMBA_DISABLE_JIT=1`` (:meth:`Part.run`)
    ``jitable`` returns the trampoline itself and a kernel calls it as its ``py_func``."""
    import libcst

    def decorator_name(d):
        node = d.decorator.func if isinstance(d.decorator, libcst.Call) else d.decorator
        return node.value if isinstance(node, libcst.Name) else None

    module = libcst.parse_module(source)
    body = []
    for node in module.body:
        if (isinstance(node, libcst.FunctionDef) and node.decorators
                and all(decorator_name(d) in KERNEL_DECORATORS for d in node.decorators)):
            name = node.name.value
            body.append(node.with_changes(decorators=[]))
            for d in reversed(node.decorators):  # the decorator nearest the def applies first
                call = libcst.Module([]).code_for_node(d.decorator)
                body.append(libcst.parse_statement(f"{name} = {call}({name})\n"))
        else:
            body.append(node)
    return module.with_changes(body=body).code


def kind(orig: str, mutant: str) -> str:
    """What a mutant changed, for the survivors' table: string, number, operator, keyword,
    value (an argument dropped, or a value or argument made None), call (a method or name
    swapped) or other."""
    import difflib
    import io
    import tokenize

    def tokens(text):
        try:
            return [(t.type, t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                    if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                      tokenize.COMMENT, tokenize.ENDMARKER)]
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return []

    a, b = tokens(orig), tokens(mutant)
    changed_a, changed_b = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op != "equal":
            changed_a += a[i1:i2]
            changed_b += b[j1:j2]
    types = {t for t, _ in changed_a + changed_b}
    words = {w for _, w in changed_a + changed_b}
    if types == {tokenize.STRING} or (tokenize.STRING in types and types <= {tokenize.STRING, tokenize.NAME}
                                      and "None" in words):
        return "string"
    if types == {tokenize.NUMBER} or types == {tokenize.NUMBER, tokenize.OP} and words <= set("0123456789.-+"):
        return "number"
    if words & {"True", "False", "and", "or", "not", "is", "in", "break", "continue"} and types <= {tokenize.NAME, tokenize.OP}:
        return "keyword"
    if not changed_b or (changed_b and {w for _, w in changed_b} <= {"None", ","}) or (
            changed_a and not changed_b) or "," in {w for _, w in changed_a}:
        return "value"
    if types == {tokenize.OP}:
        return "operator"
    if types == {tokenize.NAME}:
        return "call"
    return "other"


def status(code) -> str:
    if code in KILLED:
        return "killed"
    if code in TIMEOUT:
        return "timeout"
    if code in NOT_RUN:
        return "other"
    if isinstance(code, int) and code < 0:  # the test process died of a signal (SIGSEGV, SIGABRT)
        return "crashed"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    if code is None:
        return "not checked"
    return "other"


class Part:
    """One mutmut run: files to mutate (globs) and the pytest arguments that choose its tests."""

    def __init__(self, name: str, globs: str, tests: str):
        self.name = name
        self.globs = globs.split()
        self.tests = shlex.split(tests)
        self.dir = WORK / name
        if not self.globs:
            raise SystemExit(f"make mutate: part {name!r} names no files to mutate")

    @property
    def packages(self) -> list[str]:
        """The top-level folders of the globs: copied whole into mutants/ (only the globs mutated)."""
        return sorted({g.split("/")[0] for g in self.globs})

    def files(self) -> list[str]:
        """The Python files that the globs name, relative to the checkout."""
        found = []
        for package in self.packages:
            for path in sorted((ROOT / package).rglob("*.py")) if (ROOT / package).is_dir() else [ROOT / package]:
                rel = path.relative_to(ROOT).as_posix()
                if "__pycache__" not in rel and any(fnmatch.fnmatch(rel, g) for g in self.globs):
                    found.append(rel)
        return found

    def prepare(self, keep: bool = False) -> None:
        """A fresh copy of the checkout and mutmut's configuration for this part.

        With ``keep``, mutmut's results (``mutants/``) stay: mutmut goes on with the
        mutants not yet tested and keeps the verdicts of functions that did not change.
        """
        if not self.files():
            raise SystemExit(f"make mutate: no Python file matches {' '.join(self.globs)} (part {self.name})")
        if keep and (self.dir / "mutants").is_dir():
            for entry in self.dir.iterdir():
                if entry.name not in ("mutants", "minutes", "sample.json"):
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        extra = []
        for entry in sorted(ROOT.iterdir()):
            if entry.name == "setup.cfg" or any(fnmatch.fnmatch(entry.name, p) for p in SKIP):
                continue
            target = self.dir / entry.name
            if entry.is_dir():
                shutil.copytree(entry, target, ignore=shutil.ignore_patterns(*SKIP, "*.pyc"))
            else:
                shutil.copy2(entry, target)
            if entry.name not in self.packages and entry.name not in ("tests", "pyproject.toml"):
                extra.append(entry.name)

        # The kernel formulas undecorated in this copy (plain_kernels), so that mutmut mutates them too; the
        # file keeps its time, so that mutmut's "changed since" check (--resume) sees only real changes.
        for rel in self.files():
            path = self.dir / rel
            text = path.read_text()
            plain = plain_kernels(text)
            if plain != text:
                stat = path.stat()
                path.write_text(plain)
                os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))

        def lines(values):
            return "".join(f"\n    {v}" for v in values)

        (self.dir / "setup.cfg").write_text(
            "# Written by tools/mutate.py for `make mutate`; see docs/RELIABILITY.md.\n"
            "[mutmut]\n"
            f"source_paths ={lines(self.packages)}\n"
            f"only_mutate ={lines(self.globs)}\n"
            f"also_copy ={lines(extra)}\n"
            f"pytest_add_cli_args_test_selection ={lines(self.tests)}\n"
            f"pytest_add_cli_args ={lines(PYTEST_ARGS)}\n"
            "process_isolation = forkserver\n"
        )

    def generate(self) -> None:
        """mutmut's first stage alone: copy the sources into ``mutants/`` and write every mutant and its
        ``.meta`` (no stats, no test).  A first ``--sample`` draws from these, before any mutant has run."""
        script = ("from mutmut import __main__ as m\n"
                  "m.set_mutant_under_test('mutant_generation')\n"
                  "m.makedirs(m.Path('mutants'), exist_ok=True)\n"
                  "m.copy_src_dir(); m.copy_also_copy_files(); m.setup_source_paths()\n"
                  "print(m.create_mutants(2))\n")
        print(f"{self.name}: generating the mutants", flush=True)
        subprocess.run([sys.executable, "-c", script], cwd=self.dir, check=True, stdout=subprocess.DEVNULL)

    def survivors(self) -> list[str]:
        """The mutants no test killed, less those named equivalent (tools/equivalent/)."""
        same = equivalents()
        return [name for _, name, code in self.results()
                if status(code) in ("survived", "no tests", "other") and name not in same]

    def untested(self, share: float, seed: int = 2026) -> list[str]:
        """A random ``share`` of each module's mutants not yet tested (at least one a module).

        The draw is kept in ``sample.json`` (each module's untested count and the names drawn):
        the report estimates each module's killed share of all from it (:func:`estimate`).
        """
        import math
        import random

        by_module = defaultdict(list)
        for path, name, code in self.results():
            if status(code) == "not checked":
                by_module[path].append(name)
        draw = random.Random(seed)
        sample = {path: {"untested": sorted(names),
                         "names": draw.sample(sorted(names), max(1, math.ceil(share * len(names))))}
                  for path, names in sorted(by_module.items())}
        (self.dir / "sample.json").write_text(json.dumps(sample, indent=1))
        return [name for drawn in sample.values() for name in drawn["names"]]

    def estimate(self) -> dict[str, tuple[float, float]]:
        """Each module's estimated killed share of all its mutants, and its 95 % half-width, from the
        verdicts outside the last sample plus the sample's killed share scaled to the untested
        mutants it was drawn from (a stratified estimate; empty without a sample)."""
        path = self.dir / "sample.json"
        if not path.is_file():
            return {}
        sample = json.loads(path.read_text())
        drawn = {name for module in sample.values() for name in module["names"]}
        population = {name for module in sample.values() for name in module["untested"]}
        by_module = defaultdict(lambda: [0, 0, 0, 0])  # tested before: killed, total; sample: killed, done
        alive = Counter()  # the population's mutants still in the code (a function changed since loses some)
        for module, name, code in self.results():
            state = status(code)
            killed = state in ("killed", "timeout", "crashed")
            row = by_module[module]
            alive[module] += name in population
            if name in drawn:
                row[2] += killed
                row[3] += state not in ("not checked", "other")
            elif name not in population:
                row[0] += killed
                row[1] += 1
        out = {}
        for module, (killed, total, k, n) in by_module.items():
            untested = alive[module]
            if untested and not n:  # nothing of its sample tested yet: no estimate
                continue
            share = k / n if n else 0.0
            # the sample's binomial error, finite-population corrected, scaled to the untested mutants; its variance
            # from Agresti and Coull's (1998) p~ = (k + 2) / (n + 4), not k / n, which gives a module of one or two
            # drawn mutants, all killed or all not, no error at all (its interval would vanish)
            wide = (k + 2) / (n + 4)
            half = 1.96 * (wide * (1 - wide) / n * max(0.0, 1 - n / untested)) ** 0.5 * untested if n else untested
            out[module] = ((killed + share * untested) / (total + untested), half / (total + untested))
        return out

    def run(self, jobs: int, names=(), budget: float | None = None, note: str = "",
            clean_run: bool = True) -> int:
        """mutmut run (only the mutants ``names`` if given); its own output goes to
        build/mutate/<part>/mutmut.log, progress is printed.  ``clean_run=False`` (``--no-clean-run``): mutmut's
        clean run of the mutants' tests is skipped (:data:`NO_CLEAN_RUN`)."""
        mutmut = [str(Path(sys.executable).with_name("mutmut"))] if clean_run else [sys.executable, "-c", NO_CLEAN_RUN]
        command = [*mutmut, "run", "--max-children", str(jobs), *names]
        env = dict(os.environ)
        # The mutated modules are large (every mutant of a function is in the file): their
        # bytecode must be cached, or every subprocess a test starts compiles them anew.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if budget is not None:  # at most this many seconds of each mutant's fastest tests
            env["MUTATE_BUDGET"] = str(budget)
            note += f" (budget {budget:g} s)"
        # Each mutant's tests fastest first (tools/mutate_order.py): -x then stops at the first
        # failing test without running the slow ones before it.  Through the environment, not
        # mutmut's pytest arguments, so that it changes no cached verdict.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "tools"), env.get("PYTHONPATH")]))
        # No unraisableexception plugin: its two full garbage collections at the end of each
        # pytest run (the mutated modules make the heap large) were half of a mutant's cost
        # (0.8 of 1.8 s measured); it only turns exceptions in __del__ into warnings.
        env["PYTEST_ADDOPTS"] = " ".join(filter(None, [env.get("PYTEST_ADDOPTS"),
                                                       "-p mutate_order -p no:unraisableexception"]))
        # One virtual screen for the whole run; each mutant's test process connects to it
        # (the GUI-free tests of the sim part never do).
        command = ["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24"] + command
        env["QT_QPA_PLATFORM"] = "xcb"
        # The compiled kernels run as the Python they are written in (sim/core/jit.py): a mutant is
        # then tested at once, with no compile, and mutmut's trampolines need no numba.
        env["NUMBA_DISABLE_JIT"] = "1"
        log = self.dir / "mutmut.log"
        print(f"{self.name}: mutating {' '.join(self.globs)} ({len(self.files())} files); "
              f"tests: {' '.join(self.tests)}; log: {log.relative_to(ROOT)}", flush=True)
        started = time.monotonic()
        with open(log, "wb") as out:
            proc = subprocess.Popen(command, cwd=self.dir, env=env, stdout=out, stderr=subprocess.STDOUT)
            last = 0.0
            while proc.poll() is None:
                time.sleep(1.0)
                if time.monotonic() - last >= 60.0:
                    last = time.monotonic()
                    counts = Counter(status(c) for _, _, c in self.results())
                    if counts:
                        done = sum(n for s, n in counts.items() if s != "not checked")
                        killed = counts["killed"] + counts["timeout"] + counts["crashed"]
                        print(f"  {self.name}: {done}/{sum(counts.values())} mutants done, "
                              f"{killed} killed, {counts['survived']} survived "
                              f"({(time.monotonic() - started) / 60:.0f} min)", flush=True)
        minutes = (time.monotonic() - started) / 60
        print(f"{self.name}: mutmut exited {proc.returncode} after {minutes:.1f} min", flush=True)
        if proc.returncode != 0:
            tail = log.read_bytes().decode(errors="replace").replace("\r", "\n").splitlines()[-30:]
            print("\n".join(tail), file=sys.stderr)
        with open(self.dir / "minutes", "a") as out:  # one line a run (--resume, --retest add theirs)
            out.write(f"{minutes:.1f}{note}\n")
        return proc.returncode

    def results(self):
        """``(module, mutant name, exit code)`` of every mutant, from mutmut's .meta files."""
        found = []
        for meta in sorted((self.dir / "mutants").rglob("*.py.meta")):
            rel = meta.relative_to(self.dir / "mutants").as_posix()[: -len(".meta")]
            if not any(fnmatch.fnmatch(rel, g) for g in self.globs):
                continue
            try:
                codes = json.loads(meta.read_text())["exit_code_by_key"]
            except (OSError, ValueError, KeyError):
                continue
            found.extend((rel, name, code) for name, code in codes.items())
        return found

    def diffs(self, names: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
        """``(diff, original code, mutated code)`` of each mutant ``(path, name)``."""
        import libcst
        from mutmut.mutation.diff_apply import (read_functions_from_index, read_mutant_function,
                                                read_mutants_module, read_original_function)

        out = []
        cwd = os.getcwd()
        os.chdir(self.dir)
        modules = {}
        try:
            for path, name in names:
                try:  # a diff is a help for the reader, never a failure
                    functions = read_functions_from_index(name, path)
                    if functions is None:
                        if path not in modules:
                            modules[path] = read_mutants_module(path)
                        functions = (read_original_function(modules[path], name),
                                     read_mutant_function(modules[path], name))
                    orig, mutant = (libcst.Module([f]).code.strip() for f in functions)
                    diff = "\n".join(difflib.unified_diff(orig.split("\n"), mutant.split("\n"),
                                                           fromfile=path, tofile=path, lineterm=""))
                    out.append((diff, orig, mutant))
                except Exception as error:
                    out.append((f"(no diff for {name}: {error})", "", ""))
        finally:
            os.chdir(cwd)
        return out

    def merge(self, other: Path) -> int:
        """Take the verdicts of another run of this part (``other``: its ``build/mutate/<part>`` folder)
        for the mutants this one has not tested, where the function is the same in both (mutmut's
        hash of it); and that run's sample (sample.json), if this one has none.  Two runs on one
        machine, on copies of one start (one tests a sample, the other the survivors again after
        new tests), end as one.  Returns how many verdicts were taken."""
        taken = 0
        for theirs_path in sorted((other / "mutants").rglob("*.py.meta")):
            mine_path = self.dir / "mutants" / theirs_path.relative_to(other / "mutants")
            if not mine_path.is_file():
                continue
            theirs, mine = json.loads(theirs_path.read_text()), json.loads(mine_path.read_text())
            codes = mine["exit_code_by_key"]
            for key, code in theirs["exit_code_by_key"].items():
                function = key.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
                if (code is not None and key in codes and codes[key] is None
                        and theirs["hash_by_function_name"].get(function) == mine["hash_by_function_name"].get(function)):
                    codes[key] = code
                    taken += 1
            mine_path.write_text(json.dumps(mine))
        if (other / "sample.json").is_file() and not (self.dir / "sample.json").is_file():
            shutil.copy2(other / "sample.json", self.dir / "sample.json")
        return taken

    def export(self) -> list[Path]:
        """Every survivor and no-test mutant as JSON lines, one file a module, for tools/plant.py:
        ``build/mutate/survivors/<module>.jsonl`` with the original and the mutated function's code."""
        by_module = defaultdict(list)
        rows = [(path, name, status(code)) for path, name, code in self.results()
                if status(code) in ("survived", "no tests")]
        for (path, name, state), (_, orig, mutant) in zip(rows, self.diffs([(p, n) for p, n, _ in rows])):
            by_module[path].append({"name": name, "path": path, "status": state, "orig": orig, "mutant": mutant})
        folder = WORK / "survivors"
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for path, rows in sorted(by_module.items()):
            written.append(folder / (path[:-3].replace("/", ".") + ".jsonl"))
            written[-1].write_text("".join(json.dumps(r) + "\n" for r in rows))
        return written


def kernel_module(path: str) -> bool:
    """Whether the module at ``path`` (from the checkout) holds compiled kernels: it imports sim.core.jit, as the
    kernels' cache key counts them (sim/core/jit.py)."""
    try:
        text = (ROOT / path).read_text()
    except OSError:
        return False
    return path == "sim/core/jit.py" or any(line.startswith(("from sim.core.jit import", "from sim.core import jit",
                                                             "import sim.core.jit"))
                                            for line in text.splitlines())


def row(label: str, codes: list, same: int = 0) -> str:
    """A table row: ``codes`` mutmut's exit codes, ``same`` how many of the survivors are named equivalent."""
    counts = Counter(status(c) for c in codes)
    total = len(codes)
    killed = counts["killed"] + counts["timeout"] + counts["crashed"]
    tested = total - counts["not checked"]  # a stopped run: the share of what was tested

    def share(n, of):
        return f"{100.0 * n / of:.1f} %" if of else "-"

    return (f"| {label} | {total} | {killed} | {counts['timeout'] + counts['crashed']} | {same} | "
            f"{counts['survived'] + counts['no tests'] - same} | {counts['not checked'] + counts['other']} | "
            f"{share(killed, total)} | {share(killed, tested)} | {share(killed, tested - same)} |")


HEAD = ["| files | mutants | killed | of which timeouts or crashes | equivalent | survived or no test | not run "
        "| killed share of all | of tested | of tested, less equivalent |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]


def report(parts: list[Part]) -> str:
    same = equivalents()
    everything, lines, survivors = [], [], []
    all_same = 0
    minutes = []
    kinds = defaultdict(Counter)  # part -> (kind, equivalent or not) -> count
    for part in parts:
        results = part.results()
        everything += [c for _, _, c in results]
        by_module, same_by_module = defaultdict(list), Counter()
        for path, name, code in results:
            by_module[path].append(code)
            if status(code) in ("survived", "no tests", "other"):
                survivors.append((part, path, name, status(code)))
                if name in same:
                    same_by_module[path] += 1
        part_same = sum(same_by_module.values())
        all_same += part_same
        lines.append(row(f"**{part.name}** ({' '.join(part.globs)})", [c for _, _, c in results], part_same))
        lines += [row(f"{path}", codes, same_by_module[path]) for path, codes in sorted(by_module.items())]
        spent = part.dir / "minutes"
        if spent.exists():
            minutes.append(f"{part.name} {' + '.join(spent.read_text().split(chr(10))[:-1])} min")
    text = "\n".join(HEAD + [row("**all**", everything, all_same)] + lines)
    if minutes:
        text += "\n\nmutmut run time: " + ", ".join(minutes) + "\n"
    detail = []
    for part in parts:
        mine = [(path, name) for p, path, name, _ in survivors if p is part]
        states = {name: s for p, _, name, s in survivors if p is part}
        for (_, name), (diff, orig, mutant) in zip(mine, part.diffs(mine)):
            what = kind(orig, mutant)
            kinds[part.name][what, name in same] += 1
            note = f"equivalent: {same[name]}" if name in same else states[name]
            detail.append(f"## {name} ({what}; {note}; cd build/mutate/{part.name} && mutmut show {name})\n{diff}\n")
    for part in parts:
        estimates = part.estimate()
        if not estimates:
            continue
        sizes = Counter(path for path, _, _ in part.results())
        total = sum(sizes[m] for m in estimates)
        unknown = sorted(set(sizes) - set(estimates))
        killed = sum(share * sizes[m] for m, (share, _) in estimates.items())
        spread = sum((half * sizes[m]) ** 2 for m, (_, half) in estimates.items()) ** 0.5
        text += (f"\nEstimated killed share of all mutants of part {part.name} (the tested ones, and the last "
                 f"random sample scaled to the untested mutants it was drawn from; 95 % interval): "
                 f"{100 * killed / total:.1f} % +- {100 * spread / total:.1f}"
                 + (f" (of the {total} mutants of the modules with a sample result; none yet for "
                    f"{', '.join(unknown)})" if unknown else "") + "\n")
        for label, group in (("the kernel modules (those importing sim.core.jit)", True), ("the others", False)):
            these = {m: e for m, e in estimates.items() if kernel_module(m) == group}
            if these:
                size = sum(sizes[m] for m in these)
                text += (f"- {label}: {len(these)} modules, {size} mutants: "
                         f"{100 * sum(share * sizes[m] for m, (share, _) in these.items()) / size:.1f} % +- "
                         f"{100 * sum((half * sizes[m]) ** 2 for m, (_, half) in these.items()) ** 0.5 / size:.1f}\n")
        text += "\n| module | mutants | estimated killed share of all |\n|---|---:|---:|\n"
        text += "".join(f"| {m} | {sizes[m]} | {100 * share:.1f} % +- {100 * half:.1f} |\n"
                        for m, (share, half) in sorted(estimates.items()))
    for part_name, counted in kinds.items():
        names = sorted({k for k, _ in counted})
        text += (f"\nSurvivors of part {part_name} by kind (equivalent / not): "
                 + ", ".join(f"{k} {counted[k, True]} / {counted[k, False]}" for k in names) + "\n")
    return text, "\n".join(detail)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", nargs=3, action="append", metavar=("NAME", "GLOBS", "TESTS"), required=True,
                        help="a part: its name, the files to mutate (globs), the pytest arguments choosing its tests")
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested at once (default 1)")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds of a mutant's fastest tests (by mutmut's durations) to run at most; "
                             "default: all its tests (tools/mutate_order.py)")
    parser.add_argument("--sample", type=float, default=None,
                        help="test only this share (0-1) of each module's untested mutants, drawn at random "
                             "(seeded): an unbiased estimate of a run too long to finish; --resume goes on")
    parser.add_argument("--seed", type=int, default=2026,
                        help="with --sample: the draw's seed (another seed, another sample: a new estimate "
                             "after the last sample's survivors were read)")
    parser.add_argument("--no-clean-run", action="store_true",
                        help="skip mutmut's clean run of the mutants' tests (its stats step has run them unmutated)")
    parser.add_argument("--report-only", action="store_true", help="summarise the last run's results")
    parser.add_argument("--resume", action="store_true",
                        help="keep the last run's results and test only the mutants not yet tested")
    parser.add_argument("--names", type=Path, default=None,
                        help="with --retest: only the survivors named in this file (a name a line), and every "
                             "mutant matching a line with * ? or [ (mutmut's fnmatch)")
    parser.add_argument("--merge", type=Path, default=None, metavar="FOLDER",
                        help="take another run's verdicts (its build/mutate/<part> folder) for the mutants not "
                             "tested here whose function is unchanged, then report")
    parser.add_argument("--export", action="store_true",
                        help="write the survivors as JSON lines for tools/plant.py, and nothing else")
    parser.add_argument("--retest", action="store_true",
                        help="keep the last run's results and test its survivors again (after new tests)")
    args = parser.parse_args(argv)
    parts = [Part(*p) for p in args.part]
    if args.merge:
        for part in parts:
            print(f"{part.name}: {part.merge(args.merge)} verdicts taken from {args.merge}")
    if args.export:
        for part in parts:
            for path in part.export():
                print(path.relative_to(ROOT))
        return 0
    failed = 0
    if not (args.report_only or args.merge):
        for part in parts:
            part.prepare(keep=args.resume or args.retest or bool(args.sample))
            if args.sample and not part.results():  # a first sample: draw from freshly made mutants
                part.generate()
        names = {part.name: part.survivors() if args.retest
                 else part.untested(args.sample, args.seed) if args.sample else [] for part in parts}
        if args.names:  # names, and patterns (mutmut matches them with fnmatch: a changed function's mutants)
            chosen = set(args.names.read_text().split())
            patterns = sorted(n for n in chosen if any(c in n for c in "*?["))
            names = {part: [n for n in these if n in chosen] + patterns for part, these in names.items()}
        note = " (retest)" if args.retest else f" (sample {args.sample:g})" if args.sample else ""
        for part in parts:
            if (args.retest or args.sample) and not names[part.name]:
                continue
            failed |= part.run(args.jobs, names[part.name], args.budget, note, clean_run=not args.no_clean_run) != 0
    text, detail = report(parts)
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "report.md").write_text(text + "\n")
    (WORK / "survivors.txt").write_text(detail)
    print()
    print(text)
    print(f"Survivors with their diffs: {(WORK / 'survivors.txt').relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
