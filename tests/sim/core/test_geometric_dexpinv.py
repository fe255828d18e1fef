"""dexp^-1 on so(3) (sim.core.geometric.dexpinv, the RKMK4 step's right-hand side) against its definition and its
closed form.

The definition (Munthe-Kaas 1998, for ``C = exp(-[x x]) C0`` and ``dC/dt = -[w x] C``): ``x' = dexpinv(x, w)`` makes
``d/dt exp(-[x x]) = -[w x] exp(-[x x])``; the exponential here is scipy's ``Rotation.from_rotvec`` (Rodrigues), the
derivative a central difference.  The closed form (Iserles, Munthe-Kaas, Norsett and Zanna 2000, Acta Numerica
(2.44) for so(3)): ``dexp^-1_x(y) = y + x x y / 2 + (1 - (t/2) cot(t/2)) / t^2  x x (x x y)``, ``t = |x|``, whose
coefficient is ``1/12 + t^2/720 + ...``: the truncated series differs from it by ``O(|x|^4 |y|)``.
"""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core.geometric import dexpinv

RNG = np.random.default_rng(42)
CASES = [(0.1 * v / np.linalg.norm(v), RNG.normal(size=3)) for v in RNG.normal(size=(6, 3))]


def _c(x):
    """``exp(-[x x])``, the coordinate rotation by the rotation vector ``x``."""
    return Rotation.from_rotvec(x).as_matrix().T


def _skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


@pytest.mark.parametrize("x, w", CASES)
def test_dexpinv_moves_x_so_that_exp_turns_at_the_body_rate(x, w):
    dx = np.array(dexpinv(tuple(x), tuple(w)))
    eps = 1e-5
    dc = (_c(x + eps * dx) - _c(x - eps * dx)) / (2.0 * eps)
    expected = -_skew(w) @ _c(x)
    # the series' truncation: |x|^4 |w| / 720 = 1.4e-7 |w| at |x| = 0.1 (the next Bernoulli term); a wrong
    # 1/12 would be off by |x|^2 |w| / 156 = 6e-5 |w|
    assert np.max(np.abs(dc - expected)) < 1e-6 * np.linalg.norm(w)


@pytest.mark.parametrize("x, y", CASES)
def test_dexpinv_is_the_closed_form_to_the_series_truncation(x, y):
    t = np.linalg.norm(x)
    g = (1.0 - 0.5 * t / math.tan(0.5 * t)) / (t * t)
    assert g == pytest.approx(1.0 / 12.0 + t * t / 720.0, rel=1e-6)
    closed = y + 0.5 * np.cross(x, y) + g * np.cross(x, np.cross(x, y))
    got = np.array(dexpinv(tuple(x), tuple(y)))
    assert np.max(np.abs(got - closed)) <= 1.1 * t**4 / 720.0 * np.linalg.norm(y)
