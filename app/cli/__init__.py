"""The command line, ``attitude-sim``: run, replay, scenarios, sweep, and the flags of gui and video.

No Qt here (import contract in pyproject.toml): only ``attitude-sim gui``
and ``attitude-sim video`` load the window, from inside
:func:`app.cli.gui.cmd_gui` and :func:`app.cli.video.cmd_video`.

============================  ==========================================================
:mod:`app.cli.entry`          the parser of every command and :func:`main` (exit codes)
:mod:`app.cli.options`        the settings flags ``run``, ``sweep`` and ``gui`` share,
                              :func:`~app.cli.options.scenario_from_args`, one-line errors
:mod:`app.cli.run`            ``run`` and ``replay``
:mod:`app.cli.output`         rows to CSV or npz: whole lines, honest errors, Ctrl-C
:mod:`app.cli.scenarios`      ``scenarios``
:mod:`app.cli.sweep`          ``sweep``: an ensemble on Dask, its summary and CSV
:mod:`app.cli.gui`            ``gui``: flags checked without Qt, then the window
:mod:`app.cli.video`          ``video``: flags checked without Qt, then the rendering
============================  ==========================================================
"""

from app.cli.entry import build_parser, main

__all__ = ["main", "build_parser"]
