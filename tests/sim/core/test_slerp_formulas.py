"""The ensemble SLERP's reference evaluation (sim.core.interpolation.SlerpColumns.formulas): quiet where sin(a) = 0.

A body already at the commanded attitude (angle 0) and a body half a turn
away take the linear and antipodal blends; their columns of the sine blend
divide by sin(a) = 0 and are thrown away.  That must not surface as a
numpy RuntimeWarning (a user running with warnings as errors), and the
result is the geodesic: the end attitude itself, Hoffmann Appendix C.
"""

import warnings

import numpy as np

from sim.core.interpolation import SlerpColumns
from sim.core.quaternion import from_aircraft_angles


def test_a_body_already_at_the_target_gives_no_warning():
    qe = tuple(float(x) for x in from_aircraft_angles(0.4, -0.2, 0.1))
    qi = np.array([qe, tuple(float(x) for x in from_aircraft_angles(1.0, 0.3, -0.5)), [-x for x in qe]]).T
    columns = SlerpColumns(qi, qe, shortest_path=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for t in (0.0, 0.5, 1.0):
            r = columns.formulas(t)
            assert np.all(np.isfinite(r))
            np.testing.assert_allclose(r[:, 0], qe, rtol=0, atol=1e-15)    # at the target it stays there
            np.testing.assert_allclose(np.linalg.norm(r, axis=0), 1.0, rtol=1e-15)
