"""Run controls: pause, single step, reset, the speed factor and the pause at the scenario's end."""

from __future__ import annotations

import math

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import QCheckBox, QGridLayout, QGroupBox, QLabel, QPushButton, QSlider

from sim import duration_text

__all__ = ["RunGroup", "speed_at", "position_of", "LONG_END"]

#: Slider positions per decade of speed.
_PER_DECADE = 20
#: A scenario's end from this many seconds on is shown in words (``duration_text``: "1 year", "2.5 days").
LONG_END = 1e5


def speed_at(position: int) -> float:
    """Speed factor of a slider position: ``10 ** (position / 20)`` to two digits (0 -> 1x)."""
    return float(f"{10.0 ** (position / _PER_DECADE):.2g}")


def position_of(speed: float) -> int:
    """Slider position nearest to a speed factor."""
    return round(math.log10(speed) * _PER_DECADE)


class RunGroup(QGroupBox):
    """Pause, single step, reset and speed; the window turns them into worker commands.

    Parameters
    ----------
    speed_range : (float, float)
        Slowest and fastest speed factor.
    parent : QWidget, optional
    """

    pause_toggled = Signal(bool)
    step_clicked = Signal()
    reset_clicked = Signal()
    speed_changed = Signal(float)
    pause_at_end_toggled = Signal(bool)

    def __init__(self, speed_range, parent=None):
        super().__init__("Run", parent)
        self.pause = QPushButton("Pause", objectName="button_pause", checkable=True,
                                 toolTip="Pause or run the simulation (Space)")
        self.pause.toggled.connect(self._paused)
        self.step = QPushButton("Step", objectName="button_step", enabled=False,
                                toolTip="Take exactly one step dt while paused (N)")
        self.step.clicked.connect(self.step_clicked)
        self.reset = QPushButton("Reset", objectName="button_reset",
                                 toolTip="Back to the reset angles and rates (Model tab) at t = 0 (R); "
                                 "clears a fault")
        self.reset.clicked.connect(self.reset_clicked)
        self.speed = QSlider(Qt.Orientation.Horizontal, objectName="slider_speed",
                             toolTip="Simulated seconds per wall-clock second")
        self.speed.setRange(position_of(speed_range[0]), position_of(speed_range[1]))
        self.speed.setPageStep(_PER_DECADE // 4)
        self.speed.valueChanged.connect(self._speed_moved)
        self.speed_text = QLabel(objectName="label_speed")
        self.speed_text.setMinimumWidth(self.fontMetrics().horizontalAdvance("0.88× real time"))
        layout = QGridLayout(self)
        layout.addWidget(self.pause, 0, 0)
        layout.addWidget(self.step, 0, 1)
        layout.addWidget(self.reset, 0, 2)
        layout.addWidget(QLabel("Speed"), 1, 0)
        layout.addWidget(self.speed, 1, 1)
        layout.addWidget(self.speed_text, 1, 2)
        self.pause_at_end = QCheckBox(objectName="check_pause_at_end",
                                      toolTip="Pause when the simulated time reaches the scenario's duration; "
                                      "Run goes on from there, Reset pauses there again")
        self.pause_at_end.toggled.connect(self.pause_at_end_toggled)
        layout.addWidget(self.pause_at_end, 2, 0, 1, 3)
        self.show_state(False, 1.0)
        self.show_end(20.0, False)

    def set_speed(self, speed: float) -> None:
        """Move the speed slider as the user would (emits :attr:`speed_changed`)."""
        self.speed.setValue(position_of(speed))

    def show_state(self, paused: bool, speed: float) -> None:
        """Show the worker's pause state and speed (signals blocked)."""
        with QSignalBlocker(self.pause):
            self.pause.setChecked(paused)
        with QSignalBlocker(self.speed):
            self.speed.setValue(position_of(speed))
        self._show(paused, speed)

    def show_end(self, duration: float, pause: bool) -> None:
        """Show the scenario's end time and whether the run pauses there (signals blocked)."""
        # a long run's end in words ("1 year"): "3.15576e+07 s" was cut at the panel's edge
        end = f"{duration:g} s" if duration < LONG_END else duration_text(duration)
        self.pause_at_end.setText(f"Pause at the scenario's end, t = {end}")
        with QSignalBlocker(self.pause_at_end):
            self.pause_at_end.setChecked(pause)

    def _show(self, paused: bool, speed: float) -> None:
        self.pause.setText("Run" if paused else "Pause")
        self.step.setEnabled(paused)
        self.speed_text.setText(f"{speed:g}× real time")

    def _paused(self, paused: bool) -> None:
        self._show(paused, speed_at(self.speed.value()))
        self.pause_toggled.emit(paused)

    def _speed_moved(self, position: int) -> None:
        self._show(self.pause.isChecked(), speed_at(position))
        self.speed_changed.emit(speed_at(position))
