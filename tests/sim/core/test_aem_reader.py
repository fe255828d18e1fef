"""Reading CCSDS AEMs (sim.run.aem.parse_aem / read_aem): what each kind of record means, and how bad files are named.

References: CCSDS 504.0-B-2 (AEM version 2): annex F2 (the quaternion from
REF_FRAME_A to REF_FRAME_B: the rotation that carries A's axes onto B's,
M_BA = its matrix transposed), F3 (Euler angles: rotations about the named
axes of the moving frame, A carried onto B), F4 (ANGVEL: the angular
velocity of frame B relative to frame A, deg/s, in ANGVEL_FRAME), the
epoch forms of CCSDS 301.0-B-4 (calendar and day-of-year).  scipy's Rotation
builds every file's numbers from a known attitude (an oracle, tests only);
the calendar arithmetic is Python's datetime.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import ccsds_ndm

from sim.core.quaternion import cayley
from sim.run.aem import AttitudeFileError, aem_text, parse_aem, read_aem

HEADER = ["CCSDS_AEM_VERS = 2.0", "CREATION_DATE = 2020-01-01T00:00:00", "ORIGINATOR = TEST"]
QI = "0 0 0 1"  # the identity (A's axes are B's)


def segment(rows, kind="QUATERNION", a="EME2000", b="SC_BODY_1", extra=(), time_system="UTC") -> list:
    """One AEM segment (KVN lines): metadata, then the data lines ``rows``."""
    return ["META_START", "OBJECT_NAME = S", "OBJECT_ID = 2000-001A", f"REF_FRAME_A = {a}", f"REF_FRAME_B = {b}",
            f"TIME_SYSTEM = {time_system}", "START_TIME = 2020-001T00:00:00", "STOP_TIME = 2020-001T00:00:01",
            f"ATTITUDE_TYPE = {kind}", *extra, "META_STOP", "DATA_START", *rows, "DATA_STOP"]


def kvn(*segments) -> str:
    return "\n".join(HEADER + [line for s in segments for line in s]) + "\n"


def line_number(text: str, start: str) -> int:
    """The 1-based number of the last line of ``text`` that starts with ``start``."""
    return [k for k, line in enumerate(text.splitlines(), 1) if line.startswith(start)][-1]


def fmt(values) -> str:
    return " ".join(repr(float(v)) for v in values)


# ------------------------------------------------------------------ epochs
def test_epochs_calendar_and_day_of_year_give_elapsed_seconds():
    """Both CCSDS epoch forms, mixed, with and without fractions, across a leap day and a year's end."""
    epochs = ["2020-060T00:00:00", "2020-02-29T00:00:01.5", "2020-061T00:00:02.25", "2020-366T23:59:59.5",
              "2021-01-01T00:00:00.75", "2021-001T00:00:01"]
    track = parse_aem(kvn(segment([f"{e} {QI}" for e in epochs])))
    origin = datetime(2020, 2, 29)  # day 060 of the leap year 2020
    instants = [datetime(2020, 2, 29, 0, 0, 1, 500000), datetime(2020, 3, 1, 0, 0, 2, 250000),
                datetime(2020, 12, 31, 23, 59, 59, 500000), datetime(2021, 1, 1, 0, 0, 0, 750000),
                datetime(2021, 1, 1, 0, 0, 1)]
    expected = [0.0] + [(x - origin).total_seconds() for x in instants]
    assert np.allclose(track.t, expected, rtol=0, atol=1e-9)
    assert track.epoch == "2020-060T00:00:00" and track.time_system == "UTC"


@pytest.mark.parametrize("epoch, what", [
    ("2020-02-30T00:00:00", "day"),  # February 2020 has 29 days
    ("2021-366T00:00:00", "366"),  # 2021 is a common year: 365 days
    ("2020-367T00:00:00", "367"),
    ("2020-000T00:00:00", "000"),
    ("2020-01-01T25:00:00", "hour"),
    ("2020-01-01T12:60:00", "minute"),
    ("2020-01-01T12:00:61", "61"),
    ("2020-01-01T00:00:00+00:00", "not a CCSDS time"),  # the library keeps it; CCSDS has no offsets
])
def test_impossible_epoch_named_with_its_line(epoch, what):
    """An epoch that names no instant is refused (not read as another instant), naming the line and the epoch."""
    text = kvn(segment([f"2019-12-31T00:00:00 {QI}", f"{epoch} {QI}", f"2030-001T00:00:00 {QI}"]))
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "bad.aem")
    message = str(info.value)
    assert f"bad.aem, line {line_number(text, epoch)}: EPOCH" in message
    assert epoch in message and what in message


def test_leap_second_epoch_is_read():
    """23:59:60 (a UTC leap second, CCSDS 301.0-B-4) is one second after 23:59:59."""
    track = parse_aem(kvn(segment([f"2016-366T23:59:59 {QI}", f"2016-12-31T23:59:60.5 {QI}"])))
    assert np.allclose(track.t, [0.0, 1.5])


# ------------------------------------------------------------------ bad data named
def test_bad_data_value_names_its_line_and_epoch_after_comments():
    """COMMENT lines at the data section's start are not data; a bad value's own line and epoch are named."""
    rows = ["COMMENT the data section may start with comments", f"2020-001T00:00:00 {QI}",
            "2020-001T00:00:01 0 0 zz 1", f"2020-001T00:00:02 {QI}"]
    text = kvn(segment(rows))
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "bad.aem")
    message = str(info.value)
    assert f"bad.aem, line {line_number(text, '2020-001T00:00:01')}: data value 4" in message
    assert "'zz'" in message and "2020-001T00:00:01" in message
    good = parse_aem(text.replace(" zz ", " 0 "))  # the comment itself is read as no data line
    assert len(good.t) == 3


@pytest.mark.parametrize("bad_row, t1, q1, what", [
    ("2020-001T00:00:01 0 0 0 0", 1.0, [0.0, 0.0, 0.0, 0.0], "quaternion is zero"),
    (f"2020-001T00:00:00 {QI}", 0.0, [0.0, 0.0, 0.0, 1.0], "not after"),  # the epoch again
    (f"2019-365T23:59:59 {QI}", -1.0, [0.0, 0.0, 0.0, 1.0], "not after"),  # back in time
])
def test_bad_state_named_by_line_in_kvn_and_by_epoch_in_xml(bad_row, t1, q1, what):
    text = kvn(segment([f"2020-001T00:00:00 {QI}", bad_row, f"2020-001T00:00:05 {QI}"]))
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "bad.aem")
    assert f"bad.aem, line {line_number(text, bad_row)}: " in str(info.value) and what in str(info.value)
    # the same state in XML, which has no data lines: named by its segment and epoch
    xml = aem_text([0.0, t1, 5.0], [[0, 0, 0, 1.0], q1, [0, 0, 0, 1.0]], xml=True)
    epoch = (datetime(2000, 1, 1, 12) + timedelta(seconds=t1)).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000"  # to the ns
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(xml, "bad.xml")
    assert f"bad.xml, segment 1, epoch {epoch}: " in str(info.value) and what in str(info.value)


def test_non_finite_xml_value_named_by_epoch():
    xml = aem_text([0.0, 1.0], [[0, 0, 0, 1.0]] * 2, xml=True).replace("<QC>1</QC>", "<QC>NaN</QC>", 1)
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(xml, "nan.xml")
    assert "nan.xml, segment 1, epoch 2000-01-01T12:00:00.000000" in str(info.value)
    assert "not finite" in str(info.value)


def test_too_few_states_named():
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(kvn(segment([f"2020-001T00:00:00 {QI}"])), "one.aem")
    assert str(info.value).startswith("one.aem: ") and "has 1" in str(info.value)


# ------------------------------------------------------------------ segments
def test_segments_join_where_one_stops_and_the_next_starts():
    """A segment that starts at the last one's stop epoch continues it: that epoch once, then the rest."""
    first = segment([f"2020-001T00:00:0{i} {QI}" for i in range(3)])
    s = math.sqrt(0.5)
    second = segment([f"2020-001T00:00:02 {QI}", f"2020-001T00:00:05 0 0 {s!r} {s!r}",
                      "2020-001T00:00:09 0 0 1 0"])
    track = parse_aem(kvn(first, second))
    assert track.t.tolist() == [0.0, 1.0, 2.0, 5.0, 9.0]
    # the last state: B turned 180 deg about Z from EME2000 (F2)
    assert np.allclose(cayley(track.q[-1]), np.diag([-1.0, -1.0, 1.0]), atol=1e-15)


def test_segment_starting_before_the_last_stop_is_named():
    first = segment([f"2020-001T00:00:0{i} {QI}" for i in range(3)])
    second = segment([f"2020-001T00:00:01 {QI}", f"2020-001T00:00:05 {QI}"])
    text = kvn(first, second)
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "overlap.aem")
    assert f"overlap.aem, line {line_number(text, '2020-001T00:00:01')}: EPOCH" in str(info.value)


def test_time_system_change_between_segments_named():
    text = kvn(segment([f"2020-001T00:00:0{i} {QI}" for i in range(2)]),
               segment([f"2020-001T00:00:0{i} {QI}" for i in range(2, 4)], time_system="TAI"))
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "two.aem")
    message = str(info.value)
    assert message.startswith("two.aem, segment 2: TIME_SYSTEM") and "TAI" in message and "UTC" in message


# ------------------------------------------------------------------ what the numbers mean
RNG = np.random.default_rng(504)
CARRY = Rotation.random(random_state=RNG)  # carries EME2000's axes onto the body's
M = CARRY.as_matrix().T  # EME2000 -> body coordinates (the rows: the body's axes in EME2000)
W = np.array([0.02, -0.05, 0.11])  # body rate relative to EME2000, body axes, rad/s


@pytest.mark.parametrize("kind", ["QUATERNION/ANGVEL", "EULER_ANGLE/ANGVEL"])
@pytest.mark.parametrize("body_is_b, angvel_frame", [
    (True, "SC_BODY_1"), (True, "REF_FRAME_B"), (True, "EME2000"), (True, "REF_FRAME_A"),
    (False, "SC_BODY_1"), (False, "REF_FRAME_A"), (False, "EME2000"), (False, "REF_FRAME_B")])
def test_angvel_in_any_frame_and_direction_is_the_body_rate(kind, body_is_b, angvel_frame):
    """F4: ANGVEL is frame B's rate relative to A, in ANGVEL_FRAME; read back as the body rate in body axes."""
    a, b = ("EME2000", "SC_BODY_1") if body_is_b else ("SC_BODY_1", "EME2000")
    carry_ab = CARRY if body_is_b else CARRY.inv()  # carries A's axes onto B's
    rate_b_rel_a = W if body_is_b else -W  # in body axes
    in_body = angvel_frame in ("SC_BODY_1", "REF_FRAME_B" if body_is_b else "REF_FRAME_A")
    v = np.degrees(rate_b_rel_a if in_body else M.T @ rate_b_rel_a)
    if kind.startswith("QUATERNION"):
        att = 0.9 * carry_ab.as_quat()  # not unit: the reader takes any non-zero multiple as the same attitude
        extra = [f"ANGVEL_FRAME = {angvel_frame}"]
    else:
        att = carry_ab.as_euler("ZYX", degrees=True)  # F3: about Z, then the new Y, then the new X
        extra = [f"ANGVEL_FRAME = {angvel_frame}", "EULER_ROT_SEQ = ZYX"]
    # the same numbers at both epochs: the rates can only come from ANGVEL, not from the samples
    rows = [f"2020-001T00:00:0{i} {fmt(att)} {fmt(v)}" for i in range(2)]
    track = parse_aem(kvn(segment(rows, kind=kind, a=a, b=b, extra=extra)))
    assert np.allclose(cayley(track.q[0]), M, atol=1e-12)
    assert np.allclose(track.w, [W, W], atol=1e-12)
    assert "ANGVEL" in track.rates_from and angvel_frame in track.rates_from


@pytest.mark.parametrize("body_is_b", [True, False], ids=["body-is-B", "body-is-A"])
def test_quaternion_derivative_gives_the_body_rate(body_is_b):
    """QUATERNION/DERIVATIVE: the rate follows from the quaternion and its time derivative (F2)."""
    a, b = ("EME2000", "SC_BODY_1") if body_is_b else ("SC_BODY_1", "EME2000")

    def q_ab(t):  # the body turning at W (body axes) from CARRY at t = 0
        carry = CARRY * Rotation.from_rotvec(W * t)
        return (carry if body_is_b else carry.inv()).as_quat(canonical=False)

    h = 1e-5
    rows = []
    for i in range(2):
        q, qdot = q_ab(i), (q_ab(i + h) - q_ab(i - h)) / (2 * h)
        rows.append(f"2020-001T00:00:0{i} {fmt(0.9 * q)} {fmt(0.9 * qdot)}")  # both scaled: the same motion
    track = parse_aem(kvn(segment(rows, kind="QUATERNION/DERIVATIVE", a=a, b=b)))
    assert np.allclose(track.w, [W, W], atol=1e-8)
    assert np.allclose(cayley(track.q[0]), M, atol=1e-12)
    assert re.search(r"\bthe quaternion derivative\b", track.rates_from)


def test_spin_rate_source_named():
    rows = ["2020-001T00:00:00 0 80 45 1", "2020-001T00:00:01 0 80 46 1"]
    track = parse_aem(kvn(segment(rows, kind="SPIN")))
    assert re.search(r"\bSPIN_ANGLE_VEL\b", track.rates_from)  # the keyword, as a word


def test_track_fields_and_summary():
    """Without rates in the file they come from the quaternions; the summary says what was read."""
    s = math.sqrt(0.5)
    rows = [f"2020-001T00:00:00 {QI}", f"2020-001T00:00:05 0 0 {s!r} {s!r}", "2020-001T00:00:20 0 0 1 0"]
    text = kvn(segment(rows))
    track = parse_aem(text)
    assert track.epoch == "2020-001T00:00:00" and track.time_system == "UTC"
    assert re.search(r"\bthe quaternions\b", track.rates_from)
    summary = track.summary
    assert summary.startswith("AEM: 3 states of QUATERNION, EME2000 -> SC_BODY_1, UTC, from 2020-001T00:00:00")
    assert "over 20 s" in summary and track.rates_from in summary
    assert parse_aem(text, "mine.aem").summary.startswith("mine.aem: ")


# ------------------------------------------------------------------ not an AEM
def test_version_1_named_with_its_line():
    text = "\n" + kvn(segment([f"2020-001T00:00:0{i} {QI}" for i in range(2)])).replace(
        "CCSDS_AEM_VERS = 2.0", "CCSDS_AEM_VERS = 1.0")
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "v1.aem")
    message = str(info.value)
    assert message.startswith("v1.aem, line 2: CCSDS_AEM_VERS")
    assert re.search(r"\bQUATERNION_TYPE\b", message) and re.search(r"\bversion 2\b", message)


def test_library_refusal_passed_on_in_one_line():
    """What ccsds-ndm-py finds wrong is passed on: the field and its value, one line, no dangling colon."""
    text = kvn(segment([f"2020-001T00:00:0{i} {QI}" for i in range(2)], kind="FOO"))
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "foo.aem")
    message = str(info.value)
    assert message.startswith("foo.aem: not a valid AEM") and "ATTITUDE_TYPE" in message and "FOO" in message
    with pytest.raises(AttitudeFileError) as info:  # a data line one value short: the library's KVN error
        parse_aem(kvn(segment(["2020-001T00:00:00 0 0 1", "2020-001T00:00:01 0 0 1"])), "short.aem")
    message = str(info.value)
    assert "\n" not in message and "line" in message and not message.endswith(":")
    header_only = "\n".join(HEADER) + "\n"  # no segment: the library's message has two lines
    try:
        ccsds_ndm.from_str(header_only)
    except Exception as exc:  # the library's own refusal, read directly
        library_lines = [x.strip().rstrip(":") for x in str(exc).splitlines() if x.strip()]
    assert len(library_lines) == 2
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(header_only, "empty.aem")
    message = str(info.value)
    assert "\n" not in message
    for part in library_lines:  # each of the library's lines, whole, each ended by "; " or the message's end
        assert re.search(r"(: |; )" + re.escape(part) + r"(;|$)", message), (part, message)


def test_other_ccsds_message_named():
    apm = "\n".join(["CCSDS_APM_VERS = 2.0", "CREATION_DATE = 2020-01-01T00:00:00", "ORIGINATOR = TEST",
                     "META_START", "OBJECT_NAME = S", "OBJECT_ID = 2000-001A", "TIME_SYSTEM = UTC", "META_STOP",
                     "EPOCH = 2020-01-01T00:00:00", "QUAT_START", "REF_FRAME_A = EME2000",
                     "REF_FRAME_B = SC_BODY_1", "Q1 = 0", "Q2 = 0", "Q3 = 0", "QC = 1", "QUAT_STOP", ""])
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(apm, "att.apm")
    assert str(info.value).startswith("att.apm: ") and "APM" in str(info.value)


# ------------------------------------------------------------------ files
def test_read_aem_names_the_path(tmp_path):
    missing = tmp_path / "none.aem"
    with pytest.raises(AttitudeFileError) as info:
        read_aem(missing)
    assert str(missing) in str(info.value) and re.search(r"\battitude file\b", str(info.value))
    bad = tmp_path / "bad.aem"
    bad.write_text(kvn(segment([f"2020-001T00:00:00 {QI}"])))
    with pytest.raises(AttitudeFileError) as info:
        read_aem(bad)
    assert str(info.value).startswith(f"{bad}: ")
    good = tmp_path / "good.aem"
    good.write_text(kvn(segment([f"2020-001T00:00:0{i} {QI}" for i in range(2)])))
    assert read_aem(good).summary.startswith(f"{good}: 2 states")


@pytest.mark.parametrize("raw, line", [
    (b"\n\nCCSDS_AEM_VERS = 2.0\xff\nORIGINATOR = X\n", 3),  # a blank first line counts
    (b"CCSDS_AEM_VERS = 2.0\nORIGINATOR = \xe9t\xe9\nMORE = 1\n\n", 2),
])
def test_not_utf8_names_the_line(tmp_path, raw, line):
    path = tmp_path / "latin1.aem"
    path.write_bytes(raw)
    with pytest.raises(AttitudeFileError) as info:
        read_aem(path)
    assert str(info.value).startswith(f"{path}, line {line}: ") and "UTF-8" in str(info.value)
