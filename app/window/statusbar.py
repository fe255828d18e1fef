"""The window's status bar: the recording, the simulated time, the real-time factor, steps and frames per second."""

from __future__ import annotations

import os
import time

from PySide6.QtWidgets import QLabel, QStatusBar

__all__ = ["StatusLine", "RateMeter", "STATUS_SECONDS", "KEEP_UP", "speed_state"]

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


class StatusLine:
    """Permanent labels in a status bar (object names ``status_recording``, ``status_time``,
    ``status_speed``, ``status_steps``, ``status_fps``).

    Parameters
    ----------
    bar : QStatusBar
        The window's status bar; its temporary messages stay the window's.
    """

    def __init__(self, bar: QStatusBar):
        self.labels = {name: QLabel(objectName=f"status_{name}") for name in ("time", "speed", "steps", "fps")}
        self.recording = QLabel(objectName="status_recording", visible=False)
        bar.addPermanentWidget(self.recording)
        for label in self.labels.values():
            bar.addPermanentWidget(label)
        self._meter = RateMeter()
        self._next = 0.0

    def show_time(self, t: float) -> None:
        """The simulated time, s."""
        self.labels["time"].setText(f"t = {t:.2f} s")

    def show_recording(self, path) -> None:
        """A red mark with the file's name while recording (``path`` None: hidden)."""
        self.recording.setText(f"● REC {os.path.basename(path)}" if path is not None else "")
        self.recording.setVisible(path is not None)

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
        label.setText(state)
        label.setToolTip("The simulation thread cannot take its steps as fast as the speed asks (too many bodies, "
                         "too small a step, or a busy machine): simulated time runs slower than wall time"
                         if behind else "Simulated seconds per wall second, measured over the last second")
        flag = "true" if behind else "false"  # a string: PySide6 mis-counts bool properties
        if label.property("warning") != flag:
            label.setProperty("warning", flag)
            label.style().unpolish(label)
            label.style().polish(label)
        self.labels["steps"].setText(f"{steps:,.0f} steps/s")
        self.labels["fps"].setText(f"{fps:.0f} fps")
        return factor, worker.speed, halted
