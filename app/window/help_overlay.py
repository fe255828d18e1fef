"""The F1 help: the flying keys and what to watch, over the window's centre."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout

from app.window.keys import KEY_TORQUE

__all__ = ["HelpOverlay", "HELP_HTML"]

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


class HelpOverlay(QFrame):
    """A translucent panel covering its parent; F1, Esc or a click closes it.

    Parameters
    ----------
    parent : QWidget
        The widget to cover; the overlay follows its size.
    """

    def __init__(self, parent):
        super().__init__(parent, objectName="help_overlay")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        text = QLabel(HELP_HTML, wordWrap=True, textFormat=Qt.TextFormat.RichText)
        text.setMaximumWidth(760)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(40, 30, 40, 30)
        layout.addWidget(text, 0, Qt.AlignmentFlag.AlignCenter)
        parent.installEventFilter(self)
        self.hide()

    def toggle(self) -> None:
        """Show the help over the parent, or hide it."""
        if self.isVisible():
            self.hide()
        else:
            self.setGeometry(self.parentWidget().rect())
            self.raise_()
            self.show()
            self.setFocus()

    def keyPressEvent(self, event):
        """Esc closes the help."""
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
        else:
            super().keyPressEvent(event)

    def mousePressEvent(self, event):
        """A click closes the help."""
        self.hide()

    def eventFilter(self, watched, event):
        """Follow the parent's size."""
        if event.type() == QEvent.Type.Resize and watched is self.parentWidget():
            self.setGeometry(watched.rect())
        return False
