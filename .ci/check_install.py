"""Build the wheel, install it into a fresh virtual environment outside the
checkout, and use it as a new user would, from a folder that is not the checkout.

Run by ``make test`` after the tests (``python .ci/check_install.py``); exit 0
when every check passed, 1 otherwise (each failure is printed).  Checks:

* ``attitude-sim --version`` prints the installed distribution's version;
* ``attitude-sim scenarios`` lists every ``assets/scenarios/*.toml`` of the checkout;
* ``attitude-sim run --scenario hoffmann`` (with the integrator flags of each
  row) ends at the angles of the table "Hoffmann's experiment" in docs/PHYSICS.md;
* ``python -m app --help`` works;
* ``attitude-sim gui --screenshot`` under ``xvfb-run`` writes a picture of the
  window at its default size that is not blank;
* the packages run from the fresh environment, not from the checkout.

The wheel is built from an sdist (``pip wheel`` unpacks it in a temporary
folder), so a stale ``build/`` folder in the checkout cannot leak into it and
a file missing from the sdist is missing from the wheel too.  The fresh
environment installs the dependencies through pip, from its cache when warm.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Default window size of ``attitude-sim gui`` (app.window.main.DEFAULT_SIZE).
WINDOW_SIZE = (1400, 900)
FAILURES: list[str] = []


def step(name: str):
    print(f"check-install: {name}", flush=True)


def check(ok: bool, what: str, detail: str = "") -> bool:
    print(f"  {'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail and not ok else ""), flush=True)
    if not ok:
        FAILURES.append(f"{what}: {detail}" if detail else what)
    return ok


def run(cmd, cwd, env, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def experiment_table() -> dict[str, tuple[str, str, str]]:
    """docs/PHYSICS.md's "Hoffmann's experiment" table: integrator label -> (psi, theta, phi) as printed."""
    text = (ROOT / "docs" / "PHYSICS.md").read_text(encoding="utf-8")
    section = text.split("## Hoffmann's experiment", 1)[1].split("\n#", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"-?\d+\.\d+", cells[1]):
            rows[cells[0]] = tuple(cells[1:4])
    return rows


def flags_for(label: str) -> list[str] | None:
    """Command-line flags for a row label such as ``full-quat `raw` ``; None for the exact solution."""
    words = label.replace("`", "").split()
    if words[0] not in ("half-quat", "full-quat", "rk4", "rkmk4", "splitting"):
        return None
    flags = ["--integrator", words[0]]
    if len(words) > 1:
        flags += ["--full-quat-form", words[1]]
    return flags


def png_size_and_spread(path: Path) -> tuple[tuple[int, int], int]:
    """(width, height) of a PNG and the number of distinct bytes in its pixel data (8-bit RGB(A) only)."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    width, height = struct.unpack(">II", data[16:24])
    chunks, pos = [], 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            chunks.append(data[pos + 8:pos + 8 + length])
        pos += 12 + length
    return (width, height), len(set(zlib.decompress(b"".join(chunks))))


def main() -> int:
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="attitude-sim-install-"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    try:
        step("sdist and wheel")
        dist = tmp / "dist"
        proc = run([sys.executable, "-c",
                    f"from setuptools import build_meta; print(build_meta.build_sdist({str(dist)!r}))"],
                   ROOT, env)
        if not check(proc.returncode == 0, "sdist built", proc.stderr[-2000:]):
            return 1
        sdist = dist / proc.stdout.strip().splitlines()[-1]
        # no build isolation: the build backend of this environment (setuptools, a test extra) builds it
        proc = run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist, sdist],
                   tmp, env)
        wheels = sorted(dist.glob("*.whl"))
        if not check(proc.returncode == 0 and len(wheels) == 1, "wheel built from the sdist", proc.stderr[-2000:]):
            return 1
        built = time.perf_counter()

        step("fresh virtual environment outside the checkout")
        venv = tmp / "venv"
        base = getattr(sys, "_base_executable", sys.executable)
        proc = run([base, "-m", "venv", venv], tmp, env)
        if not check(proc.returncode == 0, "venv created", proc.stderr[-2000:]):
            return 1
        bin_dir = venv / "bin"
        proc = run([bin_dir / "python", "-m", "pip", "install", "-q", wheels[0]], tmp, env, timeout=900)
        if not check(proc.returncode == 0, "wheel installed with its dependencies", proc.stderr[-2000:]):
            return 1
        installed = time.perf_counter()
        cwd = tmp / "elsewhere"
        cwd.mkdir()
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
        cli = bin_dir / "attitude-sim"

        step("where the packages come from")
        proc = run([bin_dir / "python", "-c", "import app, sim, assets; print(app.__file__, sim.__file__, "
                    "assets.__file__)"], cwd, env)
        files = [Path(f) for f in proc.stdout.split()]
        check(proc.returncode == 0 and len(files) == 3 and all(f.is_relative_to(venv) for f in files),
              "app, sim and assets import from the fresh environment", proc.stdout + proc.stderr)

        step("attitude-sim --version")
        proc = run([bin_dir / "python", "-c", "from importlib.metadata import version; "
                    "print(version('attitude-sim'))"], cwd, env)
        version = proc.stdout.strip()
        proc = run([cli, "--version"], cwd, env)
        check(proc.returncode == 0 and bool(version) and version in proc.stdout,
              f"--version prints {version}", (proc.stdout + proc.stderr).strip()[-500:])

        step("attitude-sim scenarios")
        proc = run([cli, "scenarios"], cwd, env)
        listed = {line.split()[0] for line in proc.stdout.splitlines() if line.strip()}
        expected = {p.stem for p in (ROOT / "assets" / "scenarios").glob("*.toml")}
        check(proc.returncode == 0 and expected <= listed, f"all {len(expected)} built-ins listed",
              f"missing {sorted(expected - listed)}; {proc.stderr.strip()[-500:]}")

        step("attitude-sim run --scenario hoffmann: the table of docs/PHYSICS.md")
        table = experiment_table()
        check(len(table) >= 5, "docs/PHYSICS.md table found", f"rows: {sorted(table)}")
        for label, angles in table.items():
            flags = flags_for(label)
            if flags is None:
                continue
            proc = run([cli, "run", "--scenario", "hoffmann", *flags], cwd, env)
            lines = proc.stdout.strip().splitlines()
            header = lines[0].split(",") if lines else []
            last = dict(zip(header, lines[-1].split(","))) if len(lines) > 1 else {}
            got = tuple(f"{float(last[k]):.3f}" for k in ("psi_deg", "theta_deg", "phi_deg")) if last else ()
            check(proc.returncode == 0 and got == angles, f"{label}: psi, theta, phi = {', '.join(angles)}",
                  f"got {got}, exit {proc.returncode} {proc.stderr.strip()[-300:]}")

        step("python -m app --help")
        proc = run([bin_dir / "python", "-m", "app", "--help"], cwd, env)
        check(proc.returncode == 0 and "attitude-sim" in proc.stdout, "python -m app --help",
              proc.stderr.strip()[-500:])

        step("window screenshot under xvfb-run")
        shot = cwd / "window.png"
        gui_env = {**env, "QT_QPA_PLATFORM": "xcb", "HOME": str(tmp / "home")}
        proc = run(["xvfb-run", "-a", "-s", "-screen 0 1600x1000x24", cli, "gui", "--scenario", "gimbal_lock",
                    "--screenshot", shot, "--after", "3"], cwd, gui_env, timeout=180)
        ok = check(proc.returncode == 0 and shot.is_file(), "attitude-sim gui --screenshot wrote a PNG",
                   f"exit {proc.returncode}: {proc.stderr.strip()[-1000:]}")
        if ok:
            size, spread = png_size_and_spread(shot)
            check(size == WINDOW_SIZE, f"the picture is {WINDOW_SIZE[0]}x{WINDOW_SIZE[1]}", f"got {size}")
            check(spread > 64, "the picture is not blank", f"{spread} distinct byte values")
            kept = ROOT / "out" / "installed-window.png"
            kept.parent.mkdir(exist_ok=True)
            shutil.copyfile(shot, kept)
            print(f"  (kept as {kept.relative_to(ROOT)})")
        done = time.perf_counter()
        print(f"check-install: {len(FAILURES) or 'no'} failure(s); build {built - started:.0f} s, "
              f"install {installed - built:.0f} s, checks {done - installed:.0f} s, "
              f"total {done - started:.0f} s", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for failure in FAILURES:
        print(f"check-install: FAILED: {failure}", file=sys.stderr)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
