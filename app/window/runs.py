"""The window's run-level actions: open and save a scenario, record, replay, reset, export, the current scenario.

:class:`RunActions` does them on the window's :class:`~app.flight.Flight` and shows a new run in the
window's parts (:meth:`RunActions.show_run`); the menus, the file dialogs, the playback and the window
call it.  What goes wrong is said in the window (:meth:`~app.window.main.MainWindow.show_message`),
never raised.
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker

from app.flight import FlightError
from app.window.export import CsvExport, CsvExports
from app.window.theme import COMPARE_COLORS, cycle

__all__ = ["RunActions", "PLOT_SECONDS"]

#: The live plots' time window, s, unless the scenario says otherwise (``plot_seconds``).
PLOT_SECONDS = 20.0


class RunActions:
    """The run-level actions of ``window`` (a :class:`~app.window.main.MainWindow` with its parts built).

    Parameters
    ----------
    window : MainWindow
    new_run : callable
        Called with no argument when a new run is shown (the window forgets its last snapshot).

    Attributes
    ----------
    exports : CsvExports
        The history's CSV exports (one at a time).
    record_action : QAction or None
        File > Record, checked while recording (set by the menus).
    """

    def __init__(self, window, new_run):
        self._window = window
        self._new_run = new_run
        self.exports = CsvExports(window)
        self.record_action = None

    def _reset_state(self):
        return self._window.controls.body.reset_state()

    # -------------------------------------------------------------- scenarios and runs
    def open_scenario(self, name_or_path) -> bool:
        """Run a built-in scenario or a scenario file; on error say why and keep running.

        Returns
        -------
        bool
            True when the scenario was loaded.
        """
        return self.start(lambda: self._window.flight.open_scenario(name_or_path))

    def current_scenario(self):
        """The scenario with the settings in force now and the reset fields' angles and rates."""
        return self._window.flight.current_scenario(*self._reset_state())

    def save_scenario(self, path) -> bool:
        """Write :meth:`current_scenario` as a scenario file (loadable with Scenario > Open)."""
        return self.write(lambda: self._window.flight.save_scenario(path, *self._reset_state()), path)

    def reset(self, with_inputs=()) -> None:
        """Back to the reset fields' angles and rates at t = 0 (clears a fault), with ``with_inputs`` in its entry."""
        self._window.flight.reset(*self._reset_state(), with_inputs)

    def start_recording(self, path) -> bool:
        """Restart the run from the reset state at t = 0 and record it to ``path``.

        The recording holds :meth:`current_scenario`.
        """
        return self.start(lambda: self._window.flight.start_recording(path, *self._reset_state()))

    def stop_recording(self) -> None:
        """Close the recording at the current step."""
        notice = self._window.flight.stop_recording()
        if notice is not None:
            self._window.show_message(notice, error=False)
            self.show_recording()

    def replay(self, path) -> bool:
        """Run a recording; the simulation pauses where the recording ended."""
        return self.start(lambda: self._window.flight.replay(path))

    def start(self, action) -> bool:
        """Do a flight ``action`` that starts a new run and show the run; on error say why (False)."""
        try:
            started = action()
        except FlightError as exc:
            self._window.show_message(str(exc))
            return False
        self.show_run(started)
        self.show_recording()
        for notice in started.notices:
            self._window.show_message(notice, error=False)
        return True

    def show_recording(self) -> None:
        """Show whether the flight records: the status bar's mark and File > Record."""
        window = self._window
        window.status.show_recording(window.flight.recording)
        if self.record_action is not None:
            with QSignalBlocker(self.record_action):
                self.record_action.setChecked(window.flight.recording is not None)

    # ---------------------------------------------------------------------- output
    def export_csv(self, path) -> CsvExport | None:
        """Write the history as CSV in the background (:meth:`app.window.export.CsvExports.start`)."""
        return self.exports.start(path)

    @property
    def csv_export(self) -> CsvExport | None:
        """The latest CSV export (None before the first)."""
        return self.exports.latest

    def export_plots(self, path) -> bool:
        """Save the plots as a PNG."""
        return self.write(lambda: self._window.plots.export_png(path), path)

    def save_view(self, path) -> bool:
        """Save the 3D view as a PNG."""
        return self.write(lambda: self._window.viewer.export_png(path), path)

    def write(self, write, path) -> bool:
        """Call ``write`` (which writes ``path``) and say so; an OSError is said, not raised (False)."""
        try:
            write()
        except OSError as exc:
            self._window.show_message(f"{path}: {exc.strerror or exc}")
            return False
        self._window.show_message(f"Saved {path}", error=False)
        return True

    # -------------------------------------------------------------------- new runs
    def show_run(self, started) -> None:
        """Show a new run (a :class:`~app.flight.Started`): its title, caption, comparison bodies and settings; no samples yet."""
        w = self._window
        scenario, settings = started.scenario, started.settings
        w.setWindowTitle(f"attitude-sim: {scenario.title or scenario.name}")
        seconds = scenario.plot_seconds or PLOT_SECONDS
        if seconds != w.plots.window_seconds:
            w.plots.window_seconds = w.momentum.window_seconds = w.environment.window_seconds = seconds
            w.cmg.window_seconds = seconds
            w.thrusters.window_seconds = seconds
        frames = w.frames
        frames.watch_period(settings)
        w.feed.clear(settings.dt, started.columns or None)
        self._new_run()
        frames.new_run()
        frames.show_wheels(settings, new_run=True)
        frames.set_bodies(tuple(label for label, _ in scenario.compare))
        w.estimation.new_run(settings)
        w.estimation.set_window(seconds)
        frames.show_body(settings)
        w.plot_tabs.set_bodies(frames.bodies, cycle(COMPARE_COLORS, len(frames.bodies)), started.reference,
                               settings.dt)
        w.centre.show_heading(scenario.title or scenario.name, scenario.caption)
        w.controls.show_settings(settings, fresh=True)
        frames.new_world(settings)
        w.controls.run.show_end(scenario.duration, w.flight.pause_at_end)
        frames.show_legend(settings)
