"""Garbage collected in the window's GUI thread only (app/window/loop.py, sim/core/collector.py).

A collection destroys what it finds unreachable in the thread that runs it; Qt objects destroyed off the GUI
thread can deadlock the window (docs/RELIABILITY.md, "Garbage collected in the GUI thread").  Left automatic,
the simulation thread collects a few times a second (stop 54: 13 young collections in 20 s of
``fly_on_estimate``).
"""

import gc
import threading

import pytest


@pytest.mark.gl
def test_while_a_window_runs_every_collection_is_made_in_the_gui_thread_and_closed_it_is_automatic_again(
        qtbot, main_window):
    old = gc.get_threshold()
    gc.set_threshold(50, 5, 5)  # collections due often: the simulation thread's allocations reach them at once
    seen = []

    def note(phase, info):
        if phase == "start":
            seen.append((info["generation"], threading.current_thread() is threading.main_thread()))

    gc.callbacks.append(note)
    try:
        win = main_window("fly_on_estimate", speed=10.0)
        assert [g for g, gui in seen if not gui] == []   # none off the GUI thread while the window was made
        seen.clear()                                     # what follows: the frames' own collections
        start = win.last_snapshot.t
        qtbot.waitUntil(lambda: win.last_snapshot.t > start + 20.0 and sum(gui for _, gui in seen) >= 10)
        assert not gc.isenabled()                        # owned by the frame loop
        win.close()
    finally:
        gc.callbacks.remove(note)
        gc.set_threshold(*old)
    assert [g for g, gui in seen if not gui] == []       # none in the simulation thread or a kernel loader
    assert {g for g, _ in seen} >= {0, 1}                # young and middle collections, made by the frames
    assert gc.isenabled()                                # the window closed: automatic again
