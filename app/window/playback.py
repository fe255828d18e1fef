"""File > Open attitude file: a CCSDS AEM played back in the window, beside the simulation or a second file.

The file is read whole by :func:`sim.run.aem.read_aem` (any AEM version 2
that ccsds-ndm-py reads, converted to this project's Q); one it cannot read
is said in the window in the one line the command line gives, and nothing
changes: the simulation flies on.  A file read is played by a
:class:`sim.run.playback.Playback`, which hands the window the same
:class:`~sim.run.runner.Batch` es the simulation thread does, so it is shown
by the same parts: the 3D view turns the body by the Cayley matrix of the
file's Q, the plots (:class:`~app.plots.feed.PlotFeed`) draw its angles and
rates, the Compare tab draws the rotation angle between the file and what
runs beside it (:func:`sim.core.algebra.rotation_angle`), and the readouts show
its state.  Between samples the attitude is the SLERP of the two around it;
the rates are the file's own, else differentiated from its quaternions
(:func:`sim.core.quaternion.rates_from_samples`); the caption says which.

The bar under the 3D view: play or pause, a slider over the file's time
span, the speed factor, what runs beside (the live simulation, or a second
file at the same time since its first epoch) and Close, which gives the
window back to the simulation.  The simulation keeps flying throughout and
its controls stay live: it is the second body unless a second file is.
"""

from __future__ import annotations

import os
import time

import numpy as np
from PySide6.QtCore import QObject, QSignalBlocker, Qt
from PySide6.QtWidgets import (QAbstractSpinBox, QComboBox, QDoubleSpinBox, QHBoxLayout, QLabel, QPushButton,
                               QSlider, QVBoxLayout, QWidget)

from app.flight import Started
from app.plots.compare import MAIN_NAME
from app.plots.live import PLOTS
from app.window.theme import COMPARE_COLORS, swatch
from sim import cayley, HISTORY_COLUMNS, AttitudeFileError, read_aem, Playback, MAIN, Batch

__all__ = ["PlaybackControl", "SLIDER_STEPS", "FILE_KINDS"]

#: Steps of the time slider over the file's span.
SLIDER_STEPS = 10_000
#: The file dialog's kinds.
FILE_KINDS = "CCSDS attitude (*.aem *.xml *.kvn *.txt);;All files (*)"
#: The plots shown while a file plays (what a file holds).
_PLOTS = ("angles", "rates")
#: Readouts, bar and controls follow every this many frames.
_SLOW_EVERY = 4
_BESIDE = ("beside: the simulation", "beside: a second file…")
_RATES_TIP = ("Rates: the file's own when it has them (ANGVEL, the quaternion derivative, SPIN); otherwise "
              "w = 2 V(Q) dQ/dt with dQ/dt by central differences of the quaternions (rates_from_samples). "
              "Between samples: SLERP of Q, rates linear.")


class PlaybackBar(QWidget):
    """Play or pause, the time slider, the time, the speed factor, what runs beside, Close."""

    def __init__(self, parent=None):
        super().__init__(parent, objectName="playback")
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 2, 0, 2)
        column.setSpacing(2)
        top, row = QHBoxLayout(), QHBoxLayout()
        column.addLayout(top)
        column.addLayout(row)
        self.pause = QPushButton("Pause", objectName="button_playback_pause", checkable=True)
        self.slider = QSlider(Qt.Orientation.Horizontal, objectName="slider_playback")
        self.slider.setRange(0, SLIDER_STEPS)
        self.time = QLabel(objectName="label_playback_time")
        self.time.setToolTip(_RATES_TIP)
        self.speed = QDoubleSpinBox(objectName="field_playback_speed", decimals=3, minimum=0.001, maximum=1e9,
                                    suffix=" ×", keyboardTracking=False)
        self.speed.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
        self.speed.setToolTip("Speed factor: file seconds per second of wall time")
        self.beside = QComboBox(objectName="combo_playback_beside")
        self.beside.addItems(_BESIDE)
        self.beside.setToolTip("What the file is compared with (the Compare tab: the angle between the two)")
        self.close = QPushButton("Close", objectName="button_playback_close")
        self.close.setToolTip("Back to the simulation's plots and view")
        top.addWidget(self.slider, 1)
        top.addWidget(self.time)
        for widget in (self.pause, self.speed, self.beside):
            row.addWidget(widget)
        row.addStretch(1)
        row.addWidget(self.close)


class PlaybackControl(QObject):
    """File > Open attitude file for a :class:`~app.window.main.MainWindow`.

    The window calls :meth:`frame` instead of its own frame while
    :attr:`active`; the bar sits above the readouts.

    Attributes
    ----------
    playback : Playback or None
        What plays, None when nothing does.
    bar : PlaybackBar
    """

    def __init__(self, window):
        super().__init__(window)
        self._window = window
        self.playback: Playback | None = None
        self.bar = PlaybackBar()
        self.bar.hide()
        centre = window.findChild(QWidget, "centre").layout()
        centre.insertWidget(centre.indexOf(window.readouts), self.bar)
        self.bar.pause.toggled.connect(self._pause)
        self.bar.slider.valueChanged.connect(self._seek)
        self.bar.speed.valueChanged.connect(self._speed)
        self.bar.beside.activated.connect(self._choose_beside)
        self.bar.close.clicked.connect(self.close)
        self._wall = time.monotonic()
        self._simulation = None  # the simulation's latest snapshot
        self._tick = 0
        self._hidden: tuple = ()  # plots hidden while a file plays
        self._restore = None  # (reference, columns, compare's seconds, the history's rows) to give back on close

    @property
    def active(self) -> bool:
        """True while a file plays."""
        return self.playback is not None

    # --------------------------------------------------------------- opening
    def ask_open(self) -> None:
        """File > Open attitude file: a dialog, then :meth:`open`."""
        path = self._window.dialogs.folders.ask_open(self._window, "Open attitude file", FILE_KINDS)
        if path:
            self.open(path)

    def _read(self, path):
        """The file's track, or None after saying why in the window (read_aem's one line)."""
        try:
            return read_aem(path)
        except AttitudeFileError as exc:
            self._window.show_message(str(exc))
            return None

    def open(self, path) -> bool:
        """Play the attitude file ``path`` beside the simulation; on error say why, change nothing (False)."""
        track = self._read(path)
        if track is None:
            return False
        window = self._window
        if self.playback is None:
            history = window.history
            self._restore = (window.compare.reference, history.columns, window.compare.window_seconds,
                             history.table(history.columns).T)
            self._hidden = tuple(name for name in window.plots.plot_names()
                                 if name not in _PLOTS and window.plots.is_visible(name))
        self.playback = Playback(track, os.path.basename(os.fspath(path)))
        self._lay_out()
        window.show_message(track.summary, error=False)
        return True

    def open_second(self, path) -> bool:
        """Run the attitude file ``path`` beside the one playing (same time since each one's first epoch)."""
        if self.playback is None:
            return False
        track = self._read(path)
        if track is None:
            self._show_beside()
            return False
        name = os.path.basename(os.fspath(path))
        if name == self.playback.name:
            name += " (2)"
        self.playback.set_second(track, name)
        self._lay_out()
        return True

    def beside_simulation(self) -> None:
        """Run the live simulation beside the file."""
        if self.playback is not None:
            self.playback.set_second(None)
            self._lay_out()

    def _choose_beside(self, index: int) -> None:
        if index == 0:
            self.beside_simulation()
            return
        path = self._window.dialogs.folders.ask_open(self._window, "Attitude file to compare", FILE_KINDS)
        if not (path and self.open_second(path)):
            self._show_beside()

    def _show_beside(self) -> None:
        second = self.playback is not None and self.playback.second is not None
        with QSignalBlocker(self.bar.beside):
            self.bar.beside.setItemText(1, f"beside: {self.playback.second_name}" if second else _BESIDE[1])
            self.bar.beside.setCurrentIndex(int(second))

    def _lay_out(self) -> None:
        """The window set for the file: title, caption, plots, the second body, the bar."""
        window, playback = self._window, self.playback
        label = playback.second_name
        span = max(playback.end - playback.start, 1e-6)
        window.plots.window_seconds = window.momentum.window_seconds = span
        window.compare.window_seconds = span
        window.feed.clear(playback.step, HISTORY_COLUMNS)
        for name in window.plots.plot_names():
            window.plots.set_visible(name, name in _PLOTS)
        angles = next(spec for spec in PLOTS if spec.name == "angles")
        window.plots.set_curves("angles", tuple(c for c in angles.curves if not c.dashed))  # a file has no command
        window.frames.set_bodies((label,))
        color = COMPARE_COLORS[0]
        window.compare.main_name = playback.name
        window.plot_tabs.set_bodies((label,), (color,), MAIN, playback.step)
        window.compare.show_plots(("error",))
        window.plot_tabs.setCurrentWidget(window.plots)  # the file's angles and rates; the angle between: Compare
        window.viewer.set_command(None)
        window.viewer.set_wheels((), ())
        window.viewer.set_orbit(None)
        window.centre.show_heading(f"Attitude file: {playback.name}",
                                   f"{playback.track.summary}. Between samples: SLERP of Q, rates linear. "
                                   f"Beside it: {label}; the Compare tab plots the rotation angle between the two.")
        window.legend.setText(f"{swatch(color)} {label}")
        window.setWindowTitle(f"attitude-sim: {playback.name}")
        playback.seek(playback.t)
        with QSignalBlocker(self.bar.speed):
            self.bar.speed.setValue(playback.speed)
        with QSignalBlocker(self.bar.pause):
            self.bar.pause.setChecked(playback.paused)
        self._show_beside()
        self.bar.show()
        self._wall = time.monotonic()

    # ----------------------------------------------------------------- bar
    def _pause(self, paused: bool) -> None:
        if self.playback is not None:
            self.playback.paused = paused
            self.bar.pause.setText("Play" if paused else "Pause")

    def _speed(self, speed: float) -> None:
        if self.playback is not None:
            self.playback.speed = float(speed)

    def _seek(self, value: int) -> None:
        if self.playback is not None:
            self.seek(self.playback.start + (self.playback.end - self.playback.start) * value / SLIDER_STEPS)

    def seek(self, t: float) -> None:
        """Show the file from time ``t`` (s from its first epoch) on; the plots start anew up to ``t``."""
        if self.playback is not None:
            self.playback.seek(t)
            self.frame(self._tick, wall=0.0)

    def close(self) -> None:
        """Stop playing: the window shows the simulation again (its plots from now on)."""
        if self.playback is None:
            return
        window = self._window
        reference, columns, seconds, rows = self._restore
        self.playback = None
        self.bar.hide()
        window.compare.main_name = MAIN_NAME
        window.compare.window_seconds = seconds
        window.compare.show_plots()
        for name in self._hidden:
            window.plots.set_visible(name, True)
        window.frames.show_orbit_angles(window.readouts.relative_to_orbit)  # the angles' curves as they were
        window.runs.show_run(Started(window.flight.scenario, window.worker.settings, reference, (), columns))
        # the simulation as it was: its plots up to the file's opening, its state now (also while paused,
        # when no batch would come: the readouts kept the file's last time and its missing values as nan)
        if len(rows):
            window.feed.take(Batch(rows=rows, last=self._simulation), window.worker.settings.dt)
        window.worker.republish()

    # --------------------------------------------------------------- frames
    def frame(self, tick: int, wall: float | None = None) -> None:
        """One display frame while a file plays (the window's frame timer calls it).

        The simulation's batches are collected as always; its latest state
        runs beside the file unless a second file does.
        """
        window, playback = self._window, self.playback
        self._tick = tick
        batches = window.flight.worker.drain()
        if batches:
            self._simulation = batches[-1].last
        now = time.monotonic()
        elapsed = now - self._wall if wall is None else wall
        self._wall = now
        if window.frames.bodies != (playback.second_name,):  # a new run was shown meanwhile
            self._lay_out()
        fresh = playback.fresh
        batch = playback.advance(elapsed, self._simulation)
        if fresh:
            window.feed.clear(playback.step)
        window.feed.take(batch, playback.step)
        last = batch.last
        window.viewer.set_attitude(cayley(last.attitude))
        window.viewer.set_gimbal_angles(*np.radians(last.angles_deg))
        for label, snapshot in batch.compare.items():
            window.viewer.set_body_attitude(label, cayley(snapshot.attitude))
        if fresh or wall is not None:  # a seek: everything at once
            window.plots.refresh()
            window.compare.refresh()
        else:
            if window.plots.isVisible():
                window.plots.refresh_due(tick)
            window.compare.refresh_due(tick)
        if fresh or tick % _SLOW_EVERY == 0:
            self._sync(last)

    def _sync(self, last) -> None:
        window, playback = self._window, self.playback
        window.readouts.show_snapshot(last)
        window.status.show_time(last.t)
        span = playback.end - playback.start
        with QSignalBlocker(self.bar.slider):
            self.bar.slider.setValue(round(SLIDER_STEPS * (playback.t - playback.start) / span) if span else 0)
        self.bar.time.setText(f"t = {playback.t:.3f} s of {span:g} s")
