"""sim.world.orbit.kepler solves Kepler's equation M = E - e sin E (Vallado (2-4)) for every mean anomaly and
eccentricity up to 0.99: the residual is at the rounding level and E is scipy's root (brentq) of the same
equation, for one orbit (floats) and many (numpy rows)."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from sim.core.ops import COLUMN, FLOAT
from sim.world.orbit import kepler


def _reference(m, e):
    m = math.remainder(m, 2.0 * math.pi)
    return brentq(lambda x: x - e * math.sin(x) - m, -math.pi, math.pi, xtol=1e-15)


@pytest.mark.parametrize("e", [0.0, 0.1, 0.5, 0.74, 0.9, 0.99])
def test_kepler_solves_keplers_equation(e):
    m = np.linspace(-7.0, 7.0, 281)
    rows = kepler(m, e, COLUMN)
    for mk, ek in zip(m, rows):
        ee = kepler(float(mk), e, FLOAT)
        assert ee == pytest.approx(_reference(float(mk), e), abs=1e-12)
        assert ek == pytest.approx(ee, abs=1e-12)
        assert math.sin(ee - e * math.sin(ee) - mk) == pytest.approx(0.0, abs=1e-13)
