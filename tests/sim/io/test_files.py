"""sim.io.files: what a refused file is called, and a socket given in place of a file."""

import errno
import os
import socket
import stat

import pytest

from sim.io.reading import FileRefused, kind_of, read_regular


@pytest.mark.parametrize("kind, words", [
    (stat.S_IFDIR, "a directory"),
    (stat.S_IFCHR, "a character device"),
    (stat.S_IFBLK, "a block device"),
    (stat.S_IFIFO, "a FIFO (named pipe)"),
    (stat.S_IFSOCK, "a socket"),
    (stat.S_IFLNK, "not a regular file"),  # what fstat never shows, still named
])
def test_every_kind_of_file_is_named_in_words(kind, words):
    assert kind_of(kind | 0o644) == words


def test_a_socket_in_place_of_a_scenario_is_refused_by_name(tmp_path):
    path = tmp_path / "listening.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        with pytest.raises(FileRefused) as refused:
            read_regular(path, 1000, 100, "scenario file")
    # a socket cannot be opened as a file (ENXIO): the system's reason, with the path
    assert str(refused.value) == f"{path}: cannot read ({os.strerror(errno.ENXIO)})"
