"""sim.world.frames.precession: the IAU 1976 precession matrix against ERFA's eraPmat76 (the SOFA routine),
over +-2 Julian centuries where the T^2 and T^3 terms of zeta, theta and z matter."""

import erfa
import numpy as np
import pytest

from sim.world.frames import precession


@pytest.mark.parametrize("centuries", [-2.0, -0.7, 0.25, 1.0, 2.0])
def test_precession_matches_erfa_pmat76(centuries):
    jd_tt = 2451545.0 + 36525.0 * centuries
    ref = erfa.pmat76(jd_tt, 0.0)
    got = np.array(precession(centuries)).reshape(3, 3)
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)  # 1 arcsec is 4.8e-6
