"""The window's devices: a gamepad (SDL's virtual joystick, so no hardware is needed) flies the aircraft with the
right signs and is shown in the status bar, plugged and pulled out live; the live link's indicator counts."""

import warnings

import pytest
import zmq

from app.controls.gamepad import Gamepad
from app.link import LinkServer
from sim.io.link import encode_input

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "Using SDL2 binaries from pysdl2-dll": what is meant
    import sdl2 as SDL               # a dependency (pyproject): missing, the file errors; it is never skipped
LEFTY, RIGHTTRIGGER = 1, 5


class Virtual:
    """An SDL virtual game controller: six axes (leftx, lefty, rightx, righty, lefttrigger, righttrigger)."""

    def __init__(self):
        SDL.SDL_InitSubSystem(SDL.SDL_INIT_JOYSTICK | SDL.SDL_INIT_GAMECONTROLLER)
        self.index = SDL.SDL_JoystickAttachVirtual(SDL.SDL_JOYSTICK_TYPE_GAMECONTROLLER, 6, 15, 0)
        assert self.index >= 0, SDL.SDL_GetError()
        self.joystick = SDL.SDL_JoystickOpen(self.index)

    def axis(self, axis, raw):
        assert SDL.SDL_JoystickSetVirtualAxis(self.joystick, axis, raw) == 0

    def unplug(self):
        if self.joystick is not None:
            SDL.SDL_JoystickClose(self.joystick)
            SDL.SDL_JoystickDetachVirtual(self.index)
            SDL.SDL_QuitSubSystem(SDL.SDL_INIT_JOYSTICK | SDL.SDL_INIT_GAMECONTROLLER)
            self.joystick = None


@pytest.fixture
def virtual():
    pad = Virtual()
    yield pad
    pad.unplug()


def test_the_gamepad_reader_sees_a_controller_plugged_in_and_pulled_out():
    gamepad = Gamepad()
    try:
        assert gamepad.available and gamepad.poll() == (None, False)
        pad = Virtual()
        pad.axis(LEFTY, 32767)
        axes, changed = gamepad.poll()
        assert changed and gamepad.name == "Virtual Controller"
        assert axes["lefty"] == 1.0 and axes["leftx"] == 0.0
        pad.unplug()
        assert gamepad.poll() == (None, True) and gamepad.name is None
    finally:
        gamepad.close()


def _rates(win):
    return win.last_snapshot.w


def test_the_gamepad_flies_the_aircraft(qtbot, main_window):
    """Plugged in while the window runs: the stick pulled back pitches the nose up (+y rate), the right trigger
    yaws it right (+z rate); pulled out, the torque goes back to the sliders'."""
    win = main_window("default", speed=1.0)
    win.worker.send((("dampers_on", False), ("angles_deg", (0.0, 0.0, 0.0)), ("rates", (0.0, 0.0, 0.0)),
                           ("reset", None)))
    pad = Virtual()
    try:
        qtbot.waitUntil(lambda: win.status.device.isVisible())
        assert "Virtual Controller" in win.status.device.text()
        pad.axis(LEFTY, 32767)                       # full back: the slider range's full pitch torque
        qtbot.waitUntil(lambda: win.worker.settings.torque[1] > 0.0)
        limit = win.controls.torque.limits[1]
        assert win.worker.settings.torque == pytest.approx((0.0, limit, 0.0))
        qtbot.waitUntil(lambda: _rates(win)[1] > 0.05)
        pad.axis(LEFTY, 0)
        pad.axis(RIGHTTRIGGER, 32767)
        qtbot.waitUntil(lambda: win.worker.settings.torque[2] > 0.0 and win.worker.settings.torque[1] == 0.0,
                        timeout=3000)
        wz = _rates(win)[2]
        qtbot.waitUntil(lambda: _rates(win)[2] > wz + 0.05)
        pad.unplug()
        qtbot.waitUntil(lambda: not win.status.device.isVisible())
        qtbot.waitUntil(lambda: win.worker.settings.torque == (0.0, 0.0, 0.0))
    finally:
        pad.unplug()


@pytest.mark.gl
def test_the_gamepad_is_opened_after_the_first_frame(qtbot, virtual):
    """SDL is loaded only once the 3D view has shown its first frame (kept off the launch's way), and the
    controller plugged in before is found then."""
    from app.window import MainWindow
    from sim.run.scenario import load

    win = MainWindow(load("default"), remember_geometry=False)
    frames_at_open = []
    opened = win.gamepad.open

    def open_(*args):
        frames_at_open.append(win.loop.frames)
        opened(*args)

    win.gamepad.open = open_
    try:
        assert win.gamepad.gamepad is None                     # built, not shown: no device read yet
        win.show()
        qtbot.waitUntil(lambda: win.gamepad.gamepad is not None)
        assert frames_at_open and frames_at_open[0] >= 1       # after the first frame was on screen
        assert len(frames_at_open) == 1
        qtbot.waitUntil(lambda: win.status.device.isVisible())
        assert win.gamepad.gamepad.available and "Virtual Controller" in win.status.device.text()
    finally:
        win.close()
        win.deleteLater()
    assert win.gamepad.gamepad.available is False               # closed with the window


def test_command_mode_sets_the_command_angles(qtbot, main_window, virtual):
    win = main_window("default", speed=1.0)
    win.gamepad.set_mapping(win.gamepad.mapping.with_(mode="command", zone=0.0, curve=0.0, command_deg=40.0))
    virtual.axis(LEFTY, 32767)
    qtbot.waitUntil(lambda: win.worker.settings.command_deg == (0.0, 40.0, 0.0))
    assert win.worker.settings.torque == (0.0, 0.0, 0.0)


@pytest.mark.gl
def test_the_status_bar_counts_the_live_link(qtbot):
    """A window opened with a link (``gui --link``): an input through it flies, a bad one is counted."""
    from app.window import MainWindow
    from sim.run.scenario import load
    from tests.app.cli.test_link import _free_ports

    port = _free_ports()
    win = MainWindow(load("default"), remember_geometry=False, link=LinkServer(f"127.0.0.1:{port}", rate=50))
    win.show()
    context = zmq.Context()
    push = context.socket(zmq.PUSH)
    push.setsockopt(zmq.LINGER, 0)
    push.connect(f"tcp://127.0.0.1:{port + 1}")
    try:
        push.send(b"not json")
        push.send(encode_input(1, torque=(0.0, 0.0, 1.0)))
        qtbot.waitUntil(lambda: win.worker.settings.torque == (0.0, 0.0, 1.0))
        qtbot.waitUntil(lambda: "dropped 1" in win.status.link.text())
        assert win.status.link.isVisible() and f"link :{port}" in win.status.link.text()
        assert win.link.stats().sent > 0
    finally:
        push.close()
        context.term()
        win.close()
        win.deleteLater()
    assert win.link._pub is None                       # closed with the window


def test_command_mode_under_a_moving_pointing_mode_says_the_command_angles_wait(qtbot, main_window, virtual):
    """The twin of the disabled command sliders (stop 54): the gamepad's command angles cannot fly while the nadir
    pointing makes the command, and the status bar says so instead of nothing happening."""
    win = main_window("nadir_pointing", speed=1.0)
    win.gamepad.set_mapping(win.gamepad.mapping.with_(mode="command", zone=0.0, curve=0.0, command_deg=40.0))
    virtual.axis(LEFTY, 32767)
    qtbot.waitUntil(lambda: "nadir pointing makes the command" in win.statusBar().currentMessage())
