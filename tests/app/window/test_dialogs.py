"""File dialogs start in the folder chosen last, kept in QSettings across sessions."""

import os

import pytest
from PySide6.QtCore import QSettings

import app.window.dialogs
from app.window.dialogs import SETTINGS_KEY, FolderMemory


class FakeDialogs:
    """Stands in for QFileDialog: records the folder each dialog starts in and answers ``answers``."""

    def __init__(self, monkeypatch, answers):
        self.started_in = []
        self.answers = list(answers)
        monkeypatch.setattr(app.window.dialogs.QFileDialog, "getSaveFileName", self._ask)
        monkeypatch.setattr(app.window.dialogs.QFileDialog, "getOpenFileName", self._ask)

    def _ask(self, parent, title, start, kinds):
        self.started_in.append(start)
        return self.answers.pop(0), kinds


def ini(tmp_path):
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def test_first_dialog_starts_in_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert FolderMemory().folder() == str(tmp_path)
    assert FolderMemory(ini(tmp_path)).folder() == str(tmp_path)


def test_the_folder_of_the_chosen_file_is_next(qapp, tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    fake = FakeDialogs(monkeypatch, [str(tmp_path / "a" / "h.csv"), str(tmp_path / "b" / "s.toml"), "", ""])
    memory = FolderMemory()
    assert memory.ask_save(None, "Export", "h.csv", "CSV (*.csv)") == str(tmp_path / "a" / "h.csv")
    assert memory.ask_open(None, "Open", "Scenario (*.toml)") == str(tmp_path / "b" / "s.toml")
    assert memory.ask_save(None, "Export", "plots.png", "PNG (*.png)") == ""  # cancelled
    memory.ask_open(None, "Open", "*")
    assert fake.started_in[1] == str(tmp_path / "a")
    assert fake.started_in[2] == os.path.join(str(tmp_path / "b"), "plots.png")
    assert fake.started_in[3] == str(tmp_path / "b")  # a cancelled dialog changes nothing


def test_the_folder_is_kept_across_sessions(tmp_path):
    (tmp_path / "runs").mkdir()
    FolderMemory(ini(tmp_path)).remember(tmp_path / "runs" / "x.jsonl")
    assert ini(tmp_path).value(SETTINGS_KEY) == str(tmp_path / "runs")
    assert FolderMemory(ini(tmp_path)).folder() == str(tmp_path / "runs")


def test_a_folder_that_is_gone_falls_back_to_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "gone").mkdir()
    FolderMemory(ini(tmp_path)).remember(tmp_path / "gone" / "x.csv")
    (tmp_path / "gone").rmdir()
    monkeypatch.chdir(tmp_path)
    assert FolderMemory(ini(tmp_path)).folder() == str(tmp_path)


@pytest.mark.gl
def test_window_dialogs_share_the_last_folder(main_window, tmp_path, monkeypatch):
    window = main_window()
    (tmp_path / "out").mkdir()
    fake = FakeDialogs(monkeypatch, [str(tmp_path / "out" / "plots.png"), ""])
    window.dialogs.ask_export_plots()
    window.dialogs.ask_scenario()
    assert fake.started_in[1] == str(tmp_path / "out")
    assert (tmp_path / "out" / "plots.png").exists()
