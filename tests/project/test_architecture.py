"""The structure: the import contracts of pyproject.toml hold, and the headless paths load no Qt.

The contracts (import-linter; docs/ARCHITECTURE.md draws the map) say that
sim imports neither app nor Qt, OpenGL or scipy; that app imports no scipy;
that app.cli imports neither Qt nor the window nor view3d (but for the
window's launch inside ``attitude-sim gui`` and the rendering inside
``attitude-sim video``); that the flight, its worker and the video encoder
import no Qt; that the window composes the rooms and none imports it; and
that there is no import cycle.  They read every import statement, in
functions too, and follow indirect imports.  The runtime tests below check
what a static graph cannot: which libraries are loaded when the headless
paths actually run.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

#: ruff and lint-imports read the source text (make mutate leaves these out: its copy of sim is mutmut's code).
pytestmark = pytest.mark.source

ROOT = Path(__file__).parents[2]
QT = ("PySide6", "pyqtgraph", "OpenGL")


def test_import_contracts_hold():
    proc = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()", "--no-cache", "--no-logo"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    kept = re.search(r"Contracts: (\d+) kept, 0 broken", proc.stdout)
    assert kept and int(kept.group(1)) >= 9, proc.stdout[-4000:]


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                           "lint_imports_command()", "--no-cache", "--no-logo"],
                          cwd=root, capture_output=True, text=True, timeout=180, env=env)


def test_an_app_import_of_an_inner_room_breaks_the_one_door(tmp_path):
    """A copy of the tree with one app -> sim.core import planted: lint-imports fails on the one-door contract only."""
    for part in ("sim", "app"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    flight = tmp_path / "app" / "flight.py"
    flight.write_text(flight.read_text() + "\n\ndef _planted():\n    from sim.core.quaternion import cayley\n"
                      "    return cayley\n")
    proc = _lint_imports(tmp_path)
    assert proc.returncode != 0, proc.stdout[-4000:]
    assert re.search(r"Contracts: \d+ kept, 1 broken", proc.stdout), proc.stdout[-4000:]
    assert "app.flight -> sim.core.quaternion" in proc.stdout, proc.stdout[-4000:]
    assert re.search(r"one door from app into sim.*\n?.*BROKEN", proc.stdout), proc.stdout[-4000:]


def _loaded_after(code: str) -> list:
    """Qt, OpenGL and scipy modules loaded by a fresh interpreter after running ``code``.

    scipy is blocked (an import of it raises ImportError): numba imports it when installed, as an
    option (its linear algebra), and goes on without it; anything of sim or app that needs it fails.
    """
    code = ("import sys; sys.modules['scipy'] = None\n" + code
            + "\nimport sys; print(sorted({m.split('.')[0] for m, v in sys.modules.items() if v is not None} & "
            f"{set(QT) | {'scipy'}!r}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return eval(proc.stdout.strip().splitlines()[-1])


def test_ruff_finds_nothing():
    """The rule set in pyproject.toml ([tool.ruff]) holds over the whole tree."""
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_importing_sim_and_running_headless_loads_no_qt():
    assert _loaded_after("import sim, sim.run.runner, sim.run.recording, app.cli\n"
                         "assert app.cli.main(['run', '--duration', '0.01', '--out', '/dev/null']) == 0") == []


def test_attitude_sim_run_loads_neither_dask_nor_ccsds_nor_trimesh():
    """The face is lazy: ``attitude-sim run`` loads only the rooms it uses (no Dask, CCSDS files, meshes or pandas)."""
    code = ("import sys, app.cli\nassert app.cli.main(['run', '--duration', '0.01', '--out', '/dev/null']) == 0\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'dask', 'distributed', 'ccsds_ndm', 'trimesh', 'pandas', 'PySide6', 'pyqtgraph', 'OpenGL'}))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]", proc.stdout


def test_the_gui_command_checks_its_flags_without_qt():
    assert _loaded_after("import app.cli\n"
                         "assert app.cli.main(['gui', '--screenshot', 'x.png', '--after', '-1']) == 2\n"
                         "assert app.cli.main(['gui', '--scenario', 'no_such_scenario']) == 2\n"
                         "assert app.cli.main(['sweep', '--help']) == 0") == []


def test_the_video_command_checks_its_flags_without_qt(tmp_path):
    out = tmp_path / "v.mp4"
    assert _loaded_after("import app.cli\n"
                         f"assert app.cli.main(['video', '--size', '1279x720', '--out', {str(out)!r}]) == 2\n"
                         f"assert app.cli.main(['video', '--out', {str(tmp_path / 'v.avi')!r}]) == 2\n"
                         "assert app.cli.main(['video', '--help']) == 0") == []


def test_the_video_encoder_encodes_without_qt(tmp_path):
    assert _loaded_after("import numpy as np\nfrom app.encoder import VideoEncoder\n"
                         f"encoder = VideoEncoder({str(tmp_path / 'v.mp4')!r}, (32, 32), 30)\n"
                         "encoder.put(np.zeros((32, 32, 4), np.uint8))\nencoder.close()") == []


def test_the_flight_flies_without_qt():
    assert _loaded_after("from app.flight import Flight\nfrom sim.run.scenario import load\n"
                         "flight = Flight(load('default'))\nflight.start()\nflight.worker.step()\n"
                         "assert flight.stop()") == []


def test_assets_hold_data_only():
    """The asset generators live in tools/ (tests/project/test_packaging.py: not in the wheel); assets/ is a package of data."""
    python = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "assets").rglob("*.py"))
    assert python == ["assets/__init__.py"]
    generators = {"bake_bodies.py", "make_aircraft.py", "make_bodies.py"}
    assert generators <= {p.name for p in (ROOT / "tools").glob("*.py")}


def test_the_window_is_split_by_job_and_no_module_reaches_into_anothers_privates():
    """Issue 41: no module of app/window over 350 lines; across app/, no ``window._x``, ``w._x`` or ``self._window._x``."""
    window_modules = sorted((ROOT / "app" / "window").glob("*.py"))
    assert window_modules
    long = [(p.name, n) for p in window_modules if (n := len(p.read_text().splitlines())) > 350]
    assert long == []
    reach = re.compile(r"\b(?:window|w)\._[a-z]|self\._window\._[a-z]")
    found = [f"{p.relative_to(ROOT)}:{i}" for p in sorted((ROOT / "app").rglob("*.py"))
             for i, line in enumerate(p.read_text().splitlines(), 1) if reach.search(line)]
    assert found == []
