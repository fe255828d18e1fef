"""The pointing axis's error, written once for one body and for columns (issue 41): sim.gnc.pointing.axis_error
against scipy's rotations, and a column's entry equal to the float result, bit for bit."""

import numpy as np
from scipy.spatial.transform import Rotation

from sim.core.ops import COLUMN
from sim.gnc.pointing import axis_error

RNG = np.random.default_rng(41)
Q = RNG.normal(size=(6, 4))
QC = RNG.normal(size=(6, 4))
QC /= np.linalg.norm(QC, axis=1)[:, None]
B1 = (0.3, -0.2, 0.9)
REF = RNG.normal(size=(6, 3))


def _angle(a, b):
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    return np.arctan2(np.linalg.norm(np.cross(a, b)), a @ b)


def test_against_scipy_with_a_reference_and_in_inertial_pointing():
    for q, qc, r in zip(Q, QC, REF):
        c = Rotation.from_quat(q).as_matrix()            # Hoffmann's C(Q): inertial -> body (NOTES.md)
        assert abs(axis_error(tuple(q), B1, tuple(r), tuple(qc)) - _angle(c @ r, np.array(B1))) < 1e-12
        held = Rotation.from_quat(qc).as_matrix().T @ np.array(B1)    # where the command sends the axis
        assert abs(axis_error(tuple(q), B1, None, tuple(qc)) - _angle(c @ held, np.array(B1))) < 1e-12


def test_a_column_holds_each_body_s_float_result():
    for reference in (tuple(REF.T), None):
        columns = axis_error(tuple(Q.T), B1, reference, tuple(QC.T), COLUMN)
        for j in range(len(Q)):
            r = None if reference is None else tuple(float(x[j]) for x in reference)
            assert columns[j] == axis_error(tuple(Q[j]), B1, r, tuple(QC[j]))
