"""The header's format version of a recording (sim.run.recording.load_recording): an integer from 1 to
VERSION; a JSON true, a float or a text is not one, and only a whole number above VERSION is called newer."""

from __future__ import annotations

import json

import pytest

from sim.run.recording import VERSION, Recorder, RecordingError, load_recording
from sim.run.scenario import load


def _with_version(tmp_path, version):
    path = tmp_path / "r.jsonl"
    Recorder(path, load("default")).close(10)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["version"] = version
    lines[0] = json.dumps(header)
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("version, shown", [(True, "True"), (1.0, "1.0"), ("1", "'1'"), (0, "0"), (-3, "-3")])
def test_a_version_that_is_not_a_whole_number_from_one_is_refused_as_no_format_version(tmp_path, version, shown):
    # JSON's true is Python's True, an int equal to 1; 1.0 equals 1: neither is a format version
    path = _with_version(tmp_path, version)
    with pytest.raises(RecordingError) as caught:
        load_recording(path)
    assert str(caught.value) == (f"{path}, line 1: the header's version {shown} is not a format version "
                                 f"(an integer from 1 to {VERSION})")


def test_a_version_above_this_reader_is_called_newer(tmp_path):
    path = _with_version(tmp_path, VERSION + 1)
    with pytest.raises(RecordingError, match=f"format version {VERSION + 1}, newer than this attitude-sim reads"):
        load_recording(path)
