"""sim.world.orbit.kepler solves Kepler's equation M = E - e sin E (Vallado (2-4)) for every mean anomaly and
eccentricity up to 0.99: the residual is at the rounding level and E is scipy's root (brentq) of the same
equation, for one orbit (floats) and many (numpy rows)."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from sim.core.ops import COLUMN, FLOAT
from sim.world.orbit import eccentric_sincos, kepler


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


@pytest.mark.parametrize("e", [0.0, 1e-6, 0.006, 0.1, 0.5, 0.9, 0.99])
def test_eccentric_sincos_gives_the_sine_and_cosine_of_its_anomaly(e):
    """The sine and cosine carried over from Newton's last pass (the angle difference to d^2) are libm's of the E
    returned within 2 units of 2^-53 (a libm call is within 1), and E is the root as above."""
    for mk in np.concatenate([np.linspace(-7.0, 7.0, 281), [0.0, 1e-9, -1e-9, 3.14159, -3.14159]]):
        ee, s, c = eccentric_sincos(float(mk), e)
        assert abs(s - math.sin(ee)) <= 2 * 2.0**-53, (mk, s, math.sin(ee))
        assert abs(c - math.cos(ee)) <= 2 * 2.0**-53, (mk, c, math.cos(ee))
        assert ee == kepler(float(mk), e, FLOAT)
        assert ee == pytest.approx(_reference(float(mk), e), abs=1e-12)
