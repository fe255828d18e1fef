"""sim.core is the pure physics: numpy and the standard library only (numba in sim.core.jit alone, the one place
kernels are compiled, and its hook on numba's code generation, sim.core.jit_codegen, and its borrowed arrays, sim.core.jit_borrow); its ranges agree with the settings layer's."""

import ast
import sys
from pathlib import Path

import pytest

from sim.core.body import MAX_MOMENT, MIN_MOMENT
from sim.io.limits import LIMITS

CORE = Path(__file__).resolve().parents[3] / "sim" / "core"


@pytest.mark.source
def test_core_imports_only_numpy_the_standard_library_and_itself():
    outside = []
    for path in sorted(CORE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                compiler = top == "numba" and path.name in ("jit.py", "jit_codegen.py", "jit_borrow.py")
                if not (top in sys.stdlib_module_names or top == "numpy" or name.startswith("sim.core") or compiler):
                    outside.append(f"{path.name}: {name}")
    assert outside == []


def test_body_range_is_the_settings_range():
    # core states the physical range of a principal moment itself; the settings layer refuses the same
    assert (MIN_MOMENT, MAX_MOMENT) == (LIMITS["inertia"].low, LIMITS["inertia"].high)
