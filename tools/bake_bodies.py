"""Bake the built-in bodies: ``<name>.npz`` beside each OBJ (see ``sim.shape``, "Baked built-ins").

Run ``python assets/bake_bodies.py`` from the checkout after
``make_aircraft.py`` or ``make_bodies.py`` changed a mesh; each baked copy
holds the arrays and mass properties that trimesh reads from the OBJ, so the
window and the CLI load the built-ins without importing trimesh.
``tests/test_shape.py`` fails while a baked copy differs from its OBJ.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sim.shape import BUILTINS, bake  # noqa: E402


def main() -> None:
    """Bake every built-in into its OBJ's folder and print the paths."""
    for name in BUILTINS:
        print(bake(name))


if __name__ == "__main__":
    main()
