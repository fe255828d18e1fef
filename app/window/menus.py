"""The window's menu bar: File, Simulation, Scenario, View and Help.

Every entry calls a public action of the window or of one of its parts
(:class:`~app.window.dialogs.FileDialogs`, the control panel, the 3D view,
the plots, the ensemble view, the help).
"""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtGui import QAction, QKeySequence

from sim import builtin_names

__all__ = ["build_menus", "show_momentum", "NO_MOMENTUM"]


def _action(window, menu, text, slot, shortcut=None, tip=None, checkable=False) -> QAction:
    action = QAction(text, window, checkable=checkable)
    if shortcut:
        action.setShortcut(QKeySequence(shortcut))
    if tip:
        action.setStatusTip(tip)
    action.triggered.connect(slot)
    menu.addAction(action)
    return action


def _check_quietly(action: QAction, checked: bool) -> None:
    with QSignalBlocker(action):
        action.setChecked(checked)


#: What View > Momentum plots says in a run without the Momentum tab.
NO_MOMENTUM = ("No Momentum plots in this run: they come with reaction wheels (Model tab), gravity gradient or "
               "a disturbance torque, and this run has none")


def show_momentum(window) -> None:
    """View > Momentum plots: the Momentum tab, or, in a run without one, a message that says why."""
    tabs = window.plot_tabs
    if tabs.momentum is None or tabs.indexOf(tabs.momentum) < 0:
        window.show_message(NO_MOMENTUM, error=False)
    else:
        tabs.show_momentum(True)


def build_menus(window) -> tuple[QAction, QAction]:
    """Fill ``window``'s menu bar (an :class:`~app.window.main.MainWindow` with its parts built).

    Returns
    -------
    record, compare : QAction
        The checkable File > Record and View > Comparison plots, which the
        window keeps in step with the recording and the tab shown.
    """
    bar = window.menuBar()
    dialogs = window.dialogs
    files = bar.addMenu("&File")
    record = _action(
        window, files, "&Record…", dialogs.toggle_recording, "Ctrl+R", checkable=True,
        tip="Record to a .jsonl file; recording restarts the run from the reset state at t = 0")
    _action(window, files, "Re&play…", dialogs.ask_replay, "Ctrl+P", "Run a recording in the window")
    _action(window, files, "Open &attitude file…", window.playback.ask_open,
            tip="Play a CCSDS attitude file (AEM) in the 3D view and the plots, beside the simulation or a second file")
    _action(window, files, "&Save scenario…", dialogs.ask_save_scenario, "Ctrl+S",
            "The current settings, the reset attitude and rates, and the scenario's events and "
            "comparison bodies as a scenario file")
    files.addSeparator()
    _action(window, files, "Export history &CSV…", dialogs.ask_export_csv,
            tip="The samples the plots hold (at least the plotted window), in the background; "
                "a whole run: Record, then attitude-sim replay --out")
    _action(window, files, "Export plots &PNG…", dialogs.ask_export_plots, tip="The plots as drawn now")
    _action(window, files, "Save 3D &view PNG…", dialogs.ask_save_view, tip="The 3D view as drawn now")
    video = _action(window, files, "Record vi&deo…", window.video.ask, "Ctrl+Shift+R", checkable=True,
                    tip="An MP4 or GIF of the window or the 3D view as you fly, until Stop")
    window.video.changed.connect(lambda on: _check_quietly(video, on))
    files.addSeparator()
    _action(window, files, "&Quit", window.close, "Ctrl+Q")

    simulation = bar.addMenu("&Simulation")
    _action(window, simulation, "Pause / run", window.controls.run.pause.toggle, "Space")
    _action(window, simulation, "Single step", window.controls.run.step.click, "N")
    _action(window, simulation, "Reset", lambda _=False: window.runs.reset(), "R")
    _action(window, simulation, "&Gamepad…", window.gamepad.ask,
            tip="Which stick flies which axis, the dead zone and the curve, torque or command angles")

    scenarios = bar.addMenu("S&cenario")
    for name in builtin_names():
        _action(window, scenarios, name, lambda _=False, name=name: window.runs.open_scenario(name))
    scenarios.addSeparator()
    _action(window, scenarios, "&Open…", dialogs.ask_scenario, "Ctrl+O", "Open a scenario .toml file")

    view = bar.addMenu("&View")
    for action in window.plots.toggle_actions():
        view.addAction(action)
    compare = _action(
        window, view, "Comparison plots", window.plot_tabs.show_compare, "Ctrl+T", checkable=True,
        tip="The Compare tab: error, energy and norm drift of the comparison bodies")
    _action(window, view, "Momentum plots", lambda: show_momentum(window), "Ctrl+M",
            tip="The Momentum tab (with wheels or an external torque): total momentum, wheel speeds and "
                "motor torques with their limits, the torque on the body")
    view.addAction(window.ensemble.action)
    view.addSeparator()
    gimbal = _action(window, view, "Gimbal rig", window.viewer.show_gimbal, checkable=True)
    ghost = _action(window, view, "Command ghost", window.viewer.show_ghost, checkable=True)
    for action in (gimbal, ghost):
        action.setChecked(True)
    window.orbit_action = _action(window, view, "Orbit frame", window.viewer.show_orbit, checkable=True,
                                   tip="The orbit frame through the body (with gravity gradient): x along the "
                                       "velocity, z to nadir")
    _action(window, view, "Reset camera", window.viewer.reset_view, "Home")

    helps = bar.addMenu("&Help")
    _action(window, helps, "Keys and what to watch", window.help.toggle, "F1")
    return record, compare
