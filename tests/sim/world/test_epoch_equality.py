"""When two epochs are the same instant (sim.world.time.Epoch.__eq__): the instant decides, not the text.

parse_epoch's docstring: a time zone other than UTC is converted to UTC, so
one instant written two ways is one Epoch; a second apart, or another day,
is another; and an Epoch is never equal to its text or its Julian date.
"""

from sim.world.time import parse_epoch


def test_one_instant_written_two_ways_is_one_epoch():
    a = parse_epoch("2024-03-20T12:00:00Z")
    assert a == parse_epoch("2024-03-20T14:00:00+02:00")
    assert len({a, parse_epoch("2024-03-20 12:00")}) == 1


def test_other_instants_are_other_epochs():
    a = parse_epoch("2024-03-20T12:00:00Z")
    assert a != parse_epoch("2024-03-20T12:00:01Z")
    assert a != parse_epoch("2024-03-21T12:00:00Z")
    assert len({a, parse_epoch("2024-03-20T12:00:01Z"), parse_epoch("2025-03-20T12:00:00Z")}) == 3


def test_an_epoch_is_not_its_text_or_its_julian_date():
    a = parse_epoch("2024-03-20T12:00:00Z")
    assert a != "2024-03-20T12:00:00Z"
    assert a != a.jd_day + a.jd_frac
    assert a is not None and a != None  # noqa: E711  (== with None must be False, not an error)
