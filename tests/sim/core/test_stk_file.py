"""STK attitude files (sim.run.stk): the layout and the numbers of AGI's documented ``.a`` format.

References: AGI, "Attitude File Format (*.a)" (help.agi.com/stk, importfiles-01):
the version line first, the keyword group ``BEGIN Attitude`` ... ``END
Attitude``, ScenarioEpoch in UTCG (``1 Jan 2000 12:00:00.000000``), then
after ``AttitudeTimeQuaternions`` one line ``t q1 q2 q3 q4`` per point (q4 the
scalar), the quaternion "a transformation from the reference coordinate
frame to the vehicle body frame": the rotation that carries J2000's axes
onto the body's.  "Importing Files into STK": keywords are not case
sensitive; ``#`` starts a comment line.  scipy's Rotation is the oracle for
the quaternions (tests only).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone
from fractions import Fraction

import numpy as np
from scipy.spatial.transform import Rotation

from sim.core.quaternion import cayley
from sim.run.stk import STK_VERSION, stk_attitude_text, stk_epoch

# the keywords of the .a format's Attitude group this writer may use (AGI's table)
KEYWORDS = {"begin", "end", "numberofattitudepoints", "scenarioepoch", "blockingfactor", "interpolationorder",
            "centralbody", "coordinateaxes", "attitudetimequaternions"}


def layout(text: str) -> tuple:
    """(comment lines, keyword phrases {keyword lower case: value}, data rows) of an .a file; fails on any other line."""
    lines = text.splitlines()
    assert lines[0] == STK_VERSION
    comments, keywords, rows = [], {}, []
    for line in lines[1:]:
        word = line.strip()
        if not word:
            continue
        if word.startswith("#"):
            comments.append(word)
        elif word.split()[0].lower() in KEYWORDS:
            keywords[word.split()[0].lower()] = word.split(None, 1)[1] if len(word.split()) > 1 else ""
        else:
            rows.append([float(v) for v in word.split()])  # anything else must be a data line of numbers
            assert len(rows[-1]) == 5, line
    return comments, keywords, np.array(rows)


def test_quaternions_carry_j2000_onto_the_body():
    """Each point's q1..q4 is the rotation carrying J2000's axes onto the body's (scipy, scalar last)."""
    carries = Rotation.random(5, random_state=np.random.default_rng(8))
    q = carries.inv().as_quat()  # this project's Q: C(Q) takes J2000 coordinates to body coordinates
    for k in range(5):
        assert np.allclose(cayley(q[k]), carries[k].as_matrix().T, atol=1e-15)
    t = np.array([0.0, 0.5, 1.0, 10.0, 100.25])
    _, keywords, rows = layout(stk_attitude_text(t, q, datetime(2000, 1, 1, 12, tzinfo=UTC)))
    assert keywords["numberofattitudepoints"] == "5" and rows.shape == (5, 5)
    assert np.array_equal(rows[:, 0], t)
    expected = carries.as_quat()
    signs = np.sign(np.sum(rows[:, 1:] * expected, axis=1))
    assert np.allclose(rows[:, 1:], signs[:, None] * expected, atol=1e-15)
    # the body's x axis, in J2000, is J2000's x axis carried by the written quaternion
    assert np.allclose(Rotation.from_quat(rows[:, 1:]).apply([1.0, 0.0, 0.0]),
                       [cayley(x)[0] for x in q], atol=1e-15)


def test_zero_components_written_as_zero():
    """The identity attitude: 0.0 0.0 0.0 1.0, no negative zeros."""
    text = stk_attitude_text([0.0, 1.0], [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, -1.0]], datetime(2000, 1, 1, tzinfo=UTC))
    data = text.split("AttitudeTimeQuaternions")[1].split("END Attitude")[0].split()
    assert data == ["0.0", "0.0", "0.0", "0.0", "1.0", "1.0", "0.0", "0.0", "0.0", "-1.0"]


def test_layout_and_comments():
    """Only the version line, comments, the group's keywords and data lines; a comment only when given."""
    q = [[0.0, 0.0, 0.0, 1.0]] * 3
    epoch = datetime(2000, 1, 1, 12, tzinfo=UTC)
    comments, keywords, rows = layout(stk_attitude_text([0.0, 1.0, 2.0], q, epoch))
    assert keywords == {"begin": "Attitude", "numberofattitudepoints": "3",
                        "scenarioepoch": "1 Jan 2000 12:00:00.000000", "blockingfactor": "20",
                        "interpolationorder": "1", "centralbody": "Earth", "coordinateaxes": "J2000",
                        "attitudetimequaternions": "", "end": "Attitude"}
    assert len(rows) == 3
    with_comment, _, _ = layout(stk_attitude_text([0.0, 1.0, 2.0], q, epoch, comment="scenario tumble"))
    assert with_comment == comments + ["# scenario tumble"]
    assert not any("scenario" in c for c in comments)
    text = stk_attitude_text([0.0, 1.0, 2.0], q, epoch)
    lines = text.splitlines()
    assert lines.index("BEGIN Attitude") < lines.index("AttitudeTimeQuaternions") < lines.index("END Attitude")


def test_times_as_any_real_numbers():
    """Times given as integers or exact fractions are written as decimal seconds."""
    q = [[0.0, 0.0, 0.0, 1.0]] * 3
    for t in (np.arange(3), [Fraction(0), Fraction(1, 4), Fraction(5, 2)]):
        _, _, rows = layout(stk_attitude_text(t, q, datetime(2000, 1, 1, tzinfo=UTC)))
        assert np.array_equal(rows[:, 0], [float(x) for x in t])


def test_scenario_epoch_is_utc_whatever_the_local_zone(monkeypatch):
    """ScenarioEpoch is UTCG: an epoch in another zone is converted, and the machine's own zone plays no part."""
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+05:30, no daylight saving
    time.tzset()
    try:
        assert stk_epoch(datetime(2024, 3, 1, 0, 0, 0, 250000, tzinfo=UTC)) == "1 Mar 2024 00:00:00.250000"
        india = timezone(timedelta(hours=5, minutes=30))
        assert stk_epoch(datetime(2024, 1, 1, 5, 29, 59, tzinfo=india)) == "31 Dec 2023 23:59:59.000000"
    finally:
        monkeypatch.undo()
        time.tzset()
