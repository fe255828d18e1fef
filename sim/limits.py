"""One table of limits: every number a user can give, with its range, its unit and the words of its refusal.

The settings (:mod:`sim.settings`), the ensemble spec
(:class:`sim.ensemble.EnsembleSpec`), scenario files (:mod:`sim.scenario`),
the command line (``--dt``, ``--bodies``, ...), the window's fields (which
check through :func:`sim.settings.validate`) and the Python API read their
numbers here, and check them with :meth:`Limit.check`, so a value one of
them accepts is never refused later by another.  A refusal starts with the
name it was given (a setting's key, or a command-line flag) and says the
value and the range::

    >>> LIMITS["rate_spread"].check("5000", "--rate-spread")
    Traceback (most recent call last):
    ...
    sim.limits.SettingsError: --rate-spread: 5000 is too large (at most 1000 rad/s)

Besides the fields, the table holds what a run may cost (bodies, values
per axis of a gains grid, body-steps, Dask workers): the same kind of
entry, so a future cost limit is one more line here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["SettingsError", "Limit", "LIMITS", "as_number", "as_integer"]


class SettingsError(ValueError):
    """A setting has a bad value; the message names the setting, the value and why."""


def as_number(name: str, value) -> float:
    """``value`` (a number, or text from a command line) as a finite float; SettingsError naming ``name``."""
    if isinstance(value, bool) or value is None:
        raise SettingsError(f"{name}: expected a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise SettingsError(f"{name}: expected a number, got {value!r}") from None
    if not math.isfinite(x):
        raise SettingsError(f"{name}: {value!r} is not a finite number")
    return x


def as_integer(name: str, value, low: int, high: int) -> int:
    """``value`` as a whole number in ``[low, high]``; SettingsError naming ``name``.

    Accepts ints, numpy integers, floats with an integral value (TOML's
    ``10.0``) and text of either (a command line's ``"10"`` or ``"1e6"``).
    """
    number = None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        number = int(value)
    elif isinstance(value, str):
        try:
            number = int(value)
        except ValueError:
            try:
                x = float(value)
            except ValueError:
                x = math.nan
            number = int(x) if math.isfinite(x) and x.is_integer() else None
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    if number is None or not low <= number <= high:
        raise SettingsError(f"{name}: must be an integer in [{low:,}, {high:,}], got {value!r}")
    return number


@dataclass(frozen=True)
class Limit:
    """The accepted range of one number (or of each component of a vector of ``size`` numbers).

    Attributes
    ----------
    key : str
        The field's name (the table's key).
    low, high : float
        The range; ``low`` is excluded when ``low_open``.
    unit : str
        Unit for help texts and refusals (``""`` for none).
    integer : bool
        Whole numbers only.
    size : int
        1 for a number, 3 for a per-axis vector.
    least : float or None
        Above an open ``low``, the smallest value accepted, refused with
        ``least_why`` (a step of 1e-12 s is positive but useless).
    least_what : str
        What ``least`` is the smallest of, for that refusal ("step").
    least_why : str
        Why, in a few words.
    """

    key: str
    low: float
    high: float
    unit: str = ""
    integer: bool = False
    low_open: bool = False
    size: int = 1
    least: float | None = None
    least_what: str = ""
    least_why: str = ""

    @property
    def lowest(self) -> float:
        """The smallest value accepted (``least`` if any, else ``low``; ``low`` itself excluded when open)."""
        return self.least if self.least is not None else self.low

    def accepts(self, x) -> bool:
        """True when the number ``x`` lies in the range."""
        return (x > self.low if self.low_open else x >= self.low) and x <= self.high and (
            self.least is None or x >= self.least)

    def describe(self) -> str:
        """The range in words for help texts: ``"1e-09 to 1 s"``, ``"above 0, at most 180 deg"``, ``"1 to 10,000,000"``."""
        unit = f" {self.unit}" if self.unit else ""
        if self.integer:
            return f"{int(self.low):,} to {int(self.high):,}{unit}"
        if self.low_open and self.least is None:
            return f"above {self.low:g}, at most {self.high:g}{unit}"
        return f"{self.lowest:g} to {self.high:g}{unit}"

    def number(self, value, name: str | None = None):
        """One number checked against the range; SettingsError naming ``name`` (default: the key)."""
        name = name or self.key
        if self.integer:
            return as_integer(name, value, int(self.low), int(self.high))
        x = as_number(name, value)
        unit = f" {self.unit}" if self.unit else ""
        if x < self.low or (self.low_open and x == self.low):
            raise SettingsError(f"{name}: {x:g} must be {'>' if self.low_open else '>='} {self.low:g}{unit}")
        if x > self.high:
            raise SettingsError(f"{name}: {x:g} is too large (at most {self.high:g}{unit})")
        if self.least is not None and x < self.least:
            raise SettingsError(f"{name}: {x:g}{unit} is below the smallest {self.least_what} {self.least:g}{unit} "
                                f"({self.least_why})")
        return x

    def check(self, value, name: str | None = None):
        """``value`` checked: one number, or for ``size > 1`` a sequence (or ``"a,b,c"`` text) of ``size``.

        Returns a float (an int for ``integer``), or a tuple of them.
        """
        name = name or self.key
        if self.size == 1:
            return self.number(value, name)
        return tuple(self.number(v, f"{name}[{i}]") for i, v in enumerate(components(name, value, self.size)))


def components(name: str, value, n: int) -> list:
    """The ``n`` components of a vector given as a sequence or as ``"a,b,c"`` text; SettingsError otherwise."""
    if isinstance(value, str):
        parts = [s.strip() for s in value.split(",")]
    else:
        try:
            parts = list(value)
        except TypeError:
            raise SettingsError(f"{name}: expected {n} numbers, got {value!r}") from None
    if len(parts) != n:
        raise SettingsError(f"{name}: expected {n} numbers, got {len(parts)} ({value!r})")
    return parts


#: Largest magnitude accepted for torques, gains, dampers, limits (absurd beyond).
_MAGNITUDE = 1e6
#: Largest angle and rate magnitude accepted (deg, rad/s).
_ANGLE = _RATE = 1e4

#: Every limit, by key.
LIMITS = {lim.key: lim for lim in (
    # ---- settings (sim.settings.Settings)
    Limit("mass", 0.0, _MAGNITUDE, "kg", low_open=True),
    # Hoffmann's examples use 0.1 s; a nanosecond is a million times finer than any attitude
    # motion needs (the fastest accepted rate, 1e4 rad/s, turns 1e-5 rad in it); denormal
    # steps (1e-320) would only make duration / dt infinite.
    Limit("dt", 0.0, 1.0, "s", low_open=True, least=1e-9, least_what="step",
          least_why="a nanosecond resolves any attitude motion; smaller steps only make the step count "
                    "astronomical"),
    Limit("angles_deg", -_ANGLE, _ANGLE, "deg", size=3),
    Limit("rates", -_RATE, _RATE, "rad/s", size=3),
    Limit("torque", -_MAGNITUDE, _MAGNITUDE, "N m", size=3),
    Limit("dampers", 0.0, _MAGNITUDE, "N m s", size=3),
    Limit("gains", 0.0, _MAGNITUDE, "N m", size=3),
    Limit("limits", 0.0, _MAGNITUDE, "N m", low_open=True, size=3),
    Limit("slerp_time", 0.0, _MAGNITUDE, "s"),
    Limit("command_deg", -_ANGLE, _ANGLE, "deg", size=3),
    # The principal moments (sim.body.Body checks the tensor): below, a 1 g bead at 3 mm from the
    # axis, whose rates run away in one step under any accepted torque; above, about a thousand
    # times a supertanker's roll inertia, where 1/2 w^T J w and J w overflow for accepted rates.
    Limit("inertia", 1e-8, 1e12, "kg m^2", size=6),
    # ---- ensemble spec (sim.ensemble.EnsembleSpec); its gains grid takes the values of "gains"
    Limit("bodies", 1, 10_000_000, integer=True),
    Limit("seed", 0, 2**64 - 1, integer=True),
    Limit("rate_spread", 0.0, 1e3, "rad/s"),
    Limit("inertia_spread", 0.0, 50.0, "percent"),  # not "%": argparse help texts format with %
    Limit("settle_deg", 0.0, 180.0, "deg", low_open=True),
    Limit("gains_grid_values", 1, 1000, integer=True),
    # ---- runs
    Limit("duration", 0.0, 1e7, "s", low_open=True),
    Limit("body_steps", 1, 10**12, integer=True),
    Limit("workers", 0, 1024, integer=True),
    # ---- videos (attitude-sim video; File > Record video): an hour of 4K UHD at most
    Limit("video_seconds", 0.0, 3600.0, "s", low_open=True),
    Limit("video_width", 16, 3840, "pixels", integer=True),
    Limit("video_height", 16, 2160, "pixels", integer=True),
)}
