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
])
def test_a_size_is_written_in_the_largest_binary_unit_it_reaches(size, text):
    assert size_text(size) == text
