"""sim.model.surface_file.read reads a surfaces file again when it changes on disk, also when the new
contents have the same size as the old (an edited coefficient: 2.2 -> 2.4)."""

import os

from sim.model import surface_file


def test_an_edited_file_of_the_same_size_is_read_again(tmp_path):
    path = tmp_path / "surfaces.toml"
    path.write_text("[default]\ndrag = 2.2\n")
    os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    default, _ = surface_file.read(path)
    assert default["drag"] == 2.2
    path.write_text("[default]\ndrag = 2.4\n")  # the same number of bytes
    os.utime(path, ns=(1_700_000_000_000_000_001, 1_700_000_000_000_000_001))  # modified 1 ns later
    default, _ = surface_file.read(path)
    assert default["drag"] == 2.4
