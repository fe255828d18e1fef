"""The window's status bar: the recording, the live link, the gamepad, the simulated time, the real-time factor,
steps and frames per second."""

from __future__ import annotations

import os
import time

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer
from PySide6.QtGui import QPainter, QPalette
from PySide6.QtWidgets import QLabel, QSizeGrip, QStatusBar, QWidget

from app.window.readouts import SteadyCell, show_text

__all__ = ["StatusLine", "RateMeter", "STATUS_SECONDS", "KEEP_UP", "MESSAGE_GAP", "speed_state"]

#: Seconds between updates of the rates (their averaging time).
STATUS_SECONDS = 1.0
#: Below this share of the speed asked for, the simulation thread cannot keep up (a second's average).
KEEP_UP = 0.9


def speed_state(factor: float, speed: float, halted: bool) -> tuple[str, bool]:
    """The status bar's words for the measured real-time ``factor`` at the ``speed`` asked for, and whether
    they are a warning (the simulation thread cannot keep up: below :data:`KEEP_UP` of ``speed``).

    Examples
    --------
    >>> speed_state(0.999, 1.0, False), speed_state(0.62, 1.0, False)
    (('1.00× real time', False), ('cannot keep up: ×0.62', True))
    >>> speed_state(6.2, 10.0, False)[0], speed_state(0.0, 1.0, True)
    ('cannot keep up: ×6.20 of 10×', ('paused', False))
    """
    if halted:
        return "paused", False
    if factor < KEEP_UP * speed:
        return f"cannot keep up: ×{factor:.2f}" + ("" if speed == 1.0 else f" of {speed:g}×"), True
    return f"{factor:.2f}× real time", False


class RateMeter:
    """Rates of growing counters over the wall time between calls."""

    def __init__(self):
        self._last = None

    def rates(self, *counters) -> tuple | None:
        """Per-second rates of ``counters`` since the last call (None the first time)."""
        now = time.perf_counter()
        last, self._last = self._last, (now, counters)
        if last is None or now <= last[0]:
            return None
        return tuple((c - c0) / (now - last[0]) for c, c0 in zip(counters, last[1]))


#: Pixels kept clear between the bar's message and its first label.
MESSAGE_GAP = 16


class StatusLine(QObject):
    """Permanent labels in a status bar (object names ``status_recording``, ``status_link``, ``status_device``,
    ``status_time``, ``status_speed``, ``status_steps``, ``status_fps``).

    Parameters
    ----------
    bar : QStatusBar
        The window's status bar; its temporary messages stay the window's.
    """

    def __init__(self, bar: QStatusBar):
        super().__init__(bar)
        self._bar = bar
        bar.installEventFilter(self)  # the message drawn elided, clear of the labels (eventFilter)
        bar.messageChanged.connect(self._whole_message)
        self._redraw = QTimer(self, singleShot=True, interval=0)  # dies with the bar (this object is its child)
        self._redraw.timeout.connect(bar.update)
        self.labels = {name: QLabel(objectName=f"status_{name}") for name in ("time", "speed", "steps", "fps")}
        # room for a long time (an attitude file's are days), so the labels do not shift as it grows
        time_label = self.labels["time"]
        time_label.setMinimumWidth(time_label.fontMetrics().horizontalAdvance("t = 9999999.99 s") + 4)
        self.recording = QLabel(objectName="status_recording", visible=False)
        bar.addPermanentWidget(self.recording)
        self.link = QLabel(objectName="status_link", visible=False)
        bar.addPermanentWidget(self.link)
        self.device = QLabel(objectName="status_device", visible=False)
        bar.addPermanentWidget(self.device)
        self._link_meter = RateMeter()
        for label in self.labels.values():
            bar.addPermanentWidget(SteadyCell(label))  # a new text lays the bar out only when its size changes
        self._meter = RateMeter()
        self._next = 0.0

    def _whole_message(self, text: str) -> None:
        """The whole of a long message as the bar's tooltip (its text is cut to fit, :meth:`eventFilter`)."""
        self._bar.setToolTip(text)

    def eventFilter(self, watched, event) -> bool:
        """Draw the bar's message cut with "…" :data:`MESSAGE_GAP` pixels before the first widget shown.

        ``QStatusBar`` draws its message clipped at the first label's left
        edge, so a long one (an attitude file's summary) ran into the time,
        mid-word, with no space: it read as the time overlapping it (issue 43).
        """
        if watched is self._bar and event.type() == QEvent.Type.Paint and self._bar.currentMessage():
            bar = self._bar
            shown = [w for w in bar.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                     if w.isVisible() and not isinstance(w, QSizeGrip)]  # the permanent widgets, while it shows
            right = min((w.x() for w in shown), default=bar.width()) - MESSAGE_GAP
            box = QRect(6, 0, max(0, right - 6), bar.height())
            painter = QPainter(bar)
            painter.setPen(bar.palette().color(QPalette.ColorRole.WindowText))
            painter.drawText(box, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                             bar.fontMetrics().elidedText(bar.currentMessage(), Qt.TextElideMode.ElideRight,
                                                          box.width()))
            painter.end()
            return True
        return False

    def show_time(self, t: float) -> None:
        """The simulated time, s."""
        self._set(self.labels["time"], f"t = {t:.2f} s")

    def _set(self, label: QLabel, text: str) -> None:
        """Set a permanent label's text; when its width changes, the bar is drawn again once laid out.

        The bar draws its temporary message itself, left of the first
        permanent label, and the labels draw no background: a label that
        grew and moved left over a message drawn before showed its text over
        the message's (issue 43), until the bar happened to be drawn again.
        """
        if label.text() == text:
            return
        before = label.sizeHint().width()
        show_text(label, text)
        if label.sizeHint().width() != before:
            self._redraw.start()  # after the layout request the new width posted

    def show_recording(self, path) -> None:
        """A red mark with the file's name while recording (``path`` None: hidden)."""
        self._set(self.recording, f"● REC {os.path.basename(path)}" if path is not None else "")
        self.recording.setVisible(path is not None)

    def show_link(self, stats) -> None:
        """The live link (:class:`app.link.LinkStats`): its port, clients, messages in and out a second, the inputs
        dropped (malformed, oversized, another version, refused) and merged (superseded by a newer one)."""
        rates = self._link_meter.rates(stats.received, stats.sent)
        inward, outward = rates if rates is not None else (0.0, 0.0)
        clients = "no client" if not stats.clients else f"{stats.clients} client" + ("s" if stats.clients > 1 else "")
        merged = stats.dropped.get("superseded", 0)
        self._set(self.link, f"⇄ link :{stats.address.rpartition(':')[2]} {clients} · in {inward:,.0f}/s "
                          f"out {outward:,.0f}/s · dropped {stats.dropped_total - merged:,} · merged {merged:,}")
        self.link.setToolTip(f"The live link (docs/LINK.md): states on {stats.address}, inputs on the next port; "
                             f"{stats.received:,} inputs read, {stats.applied:,} applied, dropped: "
                             + ", ".join(f"{n:,} {reason}" for reason, n in stats.dropped.items()))
        self.link.setVisible(True)

    def show_device(self, name) -> None:
        """The gamepad flying the body (``name`` None: hidden)."""
        self._set(self.device, f"🎮 {name}" if name else "")
        self.device.setToolTip("A gamepad flies the body (docs/WINDOW.md); Controls > Gamepad… maps it")
        self.device.setVisible(bool(name))

    def show_rates_due(self, worker, frames: int) -> tuple | None:
        """Every :data:`STATUS_SECONDS`: the worker's real-time factor and steps per second, and
        the frames drawn per second (``frames``: the 3D view's frames so far).

        Returns what was measured, ``(factor, speed, halted)`` (the speed asked
        for; halted: paused or stopped by a fault), or None when nothing was due.
        """
        if time.perf_counter() < self._next:
            return None
        self._next = time.perf_counter() + STATUS_SECONDS
        rates = self._meter.rates(worker.sim_seconds, worker.steps_taken, frames)
        if rates is None:
            return None
        factor, steps, fps = rates
        halted = worker.paused or worker.fault is not None
        state, behind = speed_state(factor, worker.speed, halted)
        label = self.labels["speed"]
        self._set(label, state)
        label.setToolTip("The simulation thread cannot take its steps as fast as the speed asks (too many bodies, "
                         "too small a step, or a busy machine): simulated time runs slower than wall time"
                         if behind else "Simulated seconds per wall second, measured over the last second")
        flag = "true" if behind else "false"  # a string: PySide6 mis-counts bool properties
        if label.property("warning") != flag:
            label.setProperty("warning", flag)
            label.style().unpolish(label)
            label.style().polish(label)
        self._set(self.labels["steps"], f"{steps:,.0f} steps/s")
        self._set(self.labels["fps"], f"{fps:.0f} fps")
        return factor, worker.speed, halted
