"""Where the compiled kernels are kept (sim.core.jit.cache_dir; docs/INSTALL.md): under ``$ATTITUDE_SIM_CACHE``,
else the XDG cache folder's ``attitude-sim`` (``$XDG_CACHE_HOME``, ``~/.cache``), else the temporary folder's
``attitude-sim-<uid>``; always in a folder ``kernels-<source key>``.  Each test here finds the folder anew (the
process's own choice is put back after it); numba is imported first, so its cache stays where it was."""

import os
import tempfile

import pytest

from sim.core import jit


@pytest.fixture
def fresh(monkeypatch):
    """``jit.cache_dir`` chosen again on its next read, without the user's ATTITUDE_SIM_CACHE."""
    jit.numba_module()  # numba's own CACHE_DIR set now, to this process's folder, never to the tests' ones
    monkeypatch.delenv("ATTITUDE_SIM_CACHE", raising=False)

    def again():
        monkeypatch.setattr(jit, "_cache_dir", None)
        return jit.cache_dir
    return again


def test_the_kernels_go_to_the_xdg_cache_folder_of_attitude_sim(fresh, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = fresh()
    assert folder == tmp_path / "attitude-sim" / f"kernels-{jit.source_key()}"
    assert folder.is_dir()


def test_an_unusable_cache_folder_falls_back_to_the_temporary_one_run_after_run(fresh, monkeypatch, tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    uid = os.getuid() if hasattr(os, "getuid") else 0
    expected = tmp_path / "tmp" / f"attitude-sim-{uid}" / f"kernels-{jit.source_key()}"
    first = fresh()   # the first run makes it
    second = fresh()  # a later run finds it there and uses it
    assert first == second == expected and expected.is_dir()
    assert blocked.read_text() == "a file where the cache folder would be"
