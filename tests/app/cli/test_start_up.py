"""What ``attitude-sim run --duration 1`` imports (issue 42, start-up within 1 s): neither numba (0.2 s, scipy
with it) nor the window's libraries.  The compiled kernels are loaded only when a run is long enough to
gain from them (sim/core/jit.py); a short run steps their Python source.  Checked on ``sys.modules`` of the
real command in a child process, never on a time (the times are bench/cli_run.py's)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

CHILD = """
import runpy, sys
sys.argv = ["attitude-sim", *{args!r}]
try:
    runpy.run_module("app.cli", run_name="__main__")
except SystemExit as exit:
    assert not exit.code, exit.code
print(sorted(m for m in ("numba", "llvmlite", "scipy", "astropy", "PySide6", "pyqtgraph", "OpenGL")
             if m in sys.modules))
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("scenario", ["default", "fly_on_estimate"])
def test_a_short_run_imports_neither_numba_nor_the_window(tmp_path, scenario):
    args = ["run", "--scenario", scenario, "--duration", "1", "--out", str(tmp_path / "run.csv")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MUTANT_UNDER_TEST", None)
    proc = subprocess.run([sys.executable, "-c", CHILD.format(args=args)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "run.csv").stat().st_size > 0
