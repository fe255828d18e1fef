"""The desktop window: it composes the rooms of app/ around one flight.

==================================  ===========================================================
:mod:`app.window.main`              :class:`MainWindow`: layout, frame loop, actions
:mod:`app.window.launch`            the application, :func:`open_window`, screenshots,
                                    :func:`run_gui` (``attitude-sim gui``)
:mod:`app.window.pictures`          pictures of the whole window with its 3D views, PNG files
:mod:`app.window.render`            :func:`~app.window.render.render_video` (``attitude-sim video``)
:mod:`app.window.video`             video frames of the window or its 3D view; the live recording
:mod:`app.window.video_ui`          File > Record video: its dialog, mark and Stop button
:mod:`app.window.theme`             palette, style sheet, the colours the window hands out
:mod:`app.window.menus`             the menu bar
:mod:`app.window.statusbar`         the status bar: time, real-time factor, steps/s, fps
:mod:`app.window.dialogs`           file dialogs that remember their folder
:mod:`app.window.export`            the history to CSV in a background thread
:mod:`app.window.keys`              flying with the keyboard
:mod:`app.window.help_window`       the F1 help (a tool window)
:mod:`app.window.readouts`          the numbers of the current state
==================================  ===========================================================
"""

from app.window.launch import application, open_window, run_gui
from app.window.main import MainWindow
from app.window.pictures import grab_window

__all__ = ["MainWindow", "run_gui", "application", "open_window", "grab_window"]
