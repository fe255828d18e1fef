"""A saved scenario (sim.run.scenario_writer.save, sim.run.scenario_toml.dumps) keeps the window's own
numbers (speed, plot_seconds) and is written with LF line ends whatever the system's own line end."""

from __future__ import annotations

import _pyio
import os

from sim.run.scenario import load, loads
from sim.run.scenario_toml import dumps
from sim.run.scenario_writer import save

WINDOW = """
[scenario]
title = "window numbers"
caption = "speed and plotted seconds"
duration = 5.0
speed = 2.0
plot_seconds = 60.0

[settings]
dt = 0.01
"""


def test_the_window_numbers_of_a_scenario_survive_its_text():
    text = dumps(loads(WINDOW, name="window_numbers"))
    assert "plot_seconds = 60.0" in text.splitlines()
    again = loads(text, name="window_numbers")
    assert (again.speed, again.plot_seconds) == (2.0, 60.0)


def test_a_scenario_saved_where_lines_end_in_crlf_has_lf_line_ends(tmp_path, monkeypatch):
    # Python's own io (_pyio) reads os.linesep when a file is opened in text mode without newline=;
    # with it and a CRLF system line end this test sees what Windows would write
    import sim.io.files

    monkeypatch.setattr(sim.io.files, "open", _pyio.open, raising=False)
    monkeypatch.setattr(os, "linesep", "\r\n")
    path = save(load("default"), tmp_path / "s.toml")
    data = open(path, "rb").read()
    assert b"\n" in data and b"\r" not in data
