"""The typed inputs of a run: what a :class:`~sim.run.runner.Runner`'s queue carries.

Four kinds, each made (and its value validated) once, where it enters:

* :class:`~sim.model.controls.Control`: a value flown with (torque, command angles, wheel motor torques);
* :class:`~sim.model.controls.SettingChange`: a change of the model (its value validated);
* :class:`Reset`: every body back to the scenario's initial state at t = 0;
* :class:`EnsembleChange`: an ensemble started beside the main body (an EnsembleSpec) or removed (None).

Each has ``key`` and ``value``, what a recording writes and a batch reports
(:data:`~sim.run.context.RESET` and :data:`~sim.run.context.ENSEMBLE` are
the keys of the last two).  :func:`typed` turns a ``(key, value)`` pair
into one of them: the edge of the callers that speak in pairs (the live
link, the gamepad, the Python API, tests); after it no key string is parsed
again, and the runner dispatches on the type.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.ensemble import EnsembleSpec
from sim.model.controls import Control, SettingChange, input_of, validated_input
from sim.model.settings import SettingsError
from sim.run.context import ENSEMBLE, RESET

__all__ = ["Control", "SettingChange", "Reset", "EnsembleChange", "INPUT_TYPES", "typed", "recorded"]


@dataclass(frozen=True, slots=True)
class Reset:
    """Every body, the ensemble, the clock and the events back to the scenario's initial state (t = 0)."""

    key = RESET
    value = None


@dataclass(frozen=True, slots=True)
class EnsembleChange:
    """Start an ensemble of ``spec`` beside the main body (built from its settings at that step), or remove it (None)."""

    spec: EnsembleSpec | None

    key = ENSEMBLE

    def __post_init__(self):
        if self.spec is not None and not isinstance(self.spec, EnsembleSpec):
            raise SettingsError(f"{ENSEMBLE}: expected an EnsembleSpec or None, got {self.spec!r}")

    @property
    def value(self) -> EnsembleSpec | None:
        return self.spec


#: What a runner's queue carries.
INPUT_TYPES = (Control, SettingChange, Reset, EnsembleChange)


def typed(item):
    """``item`` as a typed input: an input passes; a pair ``(key, value)`` is made one here (validated)."""
    if isinstance(item, INPUT_TYPES):
        return item
    key, value = item
    if key == RESET:
        return Reset()
    if key == ENSEMBLE:
        return EnsembleChange(value)
    return input_of(key, value)


def recorded(key: str, value):
    """The typed input of a value validated when its file was read (a recording's line), not validated again."""
    if key == RESET:
        return Reset()
    if key == ENSEMBLE:
        return EnsembleChange(value)
    return validated_input(key, value)
