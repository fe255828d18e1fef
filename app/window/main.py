"""The desktop window: controls, the 3D view and the live plots around one flight.

The window composes the rooms: the control panel (:mod:`app.controls`), the
3D view (:mod:`app.view3d`), the plots (:mod:`app.plots`) and the ensemble
view (:mod:`app.ensemble`), around a :class:`~app.flight.Flight`, which holds
the simulation thread.  Its parts by job: the run-level actions (open, save,
record, replay, reset, export; :class:`~app.window.runs.RunActions`), the
centre column (:class:`~app.window.views.CentreColumn`) and the frame loop
(:class:`~app.window.loop.FrameLoop`: a frame timer in the GUI thread collects
what the thread computed and shows it).  The window sends inputs
(:meth:`MainWindow.send`, its one door into the worker).  Nothing here
computes physics.

:func:`app.window.launch.run_gui` opens it for ``attitude-sim gui``.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QSettings, QSignalBlocker, Qt, QTimer
from PySide6.QtWidgets import QMainWindow, QSplitter, QVBoxLayout, QWidget

from app.controls import ControlPanel
from app.ensemble.view import EnsembleView
from app.flight import Flight
from app.plots.compare import ComparePanel
from app.plots.feed import PlotFeed
from app.plots.history import History
from app.plots.environment import EnvironmentPlots
from app.plots.cmg import CmgTab
from app.plots.thrusters import ThrusterTab
from app.plots.live import MOMENTUM_PLOTS, PlotPanel
from app.plots.tabs import PlotTabs
from app.view3d.attitude_view import AttitudeView
from app.window.dialogs import FileDialogs, FolderMemory
from app.window.frames import FramePresenter
from app.window.estimation import EstimationView
from app.window.gamepad_ui import GamepadControl
from app.window.help_window import HelpWindow
from app.window.keys import KeyFlyer
from app.window.menus import build_menus
from app.window.loop import MESSAGE_SECONDS, FrameLoop
from app.window.playback import PlaybackControl
from app.window.readouts import Readouts
from app.window.statusbar import StatusLine
from app.window.runs import RunActions
from app.window.views import CentreColumn
from app.window.video_ui import VideoControl
from app.worker import SPEED_RANGE
from sim import SettingsError, SettingChange, typed, layout_axes

__all__ = ["MainWindow", "DEFAULT_SIZE"]

#: Window size when none was saved.
DEFAULT_SIZE = (1400, 900)
#: Initial widths of the control column, the centre and the plots.
SPLITTER_SIZES = (345, 610, 445)


class MainWindow(QMainWindow):
    """The attitude simulator's window around one :class:`~app.flight.Flight`.

    Parameters
    ----------
    scenario : Scenario
        What to run first.
    remember_geometry : bool
        Restore the size saved last time (QSettings) and save it on close.
    speed : float, optional
        Initial speed factor (default: the scenario's, else 1).
    paced : bool
        True: the simulation thread keeps wall time and a frame timer draws.
        False (``attitude-sim video``): no thread and no timer; the owner
        steps the flight (:meth:`app.worker.SimulationWorker.advance_to`)
        and calls :meth:`show_frame` for each frame, which brings every
        plot, readout and control up to date.

    Attributes
    ----------
    flight : Flight
        The simulation thread.
    runs : RunActions
        The run-level actions (:mod:`app.window.runs`); ``open_scenario``, ``current_scenario``,
        ``save_scenario``, ``start_recording``, ``stop_recording``, ``replay``, ``reset``, ``export_csv``,
        ``export_plots`` and ``save_view`` are its methods, offered as the window's own.
    centre : CentreColumn
        Title, caption, legend, fault banner, message, the views and the orbit readouts (:mod:`app.window.views`);
        its labels and views are also the window's attributes of the same names.
    loop : FrameLoop
        The frame timer and what each frame shows (:mod:`app.window.loop`).
    history : History
        The samples since the last reset (the plots' data): at least the
        plotted window (``plots.window_seconds``) at full resolution, sized from dt
        (:func:`~app.plots.history.capacity_for`), older samples thinned; the window feeds
        it (and the compare panel) through :attr:`feed`, a :class:`~app.plots.feed.PlotFeed`.
    viewer : AttitudeView
    plots : PlotPanel
    compare : ComparePanel
        The comparison bodies' error, energy and norm drift: a "Compare" tab
        beside the plots, only while the scenario has comparison bodies.
    controls : ControlPanel
    readouts : Readouts
    ensemble : EnsembleView
        N bodies flying the same inputs (the "Ensemble" tab, View menu).
    dialogs : FileDialogs
        The file dialogs of the menus.
    record_action, compare_action : QAction
        File > Record and View > Comparison plots, checked while recording and
        while the Compare tab is shown.
    orbit_action : QAction
        View > Orbit frame, checked while the orbit frame is drawn (on by
        itself when a run starts with gravity gradient).
    momentum : PlotPanel
        The Momentum tab's plots (:data:`~app.plots.live.MOMENTUM_PLOTS`):
        total momentum, wheel speeds and motor torques with their limits,
        the torque on the body; there while the run has reaction wheels or
        an external torque.
    video : VideoControl
        File > Record video: a video of the window or the 3D view as it flies.
    gamepad : GamepadControl
        A gamepad or joystick flying the body (SDL2's game controllers; Simulation > Gamepad… remaps it).
    link : app.link.LinkServer or None
        The live link (``attitude-sim gui --link``): attached to the flight's
        worker, shown in the status bar, closed with the window.
    """

    def __init__(self, scenario, *, remember_geometry: bool = True, speed: float | None = None,
                 paced: bool = True, link=None):
        super().__init__()
        self.setWindowTitle("attitude-sim")
        self._remember = remember_geometry
        self.loop = FrameLoop(self, paced)  # the frame timer and what each frame shows (app.window.loop)
        self.pace = self.loop.pace
        self.dialogs = FileDialogs(self, FolderMemory(QSettings("attitude-sim", "attitude-sim")
                                                      if remember_geometry else None))
        self.history = History()
        self.runs = runs = RunActions(self, self.loop.forget_last)  # the run-level actions (app.window.runs)
        self.open_scenario, self.current_scenario, self.save_scenario = (runs.open_scenario, runs.current_scenario,
                                                                          runs.save_scenario)
        self.start_recording, self.stop_recording, self.replay = runs.start_recording, runs.stop_recording, runs.replay
        self.reset, self.export_csv, self.export_plots, self.save_view = (runs.reset, runs.export_csv,
                                                                          runs.export_plots, runs.save_view)
        self.flight = Flight(scenario, speed, paced)
        self.link = link  # the live link (app.link.LinkServer, bound), or None
        if link is not None:
            link.attach(self.flight.worker).start()
        self._build(self.flight.worker.speed)
        self.playback = PlaybackControl(self)  # File > Open attitude file (app.window.playback)
        self.record_action, self.compare_action = build_menus(self)
        runs.record_action = self.record_action
        if paced:  # the frame timer, and garbage collected in this thread before the simulation thread runs
            self.loop.start()  # (app.window.loop); it ticks once the event loop runs
        try:
            runs.show_run(self.flight.start(prepare=self.ensemble.prepare))
        except BaseException:
            self.loop.stop()
            raise
        self._restore_geometry()

    # ---------------------------------------------------------------- layout
    def _build(self, speed: float) -> None:
        self._build_controls(speed)
        self.viewer = AttitudeView()
        self.viewer.setObjectName("viewer")
        self.viewer.frameSwapped.connect(self.loop.count_frame)
        self.controls.body.principal_axes.toggled.connect(self.viewer.show_principal_axes)
        self.plots = PlotPanel(self.history)
        self.plots.setObjectName("plots")
        self.momentum = PlotPanel(self.history, plots=MOMENTUM_PLOTS)
        self.momentum.setObjectName("momentum")
        self.environment = EnvironmentPlots(self.history)  # the Magnetic tab (issue 32)
        self.cmg = CmgTab(self.history)  # the CMG tab (issue 45)
        self.thrusters = ThrusterTab(self.history)  # the Thrusters tab (issue 45)
        self.compare = ComparePanel()
        self.compare.setObjectName("compare")
        self.plot_tabs = PlotTabs(self.plots, self.compare, self.momentum)
        self.plot_tabs.compare_shown.connect(self._check_compare_action)
        self.feed = PlotFeed(self.history, self.plots, self.compare)
        self.estimation = EstimationView(self.history, self.plot_tabs, self.viewer)  # issue 33: tab and ghost
        self.ensemble = EnsembleView(lambda: self.flight.worker.settings, self.controls, self.send, self.reset,
                                     self.show_message, self.plot_tabs)
        self.plot_tabs.own(self.environment, self.cmg, self.thrusters, self.ensemble)  # deleted with the window
        self.readouts = Readouts()
        self.frames = FramePresenter(self)
        self.readouts.orbit_toggled.connect(self.frames.show_orbit_angles)
        self.centre = centre = CentreColumn(self.viewer, self.readouts, MESSAGE_SECONDS * 1000)
        self.title, self.caption, self.legend = centre.title, centre.caption, centre.legend
        self.fault_banner, self.message, self.views = centre.fault_banner, centre.message, centre.views
        self.orbit_view, self.orbit_readouts = centre.orbit_view, centre.orbit_readouts
        self.splitter = QSplitter(Qt.Orientation.Horizontal, objectName="splitter")
        for widget in (self.controls, centre, self.plot_tabs):
            self.splitter.addWidget(widget)
        self.splitter.setCollapsible(1, False)
        self.splitter.setStretchFactor(1, 1)
        body = QWidget(objectName="body")  # holds the splitter
        QVBoxLayout(body).addWidget(self.splitter)
        body.layout().setContentsMargins(0, 0, 0, 0)
        self.setCentralWidget(body)
        self.help = HelpWindow(self)
        self.keys = KeyFlyer(self)
        self.status = StatusLine(self.statusBar())
        self.gamepad = GamepadControl(self, self.controls.torque.set_key_torque, lambda key, value: self.send(((key, value),)),
                                      self.status.show_device)
        self.keys.changed.connect(self.gamepad.set_key_torque)  # the keys' torque and the gamepad's add up
        self.viewer.frameSwapped.connect(self._first_frame)  # the gamepad is opened after the first frame
        self.video = VideoControl(self, self.statusBar())

    def _build_controls(self, speed: float) -> None:
        """The control column, wired to the worker (run commands) and the window (inputs, reset)."""
        worker = self.flight.worker
        self.controls = ControlPanel(self.send, SPEED_RANGE)
        self.controls.setMinimumWidth(300)
        self.controls.rejected.connect(lambda text: self.statusBar().showMessage(text, MESSAGE_SECONDS * 1000))
        self.controls.body.rejected.connect(self.show_message)
        self.controls.pointing.noticed.connect(lambda text: self.show_message(text, error=False))
        run = self.controls.run
        run.show_state(False, speed)
        run.pause_toggled.connect(worker.pause)
        run.step_clicked.connect(worker.step)
        run.reset_clicked.connect(lambda: self.runs.reset())
        run.speed_changed.connect(worker.set_speed)
        run.pause_at_end_toggled.connect(self._toggle_pause_at_end)

    def _check_compare_action(self, shown: bool) -> None:
        self.compare_action.setEnabled(self.compare.has_bodies)
        with QSignalBlocker(self.compare_action):
            self.compare_action.setChecked(shown)

    def _restore_geometry(self) -> None:
        self.resize(*DEFAULT_SIZE)
        self.splitter.resize(DEFAULT_SIZE[0], self.splitter.height())
        self.splitter.setSizes(list(SPLITTER_SIZES))
        if self._remember:
            saved = QSettings("attitude-sim", "attitude-sim")
            if saved.value("geometry") is not None:
                self.restoreGeometry(saved.value("geometry"))
            if saved.value("splitter") is not None:
                self.splitter.restoreState(saved.value("splitter"))

    # ----------------------------------------------------------------- state
    @property
    def worker(self):
        """The flight's :class:`~app.worker.SimulationWorker`."""
        return self.flight.worker

    @property
    def scenario(self):
        """The scenario running now."""
        return self.flight.scenario

    @property
    def last_snapshot(self):
        """The latest :class:`~sim.model.rows.Snapshot` shown, or None before the first."""
        return self.loop.last

    # ------------------------------------------------------- inputs and runs
    def send(self, entry) -> None:
        """The window's one way for inputs into the worker: an entry of inputs that take effect at one step.

        Typed inputs (:mod:`sim.run.inputs`; a pair is typed here, once); one the model refuses is said, and none
        is sent.  Another number of reaction wheels starts a new run instead (its rows have a column per wheel)."""
        try:
            entry = tuple(map(typed, entry))
            changes = {i.key: i.value for i in entry if isinstance(i, SettingChange)}
            if changes.get("cmg", self.flight.worker.settings.cmg) != self.flight.worker.settings.cmg:  # issue 45
                self.runs.start(lambda: self.flight.change_cmg(changes, *self.controls.body.reset_state()))
                return
            wheels = next((i.value for i in entry if isinstance(i, SettingChange) and i.key == "wheels"), None)
            if wheels is not None and len(layout_axes(wheels)) != self.flight.worker.settings.wheel_count:
                self.runs.start(lambda: self.flight.change_wheels(wheels, *self.controls.body.reset_state()))
                return
            self.flight.worker.send(entry)
        except SettingsError as exc:
            self.show_message(str(exc))
            return
        if not any(i.key == "command_deg" for i in entry):  # the settings as the user set them: only for a command
            return
        settings = self.controls.current_settings() or self.flight.worker.settings
        if settings.pointing != "inertial":  # the gamepad's command, say
            self.show_message(f"The {settings.pointing} pointing makes the command: the command angles wait until "
                              "the pointing is inertial (Fly > Pointing)", error=False)

    def _toggle_pause_at_end(self, pause: bool) -> None:
        self.flight.set_pause_at_end(pause, self.loop.last.t if self.loop.last is not None else 0.0)

    def show_message(self, text: str, error: bool = True) -> None:
        """Say something in the status bar and, for an error, above the 3D view; never blocks."""
        self.statusBar().showMessage(text, MESSAGE_SECONDS * 1000)
        if error:
            self.centre.show_error(text)

    # ---------------------------------------------------------- frame loop
    def show_frame(self, view_only: bool = False) -> None:
        """Draw one frame now (:meth:`app.window.loop.FrameLoop.show_frame`; an unpaced window's owner calls it)."""
        self.loop.show_frame(view_only)

    @property
    def frame_interval(self) -> int:
        """The frame timer's interval now, ms (:class:`~app.window.pace.FramePace`)."""
        return self.loop.interval

    def _first_frame(self) -> None:
        """The 3D view showed its first frame: open the gamepad once this frame's slots have run (PySDL2's
        search for its library, processes started, kept off the start's way)."""
        self.viewer.frameSwapped.disconnect(self._first_frame)
        QTimer.singleShot(0, self.gamepad.open)

    # ---------------------------------------------------------------- close
    def closeEvent(self, event):
        """Stop the frame timer and the simulation thread (within 1 s), save the size."""
        self.loop.stop()  # the frame timer, and the garbage collector's own thread again (app.window.loop)
        self.keys.detach()
        self.gamepad.close()
        self.video.close()
        export = self.runs.csv_export
        if export is not None and not export.wait(30.0):
            print(f"attitude-sim: the CSV export to {export.path} did not finish", file=sys.stderr)
        if not self.flight.stop(1.0):
            print("attitude-sim: the simulation thread did not stop within 1 s", file=sys.stderr)
        if self.link is not None:
            self.link.close()
        if self._remember:
            saved = QSettings("attitude-sim", "attitude-sim")
            saved.setValue("geometry", self.saveGeometry())
            saved.setValue("splitter", self.splitter.saveState())
        super().closeEvent(event)
