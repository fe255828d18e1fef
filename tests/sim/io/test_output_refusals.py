"""sim.io.files, the one writer: a refused output says the system's reason as an OSError does (strerror)
beside its whole message, and a writer's intermediates (PartialFile.stage) are fresh private files named
``target.<random>.part<suffix>`` beside the target, gone after commit or discard."""

import errno
import os
import re
import stat

import pytest

from sim.io import files
from sim.io.files import Output, OutputRefused, PartialFile


def test_a_directory_as_output_is_refused_with_the_systems_reason(tmp_path):
    with pytest.raises(OutputRefused) as caught:
        Output(tmp_path, "--out")
    refused = caught.value
    assert isinstance(refused, OSError)
    assert refused.strerror == os.strerror(errno.EISDIR)          # "Is a directory", as open() says it
    assert str(refused).startswith(f"--out {tmp_path}") and "directory" in str(refused)


def test_a_refusal_without_a_short_reason_gives_its_message_as_the_reason():
    refused = OutputRefused("--out x.csv: cannot write (No such file or directory)")
    assert refused.strerror == str(refused) == "--out x.csv: cannot write (No such file or directory)"
    assert OutputRefused("--out d: is a directory", "Is a directory").strerror == "Is a directory"


def test_a_refusal_carries_its_message_in_args_as_every_exception_does():
    refused = OutputRefused("--video clip.mp4: cannot write (Permission denied)", "Permission denied")
    assert refused.args == ("--video clip.mp4: cannot write (Permission denied)",)
    assert "clip.mp4" in repr(refused)          # what a log or a debugger shows


def test_reading_the_umask_leaves_it_as_it_was():
    before = os.umask(0o027)
    try:
        assert files._read_umask() == 0o027
        assert os.umask(0o027) == 0o027
    finally:
        os.umask(before)


@pytest.mark.parametrize("end", ["commit", "discard"])
def test_a_stage_is_a_fresh_private_part_file_beside_the_target_removed_at_the_end(tmp_path, end):
    target = tmp_path / "clip.gif"
    part = PartialFile(target, "--video", ".gif")
    stages = [part.stage(".mkv"), part.stage(".png")]
    for name, suffix in zip(stages, (".mkv", ".png")):
        assert os.path.dirname(name) == str(tmp_path)
        assert re.fullmatch(r"clip\.gif\.[^/]+\.part" + re.escape(suffix), os.path.basename(name)), name
        mode = os.stat(name)
        assert mode.st_size == 0 and stat.S_IMODE(mode.st_mode) == 0o600
    assert stages[0] != stages[1]
    getattr(part, end)()
    assert not any(os.path.exists(name) for name in stages)
    assert target.exists() == (end == "commit")
