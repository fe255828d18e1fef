"""The desktop window: controls, the 3D view and the live plots around one running simulation.

The simulation runs in :class:`~app.worker.SimulationWorker`'s thread.  The
window sends it inputs and commands, and a frame timer in the GUI thread
(:data:`FRAME_MS`) collects what it computed: every sample goes to the
:class:`~app.history.History` behind the plots, the last state turns the
aircraft, its command ghost, the gimbal rig and the comparison bodies; the
readouts, the controls (bound to the model's settings) and the status bar
follow at :data:`SLOW_EVERY` frames.  Nothing here computes physics.

``run_gui`` is the entry point of ``attitude-sim gui``.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import os
import sys
import time

import numpy as np
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect, QSettings, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QImage, QKeySequence, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.compare_plots import ComparePanel
from app.controls import ControlPanel
from app.controls.torque import torque_unit
from app.dialogs import FolderMemory
from app.export import CsvExport
from app.ensemble_view import EnsembleView
from app.help_overlay import HelpOverlay
from app.history import History, capacity_for
from app.keys import KeyFlyer
from app.plots import PlotPanel
from app.readouts import Readouts
from app.viewer import AttitudeView
from app.worker import SPEED_RANGE, SimulationWorker
from sim.quaternion import cayley
from sim.recording import Recorder, RecordingError, replay
from sim.runner import Runner
from sim.scenario import ScenarioError, builtin_names, load
from sim.scenario_writer import save as save_scenario_file
from sim.settings import SettingsError, damper_warning

__all__ = ["MainWindow", "run_gui", "application", "open_window", "grab_window", "apply_theme",
           "COMPARE_COLORS"]

#: Frame timer interval, ms (about 60 Hz).
FRAME_MS = 16
#: Readouts, controls and fault banner are updated every this many frames (about 15 Hz).
SLOW_EVERY = 4
#: Seconds between updates of the rates in the status bar (their averaging time).
STATUS_SECONDS = 1.0
#: Seconds an inline message stays.
MESSAGE_SECONDS = 12
#: Window size when none was saved.
DEFAULT_SIZE = (1400, 900)
#: Initial widths of the control column, the centre and the plots.
SPLITTER_SIZES = (345, 610, 445)
#: Colours of comparison bodies (RGBA, translucent), in the scenario's order.
COMPARE_COLORS = ((1.0, 0.6, 0.15, 0.4), (0.85, 0.35, 1.0, 0.4), (1.0, 0.95, 0.25, 0.4),
                  (0.3, 1.0, 0.6, 0.4), (1.0, 0.4, 0.5, 0.4))
#: RGB of the command ghost in the legend (the viewer's GHOST_COLOR).
COMMAND_COLOR = (0.55, 0.85, 1.0)

STYLE_SHEET = """
QGroupBox { font-weight: bold; border: 1px solid #3b414d; border-radius: 4px; margin-top: 9px; padding-top: 3px; }
QGroupBox::title { subcontrol-origin: margin; left: 8px; padding: 0 3px; color: #aeb6c4; }
QLineEdit { border: 1px solid #4a5060; border-radius: 3px; padding: 2px 4px; background: #1b1e24; }
QLineEdit[invalid="true"] { border: 1px solid #ff5c5c; background: #3a1f24; }
QLabel#label_caption { color: #d6dae2; }
QLabel#label_title { font-weight: bold; color: #ffffff; }
QLabel#label_fault { background: #5c1d24; color: #ffdada; padding: 5px 8px; border-radius: 3px; }
QLabel#label_message { background: #4d3d14; color: #ffe9ad; padding: 5px 8px; border-radius: 3px; }
QLabel#gimbal_lock_warning { color: #ffb347; font-weight: bold; }
QLabel[warning="true"] { color: #ffb347; }
QLabel#note { color: #8a93a3; }
QLabel#readout_name { color: #8f98a8; }
QFrame#readouts QLabel { font-family: "DejaVu Sans Mono", monospace; }
QFrame#readouts { background: #1c1f25; border-top: 1px solid #323844; }
QFrame#help_overlay { background: rgba(14, 16, 21, 235); }
QFrame#help_overlay QLabel { font-size: 10.5pt; }
QLabel#status_recording { color: #ff6b6b; font-weight: bold; }
"""


def apply_theme(app: QApplication) -> None:
    """A dark Fusion palette and the window's style sheet."""
    app.setStyle("Fusion")
    palette = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#23262d", QPalette.ColorRole.WindowText: "#dfe3ea",
        QPalette.ColorRole.Base: "#1b1e24", QPalette.ColorRole.AlternateBase: "#262a32",
        QPalette.ColorRole.ToolTipBase: "#2d313a", QPalette.ColorRole.ToolTipText: "#eef1f5",
        QPalette.ColorRole.Text: "#e3e6ec", QPalette.ColorRole.Button: "#2e323b",
        QPalette.ColorRole.ButtonText: "#e3e6ec", QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Highlight: "#3d7eff", QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: "#6ea8ff", QPalette.ColorRole.PlaceholderText: "#6f7785",
    }
    for role, color in colors.items():
        palette.setColor(role, QColor(color))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#6a7180"))
    app.setPalette(palette)
    app.setStyleSheet(STYLE_SHEET)


def application() -> QApplication:
    """The process's ``QApplication``, created if need be, with the window's theme.

    Sets ``QT_QPA_UPDATE_IDLE_TIME=0`` (unless set) before the first window
    asks for an update: by default Qt delivers a window's update request
    5 ms after it is made, so the 3D view would be drawn 5 ms after each
    frame tick; measured here that costs about a fifth of the frame rate.
    """
    os.environ.setdefault("QT_QPA_UPDATE_IDLE_TIME", "0")
    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setApplicationName("attitude-sim")
    apply_theme(app)
    return app


def open_window(scenario, *, remember_geometry: bool = True, speed: float = 1.0) -> "MainWindow":
    """Create and show the main window on :func:`application`, running ``scenario``.

    After the window is built, every object made so far is moved out of the
    garbage collector's sight (``gc.freeze``): the tens of thousands of Qt
    and pyqtgraph objects would otherwise be scanned by each full
    collection, a 20 ms pause in the frame loop every few seconds.  Garbage
    is collected first, so nothing unreachable is kept for good.
    """
    application()
    window = MainWindow(scenario, remember_geometry=remember_geometry, speed=speed)
    window.show()
    gc.collect()
    gc.freeze()
    return window


def grab_window(window: "MainWindow") -> QImage:
    """A picture of the whole window with the 3D view in it.

    ``QWidget.grab`` does not capture the OpenGL views reliably, so each
    view's own framebuffer (the 3D view's, the ensemble sphere's when shown)
    is painted over it at the view's place, and the help overlay, when
    shown, over that.
    """
    image = window.grab().toImage()
    frame = window.viewer.grab_image()
    painter = QPainter(image)
    painter.drawImage(QRect(window.viewer.mapTo(window, QPoint(0, 0)), window.viewer.size()), frame)
    sphere = window.ensemble.view
    if sphere.isVisible():
        painter.drawImage(QRect(sphere.mapTo(window, QPoint(0, 0)), sphere.size()), sphere.scene.grab_image())
    if window.help.isVisible():
        window.help.render(painter, window.help.mapTo(window, QPoint(0, 0)))
    painter.end()
    return image


def _swatch(rgb) -> str:
    r, g, b = (round(255 * c) for c in rgb[:3])
    return f'<span style="color: rgb({r},{g},{b})">■</span>'


class _RateMeter:
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


class MainWindow(QMainWindow):
    """The attitude simulator's window around one :class:`~app.worker.SimulationWorker`.

    Parameters
    ----------
    scenario : Scenario
        What to run first.
    remember_geometry : bool
        Restore the size saved last time (QSettings) and save it on close.
    speed : float
        Initial speed factor.

    Attributes
    ----------
    worker : SimulationWorker
    history : History
        The samples since the last reset (the plots' data): at least the
        plotted window (``plots.window_seconds``) at full resolution, sized from dt
        (:func:`~app.history.capacity_for`), older samples thinned.
    viewer : AttitudeView
    plots : PlotPanel
    compare : ComparePanel
        The comparison bodies' error, energy and norm drift: a "Compare" tab
        beside the plots, only while the scenario has comparison bodies.
    controls : ControlPanel
    readouts : Readouts
    ensemble : EnsembleView
        N bodies flying the same inputs (the "Ensemble" tab, View menu).
    """

    def __init__(self, scenario, *, remember_geometry: bool = True, speed: float = 1.0):
        super().__init__()
        self.setWindowTitle("attitude-sim")
        self._scenario = scenario
        self._remember = remember_geometry
        self._bodies: tuple = ()
        self._last = None
        self._last_t = -math.inf
        self._tick = 0
        self._frames = 0
        self._fault = None
        self._at_end = False
        self._recording = None
        self._meter = _RateMeter()
        self._next_status = 0.0
        self.folders = FolderMemory(QSettings("attitude-sim", "attitude-sim") if remember_geometry else None)
        self.csv_export = None  # the latest CsvExport
        self.history = History()
        runner = Runner(scenario)
        self.worker = SimulationWorker(runner, speed)
        self._build(speed)
        self._build_menus()
        self._show_run(scenario, runner)
        self._arm_end()
        self._restore_geometry()
        self.ensemble.prepare(scenario, runner)
        self.worker.start()
        self._timer = QTimer(self, timerType=Qt.TimerType.PreciseTimer, interval=FRAME_MS)
        self._timer.timeout.connect(self._frame)
        self._timer.start()

    # ---------------------------------------------------------------- layout
    def _build(self, speed: float) -> None:
        self.controls = ControlPanel(self._submit, SPEED_RANGE)
        self.controls.setMinimumWidth(300)
        self.controls.rejected.connect(lambda text: self.statusBar().showMessage(text, MESSAGE_SECONDS * 1000))
        run = self.controls.run
        run.show_state(False, speed)
        run.pause_toggled.connect(self.worker.pause)
        run.step_clicked.connect(self.worker.step)
        run.reset_clicked.connect(self.reset)
        run.speed_changed.connect(self.worker.set_speed)
        run.pause_at_end_toggled.connect(self._toggle_pause_at_end)
        self.viewer = AttitudeView()
        self.viewer.setObjectName("viewer")
        self.viewer.frameSwapped.connect(self._count_frame)
        self.controls.body.principal_axes.toggled.connect(self.viewer.show_principal_axes)
        self.controls.body.rejected.connect(self.show_message)
        self.plots = PlotPanel(self.history)
        self.plots.setObjectName("plots")
        self._build_compare()
        self.ensemble = EnsembleView(self.worker, self.controls, self.reset, self.show_message, self.plot_tabs)
        self.readouts = Readouts()
        self.title = QLabel(objectName="label_title")
        self.caption = QLabel(objectName="label_caption", wordWrap=True)
        self.legend = QLabel(objectName="label_legend", textFormat=Qt.TextFormat.RichText)
        self.fault_banner = QLabel(objectName="label_fault", wordWrap=True, visible=False)
        self.message = QLabel(objectName="label_message", wordWrap=True, visible=False)
        self._message_timer = QTimer(self, singleShot=True, interval=MESSAGE_SECONDS * 1000)
        self._message_timer.timeout.connect(self.message.hide)
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addStretch(1)
        head.addWidget(self.legend)
        centre = QWidget(objectName="centre")
        column = QVBoxLayout(centre)
        column.setContentsMargins(4, 4, 4, 0)
        column.setSpacing(3)
        column.addLayout(head)
        column.addWidget(self.caption)
        column.addWidget(self.fault_banner)
        column.addWidget(self.message)
        column.addWidget(self.viewer, 1)
        column.addWidget(self.readouts)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, objectName="splitter")
        for widget in (self.controls, centre, self.plot_tabs):
            self.splitter.addWidget(widget)
        self.splitter.setCollapsible(1, False)
        self.splitter.setStretchFactor(1, 1)
        body = QWidget(objectName="body")  # holds the splitter and, above it, the help
        QVBoxLayout(body).addWidget(self.splitter)
        body.layout().setContentsMargins(0, 0, 0, 0)
        self.setCentralWidget(body)
        self.help = HelpOverlay(body)
        self.keys = KeyFlyer(self)
        self.keys.changed.connect(self.controls.torque.set_key_torque)
        self._build_status_bar()

    def _build_compare(self) -> None:
        """The plots and the comparison plots as tabs; the tab bar only shows with both."""
        self.compare = ComparePanel()
        self.compare.setObjectName("compare")
        self.plot_tabs = QTabWidget(objectName="plot_tabs", documentMode=True, tabBarAutoHide=True)
        self.plot_tabs.addTab(self.plots, "Plots")
        self.plot_tabs.currentChanged.connect(self._sync_compare_action)

    def _show_compare(self, runner) -> None:
        """Give the comparison plots the scenario's bodies; add their tab (and show it) or remove it."""
        labels = self._bodies
        self.compare.set_bodies(labels, _cycle(COMPARE_COLORS, len(labels)), runner.reference,
                                dt=runner.sim.settings.dt)
        index = self.plot_tabs.indexOf(self.compare)
        if self.compare.has_bodies and index < 0:
            self.plot_tabs.addTab(self.compare, "Compare")
            self.plot_tabs.setCurrentWidget(self.compare)
        elif not self.compare.has_bodies and index >= 0:
            self.plot_tabs.removeTab(index)
        self.compare_action.setEnabled(self.compare.has_bodies)
        self._sync_compare_action()

    def _sync_compare_action(self, _index=None) -> None:
        with QSignalBlocker(self.compare_action):
            self.compare_action.setChecked(self.plot_tabs.currentWidget() is self.compare)

    def _toggle_compare(self, checked: bool) -> None:
        if self.compare.has_bodies:
            self.plot_tabs.setCurrentWidget(self.compare if checked else self.plots)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.status = {name: QLabel(objectName=f"status_{name}") for name in ("time", "speed", "steps", "fps")}
        self.status_recording = QLabel(objectName="status_recording", visible=False)
        bar.addPermanentWidget(self.status_recording)
        for label in self.status.values():
            bar.addPermanentWidget(label)

    def _action(self, menu, text, slot, shortcut=None, tip=None, checkable=False) -> QAction:
        action = QAction(text, self, checkable=checkable)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        files = bar.addMenu("&File")
        self.record_action = self._action(
            files, "&Record…", self._toggle_recording, "Ctrl+R", checkable=True,
            tip="Record to a .jsonl file; recording restarts the run from the reset state at t = 0")
        self._action(files, "Re&play…", self._ask_replay, "Ctrl+P", "Run a recording in the window")
        self._action(files, "&Save scenario…", self._ask_save_scenario, "Ctrl+S",
                     "The current settings, the reset attitude and rates, and the scenario's events and "
                     "comparison bodies as a scenario file")
        files.addSeparator()
        self._action(files, "Export history &CSV…", self._ask_export_csv,
                     tip="The samples the plots hold (at least the plotted window), in the background; "
                         "a whole run: Record, then attitude-sim replay --out")
        self._action(files, "Export plots &PNG…", self._ask_export_plots, tip="The plots as drawn now")
        self._action(files, "Save 3D &view PNG…", self._ask_save_view, tip="The 3D view as drawn now")
        files.addSeparator()
        self._action(files, "&Quit", self.close, "Ctrl+Q")

        simulation = bar.addMenu("&Simulation")
        self._action(simulation, "Pause / run", self.controls.run.pause.toggle, "Space")
        self._action(simulation, "Single step", self.controls.run.step.click, "N")
        self._action(simulation, "Reset", self.reset, "R")

        scenarios = bar.addMenu("S&cenario")
        for name in builtin_names():
            self._action(scenarios, name, lambda _=False, name=name: self.open_scenario(name))
        scenarios.addSeparator()
        self._action(scenarios, "&Open…", self._ask_scenario, "Ctrl+O", "Open a scenario .toml file")

        view = bar.addMenu("&View")
        for action in self.plots.toggle_actions():
            view.addAction(action)
        self.compare_action = self._action(
            view, "Comparison plots", self._toggle_compare, "Ctrl+T", checkable=True,
            tip="The Compare tab: error, energy and norm drift of the comparison bodies")
        view.addAction(self.ensemble.action)
        view.addSeparator()
        gimbal = self._action(view, "Gimbal rig", self.viewer.show_gimbal, checkable=True)
        ghost = self._action(view, "Command ghost", self.viewer.show_ghost, checkable=True)
        for action in (gimbal, ghost):
            action.setChecked(True)
        self._action(view, "Reset camera", self.viewer.reset_view, "Home")

        helps = bar.addMenu("&Help")
        self._action(helps, "Keys and what to watch", self.help.toggle, "F1")

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
    def scenario(self):
        """The scenario running now."""
        return self._scenario

    @property
    def last_snapshot(self):
        """The latest :class:`~sim.simulation.Snapshot` shown, or None before the first."""
        return self._last

    # ---------------------------------------------------------------- inputs
    def _submit(self, key: str, value) -> None:
        try:
            self.worker.submit(key, value)
        except SettingsError as exc:
            self.show_message(str(exc))

    def reset(self) -> None:
        """Back to the reset fields' angles and rates at t = 0 (clears a fault)."""
        self.worker.reset(*self.controls.body.reset_state())
        self._arm_end()

    def _arm_end(self) -> None:
        """Have the worker pause at the scenario's end, if the Run group says so."""
        pause = self.controls.run.pause_at_end.isChecked()
        self.worker.pause_at(self._scenario.duration if pause else None)

    def _toggle_pause_at_end(self, pause: bool) -> None:
        t = self._last.t if self._last is not None else 0.0
        if not pause or t < self._scenario.duration:  # past the end: from the next reset on
            self._arm_end()

    def open_scenario(self, name_or_path) -> bool:
        """Run a built-in scenario or a scenario file; on error say why and keep running.

        Returns
        -------
        bool
            True when the scenario was loaded.
        """
        try:
            scenario = load(str(name_or_path))
        except ScenarioError as exc:
            self.show_message(str(exc))
            return False
        self._start(scenario, Runner(scenario))
        self.show_message(f"Scenario {scenario.name}: {scenario.title}", error=False)
        return True

    def current_scenario(self):
        """The scenario with the settings in force now and the reset fields' angles and rates."""
        angles, rates = self.controls.body.reset_state()
        settings = self.worker.settings.replace(angles_deg=angles, rates=rates)
        return dataclasses.replace(self._scenario, settings=settings)

    def save_scenario(self, path) -> bool:
        """Write :meth:`current_scenario` as a scenario file (loadable with Scenario > Open)."""
        return self._write(lambda: save_scenario_file(self.current_scenario(), path), path)

    def start_recording(self, path) -> bool:
        """Restart the run from the reset state at t = 0 and record it to ``path``.

        The recording holds :meth:`current_scenario`.
        """
        scenario = self.current_scenario()
        try:
            recorder = Recorder(path, scenario)
        except OSError as exc:
            self.show_message(f"cannot record to {path}: {exc.strerror}")
            return False
        self._start(scenario, Runner(scenario, recorder=recorder))
        self._recording = os.fspath(path)
        self._show_recording()
        self.show_message(f"Recording to {self._recording}: the run restarted at t = 0", error=False)
        return True

    def stop_recording(self) -> None:
        """Close the recording at the current step."""
        if self._recording is None:
            return
        self.worker.stop_recording()
        self.show_message(f"Recording saved to {self._recording}", error=False)
        self._recording = None
        self._show_recording()

    def replay(self, path) -> bool:
        """Run a recording; the simulation pauses where the recording ended."""
        try:
            runner, steps = replay(path)
        except (RecordingError, OSError) as exc:
            self.show_message(str(exc))
            return False
        self._start(runner.scenario, runner, stop_at=steps)
        self.show_message(f"Replaying {path}: {steps} steps; it pauses at the end", error=False)
        return True

    def export_csv(self, path) -> CsvExport | None:
        """Write the history as CSV (``attitude-sim run`` columns) in the background.

        The samples held now are copied and written by a
        :class:`~app.export.CsvExport` thread; progress and the result show
        in the status bar.  Returns the export (:meth:`CsvExport.wait` for
        the file), or None while the previous one is still writing.
        """
        if self.csv_export is not None and self.csv_export.running():
            self.show_message(f"Still exporting to {self.csv_export.path}")
            return None
        export = CsvExport(self.history, path, parent=self)
        # slots of the window (a QObject of the GUI thread): Qt queues the thread's signals to it
        export.progress.connect(self._export_progress)
        export.finished.connect(self._export_finished)
        export.failed.connect(self._export_failed)
        self.csv_export = export
        self.statusBar().showMessage(f"Exporting history to {os.path.basename(export.path)}…")
        export.start()
        return export

    def _export_progress(self, done: int, total: int) -> None:
        name = os.path.basename(self.csv_export.path)
        self.statusBar().showMessage(f"Exporting history to {name}: {100 * done // max(total, 1)} %")

    def _export_finished(self, path: str, rows: int) -> None:
        span = self.csv_export.span
        self.show_message(f"Saved {path}: {rows:,} samples" + (f", t = {span[0]:g} to {span[1]:g} s" if span else ""),
                          error=False)

    def _export_failed(self, path: str, why: str) -> None:
        self.show_message(f"{path}: {why}")

    def export_plots(self, path) -> bool:
        """Save the plots as a PNG."""
        return self._write(lambda: self.plots.export_png(path), path)

    def save_view(self, path) -> bool:
        """Save the 3D view as a PNG."""
        def save():
            pixels = np.ascontiguousarray(self.viewer.render_image())
            height, width, _ = pixels.shape
            image = QImage(pixels.data, width, height, 3 * width, QImage.Format.Format_RGB888)
            if not image.save(os.fspath(path), "PNG"):
                raise OSError(f"cannot write {path}")
        return self._write(save, path)

    def _write(self, write, path) -> bool:
        try:
            write()
        except OSError as exc:
            self.show_message(f"{path}: {exc.strerror or exc}")
            return False
        self.show_message(f"Saved {path}", error=False)
        return True

    def show_message(self, text: str, error: bool = True) -> None:
        """Say something in the status bar and, for an error, above the 3D view; never blocks."""
        self.statusBar().showMessage(text, MESSAGE_SECONDS * 1000)
        if error:
            self.message.setText(text)
            self.message.show()
            self._message_timer.start()

    # ------------------------------------------------------------- dialogs
    def _ask_scenario(self) -> None:
        path = self.folders.ask_open(self, "Open scenario", "Scenario (*.toml);;All files (*)")
        if path:
            self.open_scenario(path)

    def _toggle_recording(self, checked: bool) -> None:
        if not checked:
            self.stop_recording()
            return
        path = self.folders.ask_save(self, "Record to (restarts the run at t = 0)", "recording.jsonl",
                                     "Recording (*.jsonl)")
        if not (path and self.start_recording(path)):
            self._show_recording()

    def _ask_replay(self) -> None:
        path = self.folders.ask_open(self, "Replay recording", "Recording (*.jsonl);;All files (*)")
        if path:
            self.replay(path)

    def _ask_save(self, title, default, kind, write) -> None:
        path = self.folders.ask_save(self, title, default, kind)
        if path:
            write(path)

    def _ask_save_scenario(self) -> None:
        name = f"{self._scenario.name}.toml"
        self._ask_save("Save scenario", name, "Scenario (*.toml)", self.save_scenario)

    def _ask_export_csv(self) -> None:
        self._ask_save("Export history", "history.csv", "CSV (*.csv)", self.export_csv)

    def _ask_export_plots(self) -> None:
        self._ask_save("Export plots", "plots.png", "PNG (*.png)", self.export_plots)

    def _ask_save_view(self) -> None:
        self._ask_save("Save 3D view", "view.png", "PNG (*.png)", self.save_view)

    # ------------------------------------------------------------ new runs
    def _start(self, scenario, runner, stop_at=None) -> None:
        """Hand a new runner to the worker and show its scenario."""
        if self._recording is not None:  # the worker closes it with the old runner
            self.show_message(f"Recording saved to {self._recording}", error=False)
            self._recording = None
            self._show_recording()
        self.ensemble.prepare(scenario, runner)
        self.worker.replace_runner(runner, stop_at)
        self._show_run(scenario, runner)
        self._arm_end()

    def _show_run(self, scenario, runner) -> None:
        """Show a new run: its title, caption, comparison bodies and settings; no samples yet."""
        self._scenario = scenario
        self.setWindowTitle(f"attitude-sim: {scenario.title or scenario.name}")
        self._clear_history(runner.sim.settings.dt)
        self._last = None
        self._set_bodies(tuple(label for label, _ in scenario.compare))
        self._show_body(runner.sim.settings)
        self._show_compare(runner)
        self.title.setText(scenario.title or scenario.name)
        self.caption.setText(scenario.caption)
        self.caption.setVisible(bool(scenario.caption))
        self.controls.show_settings(runner.sim.settings, fresh=True)
        self.controls.run.show_end(scenario.duration, scenario.pause_at_end)
        self._show_legend(runner.sim.settings)

    def _set_bodies(self, labels: tuple) -> None:
        for label in self._bodies:
            self.viewer.remove_body(label)
        for label, color in zip(labels, _cycle(COMPARE_COLORS, len(labels))):
            self.viewer.add_body(label, color)
        self._bodies = labels

    def _show_body(self, settings) -> None:
        """Draw the settings' body (mesh and principal axes) if it changed."""
        changed = settings.body != self.viewer.scene.body.body
        try:
            self.viewer.set_body(settings.body, settings.mass_properties.inertia)
        except ValueError as exc:  # the file changed on disk since it was chosen
            self.show_message(str(exc))
            return
        if changed and damper_warning(settings):
            self.show_message(damper_warning(settings))

    def _show_legend(self, settings) -> None:
        entries = [f"{_swatch(COMMAND_COLOR)} command"] if settings.controller != "none" else []
        entries += [f"{_swatch(color)} {label}"
                    for label, color in zip(self._bodies, _cycle(COMPARE_COLORS, len(self._bodies)))]
        text = "&nbsp;&nbsp;".join(entries)
        if text != self.legend.text():
            self.legend.setText(text)

    def _show_recording(self) -> None:
        with_file = self._recording is not None
        self.status_recording.setText(f"● REC {os.path.basename(self._recording)}" if with_file else "")
        self.status_recording.setVisible(with_file)
        with QSignalBlocker(self.record_action):
            self.record_action.setChecked(with_file)

    # ---------------------------------------------------------- frame loop
    def _clear_history(self, dt: float | None = None) -> None:
        """Forget every sample; size the history for ``dt`` (default: the worker's)."""
        self.history.clear()
        dt = self.worker.settings.dt if dt is None else dt
        self.history.resize(capacity_for(dt, self.plots.window_seconds))
        self.plots.clear()
        self.compare.clear()
        self._last_t = -math.inf

    def _take(self, batch) -> None:
        """Append a batch's samples to the history; a jump back in time (a reset) starts it anew."""
        rows = batch.rows
        t = rows[:, 0] if len(rows) else np.array([batch.last.t])
        back = np.flatnonzero(np.diff(t) < 0)
        start = 0  # first row after the last reset in this batch
        if len(back):
            self._clear_history()
            start = back[-1] + 1
            rows = rows[start:]
        elif t[0] < self._last_t:
            self._clear_history()
        if len(rows):
            # a smaller dt: grow, keeping every sample, so the plotted window stays whole
            self.history.reserve(capacity_for(self.worker.settings.dt, self.plots.window_seconds))
            self.history.append(rows)
            self._last_t = rows[-1, 0]
        else:
            self._last_t = max(self._last_t, batch.last.t)
        if batch.compare_rows:
            self.compare.append({label: r[start:] for label, r in batch.compare_rows.items()})

    def _show_bodies(self, batch) -> None:
        last = batch.last
        settings = self.worker.settings
        self.viewer.set_attitude(cayley(last.q))
        self.viewer.set_command(cayley(last.qc) if settings.controller != "none" else None)
        self.viewer.set_gimbal_angles(*np.radians(last.angles_deg))
        for label, snapshot in batch.compare.items():
            if label in self._bodies:
                self.viewer.set_body_attitude(label, cayley(snapshot.q))

    def _frame(self) -> None:
        """One display frame: collect the worker's batches and show them."""
        self._tick += 1
        batches = self.worker.drain()
        for batch in batches:
            self._take(batch)
        if batches:
            self._last = batches[-1].last
            self._show_bodies(batches[-1])
            self.ensemble.show_batch(batches[-1])
        if self.plots.isVisible():  # hidden behind the Compare tab: catch up when shown
            self.plots.refresh_due(self._tick)  # a share of the plots each frame
        self.compare.refresh_due(self._tick)  # returns at once while hidden
        if self._tick % SLOW_EVERY == 0:
            self._sync()
        if time.perf_counter() >= self._next_status:
            self._next_status = time.perf_counter() + STATUS_SECONDS
            self._show_status()

    def _sync(self) -> None:
        """The slower half of a frame: readouts, controls, fault banner."""
        worker = self.worker
        if self._last is not None:
            self.readouts.show_snapshot(self._last)
            self.status["time"].setText(f"t = {self._last.t:.2f} s")
        self.controls.show_settings(worker.settings)
        self.readouts.torque_unit = torque_unit(max(self.controls.torque.limits))
        self._show_body(worker.settings)
        self.controls.run.show_state(worker.paused, worker.speed)
        self._show_legend(worker.settings)
        if worker.at_end != self._at_end:
            self._at_end = worker.at_end
            if self._at_end:
                self.show_message(f"End of the scenario at t = {self._scenario.duration:g} s: paused. "
                                  "Run (Space) goes on; Reset starts it again.")
        fault = worker.fault
        if fault != self._fault:
            self._fault = fault
            self.fault_banner.setVisible(fault is not None)
            if fault is not None:
                self.fault_banner.setText(f"Simulation stopped: {fault}. Press Reset to recover.")
                self.statusBar().showMessage(f"fault: {fault}", MESSAGE_SECONDS * 1000)

    def _count_frame(self) -> None:
        self._frames += 1

    def _show_status(self) -> None:
        worker = self.worker
        rates = self._meter.rates(worker.sim_seconds, worker.steps_taken, self._frames)
        if rates is None:
            return
        factor, steps, fps = rates
        halted = worker.paused or worker.fault is not None
        behind = not halted and factor < 0.85 * worker.speed
        state = "paused" if halted else f"{factor:.2f}× real time"
        if behind:
            state += f" (behind: target {worker.speed:g}×)"
        label = self.status["speed"]
        label.setText(state)
        flag = "true" if behind else "false"  # a string: PySide6 mis-counts bool properties
        if label.property("warning") != flag:
            label.setProperty("warning", flag)
            label.style().unpolish(label)
            label.style().polish(label)
        self.status["steps"].setText(f"{steps:,.0f} steps/s")
        self.status["fps"].setText(f"{fps:.0f} fps")

    # ---------------------------------------------------------------- close
    def closeEvent(self, event):  # noqa: N802 (Qt's name)
        """Stop the frame timer and the simulation thread (within 1 s), save the size."""
        self._timer.stop()
        self.keys.detach()
        if self.csv_export is not None and not self.csv_export.wait(30.0):
            print(f"attitude-sim: the CSV export to {self.csv_export.path} did not finish", file=sys.stderr)
        if not self.worker.stop(1.0):
            print("attitude-sim: the simulation thread did not stop within 1 s", file=sys.stderr)
        if self._remember:
            saved = QSettings("attitude-sim", "attitude-sim")
            saved.setValue("geometry", self.saveGeometry())
            saved.setValue("splitter", self.splitter.saveState())
        super().closeEvent(event)


def _cycle(items, n: int) -> list:
    return [items[i % len(items)] for i in range(n)]


def _no_display_reason() -> str | None:
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform.startswith(("offscreen", "minimal")):
        return f"QT_QPA_PLATFORM={platform} has no OpenGL for the 3D view"
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "no display"
    return None


def save_png(image: QImage, path) -> None:
    """Write ``image`` to ``path`` as PNG; a write error raises OSError with the reason."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise OSError(f"the picture could not be encoded as PNG ({image.width()}x{image.height()})")
    with open(path, "wb") as f:
        f.write(data.data())


def run_gui(scenario="default", screenshot=None, after: float = 2.0) -> int:
    """Open the window; with ``screenshot``, save a picture after ``after`` s and exit.

    Parameters
    ----------
    scenario : str or Scenario
        Built-in scenario name, scenario file, or a loaded scenario.
    screenshot : path-like, optional
        PNG file: the whole window including the 3D view, taken after
        ``after`` seconds of wall time with the simulation running.  The
        window then has its default size, whatever was saved.
    after : float
        Seconds before the screenshot.

    Returns
    -------
    int
        Exit code: 0, 1 when the screenshot could not be written, 2 without
        a display (with one line saying to use ``xvfb-run -a``).
    """
    reason = _no_display_reason()
    if reason is not None:
        print(f"attitude-sim: {reason}; run the window on a virtual screen: "
              "xvfb-run -a attitude-sim gui --screenshot out.png", file=sys.stderr)
        return 2
    scenario = load(scenario) if isinstance(scenario, str) else scenario
    window = open_window(scenario, remember_geometry=screenshot is None)
    app = QApplication.instance()
    result = {"code": 0}
    if screenshot is not None:
        def capture():
            try:
                save_png(grab_window(window), screenshot)
            except OSError as exc:  # one line with the reason (not libpng's own message)
                print(f"attitude-sim: error: cannot write {screenshot}: {exc.strerror or exc}", file=sys.stderr)
                result["code"] = 1
            window.close()
        QTimer.singleShot(round(after * 1000), capture)
    app.exec()
    return result["code"]
