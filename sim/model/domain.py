"""The world's models asked only inside their stated domains: one check where a run's inputs enter.

Each model states its domain once, beside itself: the field (IGRF-14, and the
dipole of its first three coefficients) covers the years
:data:`sim.world.magnetic.IGRF_YEARS`; the solar ephemeris and so every epoch
the years :data:`sim.world.time.EPOCH_RANGE` (:func:`sim.world.time.parse_epoch`
refuses the others); a TLE is a readable element set
(:func:`sim.world.orbit.read_tle`: finite fields in their ranges) that SGP4
propagates at the run's epoch.  :func:`check_domain` asks each model the run
uses at the start and at the end of the run's span, so a run that would leave
a model's domain is refused at load time (SettingsError, one line) instead of
failing half way.  :class:`sim.model.settings.Settings` calls it with no span
(every path: the command line, scenario files, the window's fields, the API,
an event); :func:`sim.run.context.check_inputs` calls it again with the time
left of the run after every change (an event that moves the epoch), and the
sweep for the extreme epochs of ``--epoch-spread``.

A model that fails mid-run for a reason not known in advance (a TLE that
decays: SGP4's error, or the orbit under the surface) raises
:class:`sim.world.orbit.OrbitError` from the world's state, which the
simulation reports as a :class:`~sim.model.simulation.SimulationFault`: the
rows before it are kept.
"""

from __future__ import annotations

from sim.io.limits import SettingsError
from sim.world.magnetic import IGRF_YEARS
from sim.world.orbit import OrbitError, TleOrbit, read_tle
from sim.world.time import DAY, decimal_year, parse_epoch

__all__ = ["check_domain", "field_years", "DOMAIN_KEYS"]

#: The settings whose change can move a model out of its domain (the others need no new check).
DOMAIN_KEYS = frozenset({"epoch", "tle", "orbit", "magnetic_field", "magnetometer"})


def field_years(settings, span: float = 0.0) -> tuple | None:
    """``(first, last)`` decimal years at which a run of ``span`` s asks the field model, or None without one.

    The field is asked by ``magnetic_field`` (igrf, dipole) and by a magnetometer.
    """
    if settings.magnetic_field == "none" and settings.magnetometer is None:
        return None
    start = parse_epoch(settings.epoch).days_utc(0.0)
    return decimal_year(start), decimal_year(start + max(span, 0.0) / DAY)


def check_domain(settings, span: float = 0.0) -> None:
    """SettingsError (one line) when a model ``settings`` uses is asked outside its domain in ``[0, span]`` s.

    The field's years (:data:`IGRF_YEARS`) over the whole span; a TLE at the
    run's epoch (SGP4's own errors, or an orbit under the surface).  A TLE that
    fails later is a simulation fault, not a refusal (module docstring).
    """
    years = field_years(settings, span)
    if years is not None:
        low, high = IGRF_YEARS
        first, last = years
        if not (low <= first and last <= high):
            which = "magnetic_field" if settings.magnetic_field != "none" else "magnetometer"
            reach = (f"the epoch {settings.epoch} lies outside them" if span <= 0.0 or not low <= first <= high
                     else f"a run of {span:g} s from the epoch {settings.epoch} reaches {last:.3f}")
            raise SettingsError(f"{which}: the field model IGRF-14 covers the years {low:g} to {high:g}; {reach}")
    if settings.tle is not None:
        try:
            TleOrbit(read_tle(settings.tle), parse_epoch(settings.epoch)).state(0.0)
        except OrbitError as exc:
            reason = str(exc).split(": ", 1)[-1]
            raise SettingsError(f"tle: cannot be propagated at the epoch {settings.epoch}: {reason}") from None
