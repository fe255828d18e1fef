"""The window's frame loop: a frame timer in the GUI thread collects what the simulation thread computed.

:class:`FrameLoop` holds the timer (:class:`~app.window.pace.FramePace`: 60 Hz, slower while the simulation
cannot keep up), the latest snapshot, and what each frame shows: every sample goes to the plots' history,
the bodies turn to the display time (between two computed states, a step or a batch apart:
:mod:`app.window.tween`); the readouts, the controls, the fault banner and the status bar follow at
:data:`SLOW_EVERY` frames.  It shows through the parts of its :class:`~app.window.main.MainWindow`.

While a paced frame loop runs (the window's simulation thread runs beside it), Python's garbage collector collects
only in the GUI thread, at the start of each frame
(:func:`sim.core.collector.own_collection`, :func:`~sim.core.collector.collect_due`): a collection destroys what it
finds unreachable in the thread that runs it, and Qt objects destroyed off the GUI thread can deadlock the
window (docs/RELIABILITY.md, "Garbage collected in the GUI thread").
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer

from app.controls.torque import torque_unit
from app.window.pace import FramePace
from sim import collect_due, own_collection, release_collection

__all__ = ["FrameLoop", "SLOW_EVERY", "MESSAGE_SECONDS"]

#: Readouts, controls and fault banner are updated every this many frames (about 15 Hz).
SLOW_EVERY = 4
#: Seconds an inline message stays.
MESSAGE_SECONDS = 12


class FrameLoop:
    """The frame loop of ``window`` (module docstring).

    Parameters
    ----------
    window : MainWindow
    paced : bool
        True: the owner starts :attr:`timer` and the plots take turns; False: the owner calls
        :meth:`show_frame` and every frame is complete.

    Attributes
    ----------
    timer : QTimer
        The frame timer (not started here).
    pace : FramePace
    last : Snapshot or None
        The latest snapshot shown, None before the first of a run.
    """

    def __init__(self, window, paced: bool):
        self._window = window
        self._paced = paced
        self.last = None
        self._tick = 0
        self._frames = 0
        self._fault = None
        self._at_end = False
        self.pace = FramePace()
        self.timer = QTimer(window, timerType=Qt.TimerType.PreciseTimer, interval=self.pace.interval)
        self.timer.timeout.connect(self.frame)
        self._owned = [False]
        self.timer.destroyed.connect(lambda *_, owned=self._owned: _release(owned))  # a window deleted unclosed

    def start(self) -> None:
        """Start the frame timer (a paced window, once it is built); from now on garbage is collected at each
        frame, in this thread (module docstring), until :meth:`stop`."""
        if not self._owned[0]:
            own_collection()
            self._owned[0] = True
        self.timer.start()

    def stop(self) -> None:
        """Stop the frame timer; the garbage collector collects automatically again (once no other window owns
        it)."""
        self.timer.stop()
        _release(self._owned)

    def show_frame(self, view_only: bool = False) -> None:
        """Draw one frame now from what the flight computed (an unpaced window's owner calls it).

        With ``view_only`` only the 3D view is brought up to date (the
        bodies, the command ghost, the gimbal rig): a video of the view
        alone, where the plots, readouts and controls are not seen.
        """
        w = self._window
        if not view_only:
            self.frame()
            return
        batches = w.flight.worker.drain()
        if batches:
            self.last = batches[-1].last
            w.frames.show_bodies(batches[-1], w.flight.worker.settings)
            w.frames.turn(None, w.flight.worker.speed)
            w.frames.show_body(w.flight.worker.settings)

    def frame(self) -> None:
        """One display frame: collect the worker's batches and show them.

        Paced, the plots take turns and the readouts follow every
        :data:`SLOW_EVERY` frames; unpaced, every frame is complete.
        """
        w = self._window
        self._tick += 1
        collect_due()  # the garbage collection due, here in the GUI thread (module docstring)
        if w.playback.active:  # an attitude file plays: it shows its own frame (app.window.playback)
            w.playback.frame(self._tick)
            return
        worker = w.flight.worker
        batches = worker.drain()
        for batch in batches:
            w.feed.take(batch, worker.settings.dt)
        if batches:
            self.last = batches[-1].last
            w.frames.show_bodies(batches[-1], worker.settings)
            w.ensemble.show_batch(batches[-1])
        # the bodies at the display time: between two computed states (app.window.tween)
        w.frames.turn(time.perf_counter() if self._paced else None, worker.speed)
        if not self._paced:  # every plot (none while hidden), the readouts and controls
            if w.plots.isVisible():
                w.plots.refresh()
            w.frames.refresh_tabs(None)
            w.compare.refresh()
            w.estimation.refresh()
            self.sync()
            return
        if w.plots.isVisible():  # hidden behind the Compare tab: catch up when shown
            w.plots.refresh_due(self._tick)  # a share of the plots each frame
        w.frames.refresh_tabs(self._tick)  # the Momentum and Magnetic tabs, when shown
        w.estimation.refresh_due(self._tick)
        w.compare.refresh_due(self._tick)  # returns at once while hidden
        if self._tick % SLOW_EVERY == 0:
            self.sync()
        measured = w.status.show_rates_due(worker, self._frames)
        if measured is not None and w.link is not None:
            w.status.show_link(w.link.stats())
        if measured is not None and self.pace.update(*measured) != self.timer.interval():
            self.timer.setInterval(self.pace.interval)  # frames yield to the simulation (app.window.pace)

    def sync(self) -> None:
        """The slower half of a frame: readouts, controls, fault banner."""
        w = self._window
        worker = w.flight.worker
        if self.last is not None:
            w.readouts.show_snapshot(self.last)
            w.orbit_readouts.show_snapshot(self.last)
            w.status.show_time(self.last.t)
        w.controls.show_settings(worker.settings)
        w.frames.show_world(worker.settings)
        w.readouts.torque_unit = torque_unit(max(w.controls.torque.limits))
        settings = worker.settings
        w.frames.show_body(settings)
        w.frames.show_wheels(settings)
        w.frames.watch_period(settings)
        w.controls.run.show_state(worker.paused, worker.speed)
        w.frames.show_legend(settings)
        if worker.at_end != self._at_end:
            self._at_end = worker.at_end
            if self._at_end:
                w.show_message(f"End of the scenario at t = {w.flight.scenario.duration:g} s: paused. "
                               "Run (Space) goes on; Reset starts it again.")
        fault = worker.fault
        if fault != self._fault:
            self._fault = fault
            w.centre.show_fault(fault)
            if fault is not None:
                w.statusBar().showMessage(f"fault: {fault}", MESSAGE_SECONDS * 1000)

    def count_frame(self) -> None:
        """The 3D view drew a frame (its frame rate in the status bar)."""
        self._frames += 1

    def forget_last(self) -> None:
        """A new run is shown: no snapshot of it yet, and its first second does not pace the frames."""
        self.last = None
        self.pace.restart()

    @property
    def frames(self) -> int:
        """Frames the 3D view drew so far (:meth:`count_frame`)."""
        return self._frames

    @property
    def interval(self) -> int:
        """The frame timer's interval now, ms (:class:`~app.window.pace.FramePace`)."""
        return self.timer.interval()


def _release(owned: list) -> None:
    """Release the collection that a frame loop owns (``owned = [True]``), once."""
    if owned[0]:
        owned[0] = False
        release_collection()
