"""The window's centre column: the title and legend, the caption, the fault banner and messages, the attitude
view above the orbit view (a vertical splitter), the readouts and the orbit readouts.

:class:`CentreColumn` is a widget that owns these parts and their state (the message's timer); the
:class:`~app.window.main.MainWindow` makes the attitude view and the readouts before and hands them in.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from app.view3d.orbit import OrbitView
from app.window.orbit_readouts import OrbitReadouts

__all__ = ["CentreColumn"]


class CentreColumn(QWidget):
    """The centre column (module docstring) around ``viewer`` and ``readouts``; an error message stays ``message_ms``.

    Attributes
    ----------
    title, caption, legend, fault_banner, message : QLabel
        The scenario's title and caption, the ghosts' legend, the fault and the latest error message.
    views : QSplitter
        The attitude view above the orbit view.
    orbit_view : OrbitView
    orbit_readouts : OrbitReadouts
    """

    def __init__(self, viewer, readouts, message_ms: int):
        super().__init__(objectName="centre")
        self.orbit_view, self.orbit_readouts = OrbitView(), OrbitReadouts()
        self.title = QLabel(objectName="label_title", wordWrap=True)  # a long title wraps: the window fits 1280 px
        self.caption = QLabel(objectName="label_caption", wordWrap=True)
        self.legend = QLabel(objectName="label_legend", textFormat=Qt.TextFormat.RichText)
        self.fault_banner = QLabel(objectName="label_fault", wordWrap=True, visible=False)
        self.message = QLabel(objectName="label_message", wordWrap=True, visible=False)
        self._message_timer = QTimer(self, singleShot=True, interval=message_ms)
        self._message_timer.timeout.connect(self.message.hide)
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.legend)
        column = QVBoxLayout(self)
        column.setContentsMargins(4, 4, 4, 0)
        column.setSpacing(3)
        column.addLayout(head)
        for widget in (self.caption, self.fault_banner, self.message):
            column.addWidget(widget)
        self.views = QSplitter(Qt.Orientation.Vertical, objectName="views")  # the attitude and orbit views
        for view in (viewer, self.orbit_view):
            self.views.addWidget(view)
        column.addWidget(self.views, 1)
        column.addWidget(readouts)
        column.addWidget(self.orbit_readouts)

    def show_error(self, text: str) -> None:
        """Show ``text`` above the 3D view for the message time (a later one replaces it and starts the time again)."""
        self.message.setText(text)
        self.message.show()
        self._message_timer.start()

    def show_heading(self, title: str, caption: str) -> None:
        """The title, and the caption (hidden when empty)."""
        self.title.setText(title)
        self.caption.setText(caption)
        self.caption.setVisible(bool(caption))

    def show_fault(self, fault) -> None:
        """The fault banner for ``fault`` (an :class:`~app.worker.Fault`), hidden for None."""
        self.fault_banner.setVisible(fault is not None)
        if fault is not None:
            self.fault_banner.setText(f"Simulation stopped: {fault}. Press Reset to recover.")
