"""The fixtures the sweep tests share: a scenario read from text and its sweep run in this process.

``scenario, serial = sweep_fixtures(TEXT, "name", traj_every=K)`` at a test module's top level gives it
two module-scoped fixtures: ``scenario`` (the text read as a scenario) and ``serial`` (its ensemble swept
by :class:`sim.sweep.Sweep` in this process, every K-th step kept): the reference a run on Dask,
through the command line or in chunks must equal.
"""

import sys

import pytest


def sweep_fixtures(text: str, name: str, traj_every: int):
    """The fixtures ``scenario`` and ``serial`` of a sweep module (module scope: each made once).

    They belong to the calling module (their ``__module__``), so that under pytest-xdist the module goes
    whole to one worker and each is made once (tests/conftest.py, ``_group_shared_fixtures``).
    """
    from sim.run.scenario import loads
    from sim.sweep import Sweep

    def scenario():
        return loads(text, name=name)

    def serial(scenario):
        return Sweep(scenario, scenario.ensemble, traj_every=traj_every).run()

    caller = sys._getframe(1).f_globals["__name__"]
    for fixture in (scenario, serial):
        fixture.__module__ = caller
    return pytest.fixture(scope="module")(scenario), pytest.fixture(scope="module")(serial)
