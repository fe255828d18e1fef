"""sim.io.files.Output on a regular file: the new file gets the usual permissions (0666 less the umask),
the temporary file beside the target is named ``<target>.<random>.part``, and a write that fails (a full
disk) leaves the temporary file cut back to its whole chunks and raises OSError."""

import errno
import os
import stat

import pytest

from sim.io import files


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_a_new_file_has_the_permissions_of_any_new_file(tmp_path):
    target = tmp_path / "rows.csv"
    with files.Output(target) as out:
        out.write(b"t,q1\n")
        out.commit()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~_umask()


def test_the_temporary_file_is_beside_the_target_and_ends_in_part(tmp_path):
    target = tmp_path / "rows.csv"
    out = files.Output(target)
    out.write(b"t,q1\n")
    partial = out.keep_partial()
    folder, name = os.path.split(partial)
    assert folder == str(tmp_path)
    assert name.startswith("rows.csv.") and name.endswith(".part") and len(name) > len("rows.csv..part")
    assert not target.exists()
    with open(partial, "rb") as f:
        assert f.read() == b"t,q1\n"


def test_a_failed_write_leaves_the_whole_chunks_and_raises(tmp_path, monkeypatch):
    out = files.Output(tmp_path / "rows.csv")
    out.write(b"1,2\n")
    real_write = os.write

    def full_disk(fd, data):
        if fd != out._fd:
            return real_write(fd, data)
        real_write(fd, bytes(data[:3]))  # part of the chunk goes out, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError) as caught:
        out.write(b"3,4\n5,6\n")
    monkeypatch.undo()
    assert caught.value.errno == errno.ENOSPC
    partial = out.keep_partial()
    with open(partial, "rb") as f:
        assert f.read() == b"1,2\n"
