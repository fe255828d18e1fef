"""The built-in bodies read from their OBJ when no baked copy exists (sim.model.shape: an OBJ being edited), and
bake's default place; their mass properties against trimesh's own (the mesh's moment of inertia at the mass)."""

from pathlib import Path

import numpy as np
import pytest
import trimesh

from sim.core.body import inertia_tensor
from sim.model import shape
from sim.model.shape import BUILTINS, mass_properties

ASSETS = Path(__file__).parents[3] / "assets"


@pytest.fixture
def no_baked_copies(monkeypatch, tmp_path):
    """Every built-in's baked copy looked for in an empty folder (as after an OBJ edit, before bake)."""
    monkeypatch.setattr(shape, "_baked", lambda builtin: tmp_path / Path(builtin.resource).with_suffix(".npz").name)
    shape._load_builtin.cache_clear()
    yield tmp_path
    shape._load_builtin.cache_clear()


@pytest.mark.parametrize("name", list(BUILTINS))
def test_a_builtin_without_its_baked_copy_is_read_from_its_obj(no_baked_copies, name):
    """Its name, its mass and its given inertia (the aircraft's) as the table of built-ins says."""
    builtin = BUILTINS[name]
    body = shape.load(name)
    assert (body.body, body.mass, body.inertia) == (name, builtin.mass, builtin.inertia)


@pytest.mark.parametrize("name", [n for n, b in BUILTINS.items() if b.inertia is None])
def test_a_builtins_mass_properties_from_its_obj_are_trimeshs(no_baked_copies, name):
    """Read from the OBJ: the inertia at the built-in's mass is trimesh's moment of inertia of the OBJ
    (density 1, about the centre of mass) scaled by mass / volume."""
    builtin = BUILTINS[name]
    props = mass_properties(name)
    assert props.mass == builtin.mass and not props.explicit
    mesh = trimesh.load(ASSETS / builtin.resource, force="mesh")
    expected = mesh.moment_inertia * builtin.mass / mesh.volume
    got = inertia_tensor(*props.inertia)
    assert np.allclose(got, expected, rtol=0, atol=1e-9 * np.trace(expected))


def test_bake_writes_beside_the_obj_by_default(no_baked_copies):
    """Without a folder, bake writes the copy where load looks for it, and the built-in then loads from it."""
    path = shape.bake("phone")
    assert path == no_baked_copies / "phone.npz" and path.is_file()
    shape._load_builtin.cache_clear()
    read = shape._read_builtin("phone")
    loaded = shape.load("phone")
    for field in ("vertices", "faces", "colors", "centre", "unit_inertia"):
        assert np.array_equal(getattr(loaded, field), getattr(read, field)), field
