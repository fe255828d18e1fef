"""A Settings pickles (to the window's ensemble process, a Dask worker) as its fields alone: the wheels'
compiled formulas are made again where it is read, and the copy flies as the original."""

import pickle

import numpy as np

from sim.model.settings import Settings
from sim.model.simulation import Simulation


def test_a_settings_with_wheels_pickles_as_its_fields_and_flies_the_same():
    settings = Settings(wheels="pyramid", rates=(0.1, -0.05, 0.02), wheel_speeds=(10.0, -5.0, 0.0, 2.0),
                        dampers_on=False, controller="none", dt=0.01)
    assert settings.wheel_set is not None              # derived, cached on the instance
    state = settings.__getstate__()
    assert "wheel_set" not in state and state["wheels"] == "pyramid" and state["dt"] == 0.01
    copy = pickle.loads(pickle.dumps(settings))
    assert copy == settings and copy is not settings
    a, b = Simulation(settings), Simulation(copy)
    a.step(50)
    b.step(50)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.w, b.w)
