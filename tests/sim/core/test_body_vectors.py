"""The vectors a Body takes (sim.core.body.Body.energy, angular_momentum, euler_rhs): any 3 numbers, else a clear error.

References: T = 1/2 w.J w and H = J w (Hoffmann (4.2)), Euler's equations
J dw/dt = T - w x J w (Hoffmann (4.3)), written here with numpy.
"""

import numpy as np
import pytest

from sim.core.body import Body

BODY = Body((0.6, 1.0, 1.5, 0.0, 0.2, 0.0))


@pytest.mark.parametrize("w", [(1, -2, 3), [1.0, -2.0, 3.0], np.array([1, -2, 3], dtype=np.int8),
                               np.array([1.0, -2.0, 3.0], dtype=np.float32), ("1", "-2", "3")],
                         ids=["int-tuple", "list", "int8", "float32", "text"])
def test_any_three_numbers_are_a_rate(w):
    v = np.array([1.0, -2.0, 3.0])
    J = BODY.J
    assert BODY.energy(w) == pytest.approx(0.5 * v @ J @ v, rel=1e-15)
    np.testing.assert_allclose(BODY.angular_momentum(w), J @ v, rtol=1e-15, atol=1e-15)
    np.testing.assert_allclose(BODY.euler_rhs(w, (0, 0, 1)),
                               np.linalg.solve(J, np.array([0.0, 0.0, 1.0]) - np.cross(v, J @ v)), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("bad", [(1.0, 2.0), (1.0, 2.0, 3.0, 4.0), [[1.0, 2.0, 3.0]]])
def test_a_vector_of_another_shape_names_the_count_and_the_shape(bad):
    for call in (BODY.energy, BODY.angular_momentum, lambda w: BODY.euler_rhs(w, (0.0, 0.0, 0.0)),
                 lambda t: BODY.euler_rhs((0.0, 0.0, 0.0), t)):
        with pytest.raises(ValueError) as err:
            call(bad)
        assert "3" in str(err.value) and str(np.shape(bad)) in str(err.value)
