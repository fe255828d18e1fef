"""The hostile cases of issue 24 (and issue 23's meshes as people export them), one table, run for real.

Every case is a command run the way a hostile user runs it: a real
``attitude-sim`` process (``python -m app.cli``) in a folder of its own,
with the files the case needs, sometimes a signal, a file size limit, a
closed stdout, or a Dask cluster that misbehaves (a TCP server that speaks
garbage, one that accepts and never answers, a scheduler or worker killed
with SIGKILL).  A case *holds* when the exit code is the one expected, stderr
is the expected number of lines (one, for a refusal or a failure) with the
expected words and no traceback, the files the user had are byte for byte
as they were, no partial file sits under a final name, and its own check
(if any) passes; each is bounded in time.

``tests/project/test_hostile_cases.py`` runs every case under pytest (``make
test``).  ``make hostile`` runs them all here and prints, per surface, how
many were tried and how many held (the table of docs/RELIABILITY.md,
"Hostile input, round two"; ``--write`` puts it there)::

    python -m tests.hostile_cases [--jobs 2] [--surface NAME] [--write]

The classes are issue 24's: 1 no file destroyed, 2 every cost estimated
first, 3 Dask failures that end, 4 no traceback, 5 no silently wrong
output, 6 friction; ``M`` is issue 23's meshes (inside out, units).
Round three (issue 35, :data:`ROUND_THREE`) adds ``R1`` the one writer's
temporary file, ``R2`` signals during ``video``, ``R3`` every command
through the one estimate, ``R4`` numerical overflow as a fault, ``R5``
inputs checked against their context at load time, ``R8`` rough edges
(classes 6 and 7 of issue 35 are tested in pytest:
``tests/sim/api/test_hostile_api.py``, ``tests/app/flight/test_engine.py``; class 5's
mechanism also in ``tests/app/flight/test_hostile_context.py``).  The video cases
draw the window: ``make hostile`` runs them on a virtual screen.  Round
four (issue 44, :data:`ROUND_FOUR`, classes ``D1``-``D9``) is built in
``tests/hostile_round4.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import http.server
import io
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
CLI = [PYTHON, "-m", "app.cli"]
KEEP = b"the user's own file: never destroyed\n"
REPORT = ROOT / "docs" / "RELIABILITY.md"
HEADING = "## Hostile input, round two"
TABLE_START = "<!-- hostile-cases table: python -m tests.hostile_cases --write -->"
TABLE_END = "<!-- end of the hostile-cases table -->"
TABLE3_START = "<!-- hostile-cases table, round three: python -m tests.hostile_cases --write -->"
TABLE3_END = "<!-- end of the round-three table -->"
TABLE4_START = "<!-- hostile-cases table, round four: python -m tests.hostile_cases --write -->"
TABLE4_END = "<!-- end of the round-four table -->"


# ------------------------------------------------------------------ files the cases use
BOX = [(x, y, z) for x in (-0.5, 0.5) for y in (-0.25, 0.25) for z in (-0.1, 0.1)]
#: A 1 x 0.5 x 0.2 box, faces wound outward (1-based OBJ indices).
BOX_FACES = [(1, 2, 4), (1, 4, 3), (5, 7, 8), (5, 8, 6), (1, 5, 6), (1, 6, 2),
             (3, 4, 8), (3, 8, 7), (1, 3, 7), (1, 7, 5), (2, 6, 8), (2, 8, 4)]


def obj(scale=1.0, faces=BOX_FACES, flip=(), drop=0, extra_face=None) -> str:
    """The box as OBJ text: coordinates times ``scale``, faces in ``flip`` reversed, the last ``drop`` missing."""
    lines = [f"v {x * scale!r} {y * scale!r} {z * scale!r}" for x, y, z in BOX]
    chosen = list(faces[:len(faces) - drop])
    if extra_face is not None:
        chosen.append(extra_face)
    for i, face in enumerate(chosen):
        face = face[::-1] if flip == "all" or i in flip else face
        lines.append("f " + " ".join(map(str, face)))
    return "\n".join(lines) + "\n"


def obj_at(scale=1.0, offset=0.0) -> str:
    """The box times ``scale``, moved by ``offset`` along x."""
    lines = [f"v {x * scale + offset!r} {y * scale!r} {z * scale!r}" for x, y, z in BOX]
    return "\n".join(lines + ["f " + " ".join(map(str, f)) for f in BOX_FACES]) + "\n"


def header(**changes) -> dict:
    head = {"format": "attitude-sim recording", "version": 1, "name": "x", "title": "", "caption": "",
            "duration": 1.0, "settings": {}, "events": [], "compare": []}
    head.update(changes)
    return head


def recording(head=None, lines=(), end=10) -> str:
    rows = [json.dumps(head or header())] + [json.dumps(line) for line in lines]
    if end is not None:
        rows.append(json.dumps({"end": end}))
    return "\n".join(rows) + "\n"


def scenario(settings="", extra="") -> str:
    return f"[scenario]\nduration = 0.05\n\n[settings]\n{settings}\n{extra}"


def nested_toml(depth: int) -> str:
    return "[settings]\nangles_deg = " + "[" * depth + "]" * depth + "\n"


def compare_bodies(count: int, label=None) -> str:
    return scenario(extra="".join(f'[[compare]]\nlabel="{label or i}"\n' for i in range(count)))


# ------------------------------------------------------------------ the case
@dataclass
class Case:
    """One hostile case; see the module docstring for what "holds" means."""

    surface: str
    klass: str
    name: str
    argv: list = field(default_factory=list)
    code: int | tuple = 2
    says: str = ""                      # a regular expression found in stderr
    lines: int | None = 1               # lines on stderr (None: not counted)
    files: dict = field(default_factory=dict)   # name -> str or bytes, or a callable(path)
    keep: tuple = ()                    # files (of ``files``) that must be unchanged
    absent: tuple = ()                  # names that must not exist afterwards
    check: object = None                # check(folder, stdout, stderr) -> problem or None
    run: object = None                  # run(case, folder) -> (code, stdout, stderr); default: the argv
    timeout: float = 60.0
    limit_fsize: int | None = None      # RLIMIT_FSIZE of the process, bytes
    shell: str | None = None            # a bash command line instead of argv ({cli} is the command)

    @property
    def id(self) -> str:
        return f"{self.surface}: {self.name}"


def _prepare(case: Case, folder: Path) -> None:
    for name, content in case.files.items():
        path = folder / name
        if callable(content):
            content(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def _subprocess(case: Case, folder: Path):
    def limit():
        if case.limit_fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (case.limit_fsize, case.limit_fsize))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    env.pop("ATTITUDE_SIM_TRACEBACK", None)
    if case.shell is not None:
        command = case.shell.format(cli=" ".join(CLI))
        proc = subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True,
                              timeout=case.timeout, env=env, preexec_fn=limit)
    else:
        proc = subprocess.run([*CLI, *case.argv], cwd=folder, capture_output=True, text=True,
                              timeout=case.timeout, env=env, preexec_fn=limit)
    return proc.returncode, proc.stdout, proc.stderr


def run_case(case: Case) -> str | None:
    """Run ``case`` in a fresh folder; None when it held, else what went wrong (one line)."""
    with tempfile.TemporaryDirectory(prefix="hostile-") as name:
        folder = Path(name)
        _prepare(case, folder)
        before = {n: (folder / n).read_bytes() for n in case.keep}
        start = time.monotonic()
        try:
            code, out, err = (case.run or _subprocess)(case, folder)
        except subprocess.TimeoutExpired:
            return f"no end within {case.timeout:g} s"
        took = time.monotonic() - start
        codes = case.code if isinstance(case.code, tuple) else (case.code,)
        if code not in codes:
            return f"exit {code}, expected {case.code}; stderr: {err.strip()[-300:]!r}"
        if "Traceback" in err or "Traceback" in out:
            return f"a traceback: {err.strip()[-300:]!r}"
        if case.lines is not None and err.count("\n") != case.lines:
            return f"{err.count(chr(10))} lines on stderr, expected {case.lines}: {err.strip()[-400:]!r}"
        if case.says and not re.search(case.says, err):
            return f"stderr lacks {case.says!r}: {err.strip()[-300:]!r}"
        for n, data in before.items():
            path = folder / n
            if not path.exists() or path.read_bytes() != data:
                return f"{n} was destroyed or changed"
        for n in case.absent:  # names or globs
            if _one(folder, n) is not None:
                return f"{n} exists afterwards"
        if case.check is not None:
            problem = case.check(folder, out, err)
            if problem:
                return problem
        if took > case.timeout:
            return f"took {took:.1f} s"
    return None


# ------------------------------------------------------------------ checks
def whole_csv(name, rows=None, columns=None, cut_tail=False):
    """The CSV ``name`` ends with a whole line, every line has the header's number of cells.

    ``cut_tail``: the last line may be cut (and is left out of the check): a SIGKILL can stop the
    kernel in the middle of copying one write() to the file, which no writer can prevent.
    """
    def check(folder, out, err):
        path = _one(folder, name)
        if path is None:
            return f"no {name}"
        data = path.read_bytes()
        if cut_tail and data and not data.endswith(b"\n"):
            data = data[: data.rfind(b"\n") + 1]
        if data and not data.endswith(b"\n"):
            return f"{name} ends in half a line"
        table = list(csv.reader(io.StringIO(data.decode())))
        if not table:
            return f"{name} is empty"
        width = len(table[0])
        if columns is not None and width != columns:
            return f"{name}: {width} columns, expected {columns}"
        bad = [i for i, row in enumerate(table) if len(row) != width]
        if bad:
            return f"{name}: line {bad[0] + 1} has {len(table[bad[0]])} cells, the header {width}"
        if rows is not None and len(table) - 1 != rows:
            return f"{name}: {len(table) - 1} rows, expected {rows}"
        return None
    return check


def first_row(column, expected, rel=1e-9):
    """The CSV on stdout: ``column`` of the first row equals ``expected`` (the inertia shows in the energy)."""
    def check(folder, out, err):
        table = list(csv.DictReader(io.StringIO(out)))
        if not table:
            return "no rows on stdout"
        value = float(table[0][column])
        if abs(value - expected) > rel * abs(expected):
            return f"{column} = {value!r}, expected {expected!r}"
        return None
    return check


def both(*checks):
    def check(folder, out, err):
        for one in checks:
            problem = one(folder, out, err)
            if problem:
                return problem
        return None
    return check


# ------------------------------------------------------------------ runners for signals and Dask
def _children(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return kids


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace("\0", " ")
    except OSError:
        return ""


def _default_sigint():
    """In the child: Ctrl-C at its default (a program started with & from a script inherits it ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _popen(case, folder, argv, **kw):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([*CLI, *argv], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, preexec_fn=_default_sigint, **kw)


def _finish(proc, timeout):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return proc.returncode, out, err


def signal_when(sig, wait_for, settle=0.0):
    """Run the argv and send ``sig`` once ``wait_for(folder, pid, seconds since the start)`` is true, then ``settle`` s later."""
    def run(case, folder):
        proc = _popen(case, folder, case.argv)
        start = time.monotonic()
        deadline = start + case.timeout / 2
        while time.monotonic() < deadline and proc.poll() is None and not wait_for(folder, proc.pid,
                                                                                    time.monotonic() - start):
            time.sleep(0.005)
        time.sleep(settle)
        if proc.poll() is None:
            proc.send_signal(sig)
        return _finish(proc, case.timeout)
    return run


def mapped(library):
    """True once the process has mapped ``library`` (numpy's core: the heavy imports are under way)."""
    def ready(folder, pid, elapsed):
        try:
            with open(f"/proc/{pid}/maps") as f:
                return library in f.read()
        except OSError:
            return False
    return ready


def after(seconds):
    def ready(folder, pid, elapsed):
        return elapsed >= seconds
    return ready


def cpu(seconds):
    """The process has used ``seconds`` of CPU: past its imports and checks, at work (a wall-clock wait is not
    enough on a loaded machine or a cold start)."""
    def ready(folder, pid, elapsed):
        return _cpu_seconds(pid) >= seconds
    return ready


def _one(folder, pattern):
    """The one file in ``folder`` matching ``pattern`` (a glob: partial files have fresh names), or None."""
    return next(iter(sorted(folder.glob(pattern))), None)


def exists(name, size=0):
    def ready(folder, pid, elapsed):
        path = _one(folder, name)
        try:
            return path is not None and path.stat().st_size >= size
        except FileNotFoundError:
            return False
    return ready


def workers_running(count=1):
    """Dask worker processes (multiprocessing's spawn) are running under the process."""
    def ready(folder, pid, elapsed):
        return len([c for c in _children(pid) if "spawn_main" in _cmdline(c)]) >= count
    return ready


def kill_a_local_worker(case, folder):
    """SIGKILL one of a local cluster's worker processes in the middle of the sweep: Dask runs its chunks again."""
    proc = _popen(case, folder, case.argv)
    deadline = time.monotonic() + case.timeout / 2
    killed = None
    while time.monotonic() < deadline and proc.poll() is None and killed is None:
        workers = [c for c in _children(proc.pid) if "spawn_main" in _cmdline(c)]
        busy = [w for w in workers if _busy(w)]  # a worker flying its chunk (started up, importing done)
        if len(workers) >= 2 and busy:
            os.kill(busy[0], signal.SIGKILL)
            killed = busy[0]
        time.sleep(0.05)
    return _finish(proc, case.timeout)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def tcp_server(behaviour):
    """A TCP server on a free port that ``behaviour``s each connection: ``garbage``, ``silent``, ``http``."""
    if behaviour == "http":
        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"tcp://127.0.0.1:{server.server_address[1]}"
        finally:
            server.shutdown()
            server.server_close()
        return
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    held, stop = [], threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)
            if behaviour == "garbage":
                with contextlib.suppress(OSError):
                    conn.sendall(b"\x93\x00garbage that is not Dask's protocol\n" * 64)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(2)
        for conn in held:
            conn.close()
        listener.close()


def against_server(behaviour):
    def run(case, folder):
        with tcp_server(behaviour) as address:
            argv = [a.replace("{address}", address) for a in case.argv]
            proc = _popen(case, folder, argv)
            return _finish(proc, case.timeout)
    return run


def against_cluster(kill):
    """A real Dask scheduler and one worker (no nanny) in processes of their own; ``kill`` one mid-sweep."""
    def run(case, folder):
        port = _free_port()
        address = f"tcp://127.0.0.1:{port}"
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        scheduler = subprocess.Popen([PYTHON, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                      "--port", str(port), "--dashboard-address", ":0", "--no-show"], **quiet)
        worker = subprocess.Popen([PYTHON, "-m", "distributed.cli.dask_worker", address, "--no-nanny",
                                   "--nthreads", "1", "--no-dashboard"], **quiet,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            deadline = time.monotonic() + 30  # until the scheduler listens (or has died)
            while scheduler.poll() is None and time.monotonic() < deadline:
                with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1.0):
                    break
                time.sleep(0.05)
            argv = [a.replace("{address}", address) for a in case.argv]
            proc = _popen(case, folder, argv)
            start = time.monotonic()  # wait until the worker flies a chunk
            while time.monotonic() - start < 30 and proc.poll() is None and not _busy(worker.pid):
                time.sleep(0.1)
            (worker if kill == "worker" else scheduler).send_signal(signal.SIGKILL)
            return _finish(proc, case.timeout)
        finally:
            for p in (scheduler, worker):
                p.kill()
                p.wait()
    return run


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _busy(pid: int) -> bool:
    """The process has used 3 s of CPU (a worker past its start-up, flying a chunk)."""
    return _cpu_seconds(pid) > 3.0


def sparse(size):
    def make(path):
        with open(path, "wb") as f:
            f.truncate(size)
    return make


def fifo(path):
    os.mkfifo(path)


def directory(path):
    os.mkdir(path)


def link_to(target):
    def make(path):
        os.symlink(target, path)
    return make


def garbage_stl(path):
    path.write_bytes(b"\x00binary header" + bytes(range(256)) * 2)


def bad_faces_obj(path):
    path.write_text(obj(extra_face=(1, 2, 99)))


def bad_faces_ply(path):
    vertices = "\n".join(f"{x} {y} {z}" for x, y, z in BOX)
    faces = "\n".join(f"3 {a - 1} {b - 1} {c - 1}" for a, b, c in BOX_FACES[:-1]) + "\n3 0 1 42"
    path.write_text("ply\nformat ascii 1.0\nelement vertex 8\nproperty float x\nproperty float y\n"
                    f"property float z\nelement face 12\nproperty list uchar int vertex_indices\nend_header\n"
                    f"{vertices}\n{faces}\n")


# ------------------------------------------------------------------ the cases
_K = {"keep.csv": KEEP, "keep.npz": KEEP}
_R = ["--rates", "1,0,0", "--dampers", "0,0,0", "--duration", "0.001", "--every", "1000"]
#: energy of the first row with w = (1, 0, 0): Jxx / 2; the box's Jxx at 1 kg = (0.5^2 + 0.2^2) / 12.
_BOX_JXX = (0.25 + 0.04) / 12

CASES = [
    # ---------------------------------------------------------- 1. no file destroyed
    Case("run", "1", "an inertia from the mesh out of range, found before --out opens",
         ["run", "--body", "t_handle", "--mass", "1e-5", "--out", "keep.csv"], 2, "inertia from the mesh",
         files=_K, keep=("keep.csv",)),
    Case("run", "1", "dt 0 with an existing --out", ["run", "--dt", "0", "--out", "keep.csv"], 2, "--dt",
         files=_K, keep=("keep.csv",)),
    Case("run", "1", "a missing scenario with an existing --out",
         ["run", "--scenario", "none.toml", "--out", "keep.csv"], 2, "no such scenario file",
         files=_K, keep=("keep.csv",)),
    Case("run", "1", "a run of hours refused, --out untouched",
         ["run", "--duration", "1e7", "--out", "keep.csv"], 2, "would take about", files=_K, keep=("keep.csv",)),
    Case("run", "1", "npz rows beyond the memory cap, --out untouched",
         ["run", "--duration", "1e5", "--format", "npz", "--out", "keep.npz"], 2, "GiB in memory",
         files=_K, keep=("keep.npz",)),
    Case("run", "1", "--out is the scenario file read",
         ["run", "--scenario", "s.toml", "--out", "s.toml"], 2, r"is the run's input \(--scenario\)",
         files={"s.toml": scenario()}, keep=("s.toml",)),
    Case("run", "1", "--out is the mesh flown",
         ["run", "--body", "box.obj", "--out", "box.obj"], 2, r"is the run's input \(--body\)",
         files={"box.obj": obj()}, keep=("box.obj",)),
    Case("run", "1", "--out is the scenario's mesh, through a link",
         ["run", "--scenario", "s.toml", "--out", "link.obj"], 2, "the scenario's body mesh",
         files={"box.obj": obj(), "s.toml": scenario('body = "box.obj"'), "link.obj": link_to("box.obj")},
         keep=("box.obj",)),
    Case("replay", "1", "--out is the recording replayed",
         ["replay", "r.jsonl", "--out", "r.jsonl"], 2, "the recording", files={"r.jsonl": recording()},
         keep=("r.jsonl",)),
    Case("run", "1", "gui --screenshot is the scenario file",
         ["gui", "--scenario", "s.toml", "--screenshot", "s.toml"], 2, "is the run's input",
         files={"s.toml": scenario()}, keep=("s.toml",)),
    Case("sweep", "1", "an unreachable --scheduler leaves --out and --trajectories as they were",
         ["sweep", "--bodies", "10", "--duration", "0.05", "--scheduler", "tcp://127.0.0.1:9", "--out", "keep.csv",
          "--trajectories", "keep.npz"], 2, "cannot connect", files=_K, keep=("keep.csv", "keep.npz")),
    Case("sweep", "1", "bad --bodies with existing outputs",
         ["sweep", "--bodies", "0", "--out", "keep.csv", "--trajectories", "keep.npz"], 2, "--bodies",
         files=_K, keep=("keep.csv", "keep.npz")),
    Case("sweep", "1", "--out and --trajectories name one file",
         ["sweep", "--bodies", "4", "--duration", "0.05", "--out", "x.csv", "--trajectories", "x.csv"], 2,
         "the same file", absent=("x.csv",)),
    Case("sweep", "1", "--out is the scenario file read",
         ["sweep", "--scenario", "s.toml", "--bodies", "4", "--out", "s.toml"], 2, "is the run's input",
         files={"s.toml": scenario()}, keep=("s.toml",)),
    Case("I/O and signals", "1", "kill -9 during run --format npz: the old file stays",
         ["run", "--duration", "1000", "--dt", "0.001", "--format", "npz", "--out", "keep.npz", "--force"],
         -9, lines=None, files=_K, keep=("keep.npz",),
         run=signal_when(signal.SIGKILL, cpu(1.5))),
    Case("I/O and signals", "1", "kill -9 during run CSV: the old file stays, the rows so far in .part (the last may be cut)",
         ["run", "--duration", "1000", "--dt", "0.001", "--out", "keep.csv", "--force"], -9, lines=None,
         files=_K, keep=("keep.csv",), run=signal_when(signal.SIGKILL, exists("keep.csv.*.part", 100_000)),
         check=whole_csv("keep.csv.*.part", cut_tail=True)),
    Case("I/O and signals", "1", "kill -9 during sweep --out: the old files stay",
         ["sweep", "--bodies", "20000", "--duration", "20", "--out", "keep.csv", "--trajectories", "keep.npz",
          "--workers", "0"], -9, lines=None, files=_K, keep=("keep.csv", "keep.npz"),
         run=signal_when(signal.SIGKILL, cpu(2.5))),
    Case("I/O and signals", "1", "Ctrl-C during sweep --out: one line, exit 130, the old files stay",
         ["sweep", "--bodies", "20000", "--duration", "20", "--out", "keep.csv", "--trajectories", "keep.npz",
          "--workers", "0"], 130, "interrupted; nothing was written", files=_K, keep=("keep.csv", "keep.npz"),
         run=signal_when(signal.SIGINT, cpu(2.5))),
    Case("I/O and signals", "1", "Ctrl-C during run --format npz: the rows so far, moved into place whole",
         ["run", "--duration", "1000", "--dt", "0.001", "--format", "npz", "--out", "r.npz", "--force"], 130,
         "interrupted at t=", run=signal_when(signal.SIGINT, cpu(1.5)), absent=("r.npz.*part",),
         check=lambda f, o, e: None if (f / "r.npz").stat().st_size > 1000 else "r.npz is missing"),
    Case("I/O and signals", "1", "a file size limit during run CSV: the old file stays",
         ["run", "--duration", "10", "--out", "keep.csv"], 1, r"File too large.*keep.csv.\S+.part; keep.csv was not",
         files=_K, keep=("keep.csv",), limit_fsize=120_000, check=whole_csv("keep.csv.*.part")),
    Case("I/O and signals", "1", "a file size limit on the sweep's trajectories: one line, the old files stay",
         ["sweep", "--bodies", "300", "--duration", "1", "--out", "keep.csv", "--trajectories", "keep.npz",
          "--traj-every", "1"], 1, "cannot write the sweep's results: File too large",
         files=_K, keep=("keep.csv", "keep.npz"), limit_fsize=200_000, absent=("keep.npz.*part", "keep.csv.*part")),
    Case("I/O and signals", "1", "--out through a symbolic link replaces the file it points at",
         ["run", "--duration", "0.01", "--out", "link.csv"], 0, lines=1, files={"old.csv": KEEP,
                                                                              "link.csv": link_to("old.csv")},
         check=both(whole_csv("old.csv", rows=11), lambda f, o, e: None if (f / "link.csv").is_symlink()
                    else "the link was replaced")),

    # ---------------------------------------------------------- 2. every cost estimated first
    Case("sweep", "2", "a gains grid of 10^9 combinations flies 10 bodies at once",
         ["sweep", "--bodies", "10", "--duration", "0.05", "--gains-grid", "1..1000/1000,1..1000/1000,1..1000/1000",
          "--out", "g.csv"], 0, "only 10 of the 1,000,000,000 gain combinations", timeout=30,
         check=whole_csv("g.csv", rows=10)),
    Case("sweep", "2", "--workers 1000 on this machine", ["sweep", "--workers", "1000"], 2,
         r"--workers: 1,000 worker processes on a machine with \d+ cores?: at most"),
    Case("sweep", "2", "--workers beyond the cores", ["sweep", "--workers", str(os.cpu_count() + 1)], 2,
         "at most"),
    Case("sweep", "2", "a scenario asks for 10^8 bodies (the flag's limit, from the one table)",
         ["sweep", "--scenario", "s.toml"], 2, r"bodies: must be an integer in \[1, 10,000,000\]",
         files={"s.toml": scenario(extra="\n[ensemble]\nbodies = 100000000\n")}),
    Case("sweep", "2", "a sweep of hours refused with the estimate",
         ["sweep", "--bodies", "10000000", "--duration", "100", "--dt", "0.01"], 2,
         r"would take about .*--force runs it anyway", timeout=60),
    Case("sweep", "2", "trajectories beyond their cap", ["sweep", "--bodies", "1000000", "--duration", "10",
                                                          "--trajectories", "t.npz", "--traj-every", "1"], 2,
         "GiB of samples", absent=("t.npz",)),
    Case("scenario files", "2", "30,000 comparison bodies", ["run", "--scenario", "s.toml"], 2,
         "30,000 comparison bodies, more than 64", files={"s.toml": compare_bodies(30_000)}),
    Case("scenario files", "2", "65 comparison bodies", ["run", "--scenario", "s.toml"], 2, "more than 64",
         files={"s.toml": compare_bodies(65)}),
    Case("run", "2", "--force --format npz beyond the machine's memory", ["run", "--duration", "1e7", "--every",
                                                                         "1", "--format", "npz", "--out", "r.npz",
                                                                         "--force"], 2,
         "in memory, more than this machine can give", absent=("r.npz", "r.npz.*part")),
    Case("run", "2", "10^10 steps refused with the estimate", ["run", "--duration", "1e7"], 2,
         r"10,000,000,000 steps would take about"),
    Case("replay", "2", "a recording of 10^11 steps", ["replay", "r.jsonl"], 2,
         "100,000,000,000 steps would take about", files={"r.jsonl": recording(end=10 ** 11)}),
    Case("meshes", "2", "a 2 GB (sparse) mesh file refused by its size", ["run", "--body", "big.stl"], 2,
         "too large for a mesh file", files={"big.stl": sparse(2 << 30)}, timeout=20),

    # ---------------------------------------------------------- 3. Dask failures end
    Case("sweep on Dask", "3", "a server that speaks garbage",
         ["sweep", "--bodies", "10", "--duration", "0.05", "--scheduler", "{address}", "--out", "keep.csv"], 2,
         r"--scheduler tcp://127.0.0.1:\d+: not a Dask scheduler", files=_K, keep=("keep.csv",),
         run=against_server("garbage"), timeout=30),
    Case("sweep on Dask", "3", "a server that accepts and never answers",
         ["sweep", "--bodies", "10", "--duration", "0.05", "--scheduler", "{address}", "--out", "keep.csv"], 2,
         r"--scheduler tcp://127.0.0.1:\d+: no Dask scheduler answered within 15 s", files=_K,
         keep=("keep.csv",), run=against_server("silent"), timeout=40),
    Case("sweep on Dask", "3", "an HTTP server",
         ["sweep", "--bodies", "10", "--duration", "0.05", "--scheduler", "{address}"], 2,
         r"not a Dask scheduler|no Dask scheduler answered within 15 s", run=against_server("http"), timeout=40),
    Case("sweep on Dask", "3", "a port where nothing listens",
         ["sweep", "--bodies", "10", "--duration", "0.05", "--scheduler", "tcp://127.0.0.1:9"], 2,
         "cannot connect", timeout=30),
    Case("sweep on Dask", "3", "not an address", ["sweep", "--scheduler", "tcp://"], 2, "--scheduler tcp://"),
    Case("sweep on Dask", "3", "a local worker killed with SIGKILL: Dask runs its chunks again",
         ["sweep", "--workers", "2", "--bodies", "40000", "--duration", "20", "--out", "w.csv"], 0, lines=0,
         run=kill_a_local_worker, timeout=120, check=whole_csv("w.csv", rows=40000)),
    Case("sweep on Dask", "3", "the cluster's only worker killed: one line, nothing written",
         ["sweep", "--scheduler", "{address}", "--bodies", "40000", "--duration", "20", "--out", "keep.csv"], 1,
         r"the Dask cluster at tcp://127.0.0.1:\d+ has had no worker for \d+ s.*nothing was written",
         files=_K, keep=("keep.csv",), run=against_cluster("worker"), timeout=120),
    Case("sweep on Dask", "3", "the scheduler killed: one line, nothing written",
         ["sweep", "--scheduler", "{address}", "--bodies", "40000", "--duration", "20", "--out", "keep.csv"], 1,
         r"the connection to the Dask cluster at tcp://127.0.0.1:\d+ was lost.*nothing was written",
         files=_K, keep=("keep.csv",), run=against_cluster("scheduler"), timeout=120),

    # ---------------------------------------------------------- 4. no traceback
    Case("scenario files", "4", "arrays nested 5,000 deep", ["run", "--scenario", "deep.toml"], 2,
         "nested too deeply", files={"deep.toml": nested_toml(5000)}),
    Case("scenario files", "4", "inline tables nested 3,000 deep", ["run", "--scenario", "deep.toml"], 2,
         "nested too deeply", files={"deep.toml": "[settings]\nx = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n"}),
    Case("scenario files", "4", "a [settings] body mesh whose faces name missing vertices",
         ["run", "--scenario", "s.toml"], 2, "a face names (a )?vertex",
         files={"bad.obj": bad_faces_obj, "s.toml": scenario('body = "bad.obj"')}),
    Case("meshes", "4", "OBJ faces that name missing vertices", ["run", "--body", "bad.obj"], 2,
         "a face names (a )?vertex", files={"bad.obj": bad_faces_obj}),
    Case("meshes", "4", "PLY faces that name missing vertices", ["run", "--body", "bad.ply"], 2,
         r"bad.ply", files={"bad.ply": bad_faces_ply}),
    Case("meshes", "4", "a mesh and a tiny mass: the inertia range-checked", ["run", "--body", "box.obj",
                                                                              "--mass", "1e-7"], 2,
         r"--body box.obj --mass 1e-7: the inertia from the mesh at 1e-07 kg: .*principal moments",
         files={"box.obj": obj()}),
    Case("meshes", "4", "a kilometre mesh and a heavy mass: the inertia range-checked",
         ["run", "--body", "box.obj", "--mass", "1e6"], 2, "the inertia from the mesh at 1e\\+06 kg",
         files={"box.obj": obj(scale=10_000)}),
    Case("meshes", "4", "garbage in a .glb", ["run", "--body", "x.glb"], 2, "not a readable GLB mesh",
         files={"x.glb": b"glTF" + bytes(200)}),
    Case("I/O and signals", "4", "Ctrl-C while numpy loads", ["run", "--duration", "5"], 130,
         "^attitude-sim: interrupted\n$", run=signal_when(signal.SIGINT, mapped("_multiarray_umath"))),
    Case("I/O and signals", "4", "Ctrl-C while the simulation loads (after numpy)", ["run", "--duration", "5"], 130,
         "^attitude-sim: interrupted\n$", run=signal_when(signal.SIGINT, mapped("_multiarray_umath"), settle=0.05)),
    # (a signal in the first ~50 ms lands in Python's own start-up, site.py, before any code of the program:
    # Python then prints its own "Fatal Python error: init_import_site"; these cases start once numpy loads)
    Case("I/O and signals", "4", "Ctrl-C while a sweep's libraries load", ["sweep", "--bodies", "10"], 130,
         "^attitude-sim: interrupted\n$", run=signal_when(signal.SIGINT, mapped("_multiarray_umath"), settle=0.1)),
    Case("I/O and signals", "4", "Ctrl-C while a replay's libraries load", ["replay", "r.jsonl"], 130,
         "^attitude-sim: interrupted\n$", files={"r.jsonl": recording()},
         run=signal_when(signal.SIGINT, mapped("_multiarray_umath"), settle=0.02)),
    Case("I/O and signals", "4", "Ctrl-C while a sweep starts its local cluster",
         ["sweep", "--workers", "2", "--bodies", "10", "--duration", "0.05"], 130, "interrupted",
         run=signal_when(signal.SIGINT, workers_running(1), settle=0.3), timeout=60),
    # 60 s of simulated time (about 15 s of work on two workers): still flying when the signal comes 3 s
    # after the workers start, however idle the machine (10 s could finish first: exit 0)
    Case("I/O and signals", "4", "Ctrl-C while a local cluster flies a sweep: one line, the old file stays",
         ["sweep", "--workers", "2", "--bodies", "40000", "--duration", "60", "--out", "keep.csv"], 130,
         "interrupted; nothing was written", files=_K, keep=("keep.csv",),
         run=signal_when(signal.SIGINT, workers_running(2), settle=3.0), timeout=60),
    Case("I/O and signals", "4", "a write error on the trajectories: one line, no traceback from close",
         ["sweep", "--bodies", "200", "--duration", "1", "--trajectories", "t.npz", "--traj-every", "1"], 1,
         "cannot write the sweep's results", limit_fsize=100_000, absent=("t.npz", "t.npz.*part")),

    # ---------------------------------------------------------- 5. no silently wrong output
    Case("scenario files", "5", "two comparison bodies with the same label", ["run", "--scenario", "s.toml"], 2,
         "label 'same' is taken by #1", files={"s.toml": compare_bodies(2, label="same")}),
    Case("replay", "5", "two comparison bodies with the same label in a recording's header",
         ["replay", "r.jsonl"], 2, "two comparison bodies are labelled 'a'",
         files={"r.jsonl": recording(header(compare=[{"label": "a"}, {"label": "a"}]))}),
    Case("replay", "5", "a recording of a newer format version", ["replay", "r.jsonl"], 2,
         "format version 2, newer than this attitude-sim reads", files={"r.jsonl": recording(header(version=2))}),
    Case("replay", "5", "a recording whose version is text", ["replay", "r.jsonl"], 2,
         "version '1' is not a format version", files={"r.jsonl": recording(header(version="1"))}),
    Case("replay", "5", "a recording without a version", ["replay", "r.jsonl"], 2,
         "version None is not a format version",
         files={"r.jsonl": recording({k: v for k, v in header().items() if k != "version"})}),
    Case("sweep", "5", "sweep --out - with stdout closed", shell="{cli} sweep --bodies 3 --duration 0.05 --out - >&-",
         code=2, says="stdout is closed"),
    Case("sweep", "5", "sweep with stdout closed (the summary has nowhere to go)",
         shell="{cli} sweep --bodies 3 --duration 0.05 >&-", code=2, says="stdout is closed"),
    Case("sweep", "5", "sweep --out - cut by a file-size limit ends on a whole line",
         shell="{cli} sweep --bodies 300 --duration 0.05 --out - > cut.csv", code=1, says="File too large",
         limit_fsize=40_000, check=whole_csv("cut.csv")),
    Case("run", "5", "run cut by a file-size limit through stdout ends on a whole line",
         shell="{cli} run --duration 20 > cut.csv", code=1, says="File too large", limit_fsize=300_000,
         check=whole_csv("cut.csv")),
    Case("sweep", "5", "sweep --out - appended to a file under a size limit keeps what was there",
         shell="{cli} sweep --bodies 300 --duration 0.05 --out - >> keep.csv", code=1, says="File too large",
         limit_fsize=40_000, files={"keep.csv": "a,b\n1,2\n"},
         check=lambda f, o, e: None if (f / "keep.csv").read_bytes().startswith(b"a,b\n1,2\n") else "cut into"),

    # ---------------------------------------------------------- 6. friction
    Case("run", "6", "--angles -90,0,0", ["run", "--angles", "-90,0,0", "--duration", "0.001"], 0, lines=0,
         check=first_row("psi_deg", -90.0)),
    Case("run", "6", "--rates -1,0,0", ["run", "--rates", "-1,0,0", "--duration", "0.001"], 0, lines=0,
         check=first_row("wx", -1.0)),
    Case("run", "6", "--command -45,0,0", ["run", "--controller", "quaternion", "--command", "-45,0,0",
                                           "--slerp-time", "0", "--duration", "0.001"], 0, lines=0,
         check=first_row("qc3", 0.3826834323650898, rel=1e-12)),  # +45 deg gives -0.38
    Case("run", "6", "--torque -1e-3,0,0", ["run", "--torque", "-1e-3,0,0", "--duration", "0.001"], 0, lines=0),
    Case("run", "6", "--inertia -1,1,1,0,0,0 reaches its check", ["run", "--inertia", "-1,1,1,0,0,0"], 2,
         "not positive definite"),
    Case("run", "6", "--dt -0.01 reaches its check", ["run", "--dt", "-0.01"], 2, "--dt -0.01: -0.01 must be > 0"),
    Case("sweep", "6", "--gains-grid -1:2,1,1 reaches its check", ["sweep", "--gains-grid", "-1:2,1,1"], 2,
         "axis 1 value: -1 must be >= 0"),
    Case("sweep", "6", "sweep --angles -90,10,0 --attitudes same",
         ["sweep", "--angles", "-90,10,0", "--attitudes", "same", "--bodies", "3", "--duration", "0.05", "--out",
          "s.csv"], 0, lines=0, check=whole_csv("s.csv", rows=3)),
    Case("meshes", "6", "--body a FIFO", ["run", "--body", "f.stl"], 2, "is a FIFO", files={"f.stl": fifo}),
    Case("meshes", "6", "--body a device", ["run", "--body", "/dev/null"], 2, "is a character device"),
    Case("meshes", "6", "--body a directory named like a mesh", ["run", "--body", "d.obj"], 2, "is a directory",
         files={"d.obj": directory}),
    Case("meshes", "6", "--body a binary STL that fails to parse", ["run", "--body", "x.stl"], 2,
         "header announces", files={"x.stl": garbage_stl}),
    Case("meshes", "6", "--body an empty file", ["run", "--body", "x.obj"], 2, "an empty file",
         files={"x.obj": ""}),
    Case("run", "6", "a too-large inertia names the quantity", ["run", "--inertia", "1e13,1e13,1e13,0,0,0"], 2,
         "inertia Jxx=1e\\+13 kg m\\^2 is beyond"),
    Case("sweep", "6", "extreme spreads: no RuntimeWarning on stderr",
         ["sweep", "--rate-spread", "1000", "--inertia-spread", "50", "--bodies", "200", "--duration", "1",
          "--dt", "0.1", "--norm", "none", "--out", "s.csv"], 0, lines=0, check=whole_csv("s.csv", rows=200)),
    Case("replay", "6", "a recording cut in the middle warns that its end mark is missing",
         ["replay", "r.jsonl", "--out", "r.csv"], 0, "has no end mark: the recording was cut off", lines=2,
         files={"r.jsonl": recording(lines=[{"step": 3, "key": "torque", "value": [1, 0, 0]}, {"alive": 20}],
                                     end=None) + '{"step": 2'}),

    # ---------------------------------------------------------- M. meshes as people export them (issue 23)
    # (--body with a mesh also notes, in one line, that the scenario's gains were scaled to it)
    Case("meshes", "M", "a closed box wound inside out: turned outward, one note, the right inertia",
         ["run", "--body", "inside_out.obj", *_R], 0, "inside out.*turned outward", lines=2,
         files={"inside_out.obj": obj(flip="all")}, check=first_row("energy", _BOX_JXX / 2)),
    Case("meshes", "M", "inside out in a scenario file: the same note", ["run", "--scenario", "s.toml", *_R], 0,
         "^note: .*inside_out.obj: the mesh was wound inside out", lines=1,
         files={"inside_out.obj": obj(flip="all"), "s.toml": scenario('body = "inside_out.obj"')},
         check=first_row("energy", _BOX_JXX / 2)),
    Case("meshes", "M", "a closed box wound inconsistently is refused in one line",
         ["run", "--body", "mixed.obj", *_R], 2, "not wound consistently", files={"mixed.obj": obj(flip=(0, 3, 5))}),
    Case("meshes", "M", "a box in millimetres with --mesh-units mm", ["run", "--body", "mm.obj",
                                                                      "--mesh-units", "mm", *_R], 0, lines=1,
         files={"mm.obj": obj(scale=1000)}, check=first_row("energy", _BOX_JXX / 2)),
    Case("meshes", "M", "a box in inches with --mesh-units in", ["run", "--body", "in.obj", "--mesh-units", "in",
                                                                 *_R], 0, lines=1,
         files={"in.obj": obj(scale=1 / 0.0254)}, check=first_row("energy", _BOX_JXX / 2)),
    Case("meshes", "M", "a box in centimetres, mesh_units in the scenario file", ["run", "--scenario", "s.toml",
                                                                                  *_R], 0, lines=0,
         files={"cm.obj": obj(scale=100), "s.toml": scenario('body = "cm.obj"\nmesh_units = "cm"')},
         check=first_row("energy", _BOX_JXX / 2)),
    Case("meshes", "M", "an unknown unit", ["run", "--body", "box.obj", "--mesh-units", "km"], 2,
         "invalid choice: 'km'", files={"box.obj": obj()}),
    Case("meshes", "M", "an open mesh without inertia is still refused", ["run", "--body", "open.obj"], 2,
         "not watertight", files={"open.obj": obj(drop=1)}),
    Case("meshes", "M", "an open mesh with an explicit inertia flies", ["run", "--body", "open.obj", "--inertia",
                                                                        "1,2,2.5,0,0,0", "--duration", "0.01"],
         0, lines=0, files={"open.obj": obj(drop=1)}),
    Case("meshes", "M", "a flat mesh encloses no volume", ["run", "--body", "flat.obj"], 2,
         "zero volume|almost no volume", files={"flat.obj": "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 3 2\n"}),
    Case("meshes", "M", "a mesh in millimetres read as metres: a mass that is too light for it is refused",
         ["run", "--body", "mm.obj", "--mass", "1e6"], 2, "the inertia from the mesh",
         files={"mm.obj": obj(scale=10_000)}),
]


# ------------------------------------------------------------------ round three (issue 35)
def symlink_to(target):
    def make(path):
        path.symlink_to(target)
    return make


def hardlink_to(target):
    def make(path):
        os.link(path.parent / target, path)
    return make


def link_kept(name, target):
    """``name`` is still a link to ``target`` (a planted link is never followed nor replaced)."""
    def check(folder, out, err):
        path = folder / name
        if not path.is_symlink() or os.readlink(path) != target:
            return f"{name} is no longer the link to {target}"
        return None
    return check


def no_process_in(folder_check=None):
    """No process is left whose command line names the case's folder (an orphaned ffmpeg)."""
    def check(folder, out, err):
        deadline = time.monotonic() + 5.0  # a child that is ending is given the time to end, no more
        while True:
            left = [int(e) for e in os.listdir("/proc")
                    if e.isdigit() and int(e) != os.getpid() and str(folder) in _cmdline(int(e))]
            if not left:
                return folder_check(folder, out, err) if folder_check else None
            if time.monotonic() > deadline:
                return f"a process is left running: {_cmdline(left[0])[:200]}"
            time.sleep(0.02)
    return check


def rows_of(name, *counts):
    """The CSV ``name`` is whole with one of ``counts`` data rows (one writer's, not a mix)."""
    def check(folder, out, err):
        for rows in counts:
            if whole_csv(name, rows=rows)(folder, out, err) is None:
                return None
        return f"{name} is not one run's whole CSV: {whole_csv(name)(folder, out, err) or 'a mix of rows'}"
    return check


def concurrently(*argvs):
    """Run the argvs at once; the worst exit code, their stderr joined."""
    def run(case, folder):
        procs = [_popen(case, folder, argv) for argv in argvs]
        results = [_finish(p, case.timeout) for p in procs]
        return max(r[0] for r in results), "".join(r[1] for r in results), "".join(r[2] for r in results)
    return run


def ffmpeg_running(folder, pid, elapsed):
    return any("ffmpeg" in _cmdline(c) for c in _children(pid)) and elapsed > 1.0


_V = ["video", "--scenario", "gimbal_lock", "--what", "view", "--size", "320x240"]
_VK = {"keep.mp4": KEEP, "keep.gif": KEEP}

ROUND_THREE = [
    # ---------------------------------------------------------- R1. the one writer's temporary file
    Case("writer", "R1", "a FILE.part planted as a symbolic link is never followed",
         ["run", "--duration", "0.01", "--out", "keep.csv"], 0, lines=1,
         files={"victim.txt": KEEP, "keep.csv.part": symlink_to("victim.txt")}, keep=("victim.txt",),
         check=both(whole_csv("keep.csv", rows=11), link_kept("keep.csv.part", "victim.txt"))),
    Case("writer", "R1", "a FILE.part planted as a hard link is never written",
         ["run", "--duration", "0.01", "--out", "keep.csv"], 0, lines=1,
         files={"victim.txt": KEEP, "keep.csv.part": hardlink_to("victim.txt")}, keep=("victim.txt", "keep.csv.part"),
         check=whole_csv("keep.csv", rows=11)),
    Case("writer", "R1", "a FILE.part link planted for video's ffmpeg is never followed",
         [*_V, "--duration", "0.2", "--out", "v.mp4"], 0, "wrote v.mp4",
         files={"victim.txt": KEEP, "v.mp4.part": symlink_to("victim.txt")}, keep=("victim.txt",),
         check=link_kept("v.mp4.part", "victim.txt"), timeout=90),
    Case("writer", "R1", "a GIF's intermediates planted as links are never followed",
         [*_V, "--duration", "0.2", "--out", "v.gif"], 0, "wrote v.gif",
         files={"victim.txt": KEEP, "v.gif.part.mkv": symlink_to("victim.txt"),
                "v.gif.part.png": symlink_to("victim.txt")}, keep=("victim.txt",),
         check=link_kept("v.gif.part.mkv", "victim.txt"), timeout=90),
    Case("writer", "R1", "two runs writing one --out at once: one whole file, never a mix",
         run=concurrently(["run", "--duration", "20", "--out", "same.csv"],
                          ["run", "--duration", "10", "--out", "same.csv"]),
         code=0, lines=2, files={"same.csv": KEEP}, check=rows_of("same.csv", 20001, 10001), absent=("same.csv.*",),
         timeout=120),
    Case("video", "R1", "video --out is a link to the scenario it reads: refused as run refuses it",
         ["video", "--scenario", "s.toml", "--out", "v.mp4"], 2, "v.mp4: is the run's input",
         files={"s.toml": scenario(), "v.mp4": symlink_to("s.toml")}, keep=("s.toml",)),
    Case("video", "R1", "video --out is the body's mesh: refused",
         ["video", "--body", "box.obj", "--out", "box.mp4"], 2, "is the run's input",
         files={"box.obj": obj(), "box.mp4": hardlink_to("box.obj")}, keep=("box.obj",)),

    # ---------------------------------------------------------- R2. signals during video
    Case("video", "R2", "Ctrl-C during video: exit 130, the old file kept, nothing left, no ffmpeg",
         [*_V, "--duration", "120", "--out", "keep.mp4"], 130, "interrupted", files=_VK, keep=("keep.mp4",),
         run=signal_when(signal.SIGINT, ffmpeg_running, settle=0.5), absent=("keep.mp4.*",),
         check=no_process_in(), timeout=120),
    Case("video", "R2", "SIGTERM during video: exit 143, the old file kept, nothing left, no ffmpeg",
         [*_V, "--duration", "120", "--out", "keep.mp4"], 143, "terminated", files=_VK, keep=("keep.mp4",),
         run=signal_when(signal.SIGTERM, ffmpeg_running, settle=0.5), absent=("keep.mp4.*",),
         check=no_process_in(), timeout=120),
    Case("video", "R2", "SIGTERM during a GIF: its lossless intermediate removed too",
         [*_V, "--duration", "120", "--out", "keep.gif"], 143, "terminated", files=_VK, keep=("keep.gif",),
         run=signal_when(signal.SIGTERM, ffmpeg_running, settle=0.5), absent=("keep.gif.*",),
         check=no_process_in(), timeout=120),
]

_HUGE = ["--rates", "1e4,3e3,1e3", "--dampers", "0,0,0", "--dt", "1", "--duration", "1000", "--out", "keep.csv"]

ROUND_THREE += [
    # ---------------------------------------------------------- R4. numerical overflow is a simulation fault
    Case("numbers", "R4", "rkmk4 with huge rates: math.sin(inf) in the exponential map is a fault with its time",
         ["run", "--integrator", "rkmk4", *_HUGE], 1, r"simulation fault: t=\d+ s: the state is no longer finite",
         check=whole_csv("keep.csv")),
    Case("numbers", "R4", "elimination with |Q| beyond 1e154: a fault with its time, not a division by zero",
         ["run", "--integrator", "half-quat", "--norm", "elimination", *_HUGE], 1,
         r"simulation fault: t=\d+ s: \|Q\| = .* 'elimination'", lines=2, check=whole_csv("keep.csv")),
    Case("numbers", "R4", "--disturbance-period 5e-324 refused up front with the smallest period",
         ["run", "--disturbance", "1e-3,0,0", "--disturbance-period", "5e-324"], 2,
         "below the smallest period 1e-09 s"),
    Case("numbers", "R4", "--disturbance-period 0 is still a constant disturbance",
         ["run", "--disturbance", "1e-3,0,0", "--disturbance-period", "0", "--duration", "0.01"], 0, lines=0),
]

def lab_folder(path):
    """A lab report folder of old plots and a folder called LAB.md in the way."""
    path.mkdir()
    (path / "lab_energy.png").write_bytes(KEEP)
    (path / "LAB.md").mkdir()


def lab_kept(folder, out, err):
    if (folder / "o" / "lab_energy.png").read_bytes() != KEEP or not (folder / "o" / "LAB.md").is_dir():
        return "an old plot was replaced or LAB.md removed"
    return None


ROUND_THREE += [
    # ---------------------------------------------------------- R3. every command through the one estimate
    Case("video", "R3", "video --dt 1e-9 --duration 3600 refused with the estimate, before any frame",
         ["video", "--dt", "1e-9", "--duration", "3600", "--out", "keep.mp4"], 2,
         "3,600,000,000,000 steps would take about", files=_VK, keep=("keep.mp4",), absent=("keep.mp4.*",)),
    Case("video", "R3", "an hour of 4K video refused with the estimate",
         ["video", "--size", "3840x2160", "--duration", "3600", "--out", "keep.mp4"], 2,
         "108,000 frames at 3840x2160.*would take about", files=_VK, keep=("keep.mp4",)),
    Case("video", "R3", "an hour of GIF refused with the estimate",
         ["video", "--size", "1920x1080", "--duration", "3600", "--out", "keep.gif"], 2,
         "108,000 frames at 1920x1080.*would take about", files=_VK, keep=("keep.gif",)),
    Case("lab", "R3", "lab --steps 1e8 refused with the estimate", ["lab", "--steps", "1e8", "--out", "o"], 2,
         "32 runs of 100,000,000 steps would take about"),
    Case("lab", "R3", "lab with a folder called LAB.md in the way: refused before its runs, old plots kept",
         ["lab", "--steps", "1000", "--out", "o"], 2, "LAB.md is in the way \\(a directory",
         files={"o": lab_folder}, check=lab_kept, timeout=30),
    # ---------------------------------------------------------- R8. rough edges: the right reason
    Case("meshes", "R8", "a valid box scaled by 1e100: its inertia too large, not \"not watertight\"",
         ["run", "--body", "big.obj", "--mass", "1"], 2, "is beyond the physical range",
         files={"big.obj": obj_at(1e100)}),
    Case("meshes", "R8", "a valid box scaled by 1e-150: its inertia too small, not \"not watertight\"",
         ["run", "--body", "tiny.obj", "--mass", "1"], 2, "must lie in \\[1e-08",
         files={"tiny.obj": obj_at(1e-150)}),
    Case("meshes", "R8", "a valid box 1e15 m from the origin flies, the box's inertia",
         ["run", "--body", "far.obj", "--mass", "1", *_R], 0, lines=1,
         files={"far.obj": obj_at(1.0, 1e15)}, check=first_row("energy", _BOX_JXX / 2, rel=1e-6)),
    Case("meshes", "R8", "a 100x50x20 mm box 1 km from the origin flies, not \"almost no volume\"",
         ["run", "--body", "km.obj", "--mass", "1", *_R], 0, lines=1,
         files={"km.obj": obj_at(0.1, 1000.0)}, check=first_row("energy", _BOX_JXX / 200, rel=1e-6)),
    Case("video", "R8", "video --duration 3600.0001 says how long a video may be",
         ["video", "--duration", "3600.0001", "--out", "v.mp4"], 2,
         "--duration 3600.0001 at --speed 1: a video of 3600.0001 s \\(108,000 frames at 30 fps\\) is longer than the longest video, 3600 s"),
]

#: An event that fits the main body's four wheels, not the comparison body's three (line 6).
_MISFIT = scenario('wheels = "pyramid"', "[[events]]\nat = 0.02\nwheel_torques = [0.01, 0, 0, 0]\n\n"
                   '[[compare]]\nlabel = "three"\nwheels = "orthogonal"\n')
_MISFIT_SAYS = (r"^attitude-sim: error: s.toml, line 6: \[\[events\]\] #1: comparison body 'three': wheel_torques: "
                r"4 values for 3 wheels")
_FOUR = header(settings={"wheels": "pyramid"}, duration=0.05)
_SPEEDS = [100.0, 0.0, 0.0, 0.0]


def _replay(lines, head=_FOUR) -> dict:
    return {"r.jsonl": recording(head, lines, end=50), "keep.csv": KEEP}


ROUND_THREE += [
    # ---------------------------------------------------------- R5. inputs checked in context, at load time
    Case("context", "R5", "run: an event that misfits a comparison body's wheels: refused at load, its line named",
         ["run", "--scenario", "s.toml", "--out", "keep.csv"], 2, _MISFIT_SAYS,
         files={"s.toml": _MISFIT, "keep.csv": KEEP}, keep=("keep.csv",), absent=("keep.csv.*",)),
    Case("context", "R5", "run: the same scenario makes no new --out file",
         ["run", "--scenario", "s.toml", "--out", "new.csv"], 2, _MISFIT_SAYS,
         files={"s.toml": _MISFIT}, absent=("new.csv*",)),
    Case("context", "R5", "sweep refuses the scenario the run refuses, before any body flies",
         ["sweep", "--scenario", "s.toml", "--bodies", "10", "--out", "keep.csv"], 2, _MISFIT_SAYS,
         files={"s.toml": _MISFIT, "keep.csv": KEEP}, keep=("keep.csv",), absent=("keep.csv.*",)),
    Case("context", "R5", "video refuses it before any frame",
         ["video", "--scenario", "s.toml", "--out", "keep.mp4"], 2, _MISFIT_SAYS,
         files={"s.toml": _MISFIT, **_VK}, keep=("keep.mp4",), absent=("keep.mp4.*",)),
    Case("context", "R5", "run: an event that fits the file's wheels but not those of --wheels: its line named",
         ["run", "--scenario", "s.toml", "--wheels", "orthogonal", "--out", "keep.csv"], 2,
         r"s.toml, line 6: \[\[events\]\] #1: wheel_torques: 4 values for 3 wheels .* \(with the flags given\)",
         files={"s.toml": scenario('wheels = "pyramid"', "[[events]]\nat = 0.02\nwheel_torques = [0.01, 0, 0, 0]\n"),
                "keep.csv": KEEP}, keep=("keep.csv",)),
    Case("context", "R5", "replay: a header event that changes the wheel count: line 1, not a broadcast error",
         ["replay", "r.jsonl", "--out", "keep.csv"], 2,
         r"r.jsonl, line 1: the header's event #1 \(at 0.01 s\): wheels: a run keeps its 0 wheels",
         files=_replay([], header(events=[{"at": 0.01, "wheels": "pyramid"}], duration=0.05)), keep=("keep.csv",)),
    Case("context", "R5", "replay: 3 wheel torques recorded for 4 wheels: its line, exit 2, not a fault",
         ["replay", "r.jsonl", "--out", "keep.csv"], 2,
         r"r.jsonl, line 2: input 'wheel_torques' before step 10: wheel_torques: 3 values for 4 wheels",
         files=_replay([{"step": 10, "key": "wheel_torques", "value": [0.1, 0, 0]}]), keep=("keep.csv",)),
    Case("context", "R5", "replay: splitting recorded for a body with wheels: its line, exit 2",
         ["replay", "r.jsonl", "--out", "keep.csv"], 2,
         r"r.jsonl, line 3: input 'integrator' before step 10: integrator: splitting is for a body without",
         files=_replay([{"step": 2, "key": "torque", "value": [0, 0, 0]},
                        {"step": 10, "key": "integrator", "value": "splitting"}]), keep=("keep.csv",)),
    Case("context", "R5", "replay: a speed limit that only the ensemble's bodies exceed: its line",
         ["replay", "r.jsonl", "--out", "keep.csv"], 2,
         r"r.jsonl, line 4: input 'wheel_speed_limit' before step 2: the ensemble's bodies: wheel_speeds\[0\]",
         files=_replay([{"step": 0, "key": "ensemble", "value": {"bodies": 4}},
                        {"step": 1, "key": "wheel_speeds", "value": [0, 0, 0, 0]},
                        {"step": 2, "key": "wheel_speed_limit", "value": 50.0}],
                       header(settings={"wheels": "pyramid", "wheel_speeds": _SPEEDS}, duration=0.05)),
         keep=("keep.csv",)),
    Case("context", "R5", "replay: a header event replayed after a reset misfits the speeds set since: line 1",
         ["replay", "r.jsonl", "--out", "keep.csv"], 2,
         r"r.jsonl, line 1: the header's event #1 \(at 0.01 s\): wheel_speeds\[0\]: 100 rad/s is beyond",
         files=_replay([{"step": 20, "key": "wheel_speed_limit", "value": 600.0},
                        {"step": 21, "key": "wheel_speeds", "value": _SPEEDS}, {"step": 22, "key": "reset"}],
                       header(settings={"wheels": "pyramid"}, events=[{"at": 0.01, "wheel_speed_limit": 50.0}],
                              duration=0.05)), keep=("keep.csv",)),
    Case("context", "R5", "replay: the same inputs without the reset replay whole",
         ["replay", "r.jsonl", "--out", "keep.csv"], 0, lines=1,
         files=_replay([{"step": 20, "key": "wheel_speed_limit", "value": 600.0},
                        {"step": 21, "key": "wheel_speeds", "value": _SPEEDS}],
                       header(settings={"wheels": "pyramid"}, events=[{"at": 0.01, "wheel_speed_limit": 50.0}],
                              duration=0.05)), check=whole_csv("keep.csv", rows=51)),
]

CASES += ROUND_THREE

# Round four (issue 44): its cases live in tests/hostile_round4.py, built with this module's Case and helpers.
sys.path.insert(0, str(Path(__file__).resolve().parent))
import hostile_round4  # noqa: E402

ROUND_FOUR = hostile_round4.cases(sys.modules[__name__])
CASES += ROUND_FOUR


# ------------------------------------------------------------------ the runner
def run_all(cases, jobs: int = 2, progress=None) -> list[tuple[Case, str | None]]:
    """Every case, ``jobs`` at a time; ``[(case, problem or None)]`` in the table's order."""
    # the slow ones (Dask clusters, kills) first, so two of them never end the run together
    order = sorted(range(len(cases)), key=lambda i: -cases[i].timeout)
    results = [None] * len(cases)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_case, cases[i]): i for i in order}
        for future in futures:
            i = futures[future]
            results[i] = (cases[i], future.result())
            if progress is not None:
                progress(cases[i], results[i][1])
    return results


def table(results) -> str:
    """The markdown table: per surface, the classes tried, how many cases, how many held."""
    tried, held, classes = Counter(), Counter(), {}
    for case, problem in results:
        tried[case.surface] += 1
        held[case.surface] += problem is None
        classes.setdefault(case.surface, set()).add(case.klass)
    rows = ["| surface | classes | tried | held |", "|---|---|---|---|"]
    for surface in sorted(tried, key=lambda s: list(tried).index(s)):
        rows.append(f"| {surface} | {', '.join(sorted(classes[surface]))} | {tried[surface]} | {held[surface]} |")
    rows.append(f"| **all** | | **{sum(tried.values())}** | **{sum(held.values())}** |")
    return "\n".join(rows)


def write_table(text: str, start_mark: str = TABLE_START, end_mark: str = TABLE_END) -> None:
    page = REPORT.read_text(encoding="utf-8")
    start, end = page.index(start_mark), page.index(end_mark)
    REPORT.write_text(page[:start + len(start_mark)] + "\n" + text + "\n" + page[end:], encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hostile_cases", description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--surface", help="only the cases of this surface")
    parser.add_argument("--write", action="store_true", help=f"write the table into {REPORT.name}")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if args.surface is None or c.surface == args.surface]
    start = time.monotonic()

    def progress(case, problem):
        print(f"{'held  ' if problem is None else 'BROKE '} {case.id}" + (f": {problem}" if problem else ""),
              flush=True)

    results = run_all(cases, args.jobs, progress)
    third, fourth = {id(c) for c in ROUND_THREE}, {id(c) for c in ROUND_FOUR}
    earlier = table([r for r in results if id(r[0]) not in third | fourth])
    latest = table([r for r in results if id(r[0]) in third])
    newest = table([r for r in results if id(r[0]) in fourth])
    took = time.monotonic() - start
    print(f"\nrounds one and two:\n{earlier}\n\nround three (issue 35):\n{latest}\n\nround four (issue 44):\n"
          f"{newest}\n\n{len(results)} cases in {took:.0f} s")
    if args.write:
        if args.surface is not None:
            print("not written: only a part of the cases ran (--surface)")
            return 1
        stamp = (f"\n\n({time.strftime('%Y-%m-%d')}, {len(results)} cases in {took:.0f} s, {args.jobs} at a time, "
                 "the video cases on a virtual screen.)")
        write_table(earlier)
        write_table(latest + stamp, TABLE3_START, TABLE3_END)
        write_table(newest + stamp, TABLE4_START, TABLE4_END)
        print(f"written to {REPORT}")
    return 0 if all(problem is None for _, problem in results) else 1


if __name__ == "__main__":
    sys.exit(main())
