"""The window's file dialogs, which start in the folder used last, remembered across sessions.

:class:`FileDialogs` asks for a file and hands it to the window's action
(open a scenario, record, replay, save, export).  Every open and save
dialog goes through one :class:`FolderMemory`: it starts in the folder of
the file chosen last (any dialog), which the window keeps in its
``QSettings`` (key :data:`SETTINGS_KEY`) so it holds across sessions;
before any choice, or when that folder is gone, in the current directory.
"""

from __future__ import annotations

import os

from PySide6.QtWidgets import QFileDialog

__all__ = ["FileDialogs", "FolderMemory", "SETTINGS_KEY"]

#: QSettings key of the last folder.
SETTINGS_KEY = "dialogs/last_folder"


class FolderMemory:
    """The folder the next file dialog starts in.

    Parameters
    ----------
    settings : QSettings, optional
        Where the folder is kept between sessions; without, it is remembered
        for this object's life only (tests, screenshots).
    """

    def __init__(self, settings=None):
        self._settings = settings
        self._folder = None
        if settings is not None:
            saved = settings.value(SETTINGS_KEY)
            self._folder = str(saved) if saved else None

    def folder(self) -> str:
        """The last folder if it still exists, else the current directory."""
        if self._folder and os.path.isdir(self._folder):
            return self._folder
        return os.getcwd()

    def remember(self, path) -> None:
        """Start the next dialog in the folder of ``path`` (a file just chosen)."""
        folder = os.path.dirname(os.path.abspath(os.fspath(path)))
        self._folder = folder
        if self._settings is not None:
            self._settings.setValue(SETTINGS_KEY, folder)
            self._settings.sync()

    def ask_open(self, parent, title: str, kinds: str) -> str:
        """An open dialog in :meth:`folder`; the chosen path ('' when cancelled) is remembered."""
        path, _ = QFileDialog.getOpenFileName(parent, title, self.folder(), kinds)
        if path:
            self.remember(path)
        return path

    def ask_save(self, parent, title: str, name: str, kinds: str) -> str:
        """A save dialog proposing ``name`` in :meth:`folder`; the chosen path ('' when cancelled) is remembered."""
        path, _ = QFileDialog.getSaveFileName(parent, title, os.path.join(self.folder(), name), kinds)
        if path:
            self.remember(path)
        return path


class FileDialogs:
    """The dialogs of the File and Scenario menus: each asks for a file, then calls the window's action.

    Parameters
    ----------
    window : app.window.main.MainWindow
        The dialogs' parent, and whose actions they call.
    folders : FolderMemory
        Where the dialogs start.
    """

    def __init__(self, window, folders: FolderMemory):
        self._window = window
        self.folders = folders

    def ask_scenario(self) -> None:
        """Scenario > Open: a scenario file to fly."""
        path = self.folders.ask_open(self._window, "Open scenario", "Scenario (*.toml);;All files (*)")
        if path:
            self._window.runs.open_scenario(path)

    def toggle_recording(self, checked: bool) -> None:
        """File > Record (checkable): ask where to record and start, or stop recording."""
        if not checked:
            self._window.runs.stop_recording()
            return
        path = self.folders.ask_save(self._window, "Record to (restarts the run at t = 0)", "recording.jsonl",
                                     "Recording (*.jsonl)")
        if not (path and self._window.runs.start_recording(path)):
            self._window.runs.show_recording()  # cancelled or refused: the action unchecked again

    def ask_replay(self) -> None:
        """File > Replay: a recording to fly."""
        path = self.folders.ask_open(self._window, "Replay recording", "Recording (*.jsonl);;All files (*)")
        if path:
            self._window.runs.replay(path)

    def ask_save_scenario(self) -> None:
        """File > Save scenario."""
        self._ask_save("Save scenario", f"{self._window.scenario.name}.toml", "Scenario (*.toml)",
                       self._window.runs.save_scenario)

    def ask_export_csv(self) -> None:
        """File > Export history CSV."""
        self._ask_save("Export history", "history.csv", "CSV (*.csv)", self._window.runs.export_csv)

    def ask_export_plots(self) -> None:
        """File > Export plots PNG."""
        self._ask_save("Export plots", "plots.png", "PNG (*.png)", self._window.runs.export_plots)

    def ask_save_view(self) -> None:
        """File > Save 3D view PNG."""
        self._ask_save("Save 3D view", "view.png", "PNG (*.png)", self._window.runs.save_view)

    def _ask_save(self, title, default, kind, write) -> None:
        path = self.folders.ask_save(self._window, title, default, kind)
        if path:
            write(path)
