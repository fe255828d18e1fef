"""File dialogs that start in the folder used last, remembered across sessions.

Every open and save dialog of the window goes through one
:class:`FolderMemory`: it starts in the folder of the file chosen last (any
dialog), which the window keeps in its ``QSettings`` (key
:data:`SETTINGS_KEY`) so it holds across sessions; before any choice, or when
that folder is gone, in the current directory.
"""

from __future__ import annotations

import os

from PySide6.QtWidgets import QFileDialog

__all__ = ["FolderMemory", "SETTINGS_KEY"]

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
