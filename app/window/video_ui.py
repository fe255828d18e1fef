"""File > Record video in the window: the dialog, the recording mark with its Stop button, the messages.

:class:`VideoControl` is the window's side of a live recording
(:class:`app.window.video.LiveRecording`): File > Record video… (checkable)
opens a :class:`RecordVideoDialog` (the file, the whole window or the 3D
view, the frame rate), and while it records a red mark in the status bar
counts the seconds beside a Stop button.  The mark and the button are left
out of the pictures.  Stopping finishes the file in a thread; the window
then says where it is, how long, and how many pictures were dropped
because the encoder was behind (the simulation never waits for it).
"""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QStatusBar, QVBoxLayout, QWidget)

from app.ffmpeg import FPS_CHOICES, GIF_FPS, EncoderError, check_output
from app.window.video import LiveRecording

__all__ = ["VideoControl", "RecordVideoDialog", "WHAT_LABELS"]

#: The choices of "Record", shown in the dialog.
WHAT_LABELS = {"window": "The whole window", "view": "The 3D view"}
#: Video formats of the file dialog.
KINDS = "MP4 video (*.mp4);;GIF animation (*.gif)"


class RecordVideoDialog(QDialog):
    """Where and what to record: a file (``.mp4`` or ``.gif``), the window or the 3D view, 30 or 60 fps.

    Record checks the choice (:func:`app.ffmpeg.check_output`): a file that
    cannot be written is marked with the reason and the dialog stays open.

    Parameters
    ----------
    folders : app.window.dialogs.FolderMemory
        Where Browse… starts; the name proposed is in the folder used last.
    sizes : dict
        ``what`` -> ``(width, height)`` the video would have.
    parent : QWidget, optional
    """

    def __init__(self, folders, sizes, parent=None):
        super().__init__(parent, windowTitle="Record video")
        self._folders = folders
        self._sizes = dict(sizes)
        self.path = QLineEdit(os.path.join(folders.folder(), "flight.mp4"), objectName="video_path")
        self.path.setMinimumWidth(360)
        browse = QPushButton("Browse…", objectName="video_browse")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        self.what = QComboBox(objectName="video_what")
        for key, label in WHAT_LABELS.items():
            self.what.addItem(f"{label} ({self._sizes[key][0]}x{self._sizes[key][1]})", key)
        self.fps = QComboBox(objectName="video_fps")
        for fps in FPS_CHOICES:
            self.fps.addItem(f"{fps} frames per second", fps)
        self.error = QLabel(objectName="label_message", wordWrap=True, visible=False)
        note = QLabel("Records what you fly, as you fly it, until Stop. MP4 (H.264) plays in browsers and "
                      "slides; a GIF takes 30 fps and grows quickly.", objectName="note", wordWrap=True)
        form = QFormLayout()
        form.addRow("File", row)
        form.addRow("Record", self.what)
        form.addRow("Frame rate", self.fps)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.record = buttons.addButton("Record", QDialogButtonBox.ButtonRole.AcceptRole)
        self.record.setObjectName("video_record")
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.path.textChanged.connect(self._suffix_changed)
        self._suffix_changed(self.path.text())

    def choice(self) -> tuple[str, str, int]:
        """``(path, what, fps)`` as chosen."""
        return self.path.text().strip(), self.what.currentData(), self.fps.currentData()

    def _browse(self) -> None:
        path = self._folders.ask_save(self, "Record video to", os.path.basename(self.path.text()) or "flight.mp4",
                                      KINDS)
        if path:
            self.path.setText(path)

    def _suffix_changed(self, text: str) -> None:
        """A GIF takes 30 fps only: the other rates are greyed out."""
        gif = text.strip().lower().endswith(".gif")
        model = self.fps.model()
        for index in range(self.fps.count()):
            model.item(index).setEnabled(not gif or self.fps.itemData(index) in GIF_FPS)
        if gif and self.fps.currentData() not in GIF_FPS:
            self.fps.setCurrentIndex(self.fps.findData(GIF_FPS[0]))

    def _check(self) -> None:
        path, what, fps = self.choice()
        try:
            if not path:
                raise EncoderError("give a file name ending in .mp4 or .gif")
            check_output(path, self._sizes[what], fps)
        except EncoderError as exc:
            self._mark(str(exc))
            return
        self._mark(None)
        self.accept()

    def _mark(self, error: str | None) -> None:
        self.error.setText(error or "")
        self.error.setVisible(error is not None)
        self.path.setProperty("invalid", "true" if error else "false")  # a string: PySide6 mis-counts bools
        self.path.style().unpolish(self.path)
        self.path.style().polish(self.path)


class VideoControl(QObject):
    """File > Record video for a :class:`~app.window.main.MainWindow`: dialog, mark, Stop, messages.

    Parameters
    ----------
    window : MainWindow
        Its status bar gets the mark and the Stop button; its
        :meth:`~app.window.main.MainWindow.show_message` says how it went.
    status_bar : QStatusBar

    Attributes
    ----------
    recording : LiveRecording or None
        The recording in progress, or None.
    finishing : LiveRecording or None
        The last recording stopped (its file may still be being finished:
        :meth:`LiveRecording.wait`).
    changed : Signal(bool)
        Recording started (True) or stopped (False): File > Record video's check mark.
    """

    changed = Signal(bool)

    def __init__(self, window, status_bar: QStatusBar):
        super().__init__(window)
        self._window = window
        self.recording: LiveRecording | None = None
        self.finishing: LiveRecording | None = None
        self.mark = QLabel(objectName="status_video", visible=False)
        self.stop_button = QPushButton("Stop", objectName="button_video_stop", visible=False,
                                       toolTip="Stop recording the video (File > Record video)")
        self.stop_button.clicked.connect(self.stop)
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.mark)
        row.addWidget(self.stop_button)
        status_bar.insertPermanentWidget(0, box)
        self._clock = QTimer(self, interval=500)
        self._clock.timeout.connect(self._show_mark)

    def sizes(self) -> dict:
        """``what`` -> the ``(width, height)`` a video started now would have (:class:`LiveRecording`)."""
        return {what: LiveRecording.size_of(self._window, what) for what in WHAT_LABELS}

    def ask(self, checked: bool = True) -> None:
        """File > Record video… (checkable): ask what to record and start, or stop."""
        if not checked:
            self.stop()
            return
        if self.recording is not None:
            return
        dialog = RecordVideoDialog(self._window.dialogs.folders, self.sizes(), self._window)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            path, what, fps = dialog.choice()
            self._window.dialogs.folders.remember(path)
            self.start(path, what, fps)
        self.changed.emit(self.recording is not None)

    def start(self, path, what: str = "window", fps: int = 30) -> bool:
        """Start recording ``what`` to ``path`` now; on error say why (False)."""
        if self.recording is not None:
            self._window.show_message(f"Already recording a video to {self.recording.path}")
            return False
        try:
            recording = LiveRecording(self._window, path, what, fps, hide=(self.mark, self.stop_button),
                                      parent=self)
        except EncoderError as exc:
            self._window.show_message(str(exc))
            return False
        recording.finished.connect(self._finished)
        recording.failed.connect(self._failed)
        self.recording = recording
        self._show_mark()
        self.mark.show()
        self.stop_button.show()
        self._clock.start()
        self.changed.emit(True)
        return True

    def stop(self) -> None:
        """Stop the recording; the file is finished in a thread, and the window says when it is."""
        recording = self.recording
        if recording is None:
            return
        self.recording = None
        self.finishing = recording
        self._clock.stop()
        self.mark.hide()
        self.stop_button.hide()
        recording.stop()
        self._window.statusBar().showMessage(f"Finishing the video {os.path.basename(recording.path)}…")
        self.changed.emit(False)

    def close(self, timeout: float = 30.0) -> None:
        """Stop and finish the file before the window closes (waits up to ``timeout`` s)."""
        self.stop()
        if self.finishing is not None and not self.finishing.wait(timeout):
            print(f"attitude-sim: the video {self.finishing.path} was not finished within {timeout:g} s",
                  file=sys.stderr)

    def _show_mark(self) -> None:
        recording = self.recording
        if recording is None:
            return
        seconds = int(recording.seconds)
        self.mark.setText(f"● REC video {seconds // 60}:{seconds % 60:02d} {os.path.basename(recording.path)}")

    def _finished(self, result) -> None:
        dropped = (f"; {result.dropped:,} pictures dropped (the encoder was behind; the previous picture "
                   "shows in their place)") if result.dropped else ""
        self._window.show_message(f"Saved the video {result.path}: {result.seconds:.1f} s, {result.frames:,} "
                                  f"frames, {result.bytes / 1e6:.1f} MB{dropped}", error=False)

    def _failed(self, why: str) -> None:
        if self.recording is not None and self.recording.error is not None:  # failed while recording
            self.recording = None
            self._clock.stop()
            self.mark.hide()
            self.stop_button.hide()
            self.changed.emit(False)
        self._window.show_message(f"The video was not saved: {why}")
