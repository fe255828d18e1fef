"""A surfaces file (sim.model.surface_file, docs/PHYSICS.md "Surface coefficients") refused for a bad number
inside a vector: one error naming the file, the entry and the key, as the module promises."""

import pytest

from sim.model.surface_file import SurfaceFileError, parse


@pytest.mark.parametrize("key, line", [
    ("color", 'color = [0.2, "blue", 0.78]'),
    ("normal", "normal = [0, nan, -1]"),
    ("box", 'box = [[-1, 0.3, -1], [1, 3, "far"]]'),
])
def test_a_bad_component_names_the_file_the_entry_and_the_key(key, line):
    text = f'[[surface]]\nname = "cells"\nnormal = [0, 0, 1]\ndrag = 2.0\n\n[[surface]]\n{line}\nabsorbed = 0.8\nspecular = 0.1\ndiffuse = 0.1\n'
    with pytest.raises(SurfaceFileError) as caught:
        parse(text, "panels.toml")
    message = str(caught.value)
    assert message.startswith("panels.toml") and "#2" in message and f" {key}:" in message, message
