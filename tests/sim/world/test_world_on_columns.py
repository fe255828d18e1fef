"""World formulas on the ensemble's columns (sim.core.ops.COLUMN): the LVLH triad and the Sun's position.

Each formula is written once and runs on floats and on numpy rows
(sim.core.ops).  References: the LVLH triad of Markley & Crassidis (2.77),
o3 = -r/|r|, o2 = -(r x v)/|r x v|, o1 = o2 x o3, written with numpy; the
Sun's position is its unit direction times its distance in AU times AU_KM.
"""

import numpy as np

from sim.core.ops import COLUMN
from sim.world.frames import lvlh
from sim.world.sun import AU_KM, sun_direction, sun_position


def test_lvlh_on_columns_is_markley_crassidis_for_each_body():
    rng = np.random.default_rng(11)
    r, v = rng.normal(size=(6, 3)) * 7000.0, rng.normal(size=(6, 3)) * 7.0
    o1, o2, o3 = (np.array(x) for x in lvlh(tuple(r.T), tuple(v.T), COLUMN))
    h = np.cross(r, v)
    want3 = -r / np.linalg.norm(r, axis=1)[:, None]
    want2 = -h / np.linalg.norm(h, axis=1)[:, None]
    np.testing.assert_allclose(o3.T, want3, rtol=0, atol=1e-15)
    np.testing.assert_allclose(o2.T, want2, rtol=0, atol=1e-15)
    np.testing.assert_allclose(o1.T, np.cross(want2, want3), rtol=0, atol=1e-15)


def test_sun_position_on_columns_is_its_direction_times_its_distance():
    days = np.array([-9000.0, 0.0, 100.0, 8765.25])
    p = np.array(sun_position(days, COLUMN))
    s, r = sun_direction(days, COLUMN)
    np.testing.assert_allclose(p, np.array(s) * r * AU_KM, rtol=1e-15)
    # about 1 AU, between perihelion (0.983) and aphelion (1.017)
    assert np.all((0.98 * AU_KM < np.linalg.norm(p, axis=0)) & (np.linalg.norm(p, axis=0) < 1.02 * AU_KM))
    for k, d in enumerate(days):
        np.testing.assert_allclose(p[:, k], sun_position(float(d)), rtol=1e-15)
