"""A gamepad or joystick through SDL2's game-controller API (PySDL2 with its bundled SDL2): no home-made device reading.

:class:`Gamepad` opens SDL's joystick and game-controller subsystems (no
screen needed, no signal handlers taken), and :meth:`Gamepad.poll`, called
from a timer of the GUI thread (:mod:`app.window.gamepad_ui`), handles the
devices plugged in and pulled out since the last call and reads the axes
of the one in use: the first game controller found, the next one when it
is pulled out.  What the axes fly is :class:`app.controls.stick.StickMapping`'s
(pure, tested without SDL).  No Qt here.

SDL's virtual joystick (``SDL_JoystickAttachVirtual``) is a device like
any other, which is how the tests fly the aircraft without hardware.
"""

from __future__ import annotations

import ctypes
import warnings

from app.controls.stick import axis_value

__all__ = ["Gamepad", "AXES", "sdl"]

#: SDL's game-controller axes in SDL_GameControllerAxis order (SDL_CONTROLLER_AXIS_LEFTX = 0 ...).
AXES = ("leftx", "lefty", "rightx", "righty", "lefttrigger", "righttrigger")


def sdl():
    """The ``sdl2`` module (PySDL2 on the SDL2 that pysdl2-dll bundles), or None when it cannot be loaded."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Using SDL2 binaries from pysdl2-dll": what is meant
        try:
            import sdl2
        except Exception:  # ImportError, or the library could not be loaded
            return None
    return sdl2


class Gamepad:
    """The game controllers SDL sees; one of them in use.

    Attributes
    ----------
    available : bool
        SDL's subsystems opened (False: PySDL2 or its library missing; nothing happens).
    why : str
        Why not available.
    """

    def __init__(self):
        self._sdl = sdl()
        self._controller = None
        self._instance = None  # the joystick instance id of the controller in use
        self._name = None
        self.why = ""
        if self._sdl is None:
            self.available, self.why = False, "PySDL2 or its SDL2 library cannot be loaded"
            return
        s = self._sdl
        s.SDL_SetHint(s.SDL_HINT_NO_SIGNAL_HANDLERS, b"1")  # Ctrl-C stays Python's and Qt's
        s.SDL_SetHint(s.SDL_HINT_JOYSTICK_ALLOW_BACKGROUND_EVENTS, b"1")  # read while another window has the focus
        self.available = s.SDL_InitSubSystem(s.SDL_INIT_JOYSTICK | s.SDL_INIT_GAMECONTROLLER) == 0
        if not self.available:
            self.why = f"SDL: {s.SDL_GetError().decode(errors='replace')}"
            return
        self._event = s.SDL_Event()
        self._open_first()

    @property
    def name(self) -> str | None:
        """The name of the controller in use, or None."""
        return self._name

    def _open_first(self) -> None:
        s = self._sdl
        for index in range(s.SDL_NumJoysticks()):
            if s.SDL_IsGameController(index):
                controller = s.SDL_GameControllerOpen(index)
                if controller:
                    self._controller = controller
                    self._instance = s.SDL_JoystickInstanceID(s.SDL_GameControllerGetJoystick(controller))
                    name = s.SDL_GameControllerName(controller)
                    self._name = name.decode("utf-8", errors="replace") if name else "game controller"
                    return

    def _close_current(self) -> None:
        if self._controller is not None:
            self._sdl.SDL_GameControllerClose(self._controller)
        self._controller = self._instance = self._name = None

    def poll(self) -> tuple[dict | None, bool]:
        """Handle plugging and unplugging, then read the controller in use.

        Returns ``(axes, changed)``: the axes by SDL name (-1..1, triggers
        0..1) or None without a controller; ``changed`` True when the
        controller in use changed (one plugged in or pulled out).
        """
        if not self.available:
            return None, False
        s = self._sdl
        before = self._instance
        while s.SDL_PollEvent(ctypes.byref(self._event)):
            kind = self._event.type
            if kind == s.SDL_CONTROLLERDEVICEADDED and self._controller is None:
                self._open_first()
            elif kind == s.SDL_CONTROLLERDEVICEREMOVED and self._event.cdevice.which == self._instance:
                self._close_current()
                self._open_first()
        if self._controller is not None and not s.SDL_GameControllerGetAttached(self._controller):
            self._close_current()
            self._open_first()
        changed = self._instance != before
        if self._controller is None:
            return None, changed
        return {name: axis_value(s.SDL_GameControllerGetAxis(self._controller, i))
                for i, name in enumerate(AXES)}, changed

    def close(self) -> None:
        """Close the controller and SDL's subsystems (SDL counts them: other users keep theirs)."""
        if not self.available:
            return
        self._close_current()
        s = self._sdl
        s.SDL_QuitSubSystem(s.SDL_INIT_JOYSTICK | s.SDL_INIT_GAMECONTROLLER)
        self.available = False
