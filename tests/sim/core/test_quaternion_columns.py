"""Quaternion conventions on many quaternions at once and on tables (sim.io.conventions, docs/CONVENTIONS.md):
a column of attitudes read from scipy's scalar-first quaternions is this project's Q, whatever the numbers'
type, and the quaternion columns of a table are found by their names, a comparison body's label included."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sim.core.quaternion import cayley
from sim.io.conventions import Convention, convert_result, from_convention, quaternion_groups, to_convention

SCIPY_FIRST = Convention("scalar-first", "body-to-inertial")   # scipy's as_quat(scalar_first=True)


def test_a_column_of_scipy_quaternions_reads_as_this_projects_q_row_by_row():
    rotations = Rotation.random(5, random_state=3)
    q = from_convention(rotations.as_quat(scalar_first=True), SCIPY_FIRST)
    assert q.shape == (5, 4)
    for row, matrix in zip(q, rotations.as_matrix()):
        # scipy's matrix takes body coordinates to inertial ones: the transpose of C(Q) (x_B = C(Q) x_I)
        assert np.allclose(cayley(row), matrix.T, atol=1e-14)
    assert np.allclose(to_convention(q, SCIPY_FIRST), rotations.as_quat(scalar_first=True), atol=0)


@pytest.mark.parametrize("order", ["scalar-last", "scalar-first"])
def test_integer_quaternions_convert_as_their_floats(order):
    convention = Convention(order, "body-to-inertial")
    written = [[1, 2, 3, 4], [0, 0, 0, 1]]              # integers, as a hand-written table or JSON holds them
    as_floats = np.array(written, dtype=float)
    out, back = to_convention(written, convention), from_convention(written, convention)
    assert out.dtype == back.dtype == np.float64
    assert np.array_equal(out, to_convention(as_floats, convention))
    assert np.array_equal(back, from_convention(as_floats, convention))
    expected = [[-1, -2, -3, 4], [0, 0, 0, 1]] if order == "scalar-last" else [[4, -1, -2, -3], [1, 0, 0, 0]]
    assert np.array_equal(out, expected)


@pytest.mark.parametrize("convert", [to_convention, from_convention])
@pytest.mark.parametrize("shape", [(3,), (5,), (2, 3), (4, 2)])
def test_an_array_whose_last_axis_is_not_4_is_refused_naming_its_shape(convert, shape):
    with pytest.raises(ValueError) as caught:
        convert(np.zeros(shape), Convention())
    assert "4" in str(caught.value) and str(shape) in str(caught.value)


def test_the_quaternion_columns_are_found_by_name_in_any_order():
    names = ["t", "w1", "w2", "w3", "q1", "q2", "q3", "q4", "psi", "qe4", "qe3", "qe2", "qe1",
             "qc1", "qc2", "qc3", "qc4", "sat:2:q1", "sat:2:q2", "sat:2:q3", "sat:2:q4", "h1", "p1", "q1x"]
    assert quaternion_groups(names) == [("q", [4, 5, 6, 7]), ("qe", [12, 11, 10, 9]), ("qc", [13, 14, 15, 16]),
                                        ("sat:2:q", [17, 18, 19, 20])]


def test_a_quaternion_missing_a_column_is_not_a_group():
    assert quaternion_groups(["q1", "q2", "q4", "qc1", "qc2", "qc3", "qc4"]) == [("qc", [3, 4, 5, 6])]


def test_an_api_result_in_scipys_convention_holds_scipys_quaternions_column_by_column():
    # Hoffmann's Q for aircraft angles (psi, theta, phi) is the conjugate of scipy's from_euler('ZYX') quaternion
    # (docs/CONVENTIONS.md); written scalar first and body -> inertial, each group must be scipy's own numbers.
    rotations = Rotation.from_euler("ZYX", [[30.0, 20.0, -40.0], [-120.0, 5.0, 75.0], [10.0, -60.0, 170.0]],
                                    degrees=True)
    x, y, z, w = rotations.as_quat().T                                   # scipy: scalar last, body -> inertial
    ours = {"q1": -x, "q2": -y, "q3": -z, "q4": w}                       # this project's Q: the conjugate
    result = {"t": np.array([0.0, 0.5, 1.0]), **ours, "qc1": -z, "qc2": -x, "qc3": -y, "qc4": w,
              "sat:q1": -y, "sat:q2": -z, "sat:q3": -x, "sat:q4": w, "w1": np.array([1.0, 2.0, 3.0])}
    out = convert_result(result, SCIPY_FIRST)
    assert list(out) == ["t", "q0", "q1", "q2", "q3", "qc0", "qc1", "qc2", "qc3",
                         "sat:q0", "sat:q1", "sat:q2", "sat:q3", "w1"]
    np.testing.assert_allclose(np.stack([out["q0"], out["q1"], out["q2"], out["q3"]], axis=-1),
                               rotations.as_quat(scalar_first=True), rtol=0, atol=0)
    assert [out[k].tolist() for k in ("qc0", "qc1", "qc2", "qc3")] == [w.tolist(), z.tolist(), x.tolist(), y.tolist()]
    assert [out[k].tolist() for k in ("sat:q0", "sat:q1", "sat:q2", "sat:q3")] == [w.tolist(), y.tolist(),
                                                                                   z.tolist(), x.tolist()]
    assert out["t"] is result["t"] and out["w1"] is result["w1"]        # the other columns as they were
