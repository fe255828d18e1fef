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


def _exceptions_of_sim() -> list:
    """Every exception class defined in a module of sim (each module imported)."""
    import importlib
    import inspect
    import pkgutil

    import sim

    found = {}
    for info in pkgutil.walk_packages(sim.__path__, "sim."):
        module = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, BaseException) and cls.__module__ == info.name:
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return [found[name] for name in sorted(found)]


def _made(cls):
    """An instance of ``cls`` given every positional parameter: a number for a float one, a distinct text otherwise."""
    import inspect

    if "__init__" not in vars(cls):  # the builtin exception's: any message
        return cls(f"a message of {cls.__name__}")
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    return cls(*(2.5 if "float" in str(p.annotation) else f"part {i} of {cls.__name__}"
                 for i, p in enumerate(params)
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)))


@pytest.mark.parametrize("cls", _exceptions_of_sim(), ids=lambda cls: cls.__name__)
def test_every_exception_of_sim_is_the_same_after_pickling(cls):
    """A Dask worker's exception reaches the client pickled: it must be made again whole (its text, its
    attributes, an OSError's strerror), or the client reads another error (a TypeError from unpickling)."""
    import pickle

    error = _made(cls)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is cls and str(again) == str(error) and vars(again) == vars(error)
    if isinstance(error, OSError):
        assert (again.errno, again.strerror, again.filename) == (error.errno, error.strerror, error.filename)


def test_a_pickled_refusal_keeps_its_reason():
    import pickle

    refusal = OutputRefused("--out /tmp: Is a directory", "Is a directory")
    again = pickle.loads(pickle.dumps(refusal))
    assert (str(again), again.strerror) == ("--out /tmp: Is a directory", "Is a directory")


def test_two_outputs_naming_one_new_file_by_two_spellings_are_refused(tmp_path):
    # the file does not exist yet (no inode to compare): the second output would overwrite the first
    first, second = str(tmp_path / "run.csv"), str(tmp_path / "sub" / ".." / "run.csv")
    os.mkdir(tmp_path / "sub")
    assert not os.path.exists(first)
    with pytest.raises(OutputRefused) as caught:
        files.check_outputs({"--out": first, "--trajectories": second}, {})
    assert str(caught.value) == (f"--out {first} and --trajectories {second}: the same file; "
                                 "give each its own name")
    assert not os.path.exists(first)


def test_two_outputs_that_are_hard_links_of_one_file_are_refused(tmp_path):
    # two names, two real paths, one inode: writing both would leave only the second's rows
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.write_text("kept\n")
    os.link(first, second)
    assert os.path.realpath(first) != os.path.realpath(second)
    with pytest.raises(OutputRefused, match="the same file; give each its own name"):
        files.check_outputs({"--out": str(first), "--trajectories": str(second)}, {})
    assert first.read_text() == "kept\n"
    files.check_outputs({"--out": str(first), "--trajectories": str(tmp_path / "c.csv")}, {})
