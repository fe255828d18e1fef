"""An ensemble's record sent to another process (the window's ensemble process pickles it, app.engine):
it arrives whole and as read-only as it left."""

from __future__ import annotations

import pickle

import numpy as np

from sim.ensemble import Ensemble, EnsembleSpec
from sim.ensemble.info import EnsembleInfo
from sim.model.settings import Settings

ARRAYS = ("index", "q0", "angles_deg0", "rates0", "inertia", "gains", "orbit", "epoch_us")


def test_an_unpickled_record_answers_as_the_original_and_stays_read_only():
    spec = EnsembleSpec(bodies=6, seed=4, rate_spread=0.2, inertia_spread=10.0, epoch_spread=3600.0,
                        gains_grid=((1.0, 2.0), (3.0,), (4.0, 5.0)))
    settings = Settings(dt=0.05, orbit=(500.0, 0.0, 97.0, 0.0, 0.0, 0.0), controller="quaternion")
    info = EnsembleInfo.of(Ensemble(settings, spec, start=3, count=3))
    copy = pickle.loads(pickle.dumps(info))
    assert copy.spec == info.spec and copy.settings == info.settings
    for name in ARRAYS:
        mine, theirs = getattr(info, name), getattr(copy, name)
        assert isinstance(theirs, np.ndarray), name
        assert np.array_equal(theirs, mine) and theirs.dtype == mine.dtype, name
        assert not theirs.flags.writeable, name
    assert copy.index.tolist() == [3, 4, 5]
    assert [copy.body_settings(j) for j in range(copy.n)] == [info.body_settings(j) for j in range(info.n)]
