"""Bake the built-in bodies: ``<name>.npz`` beside each OBJ (see ``sim.model.shape``, "Baked built-ins").

Run ``python -m tools.bake_bodies`` from the checkout (with the project
installed, ``make install``) after ``tools/make_aircraft.py`` or
``tools/make_bodies.py`` changed a mesh; each baked copy holds the arrays and
mass properties that trimesh reads from the OBJ, so the window and the CLI
load the built-ins without importing trimesh.  tests/app/cli/test_mass_properties.py
fails while a baked copy differs from its OBJ.
"""

from sim.model.shape import BUILTINS, bake


def main() -> None:
    """Bake every built-in into its OBJ's folder and print the paths."""
    for name in BUILTINS:
        print(bake(name))


if __name__ == "__main__":
    main()
