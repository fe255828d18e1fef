"""Spread orbits' angles (sim.ensemble.sampling.sample_orbits): an angle is taken back by one turn only when it
falls OUTSIDE [-360, 360] deg (the range Settings.orbit accepts), so a draw landing exactly on 360 stays 360."""

from __future__ import annotations

import numpy as np

from sim.ensemble import EnsembleSpec
from sim.ensemble.sampling import ORBIT_STREAM, sample_orbits, uniforms
from sim.model.settings import Settings


def test_a_raan_drawn_exactly_on_360_deg_is_kept_not_wrapped():
    seed, k = 11, 3  # the raan
    index = np.arange(64, dtype=np.int64)
    d = 2.0 * uniforms(seed, index, ORBIT_STREAM + k) - 1.0  # the spread's factor per body (exact times 1.0)
    hits = [j for j in range(64) if d[j] > 0.0 and (360.0 - d[j]) + d[j] == 360.0]
    assert hits  # a body whose raan lands exactly on 360 deg
    j = hits[0]
    nominal = 360.0 - d[j]
    settings = Settings(body="cubesat_3u", dt=0.5, epoch="2025-03-20T00:00:00Z",
                        orbit=(450.0, 0.0, 51.6, nominal, 0.0, 0.0))
    spec = EnsembleSpec(bodies=64, seed=seed, orbit_spread=(0.0, 0.0, 0.0, 1.0, 0.0, 0.0))
    raan = sample_orbits(settings, spec, index).elements[3]
    assert raan[j] == 360.0
    assert np.all((raan >= -360.0) & (raan <= 360.0))


def test_spread_epochs_are_whole_microseconds_as_integers_that_the_epoch_texts_differ_by():
    """Each body's epoch minus the settings' (OrbitSample.epoch_us, the ensemble's initial ``epoch_us``) is whole
    microseconds held as int64 (exact at any span, written as integers), within the spread, and exactly the
    difference of the bodies' epoch texts (Python's datetime arithmetic)."""
    from datetime import datetime

    settings = Settings(body="cubesat_3u", dt=0.5, epoch="2025-03-20T00:00:00Z",
                        orbit=(450.0, 0.0, 51.6, 10.0, 0.0, 0.0))
    spec = EnsembleSpec(bodies=16, seed=4, epoch_spread=86400.0)
    orbits = sample_orbits(settings, spec, np.arange(16, dtype=np.int64))
    assert orbits.epoch_us.dtype == np.int64
    assert np.all(np.abs(orbits.epoch_us) <= 86400 * 10**6) and len(set(orbits.epoch_us.tolist())) == 16

    def at(text):
        return datetime.fromisoformat(text.replace("Z", "+00:00"))

    for us, text in zip(orbits.epoch_us.tolist(), orbits.epochs):
        d = at(text) - at(settings.epoch)
        assert (d.days * 86400 + d.seconds) * 10**6 + d.microseconds == us
