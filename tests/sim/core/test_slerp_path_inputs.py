"""sim.core.interpolation.SlerpPath given plain lists (as a scenario file gives them): the documented attributes
``qi``/``qe`` are 4-tuples of floats, and the path is the SLERP (checked against scipy's Slerp)."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation, Slerp

from sim.core.interpolation import SlerpPath


@pytest.mark.parametrize("t", [0.0, 0.3, 1.0])
def test_slerp_of_lists_is_scipys_slerp_with_tuple_attributes(t):
    qi = [0.0, 0.0, 0.0, 1.0]
    qe = [0.5, -0.5, 0.5, 0.5]
    p = SlerpPath(qi, qe)
    assert type(p.qi) is tuple and p.qi == tuple(qi)
    assert type(p.qe) is tuple and p.qe == tuple(qe)
    ref = Slerp([0.0, 1.0], Rotation.from_quat([qi, qe]))([t]).as_quat()[0]
    got = np.array(p(t))
    assert min(np.abs(got - ref).max(), np.abs(got + ref).max()) < 1e-12
