"""read_tle and TleOrbit: the two-line element format (CelesTrak / NORAD columns, modulo-10 checksum) and SGP4."""

import re

import numpy as np
import pytest

import sim.world.orbit as orbit_mod
from sim.world import time as wtime
from sim.world.orbit import OrbitError, TleOrbit, read_tle

L1 = "1 25544U 98067A   24079.54791667  .00016717  00000-0  30057-3 0  9997"
L2 = "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.49815311 44296"


def checksum(line):
    """The NORAD rule: digits count their value, '-' counts 1, everything else 0; the sum modulo 10."""
    return sum(int(c) if c.isdigit() else (1 if c == "-" else 0) for c in line[:68]) % 10


def with_checksum(line68):
    return line68 + str(checksum(line68))


def test_the_reference_lines_carry_valid_checksums():
    assert (checksum(L1), checksum(L2)) == (int(L1[68]), int(L2[68]))


def test_the_default_label_of_an_error_is_tle():
    with pytest.raises(OrbitError) as err:
        read_tle("")
    assert str(err.value).startswith("tle:")


def test_lines_without_their_checksum_column_are_read_as_the_full_lines():
    full = read_tle(f"{L1}\n{L2}")
    bare = read_tle(f"{L1[:68]}\n{L2[:68]}")
    assert (bare.inclo, bare.nodeo, bare.ecco, bare.no_kozai) == (full.inclo, full.nodeo, full.ecco, full.no_kozai)


def test_a_truncated_line_padded_with_blanks_is_refused_naming_its_length():
    with pytest.raises(OrbitError, match=r"line 2 has 67"):
        read_tle(f"{L1}\n{L2[:67]}  ")


@pytest.mark.parametrize("k", [1, 2])
def test_a_short_line_is_named_by_its_number(k):
    lines = [L1, L2]
    lines[k - 1] = lines[k - 1][:60]
    with pytest.raises(OrbitError, match=rf"iss: line {k} has 60"):
        read_tle("\n".join(lines), name="iss")


@pytest.mark.parametrize("k", [1, 2])
def test_a_bad_checksum_names_the_line_the_computed_and_the_given_digit(k):
    lines = [L1, L2]
    given = (int(lines[k - 1][68]) + 3) % 10
    lines[k - 1] = lines[k - 1][:68] + str(given)
    with pytest.raises(OrbitError) as err:
        read_tle("\n".join(lines), name="iss")
    msg = str(err.value)
    assert "checksum" in msg and msg.startswith("iss:")
    assert sorted(re.findall(r"\d+(?:\.\d+)?", msg)) == sorted([str(k), str(checksum(lines[k - 1])), str(given)])


@pytest.mark.parametrize("text", [
    f"ISS (ZARYA)\nCOMMENT\n{L1}\n{L2}",        # two title lines: not a TLE
    f"{L2}\n{L2}",                             # line 1 missing
    f"X{L1[1:]}\n{L2}",                        # line 1 does not start '1 '
])
def test_texts_that_are_not_one_tle_are_refused(text):
    with pytest.raises(OrbitError, match="'1 ' and '2 '"):
        read_tle(text)


def test_an_element_set_sgp4_refuses_names_the_source():
    bad = with_checksum(L2[:26] + "9999999" + L2[33:68])    # eccentricity 0.9999999
    with pytest.raises(OrbitError, match=r"^iss: .*error \d"):
        read_tle(f"{L1}\n{bad}", name="iss")


def test_a_parse_failure_in_sgp4_becomes_an_orbit_error_naming_the_source(monkeypatch):
    class Refusing:
        @staticmethod
        def twoline2rv(a, b):
            raise ValueError("column 20 unreadable")

    monkeypatch.setattr(orbit_mod, "Satrec", Refusing)
    with pytest.raises(OrbitError, match=r"^iss: .*column 20 unreadable"):
        read_tle(f"{L1}\n{L2}", name="iss")


@pytest.mark.parametrize("t", [64800.0, 64800.0 + 3000.0, 3.5 * 86400.0])
def test_state_across_midnight_keeps_the_sgp4_radius(t):
    # The epoch is 06:00 UTC, so these times fall on later days; precession only turns the vector.
    sat = read_tle(f"{L1}\n{L2}")
    epoch = wtime.parse_epoch("2024-03-20T06:00:00Z")
    r, v = TleOrbit(sat, epoch).state(t)
    err, rt, vt = sat.sgp4(epoch.jd_day, epoch.jd_frac + t / 86400.0)
    assert err == 0
    assert abs(np.linalg.norm(r) - np.linalg.norm(rt)) < 1e-6
    assert abs(np.linalg.norm(v) - np.linalg.norm(vt)) < 1e-9


def test_a_decayed_orbit_names_the_time():
    orbit = TleOrbit(read_tle(f"{L1}\n{L2}"), wtime.parse_epoch("2024-03-20T06:00:00Z"))
    with pytest.raises(OrbitError, match=r"t = 2\.592e\+08"):
        orbit.state(3000 * 86400.0)
