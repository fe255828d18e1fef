"""The window's centre column: the title and legend, the caption and messages, the attitude view above the
orbit view (a vertical splitter), the readouts and the orbit readouts.

:func:`build_centre` makes its widgets as attributes of the :class:`~app.window.main.MainWindow`
(``title``, ``caption``, ``legend``, ``fault_banner``, ``message``, ``views``, ``orbit_view``,
``orbit_readouts``); the window's ``viewer`` and ``readouts`` are made before.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QVBoxLayout, QWidget

from app.view3d.orbit import OrbitView
from app.window.orbit_readouts import OrbitReadouts

__all__ = ["build_centre"]


def build_centre(window, message_ms: int) -> QWidget:
    """The centre column of ``window`` (module docstring); an error message stays ``message_ms``."""
    w = window
    w.orbit_view, w.orbit_readouts = OrbitView(), OrbitReadouts()
    w.title = QLabel(objectName="label_title")
    w.caption = QLabel(objectName="label_caption", wordWrap=True)
    w.legend = QLabel(objectName="label_legend", textFormat=Qt.TextFormat.RichText)
    w.fault_banner = QLabel(objectName="label_fault", wordWrap=True, visible=False)
    w.message = QLabel(objectName="label_message", wordWrap=True, visible=False)
    w._message_timer = QTimer(w, singleShot=True, interval=message_ms)
    w._message_timer.timeout.connect(w.message.hide)
    head = QHBoxLayout()
    head.addWidget(w.title)
    head.addStretch(1)
    head.addWidget(w.legend)
    centre = QWidget(objectName="centre")
    column = QVBoxLayout(centre)
    column.setContentsMargins(4, 4, 4, 0)
    column.setSpacing(3)
    column.addLayout(head)
    for widget in (w.caption, w.fault_banner, w.message):
        column.addWidget(widget)
    w.views = QSplitter(Qt.Orientation.Vertical, objectName="views")  # the attitude and orbit views
    for view in (w.viewer, w.orbit_view):
        w.views.addWidget(view)
    column.addWidget(w.views, 1)
    column.addWidget(w.readouts)
    column.addWidget(w.orbit_readouts)
    return centre
