"""The F1 help: the flying keys and what to watch, in a tool window of its own above the main window.

Not a widget drawn over the window: the 3D views are native OpenGL windows
(``QOpenGLWindow`` in window containers, :mod:`app.view3d.glwindow`), and a
native window stays above every widget of its parent, so an overlay showed
only in fragments around them (issue 43).  A top-level tool window is
stacked by the window system above its parent window, views included, and
is sized to the screen rather than to the main window, so it reads the same
at any window size; the text scrolls where the screen is short.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QDialog, QLabel, QScrollArea, QVBoxLayout

from app.window.keys import KEY_TORQUE

__all__ = ["HelpWindow", "HELP_HTML", "HELP_WIDTH"]

#: The help's width, pixels, where the screen allows: about 90 characters a line.
HELP_WIDTH = 820

HELP_HTML = f"""
<h2>Flying</h2>
<table cellspacing="6">
<tr><td><b>W</b> / <b>↑</b></td><td>nose up (+Ty)</td>
    <td><b>S</b> / <b>↓</b></td><td>nose down (−Ty)</td></tr>
<tr><td><b>D</b> / <b>→</b></td><td>roll right (+Tx)</td>
    <td><b>A</b> / <b>←</b></td><td>roll left (−Tx)</td></tr>
<tr><td><b>E</b></td><td>yaw right (+Tz)</td>
    <td><b>Q</b></td><td>yaw left (−Tz)</td></tr>
</table>
<p>Each held key adds half its slider's range on its axis to the slider torque ({KEY_TORQUE:g} N m for the
aircraft; the ranges follow the body's inertia); letting go returns to the sliders. Keys typed into a text
field stay in the field.</p>
<p><b>Space</b> pause / run &nbsp; <b>N</b> single step &nbsp; <b>R</b> reset &nbsp;
<b>F1</b> this help &nbsp; drag the 3D view to orbit, wheel to zoom, <b>Home</b> resets the camera.</p>
<h2>What to watch</h2>
<ul>
<li><b>|Q| − 1</b>: the norm error of the attitude quaternion. Hoffmann's correction keeps it near
rounding; with norm handling <i>none</i> it drifts, and beyond 1e-3 the run stops with a fault;
with <i>elimination</i> (Joshi) it drifts freely while the attitude is read as Q/|Q|; rkmk4 and
splitting keep it at rounding with no norm handling at all.</li>
<li><b>λ against 4T</b>: the Lagrange multiplier of the norm constraint (Sherif), taken from the
integrator's own state, equals four times the kinetic energy for exact motion. With full-quat
<i>hoffmann</i> or <i>raw</i> both fall: (4.15) lacks the constraint force, and the energy drains;
the <i>lagrange</i> form adds it back (<i>kane</i> embeds the constraint instead). With
<i>elimination</i> λ is that of Q/|Q| and lies on 4T: the constraint is eliminated, not enforced.</li>
<li><b>The gimbal rig</b> (right of the aircraft) turns by ψ, θ, φ. Near θ = ±90° two rings line up:
the Euler angles jump and mean nothing there, while the aircraft, driven by the quaternion, turns
smoothly.</li>
<li>At every frame the 3D view draws the bodies and the rig SLERPed between two computed states at the
display time, one state and a frame behind at most, so they turn smoothly when a step lasts longer than
a frame (dt = 0.1 s at 1x) and when each frame brings a few steps; the readouts and plots show the
computed states.</li>
<li><b>The blue ghost</b> is the command attitude; with a controller on, the aircraft flies to it
along the SLERP path. Coloured ghosts are a scenario's comparison bodies (legend above the view);
the <b>Compare</b> tab (Ctrl+T) plots their attitude error against the rk4 body, energy drift and
norm drift, and for a torque-free body the period of its rates against 4&nbsp;K(m)/λ.</li>
<li><b>The Ensemble</b> tab (Ctrl+E) flies many bodies with the aircraft's inputs: each point on its
sphere is one body's nose, coloured by its attitude error (the histogram below is the legend); with
shortest path off the bodies facing away turn the long way round (large points). <b>Load worst</b>
or a click on a point puts that body's initial state into the aircraft.</li>
</ul>
<p style="color:#9aa3b2">F1 or Esc closes this help.</p>
"""


class HelpWindow(QDialog):
    """The help as a tool window of the main window: F1 (the main window's Help menu) opens or closes it,
    Esc or F1 closes it; not modal, so the run goes on beside it.

    Parameters
    ----------
    parent : QWidget
        The main window: the help is stacked above it and centred on it.
    """

    def __init__(self, parent):
        super().__init__(parent, Qt.WindowType.Tool, objectName="help_window")
        self.setWindowTitle("attitude-sim: keys and what to watch")
        self.text = QLabel(HELP_HTML, wordWrap=True, textFormat=Qt.TextFormat.RichText, objectName="label_help")
        self.text.setContentsMargins(24, 12, 24, 12)
        self.scroll = QScrollArea(widgetResizable=True, objectName="scroll_help")
        self.scroll.setWidget(self.text)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll)

    def toggle(self) -> None:
        """Show the help above the main window, centred on it and inside its screen, or close it."""
        if self.isVisible():
            self.close()
            return
        self.setGeometry(self._place())
        self.show()
        self.raise_()
        self.activateWindow()

    def _place(self) -> QRect:
        """The help's geometry: :data:`HELP_WIDTH` by the text's height, both at most the screen's available
        size (less a margin), centred on the main window and moved inside the screen."""
        window = self.parentWidget().window()
        screen = (window.screen() or self.screen()).availableGeometry()
        width = min(HELP_WIDTH, screen.width() - 40)
        bar = self.scroll.verticalScrollBar().sizeHint().width()
        height = min(self.text.heightForWidth(width - bar) + 4, screen.height() - 60)
        box = QRect(0, 0, width, height)
        box.moveCenter(window.frameGeometry().center())
        box.moveTopLeft(QPoint(min(max(box.left(), screen.left()), screen.right() + 1 - width),
                               min(max(box.top(), screen.top()), screen.bottom() + 1 - height)))
        return box

    def keyPressEvent(self, event):
        """Esc (the dialog's own) or F1 closes the help."""
        if event.key() == Qt.Key.Key_F1:
            self.close()
        else:
            super().keyPressEvent(event)
