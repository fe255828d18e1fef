"""AEMs of several segments of different kinds, epoch errors, library refusals and the run's epoch (sim.run.aem).

CCSDS 504.0-B-2: a file may hold segments of different ATTITUDE_TYPEs and directions (REF_FRAME_A -> B);
the summary and rates_from name every kind, direction and rate source that was read.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import ccsds_ndm
import pytest

from sim.run.aem import AttitudeFileError, parse_aem, run_epoch
from tests.sim.core.test_aem_reader import QI, kvn, segment

T = "2020-001T00:00:0"


def test_summary_lists_every_kind_and_direction_of_a_mixed_file():
    first = segment([f"{T}0 {QI}", f"{T}1 {QI}"])                                   # EME2000 -> SC_BODY_1
    second = segment([f"{T}2 0 0 0", f"{T}3 0 0 0"], kind="EULER_ANGLE", a="SC_BODY_1", b="EME2000",
                     extra=["EULER_ROT_SEQ = ZYX"])
    track = parse_aem(kvn(first, second), "two.aem")
    listed = re.match(r"two\.aem: 4 states of (.*), UTC, from", track.summary).group(1)
    assert set(listed.split(", ")) == {"EULER_ANGLE", "QUATERNION", "EME2000 -> SC_BODY_1", "SC_BODY_1 -> EME2000"}


def test_rates_from_names_each_source_of_a_mixed_file():
    angvel = segment([f"{T}0 {QI} 0 0 0", f"{T}1 {QI} 0 0 0"], kind="QUATERNION/ANGVEL",
                     extra=["ANGVEL_FRAME = SC_BODY_1"])
    derivative = segment([f"{T}2 {QI} 0 0 0 0", f"{T}3 {QI} 0 0 0 0"], kind="QUATERNION/DERIVATIVE")
    track = parse_aem(kvn(angvel, derivative))
    assert set(track.rates_from.split(" and ")) == {"ANGVEL (SC_BODY_1)", "the quaternion derivative"}
    assert track.rates_from in track.summary


@pytest.mark.parametrize("epoch, said", [("2021-366T00:00:00", ("366", "2021")), ("2020-01-01T12:00:61", ("61",))])
def test_an_impossible_epoch_says_why_after_quoting_it(epoch, said):
    text = kvn(segment([f"2019-12-31T00:00:00 {QI}", f"{epoch} {QI}", f"2030-001T00:00:00 {QI}"]))
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "bad.aem")
    why = str(info.value).split(repr(epoch))[-1]     # the reason, after the quoted epoch
    assert all(re.search(rf"\b{s}\b", why) for s in said), why


def test_version_1_names_the_library_that_reads_version_2():
    text = kvn(segment([f"{T}0 {QI}", f"{T}1 {QI}"])).replace("CCSDS_AEM_VERS = 2.0", "CCSDS_AEM_VERS = 1.0")
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(text, "v1.aem")
    assert "ccsds-ndm-py" in str(info.value)   # the package a user would look up, by its name


@pytest.mark.parametrize("library_says, passed_on", [
    ("Missing keyword:\n  OBJECT_ID = 2000-001AX\n", "Missing keyword; OBJECT_ID = 2000-001AX"),
    ("", "RuntimeError"),                       # a refusal without words: named by its kind
])
def test_a_library_refusal_is_passed_on_whole(monkeypatch, library_says, passed_on):
    def refuse(text):
        raise RuntimeError(library_says)

    monkeypatch.setattr(ccsds_ndm, "from_str", refuse)
    with pytest.raises(AttitudeFileError) as info:
        parse_aem(kvn(segment([f"{T}0 {QI}", f"{T}1 {QI}"])), "lib.aem")
    assert str(info.value).endswith(f": {passed_on}")


@pytest.mark.parametrize("epoch", [lambda: datetime(2020, 1, 1, 6), lambda: "2020-01-01T06:00:00",
                                   lambda: "2020-01-01T06:00:00Z", lambda: "2020-01-01T07:00:00+01:00"])
def test_the_runs_epoch_is_an_aware_instant_naive_taken_as_utc(epoch):
    got = run_epoch(SimpleNamespace(epoch=epoch()))
    assert got.tzinfo is not None
    assert got - datetime(2020, 1, 1, 6, tzinfo=UTC) == timedelta(0)
