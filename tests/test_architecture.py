"""sim/ is plain Python and numpy: it never imports Qt, OpenGL, pyqtgraph, scipy or app."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SIM = Path(__file__).parents[1] / "sim"
APP = Path(__file__).parents[1] / "app"
FORBIDDEN_IN_SIM = ("PySide6", "pyqtgraph", "OpenGL", "app", "scipy")


def _imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module.split(".")[0]


@pytest.mark.parametrize("path", sorted(SIM.rglob("*.py")), ids=lambda p: str(p.relative_to(SIM)))
def test_sim_module_imports_no_gui_and_no_scipy(path):
    bad = set(_imports(path)) & set(FORBIDDEN_IN_SIM)
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", sorted(APP.glob("*.py")), ids=lambda p: p.name)
def test_app_never_imports_scipy(path):
    assert "scipy" not in set(_imports(path))


def test_importing_sim_and_running_headless_loads_no_qt():
    code = ("import sys, sim, sim.runner, sim.recording, app.cli; "
            "app.cli.main(['run', '--duration', '0.01', '--out', '/dev/null']); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'OpenGL', 'scipy')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
