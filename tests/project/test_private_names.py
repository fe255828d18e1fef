"""No private name is imported across modules (issue 41): a name starting with one underscore belongs to its
module; another module that needs it needs a public name. Read from the source with ast (the imports of every
module of sim/ and app/, at any depth, inside functions too)."""

import ast
import pathlib

import pytest

pytestmark = pytest.mark.source

ROOT = pathlib.Path(__file__).resolve().parents[2]


def private_imports(root: pathlib.Path) -> list:
    """``(file, module, name)`` of every ``from sim... / app... import _name`` under ``root``'s sim/ and app/."""
    found = []
    for path in sorted([*root.glob("sim/**/*.py"), *root.glob("app/**/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ("sim", "app"):
                found += [(str(path.relative_to(root)), node.module, alias.name) for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
    return found


def test_no_private_name_is_imported_across_modules():
    assert private_imports(ROOT) == []


def test_a_planted_private_import_is_found(tmp_path):
    (tmp_path / "sim").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "sim" / "a.py").write_text("def _helper():\n    return 1\n")
    (tmp_path / "app" / "b.py").write_text("def f():\n    from sim.a import _helper\n    return _helper()\n")
    assert private_imports(tmp_path) == [("app/b.py", "sim.a", "_helper")]
