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
