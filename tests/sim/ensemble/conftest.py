"""Fixtures of the ensemble's tests."""

import pytest

from sim.ensemble import nav_steps


@pytest.fixture
def calls(monkeypatch):
    """The steps each call of the kernel took (a spy on :func:`sim.ensemble.nav_steps.on_threads`)."""
    taken = []
    run = nav_steps.on_threads

    def spy(fn, args, m):
        run(fn, args, m)
        taken.append(int(args[21][0]))

    monkeypatch.setattr(nav_steps, "on_threads", spy)
    return taken
