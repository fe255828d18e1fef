"""Controls: the values a user flies with, apart from the model (MuJoCo's ``d.ctrl`` beside its ``m``).

A :class:`~sim.model.settings.Settings` is the model: the body, its wheels,
the integrator, the controller and its gains.  Changing it rebuilds what a
step reads (the body, the gyrostat, the torque and load models).  A
**control** is what a pilot moves while flying: the command torque, the
command angles, the wheels' direct motor torques (:data:`CONTROLS`).  A
control is validated once, when its :class:`Control` is made (through
:func:`sim.model.settings.validate`, i.e. the ranges of
:data:`sim.io.limits.LIMITS`), and applied between two steps by writing the
one attribute of the torque model, load model or command that reads it
(:meth:`sim.model.stepping.Stepper.control`): nothing is rebuilt.

The settings record a body shows (:attr:`Stepper.settings`) still holds the
controls in force: :func:`with_controls` lays them over the model without
validating again (their values were validated as controls).
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.model.settings import Settings, SettingsError, validate

__all__ = ["CONTROLS", "Control", "SettingChange", "input_of", "validated_input", "with_controls", "check_control"]

#: The settings a user flies with: each is a :class:`Control`, applied without rebuilding the model.
CONTROLS = frozenset({"torque", "command_deg", "wheel_torques"})


@dataclass(frozen=True, slots=True)
class Control:
    """One control input: ``key`` (one of :data:`CONTROLS`) and its value, validated once when made.

    Raises SettingsError for a key that is not a control or a value out of
    its range (the message names the key, as every input path's does).
    What a runner's queue entry holds for a control
    (:meth:`sim.run.runner.Runner.send`); the runner and the bodies trust its value.
    """

    key: str
    value: object

    def __post_init__(self):
        if self.key not in CONTROLS:
            raise SettingsError(f"{self.key!r} is not a control (controls: {', '.join(sorted(CONTROLS))})")
        object.__setattr__(self, "value", validate(self.key, self.value))


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One change of the model: ``key`` (a setting that is not a control) and its value, validated once when made.

    Raises SettingsError for an unknown key, a control (a :class:`Control`
    instead) or a value out of its range.  What a runner's queue entry holds
    for a model setting: the runner checks it only together with the other
    settings (:meth:`sim.model.settings.Settings.replace_validated`), and the
    bodies apply it without validating it again.
    """

    key: str
    value: object

    def __post_init__(self):
        if self.key in CONTROLS:
            raise SettingsError(f"{self.key!r} is a control: send it as a Control")
        object.__setattr__(self, "value", validate(self.key, self.value))


def input_of(key: str, value) -> Control | SettingChange:
    """The typed input of ``key = value`` at an edge (a widget, the live link, a gamepad): validated once, here.

    The one place a setting's name decides whether it is a :class:`Control`
    (flown with, nothing rebuilt) or a :class:`SettingChange` (the model).
    """
    return (Control if key in CONTROLS else SettingChange)(key, value)


def validated_input(key: str, value) -> Control | SettingChange:
    """:func:`input_of` for a value :func:`~sim.model.settings.validate` already returned (a scenario's event,
    a recording's line, both validated when their file was read): made without validating it again."""
    item = object.__new__(Control if key in CONTROLS else SettingChange)
    object.__setattr__(item, "key", key)
    object.__setattr__(item, "value", value)
    return item


def check_control(settings: Settings, key: str, value) -> None:
    """SettingsError when a validated control does not fit the model ``settings`` (one wheel torque per wheel)."""
    if key == "wheel_torques" and value is not None and len(value) != settings.wheel_count:
        raise SettingsError(f"{key}: {len(value)} values for {settings.wheel_count} wheels (give one per wheel)")


def with_controls(settings: Settings, controls: dict) -> Settings:
    """``settings`` with the control values ``controls`` (key -> value) laid over it, not validated again.

    A copy of the record's fields and of what it caches from them (the
    wheel set: no control changes it); the values were validated as
    :class:`Control` and checked against the model (:func:`check_control`).
    """
    out = object.__new__(Settings)
    out.__dict__.update(settings.__dict__)
    out.__dict__.update(controls)
    return out
