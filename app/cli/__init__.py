"""The command line, ``attitude-sim``: run, replay, scenarios, sweep, and the flags of gui and video.

No Qt here (import contract in pyproject.toml): only ``attitude-sim gui``
and ``attitude-sim video`` load the window, from inside
:func:`app.cli.gui.cmd_gui` and :func:`app.cli.video.cmd_video`.

============================  ==========================================================
:mod:`app.cli.entry`          the parser of every command and :func:`main` (exit codes)
:mod:`app.cli.options`        the settings flags ``run``, ``sweep`` and ``gui`` share,
                              :func:`~app.cli.options.scenario_from_args`, one-line errors
:mod:`app.cli.flags`          the numeric flags, made from :data:`sim.io.limits.LIMITS`
:mod:`app.cli.run`            ``run`` and ``replay``
:mod:`app.cli.output`         rows to CSV or npz: whole lines, honest errors, Ctrl-C
:mod:`app.cli.scenarios`      ``scenarios``
:mod:`app.cli.sweep`          ``sweep``: an ensemble on Dask, its summary and CSV
:mod:`app.cli.gui`            ``gui``: flags checked without Qt, then the window
:mod:`app.cli.video`          ``video``: flags checked without Qt, then the rendering
============================  ==========================================================
"""

import os
import signal
import threading


def _interrupted_while_starting(signum, frame):  # pragma: no cover - runs in a subprocess under test
    """Ctrl-C while the libraries load: one line and exit 130, not a traceback from inside an import."""
    try:
        os.write(2, b"attitude-sim: interrupted\n")
    except OSError:
        pass
    os._exit(130)


# Installed before the heavy imports (numpy, the simulation: about 0.15 s), restored after them;
# from then on main() turns Ctrl-C into its one line.
# A process started with Ctrl-C ignored (in the background of a script) keeps ignoring it.
_early = (threading.current_thread() is threading.main_thread()
          and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
if _early:
    signal.signal(signal.SIGINT, _interrupted_while_starting)

from app.cli.entry import build_parser, main  # noqa: E402

if _early:
    signal.signal(signal.SIGINT, signal.default_int_handler)

__all__ = ["main", "build_parser"]
