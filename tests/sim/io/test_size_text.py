"""Sizes in words (sim.io.limits.size_text), as a refused run states the memory it would need: IEC binary
units (1 kiB = 2^10 bytes, MiB 2^20, GiB 2^30, TiB 2^40), three significant digits, each unit from one of it."""

import pytest

from sim.io.limits import size_text


@pytest.mark.parametrize("size, text", [
    (0, "0 bytes"),
    (1023, "1023 bytes"),
    (1024, "1 kiB"),
    (12 * 1024, "12 kiB"),
    (1024 ** 2, "1 MiB"),
    (300 * 1024 ** 2, "300 MiB"),
    (1024 ** 3, "1 GiB"),
    (1.5 * 1024 ** 3, "1.5 GiB"),
    (1024 ** 4, "1 TiB"),
    (2.25 * 1024 ** 4, "2.25 TiB"),
    (999 * 1024 ** 4, "999 TiB"),
    (1000 * 1024, "1000 kiB"),              # not "1e+03 kiB": a unit's last thousandth
    (999.7 * 1024, "1000 kiB"),             # rounds up to four digits: still no exponent
    (1010 * 1024, "1010 kiB"),
    (5000 * 1024 ** 4, "5000 TiB"),         # past the largest unit
])
def test_a_size_is_written_in_the_largest_binary_unit_it_reaches(size, text):
    assert size_text(size) == text


@pytest.mark.parametrize("seconds, text", [
    (0.5, "0.5 s"), (59, "59 s"), (90, "1.5 min"), (7200, "2 h"), (3 * 86400, "3 days"),
    (2 * 365.25 * 86400, "2 years"), (1500 * 365.25 * 86400, "1500 years"), (400, "6.67 min"),
])
def test_a_duration_is_written_in_the_largest_unit_it_reaches_without_an_exponent(seconds, text):
    from sim.io.limits import duration_text

    assert duration_text(seconds) == text
