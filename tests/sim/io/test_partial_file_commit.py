"""sim.io.files.PartialFile: a second commit (a writer that commits, then leaves the ``with`` block) keeps
the whole file and raises nothing; a refused target is named with the caller's name for the output."""

import pytest

from sim.io.files import OutputRefused, PartialFile


def test_committing_twice_keeps_the_whole_file(tmp_path):
    target = tmp_path / "movie.gif"
    with PartialFile(target, "video", ".gif") as part:
        with open(part.partial, "wb") as handle:
            handle.write(b"GIF89a whole")
        part.commit()
    assert target.read_bytes() == b"GIF89a whole"
    assert part.partial is None and sorted(p.name for p in tmp_path.iterdir()) == ["movie.gif"]


def test_a_refused_target_is_named_as_the_caller_names_it(tmp_path):
    with pytest.raises(OutputRefused) as caught:
        PartialFile(tmp_path, "video")
    assert "video" in str(caught.value) and str(tmp_path) in str(caught.value)
