"""A pytest plugin for ``make test-sim``: Qt and the GUI's libraries cannot be imported (``-p tests.block_qt``).

A GUI-free test (tests/sim) that imports PySide6, shiboken6, pyqtgraph or PyOpenGL, at collection or while it
runs, then fails with ModuleNotFoundError instead of loading Qt unnoticed (issue 41, tests in rooms).
"""

import sys

#: The top-level packages of the GUI; pytest-qt and pytest-xvfb are left out by ``-p no:pytest-qt -p no:xvfb``.
BLOCKED = frozenset({"PySide6", "shiboken6", "pyqtgraph", "OpenGL"})


class _Blocked:
    """A meta path finder that refuses the blocked packages (PEP 451: find_spec raising stops the import)."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (Qt is blocked in make test-sim)", name=name)
        return None


if not any(isinstance(finder, _Blocked) for finder in sys.meta_path):
    sys.meta_path.insert(0, _Blocked())
