"""Conventions at the edge, CCSDS AEM out and in, STK .a out (issue 34).

References: scipy's Rotation (an oracle, tests only), the worked examples of
CCSDS 504.0-B-2 annex F (F2.2 quaternion, F5.4 spin) and its AEM example
G-4, ccsds-ndm-py reading what we write, MATLAB's documented quat2dcm example.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import ccsds_ndm
from app.cli.entry import main
from sim import api
from sim.core.quaternion import cayley, conjugate, from_aircraft_angles, product, rates_from_samples
from sim.io.conventions import (DIRECTIONS, NATIVE, ORDERS, Convention, convert_result, from_convention,
                                table_converter, to_convention)
from sim.run.aem import AttitudeFileError, DEFAULT_EPOCH, aem_text, parse_aem, read_aem, run_epoch
from sim.run.stk import stk_attitude_text

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data")
Q = from_aircraft_angles(0.7, -0.4, 1.9)  # a known attitude, no symmetry
CONVENTIONS = [Convention(o, d) for o in ORDERS for d in DIRECTIONS]


# ------------------------------------------------------------------ conventions
@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe())
def test_convention_round_trip(conv):
    assert np.array_equal(from_convention(to_convention(Q, conv), conv), Q)


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe())
def test_convention_against_scipy(conv):
    """Each convention's numbers, read by scipy in that order, transform as their direction says."""
    written = to_convention(Q, conv)
    rot = Rotation.from_quat(written, scalar_first=conv.order == "scalar-first")
    x_inertial = np.array([0.3, -1.2, 0.5])
    x_body = cayley(Q) @ x_inertial
    if conv.direction == "inertial-to-body":
        assert np.allclose(rot.apply(x_inertial), x_body, atol=1e-14)
    else:
        assert np.allclose(rot.apply(x_body), x_inertial, atol=1e-14)


def test_product_is_hamiltons():
    """Hoffmann's (1.7) is Hamilton's product (scipy composes with it), not Shuster's; C(P.Q) = C(P) C(Q)."""
    p = from_aircraft_angles(-0.2, 0.9, 0.3)
    ours = product(p, Q)
    hamilton = (Rotation.from_quat(p) * Rotation.from_quat(Q)).as_quat()
    assert min(np.abs(ours - hamilton).max(), np.abs(ours + hamilton).max()) < 1e-15
    assert np.allclose(cayley(ours), cayley(p) @ cayley(Q), atol=1e-15)
    # Shuster's product reverses the cross product: it would compose the matrices the other way
    v1, s1, v2, s2 = p[:3], p[3], Q[:3], Q[3]
    shuster = np.append(s1 * v2 + s2 * v1 - np.cross(v1, v2), s1 * s2 - v1 @ v2)
    assert not np.allclose(shuster, ours, atol=1e-6)


def test_matlab_quat2dcm_example_is_body_to_inertial_scalar_first():
    """MATLAB documents quat2dcm([1 0 1 0]) = [0 0 -1; 0 1 0; 1 0 0] (inertial -> body DCM)."""
    matlab_q = np.array([1.0, 0.0, 1.0, 0.0]) / math.sqrt(2.0)
    ours = from_convention(matlab_q, Convention("scalar-first", "body-to-inertial"))
    assert np.allclose(cayley(ours), [[0, 0, -1], [0, 1, 0], [1, 0, 0]], atol=1e-15)


def test_table_converter_names_and_values():
    names = ("t", "q1", "q2", "q3", "q4", "wx", "qc1", "qc2", "qc3", "qc4", "rk4:q1", "rk4:q2", "rk4:q3", "rk4:q4")
    row = (0.5, 1.0, 2.0, 3.0, 4.0, 9.0, 5.0, 6.0, 7.0, 8.0, 11.0, 12.0, 13.0, 14.0)
    new, convert = table_converter(names, Convention("scalar-first", "body-to-inertial"))
    assert new == ("t", "q0", "q1", "q2", "q3", "wx", "qc0", "qc1", "qc2", "qc3",
                   "rk4:q0", "rk4:q1", "rk4:q2", "rk4:q3")
    assert convert(row) == (0.5, 4.0, -1.0, -2.0, -3.0, 9.0, 8.0, -5.0, -6.0, -7.0, 14.0, -11.0, -12.0, -13.0)
    assert table_converter(names, NATIVE)[0] == names


def test_api_run_in_another_convention():
    native = api.run("hoffmann")
    other = api.run("hoffmann", quaternion="scalar-first", direction="body-to-inertial")
    assert other["q0"].tolist() == native["q4"].tolist()
    assert other["q1"].tolist() == (-native["q1"]).tolist()
    assert convert_result(native, NATIVE).keys() == native.keys()
    with pytest.raises(api.SettingsError, match="quaternion order"):
        api.run("hoffmann", quaternion="wxyz")


def test_cli_csv_scalar_first(tmp_path):
    out = tmp_path / "r.csv"
    assert main(["run", "--scenario", "hoffmann", "--quaternion", "scalar-first", "--out", str(out)]) == 0
    header = out.read_text().splitlines()[0].split(",")
    assert header[:5] == ["t", "q0", "q1", "q2", "q3"]


# ------------------------------------------------------------------ AEM
def test_ccsds_quaternion_is_the_conjugate():
    """504.0-B-2 F2.2: frame B turned +90 deg about Z: Q = (0, 0, .7071, .7071), M_BA = [[0,1,0],[-1,0,0],[0,0,1]]."""
    s = math.sqrt(0.5)
    text = aem_text([0.0, 1.0], [conjugate([0, 0, s, s])] * 2)
    message = ccsds_ndm.from_str(text)
    assert np.allclose(message.segments[0].data.attitude_states_numpy[0], [0, 0, s, s])
    assert np.allclose(cayley(parse_aem(text).q[0]), [[0, 1, 0], [-1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_spin_example_f54():
    """504.0-B-2 F5.4: SPIN_ALPHA 0, SPIN_DELTA 80, SPIN_ANGLE 45 -> Q1..QC = 0.0805 0.0334 0.9204 0.3812."""
    text = _spin_aem([(0.0, 80.0, 45.0, 1.0), (0.0, 80.0, 46.0, 1.0)])
    track = parse_aem(text)
    assert np.allclose(conjugate(track.q[0]), [0.0805, 0.0334, 0.9204, 0.3812], atol=5e-5)
    assert np.allclose(track.w[0], [0, 0, math.radians(1.0)])


def _spin_aem(rows) -> str:
    lines = ["CCSDS_AEM_VERS = 2.0", "CREATION_DATE = 2020-01-01T00:00:00", "ORIGINATOR = TEST", "META_START",
             "OBJECT_NAME = S", "OBJECT_ID = 2000-001A", "REF_FRAME_A = EME2000", "REF_FRAME_B = SC_BODY_1",
             "TIME_SYSTEM = UTC", "START_TIME = 2020-001T00:00:00", "STOP_TIME = 2020-001T00:00:01",
             "ATTITUDE_TYPE = SPIN", "META_STOP", "DATA_START"]
    lines += [f"2020-001T00:00:0{i} {a} {d} {g} {v}" for i, (a, d, g, v) in enumerate(rows)]
    return "\n".join(lines + ["DATA_STOP", ""])


@pytest.mark.parametrize("xml", [False, True], ids=["kvn", "xml"])
def test_run_exported_to_aem_reads_back(tmp_path, xml):
    """A run written as an AEM reads back, through ccsds-ndm-py and through `import`, to the same quaternions."""
    out = tmp_path / ("run.xml" if xml else "run.aem")
    assert main(["run", "--scenario", "hoffmann", "--integrator", "rk4", "--with-rates", "--out", str(out)]) == 0
    result = api.run("hoffmann", integrator="rk4")
    q = np.column_stack([result[f"q{i}"] for i in range(1, 5)])
    message = ccsds_ndm.from_file(str(out))
    meta = message.segments[0].metadata
    assert (meta.ref_frame_a, meta.ref_frame_b, meta.time_system) == ("EME2000", "SC_BODY_1", "UTC")
    assert meta.attitude_type == "QUATERNION/ANGVEL"
    assert message.segments[0].data.attitude_states_epochs[0].startswith("2000-01-01T12:00:00")
    library_q = message.segments[0].data.attitude_states_numpy[:, :4]
    assert np.array_equal(library_q, to_convention(q, Convention("scalar-last", "body-to-inertial")))
    csv = tmp_path / "back.csv"
    assert main(["import", str(out), "--out", str(csv)]) == 0
    back = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert np.allclose(back[:, 0], result["t"], atol=1e-9)
    assert np.allclose(back[:, 1:5], q / np.linalg.norm(q, axis=1)[:, None], atol=1e-15)
    assert np.allclose(back[:, 5:8], np.column_stack([result["wx"], result["wy"], result["wz"]]), atol=1e-12)


def test_either_direction_reads_the_same_attitude():
    t = [0.0, 1.0, 2.0]
    q = np.array([from_aircraft_angles(0.1 * k, 0.2, -0.3 * k) for k in range(3)])
    text = aem_text(t, q)
    swapped = text.replace("REF_FRAME_A          = EME2000", "REF_FRAME_A          = SC_BODY_1").replace(
        "REF_FRAME_B          = SC_BODY_1", "REF_FRAME_B          = EME2000")
    lines = swapped.splitlines()
    for k, line in enumerate(lines):  # the same attitude from B to A: the conjugated numbers
        parts = line.split()
        if len(parts) == 5 and parts[0].startswith("2000-"):
            v = [float(x) for x in parts[1:]]
            lines[k] = " ".join([parts[0]] + [repr(-x) for x in v[:3]] + [repr(v[3])])
    assert np.allclose(parse_aem("\n".join(lines)).q, parse_aem(text).q, atol=1e-15)


def test_euler_angles_read():
    """EULER_ANGLE ZYX (yaw, pitch, roll, annex F3) is the aircraft attitude of Hoffmann's (7.18)."""
    text = _spin_aem([(0, 0, 0, 0)] * 2).replace("ATTITUDE_TYPE = SPIN", "ATTITUDE_TYPE = EULER_ANGLE\n"
                                                 "EULER_ROT_SEQ = ZYX")
    text = text.replace("2020-001T00:00:00 0 0 0 0", "2020-001T00:00:00 30 -20 10").replace(
        "2020-001T00:00:01 0 0 0 0", "2020-001T00:00:01 31 -20 10")
    q = parse_aem(text).q[0]
    expected = from_aircraft_angles(*np.radians([30, -20, 10]))
    assert min(np.abs(q - expected).max(), np.abs(q + expected).max()) < 1e-12


def test_published_example_g4_imports(tmp_path):
    track = read_aem(os.path.join(DATA, "ccsds_aem_g4.aem"))
    assert len(track.t) == 8 and track.t[0] == 0.0
    assert math.isclose(track.t[1], 38 * 60 + 56.3, rel_tol=1e-12)  # 21:29:07.2555 to 22:08:03.5555
    first = np.array([0.56748, 0.03146, 0.45689, 0.68427])
    assert np.allclose(track.q[0], conjugate(first / np.linalg.norm(first)), atol=1e-15)
    out = tmp_path / "g4.csv"
    assert main(["import", os.path.join(DATA, "ccsds_aem_g4.aem"), "--out", str(out)]) == 0


def test_rates_from_samples_of_a_steady_spin():
    w = np.array([0.3, -0.2, 0.5])
    t = np.linspace(0.0, 2.0, 401)
    n = w / np.linalg.norm(w)
    # a constant body rate about a fixed axis: Q(t) = Q0 . rotation by |w| t about n (body axes)
    q = np.array([product(np.append(-n * math.sin(0.5 * np.linalg.norm(w) * x), math.cos(0.5 * np.linalg.norm(w) * x)),
                          Q) for x in t])
    assert np.allclose(rates_from_samples(t, q)[1:-1], w, atol=1e-5)
    q[::3] *= -1.0  # the same attitudes with signs a file may give them
    assert np.allclose(rates_from_samples(t, q)[1:-1], w, atol=1e-5)


@pytest.mark.parametrize("text, words", [
    ("not an aem\n", "not a valid AEM"),
    (None, "line 26: data value 5"),
    ("CCSDS_AEM_VERS = 1.0\nCREATION_DATE = 2002-11-04T17:22:31\n", "version 1"),
])
def test_malformed_aem_one_line_exit_2(tmp_path, capsys, text, words):
    good = open(os.path.join(DATA, "ccsds_aem_g4.aem")).read()
    text = good.replace("0.45689 0.68427", "0.45689 zz") if text is None else text
    bad = tmp_path / "bad.aem"
    bad.write_text(text)
    out = tmp_path / "out.csv"
    out.write_text("keep me\n")
    assert main(["import", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err
    assert out.read_text() == "keep me\n"
    assert not os.path.exists(str(out) + ".part")


def test_unsupported_frames_named(tmp_path):
    good = open(os.path.join(DATA, "ccsds_aem_g4.aem")).read()
    with pytest.raises(AttitudeFileError, match=r"line 13: REF_FRAME_A/REF_FRAME_B: EME2000 -> ICRF"):
        parse_aem(good.replace("REF_FRAME_B = SC_BODY_1", "REF_FRAME_B = ICRF"), "x.aem")


def test_run_epoch_default_and_scenario():
    assert run_epoch(None) == DEFAULT_EPOCH

    class Dated:
        epoch = "2024-03-01T00:00:00"

    assert run_epoch(Dated()).year == 2024


# ------------------------------------------------------------------ STK
def test_stk_attitude_file_keywords(tmp_path):
    out = tmp_path / "run.a"
    assert main(["run", "--scenario", "hoffmann", "--out", str(out)]) == 0
    lines = [x.strip() for x in out.read_text().splitlines()]
    assert lines[0] == "stk.v.8.0"
    body = lines[lines.index("BEGIN Attitude"):lines.index("END Attitude") + 1]
    keywords = {x.split()[0]: x.split(None, 1)[1:] for x in body if x and not x[0].isdigit() and x[0] != "-"}
    assert keywords["NumberOfAttitudePoints"] == ["11"]
    assert keywords["ScenarioEpoch"] == ["1 Jan 2000 12:00:00.000000"]
    assert keywords["CoordinateAxes"] == ["J2000"] and keywords["CentralBody"] == ["Earth"]
    data = [x for x in body[body.index("AttitudeTimeQuaternions") + 1:] if x and x != "END Attitude"]
    values = np.array([[float(v) for v in x.split()] for x in data])
    result = api.run("hoffmann")
    assert values.shape == (11, 5)
    assert np.array_equal(values[:, 4], result["q4"]) and np.array_equal(values[:, 1], -result["q1"])


def test_stk_text_epoch_and_refusals(capsys):
    text = stk_attitude_text([0.0, 1.0], [Q, Q], DEFAULT_EPOCH)
    assert "AttitudeTimeQuaternions" in text and text.rstrip().endswith("END Attitude")
    assert main(["run", "--out", "x.a", "--quaternion", "scalar-first"]) == 2
    assert main(["run", "--out", "x.csv", "--with-rates"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 2
