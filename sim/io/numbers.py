"""Huge integers in values a user gives: found before they are turned into text or floats.

Python's ``int`` has no size limit, but ``float()`` of one beyond about 1.8e308 raises OverflowError
and ``repr()`` of one beyond 4,300 digits raises ValueError (its limit on int-to-text conversion), so
a refusal that prints such a value would fail in its own message.  :mod:`sim.io.limits` and
:func:`sim.model.settings.validate` refuse them with these.
"""

from __future__ import annotations

import math

__all__ = ["short_repr", "huge_integer"]


def short_repr(value, most: int = 60) -> str:
    """``repr(value)`` cut to ``most`` characters; an integer of hundreds of digits named by its size.

    ``repr`` of an int beyond 4,300 digits raises ValueError (Python's limit on int-to-text
    conversion), so a huge integer is never converted.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"an integer of about {int(value.bit_length() * math.log10(2)) + 1:,} digits"
    try:
        text = repr(value)
    except ValueError:
        text = f"a {type(value).__name__} holding an integer of thousands of digits"
    return text if len(text) <= most else text[:most - 3] + "..."


def huge_integer(value, depth: int = 2):
    """The first int in ``value`` (or its items, ``depth`` levels down) beyond any float (over 1,024 bits), else None.

    Such an int is no number a setting takes, and its text (a message's ``repr``) is refused by
    Python beyond 4,300 digits: :func:`sim.model.settings.validate` refuses it first, whatever the key.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value.bit_length() > 1024 else None
    if depth > 0 and isinstance(value, (list, tuple)):
        for item in value:
            found = huge_integer(item, depth - 1)
            if found is not None:
                return found
    return None
