"""What the commands of ``attitude-sim`` share: the settings flags, their checks, one-line errors.

``run``, ``sweep`` and ``gui`` take the same flags for the simulation's
settings (:func:`add_settings_flags`, :func:`add_body_flags`); each flag is
validated by :func:`sim.model.settings.validate` and an error names the flag
(:class:`UsageError`: one line, exit code 2).  :func:`scenario_from_args`
turns the parsed flags into the scenario that runs.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import replace

from app.cli.flags import NUMERIC, UsageError, add_generated, add_numeric, flag_value, limited, setting_flags
from sim import (
    CONTROLLERS, DISTURBANCE_AXES, POINTING_MODES, ESTIMATORS, FLY_ON, DIRECTIONS, ORDERS, Output, OutputRefused,
    FileRefused, read_regular, check_outputs as check_files, FULL_QUAT_FORMS, INTEGRATORS, LIMITS, as_number,
    NORM_MODES, check_inputs, Event, load_scenario as load, resolve as resolve_scenario, Settings, SettingsError,
    carried_to, validate, BUILTINS, MESH_UNITS, layout_axes,
)
from app.cli.thruster_flags import THRUSTER_FLAGS, add_thruster_flags

__all__ = ["PROG", "UsageError", "LineParser", "SETTING_FLAGS", "add_settings_flags", "add_body_flags",
           "add_environment_flags", "add_output_flags", "scenario_from_args", "with_body", "flag_value",
           "limited", "say", "open_output", "check_outputs", "scenario_inputs", "say_body_note",
           "note", "flush_notes", "drop_notes"]

PROG = "attitude-sim"


class LineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (:class:`UsageError`) instead of usage and message.

    A value that starts with a minus sign followed by a digit, a point or
    ``inf``/``nan`` is a value, not a flag: ``--angles -90,0,0``,
    ``--rates -1e-3,0,0`` and ``--gains-grid -1:2,3,4`` read as written
    (argparse alone takes only a single negative number, ``-90``, for a
    value).  No flag of attitude-sim starts with ``-`` and a digit.
    """

    #: What a value may start with (argparse's own matcher is this attribute).
    NEGATIVE = re.compile(r"^-(\d|\.\d|inf|nan)", re.IGNORECASE)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = self.NEGATIVE

    def error(self, message):
        raise UsageError(message)


def add_settings_flags(parser, default_scenario: str = "default") -> None:
    """The flags that set the scenario and its settings (``run`` and ``sweep``); each overrides the scenario."""
    parser.add_argument("--scenario", default=default_scenario,
                        help=f"built-in name or .toml file (default: {default_scenario})")
    parser.add_argument("--integrator", choices=tuple(INTEGRATORS), help="the integrator")
    parser.add_argument("--full-quat-form", choices=FULL_QUAT_FORMS,
                        help="full-quat's equation: Hoffmann's manipulated (4.15), raw, or with Sherif's term")
    parser.add_argument("--norm", choices=tuple(NORM_MODES), help="norm handling")
    add_numeric(parser, "--dt", "--duration", "--inertia")
    add_body_flags(parser)
    add_numeric(parser, "--angles", "--rates", "--torque", "--torque-until", "--dampers")
    parser.add_argument("--controller", choices=CONTROLLERS, help="attitude controller")
    add_numeric(parser, "--gains", "--command", "--slerp-time")
    parser.add_argument("--no-shortest-path", action="store_true", help="let the controller turn the long way")
    add_numeric(parser, "--limits")
    add_environment_flags(parser)
    add_generated(parser)


def add_cmg_flags(parser) -> None:
    """The control moment gyros (issue 45; ``run``, ``sweep``): each flag sets the setting of its name (the
    numbers through :data:`app.cli.flags.NUMERIC`, their ranges from the table)."""
    cmg = parser.add_argument_group("control moment gyros (they realise the torque command; needs --integrator rk4; "
                                    "docs/PHYSICS.md)")
    cmg.add_argument("--cmg", metavar="CLUSTER",
                     help="none | pyramid (Wie's four CMGs, gimbal axes tilted by the skew from body z)")
    add_numeric(cmg, "--cmg-h0", "--cmg-skew")
    cmg.add_argument("--cmg-law", metavar="LAW", help="steering law: mp (Moore-Penrose) | sr (singularity-robust, "
                     "default) | null (null motion up the gradient of m) | gsr (Wie's generalized SR)")
    add_numeric(cmg, "--cmg-lambda0", "--cmg-mu", "--cmg-null-gain", "--cmg-dither", "--cmg-dither-rate",
                "--cmg-rate-limit", "--cmg-angles")


def add_environment_flags(parser) -> None:
    """The reaction wheels, gravity gradient and disturbance torque (``run``, ``sweep``)."""
    wheels = parser.add_argument_group("reaction wheels (they realise the torque command; docs/PHYSICS.md)")
    wheels.add_argument("--wheels", metavar="LAYOUT", help="none | orthogonal (3 along x, y, z) | pyramid (4, "
                        "tilted 54.7 deg from z) | axes 'x1,y1,z1;x2,y2,z2;...' (quoted in a shell)")
    add_numeric(wheels, "--wheel-inertia", "--wheel-torque-limit", "--wheel-speed-limit", "--wheel-friction",
                "--wheel-speeds", "--wheel-torques")
    add_cmg_flags(parser)
    add_thruster_flags(parser)
    env = parser.add_argument_group("environment (docs/PHYSICS.md)")
    env.add_argument("--gravity-gradient", metavar="ALTITUDE_KM", help="gravity-gradient torque of a circular "
                     f"orbit at this altitude, {LIMITS['altitude_km'].describe()}; off to switch it off")
    add_numeric(env, "--disturbance")
    orbit = parser.add_argument_group("orbit, Sun and pointing (docs/PHYSICS.md, issue 31)")
    orbit.add_argument("--epoch", metavar="UTC", help="the date of t = 0, ISO 8601 UTC, 1950 to 2050 "
                       "(default 2000-01-01T12:00:00Z)")
    orbit.add_argument("--orbit", metavar="ALT_KM,E,I_DEG,RAAN_DEG,ARGP_DEG,NU_DEG", help="Keplerian elements "
                       "(a = 6,378.137 km + ALT_KM); the gravity gradient, if on, follows this orbit")
    orbit.add_argument("--tle", metavar="FILE", help="a two-line element set propagated by SGP4 from --epoch")
    orbit.add_argument("--j2", action="store_true", help="the J2 drift of the node, perigee and mean anomaly")
    orbit.add_argument("--pointing", choices=POINTING_MODES, help="guidance: inertial (the command angles, "
                       "default) | nadir | sun | target | velocity; needs an orbit and a controller")
    orbit.add_argument("--target", metavar="LAT_DEG,LON_DEG[,ALT_KM]", help="the ground target of --pointing target")
    add_numeric(orbit, "--pointing-axis")
    nav = parser.add_argument_group("sensors and attitude estimation (docs/PHYSICS.md, issue 33)")
    nav.add_argument("--estimator", choices=ESTIMATORS, help="truth (none, default) | triad | quest (from the sun "
                     "sensors and the magnetometer) | mekf (a gyro, and a star tracker, sun sensors or magnetometer)")
    nav.add_argument("--gyro", metavar="ARW,RRW[,BIAS0]", help="a rate gyro: angle random walk rad/sqrt(s), rate "
                     "random walk rad/s^(3/2), 1 sigma of the initial bias per axis rad/s (default 0)")
    nav.add_argument("--star-tracker", metavar="NOISE_ARCSEC,RATE_HZ", help="a star tracker on -z: noise across "
                     "the boresight (1 sigma; 8x about it), samples per second")
    nav.add_argument("--sun-sensors", action="store_true", help="coarse sun sensors on the six faces (needs an orbit)")
    add_numeric(nav, "--magnetometer")
    nav.add_argument("--fly-on", choices=FLY_ON, help="what the controller reads: truth (default) or estimate")
    add_numeric(nav, "--sensor-seed")
    nav.add_argument("--filter-gyro", metavar="ARW,RRW", help="the MEKF's tuning: the gyro noises it assumes "
                     "(default: the gyro's own)")
    env.add_argument("--disturbance-axes", choices=DISTURBANCE_AXES, help="axes of --disturbance (default body)")
    add_numeric(env, "--disturbance-period")
    mag = parser.add_argument_group("magnetic field, magnetorquers and surface torques (docs/PHYSICS.md, issue 32; "
                                    "each needs an orbit)")
    mag.add_argument("--magnetic-field", choices=("none", "igrf", "dipole"), help="the geomagnetic field: "
                     "IGRF-14 at degree 13 (sampled every 10 s, interpolated) or the tilted dipole; default none")
    mag.add_argument("--magnetorquers", metavar="LIMIT_AM2[,X,Y,Z,...]", help="magnetorquer rods, each with this "
                     f"dipole limit ({LIMITS['magnetorquers'].describe()}; 0: none), along body x, y, z or "
                     "along the axes given after it (three or more, three numbers each)")
    mag.add_argument("--bdot", metavar="GAIN|bang-bang", help="B-dot detumbling: m = -GAIN dB/dt (A m^2 s/T, "
                     f"{LIMITS['bdot_gain'].describe()}) saturated, or every rod at its limit (bang-bang); "
                     "off to switch it off")
    add_numeric(mag, "--bdot-period", "--dumping", "--residual-dipole")
    mag.add_argument("--srp", action="store_true", help="solar radiation pressure on the body's mesh facets")
    mag.add_argument("--drag", action="store_true", help="free-molecular drag on the body's mesh facets")
    mag.add_argument("--surfaces", metavar="FILE.toml", help="optical and drag coefficients per surface or mesh "
                     "group (docs/PHYSICS.md, \"Surface coefficients\"); default black, C_d 2.2")
    add_numeric(mag, "--center-of-mass")
    mag.add_argument("--atmosphere", choices=("exponential", "msis"), help="the air's density for --drag: "
                     "Vallado's exponential table (default) or NRLMSIS 2.1 (needs pymsis)")


def add_body_flags(parser) -> None:
    """``--body``, ``--mass`` and ``--mesh-units`` (``run``, ``sweep`` and ``gui``)."""
    parser.add_argument("--body", metavar="NAME|FILE", help="aircraft | t_handle | phone | satellite | cubesat_3u, or a "
                        "closed .obj/.stl/.ply/.glb/.gltf mesh; takes the body's inertia")
    add_numeric(parser, "--mass")
    parser.add_argument("--mesh-units", choices=tuple(MESH_UNITS), help="the length unit of a mesh file's "
                        "coordinates (default m)")


def add_output_flags(parser) -> None:
    """``--every``, ``--format`` and ``--out`` of the commands that write rows (``run``, ``replay``)."""
    parser.add_argument("--every", type=ascii_int, default=1, metavar="N",
                        help="write every N-th step, and always the first and the last (default 1)")
    parser.add_argument("--format", choices=("csv", "npz", "aem", "stk"), default=None,
                        help="csv, npz (numpy.savez: one array per column; smaller and faster), aem (a CCSDS "
                        "attitude ephemeris message; XML when --out ends in .xml) or stk (an STK .a attitude "
                        "file); default: from the --out suffix (.npz, .aem, .xml, .a), else csv")
    parser.add_argument("--out", default="-", metavar="FILE",
                        help="output file, - for stdout (default)")
    parser.add_argument("--quaternion", choices=ORDERS, default="scalar-last",
                        help="order of the quaternion columns of csv and npz: scalar-last (q1..q4, q4 the scalar; "
                        "default) or scalar-first (q0..q3, q0 the scalar); docs/CONVENTIONS.md")
    parser.add_argument("--direction", choices=DIRECTIONS, default="inertial-to-body",
                        help="what the quaternion columns of csv and npz transform: inertial-to-body (this "
                        "project's Q; default) or body-to-inertial (its conjugate)")
    parser.add_argument("--with-rates", action="store_true",
                        help="aem: write the body rates too (QUATERNION/ANGVEL)")


def with_body(scenario, args):
    """The scenario with ``--body`` and ``--mass`` applied; a new body brings its own inertia.

    A new body with its own inertia also takes the scenario's torque,
    dampers, gains and limits scaled to its moments of inertia
    (:func:`sim.model.settings.carried_to`, as the window's Model tab does), so
    it flies with the scenario's time constants; flags such as
    ``--dampers`` are applied after and win.
    """
    changes = {key: flag_value(key, key, getattr(args, key)) for key in ("mesh_units", "body", "mass")
               if getattr(args, key, None) is not None}
    if "body" in changes:  # the scenario's explicit inertia was for its own body
        inertia = getattr(args, "inertia", None)
        changes["inertia"] = None if inertia is None else flag_value("inertia", "inertia", inertia)
    if not changes:
        return scenario
    try:
        settings = scenario.settings.replace(**changes)
        if "body" in changes and changes["inertia"] is None and settings.body != scenario.settings.body:
            carried = carried_to(scenario.settings, settings.mass_properties.inertia)
            if any(carried[key] != getattr(settings, key) for key in carried):
                settings = settings.replace(**carried)
                note(f"note: --body {args.body}: the scenario's torque, dampers, gains and limits are scaled "
                    "to its moments of inertia (the same time constants)")
        return replace(scenario, settings=settings)
    except SettingsError as exc:
        body = getattr(args, "body", None)
        flags = " ".join(f"--{key.replace('_', '-')} {getattr(args, key)}" for key in ("body", "mass", "mesh_units")
                         if getattr(args, key, None) is not None)
        message = str(exc)
        for prefix in ("body: ", "mass: ", "mesh_units: ", f"{changes.get('body', body)}: "):
            message = message[len(prefix):] if message.startswith(prefix) else message
        raise UsageError(f"{flags or '--body ' + scenario.settings.body}: {message}") from None


#: Flags that map one-to-one onto a setting: flag dest -> setting key; the numeric ones besides
#: (:func:`app.cli.flags.setting_flags`) come from the table of limits, a setting's new entry with its flag.
SETTING_FLAGS = {"integrator": "integrator", "full_quat_form": "full_quat_form", "norm": "norm",
                 "controller": "controller", "wheels": "wheels", "disturbance_axes": "disturbance_axes",
                 "epoch": "epoch", "orbit": "orbit", "pointing": "pointing", "target": "target",
                 "magnetic_field": "magnetic_field", "surfaces": "surfaces", "atmosphere": "atmosphere",
                 "estimator": "estimator", "gyro": "gyro", "star_tracker": "star_tracker", "fly_on": "fly_on",
                 "filter_gyro": "filter_gyro",
                 "cmg": "cmg", "cmg_law": "cmg_law", **THRUSTER_FLAGS}
#: Settings of one value per wheel, which a new --wheels with another number of wheels sets back to
#: their default unless given too.
_PER_WHEEL = ("wheel_speeds", "wheel_torques", "wheel_inertia", "wheel_torque_limit", "wheel_speed_limit",
              "wheel_friction")


def say_body_note(settings) -> None:
    """The note of a mesh that was repaired to be read (wound inside out), on stderr."""
    try:
        text = settings.mass_properties.note
    except SettingsError:
        return
    if text:
        note(f"note: {text}")


def scenario_from_args(args):
    """The scenario of ``run`` (and ``sweep``): the chosen scenario with the flags applied."""
    scenario = with_body(load(args.scenario), args)
    say_body_note(scenario.settings)
    changes = {}
    flags = {**SETTING_FLAGS, **setting_flags()}
    for flag, key in flags.items():
        value = getattr(args, flag, None)
        if value is not None:
            changes[key] = flag_value(flag, key, value)
    if args.dampers is not None:
        changes["dampers"] = flag_value("dampers", "dampers", args.dampers)
        changes["dampers_on"] = any(k > 0 for k in changes["dampers"])
    if args.limits is not None:
        changes["limiter_on"] = True
    if args.no_shortest_path:
        changes["shortest_path"] = False
    if getattr(args, "tle", None) is not None:
        try:
            text = read_regular(args.tle, LIMITS["scenario_bytes"].high, None, "TLE").decode("utf-8", "replace")
        except (OSError, FileRefused) as exc:
            raise UsageError(f"--tle {args.tle}: {exc}") from None
        try:
            changes["tle"] = validate("tle", text)
        except SettingsError as exc:
            raise UsageError(f"--tle {args.tle}: {str(exc).split(': ', 1)[-1]}") from None
    if getattr(args, "j2", False):
        changes["j2"] = True
    changes.update(_issue32_flags(args))
    if getattr(args, "sun_sensors", False):
        changes["sun_sensors"] = True
    if args.gravity_gradient is not None:
        if args.gravity_gradient.strip().lower() == "on":
            changes["gravity_gradient"] = True
        elif args.gravity_gradient.strip().lower() == "off":
            changes["gravity_gradient"] = False
        else:
            changes["altitude_km"] = flag_value("gravity_gradient", "altitude_km", args.gravity_gradient)
            changes["gravity_gradient"] = True
    if "wheels" in changes:  # the scenario's per-wheel values were for its own wheels
        count = len(layout_axes(changes["wheels"]))
        for key in _PER_WHEEL:
            value = getattr(scenario.settings, key)
            if key not in changes and isinstance(value, tuple) and len(value) != count:
                changes[key] = Settings.__dataclass_fields__[key].default
    try:
        settings = scenario.settings.replace(**changes)
    except SettingsError as exc:  # a combination: name the flag that gave it
        message = str(exc)
        for flag, key in flags.items():
            if key in changes and message.startswith(key) and getattr(args, flag, None) is not None:
                raise UsageError(f"--{flag.replace('_', '-')} {getattr(args, flag)}:"
                                 f"{message[len(key):].split(':', 1)[-1]}") from None
        for flag, key in (("magnetorquers", "magnetorquers"), ("bdot", "bdot_law"), ("srp", "srp"), ("drag", "drag")):
            value = getattr(args, flag, None)
            if key in changes and message.startswith(key) and value:
                shown = "" if value is True else f" {value}"
                raise UsageError(f"--{flag}{shown}:{message[len(key):].split(':', 1)[-1]}") from None
        if message.startswith("sun_sensors:") and getattr(args, "sun_sensors", False):
            raise UsageError("--sun-sensors:" + message[len("sun_sensors:"):]) from None
        raise UsageError(message) from None
    events = scenario.events
    if args.torque_until is not None:
        until = NUMERIC["--torque-until"].read(args.torque_until)  # a time >= 0
        events = tuple(sorted(events + (Event(until, {"torque": (0.0, 0.0, 0.0)}, "--torque-until"),),
                              key=lambda e: e.at))
    duration = scenario.duration
    if args.duration is not None:
        duration = _duration(args.duration)
    scenario = replace(scenario, settings=settings, events=events, duration=duration)
    try:  # the scenario's events against the bodies the flags made, before anything is written
        check_inputs(scenario, source=args.scenario)
    except SettingsError as exc:
        raise UsageError(f"{exc} (with the flags given)" if changes else str(exc)) from None
    if ("command_deg" in changes and settings.pointing != "inertial"
            and not any("pointing" in event.changes for event in events)):  # the window's disabled sliders' twin
        raise UsageError(f"--command {args.command}: the {settings.pointing} pointing makes the command for the "
                         "whole run, so the command angles would never fly; add --pointing inertial")
    return scenario


def _issue32_flags(args) -> dict:
    """``--magnetorquers``, ``--bdot``, ``--srp`` and ``--drag`` as settings (the others map one to one)."""
    changes = {}
    for key in ("srp", "drag"):
        if getattr(args, key, False):
            changes[key] = True
    rods = getattr(args, "magnetorquers", None)
    if rods is not None:
        parts = [p.strip() for p in rods.split(",")]
        if len(parts) > 1 and (len(parts) - 1) % 3:
            raise UsageError(f"--magnetorquers {rods}: expected LIMIT_AM2 then three numbers per axis, "
                             f"got {len(parts) - 1} numbers after the limit")
        changes["magnetorquers"] = flag_value("magnetorquers", "magnetorquers", parts[0])
        if len(parts) > 1:
            axes = [parts[i:i + 3] for i in range(1, len(parts), 3)]
            try:
                changes["magnetorquer_axes"] = validate("magnetorquer_axes", axes)
            except SettingsError as exc:
                raise UsageError(f"--magnetorquers {rods}: {str(exc).split(': ', 1)[-1]}") from None
    bdot = getattr(args, "bdot", None)
    if bdot is not None:
        word = bdot.strip().lower()
        if word in ("off", "bang-bang"):
            changes["bdot_law"] = word
        else:
            changes["bdot_law"] = "proportional"
            changes["bdot_gain"] = flag_value("bdot", "bdot_gain", bdot)
    return changes


def ascii_int(text: str) -> int:
    """An argparse type: a whole number in ASCII digits (``int`` also reads "٣" as 3)."""
    if not text.isascii():
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r} (ASCII digits only)")
    try:
        return int(text)
    except ValueError:  # argparse would name the function ("invalid ascii_int value"), not what was asked
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None


def _duration(text):
    """``--duration``: the table's range (:data:`sim.io.limits.LIMITS`); beyond its top the run's plan refuses it
    with the step count and the time it would take (:func:`sim.api.plan`)."""
    try:
        x = as_number("--duration", text)
        return x if x > LIMITS["duration"].high else LIMITS["duration"].number(x, "--duration")
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def open_output(path, flag):
    """:class:`sim.io.files.Output` for ``path`` (``-``: stdout); UsageError when it cannot be opened."""
    try:
        return Output(path, flag)
    except OutputRefused as exc:
        raise UsageError(str(exc)) from None


def check_outputs(outputs: dict, inputs: dict) -> None:
    """Refuse an output that is one of the inputs, or two outputs that are one file (UsageError)."""
    try:
        check_files(outputs, inputs)
    except OutputRefused as exc:
        raise UsageError(str(exc)) from None


def scenario_inputs(args, scenario) -> dict:
    """Every file a run reads, by how to name it: the one rule :func:`check_outputs` guards outputs with.

    The scenario file (``--scenario``), the TLE (``--tle``), the body's mesh and the surfaces file (from a
    flag or the scenario's keys), and those that a comparison body or an event of the scenario names.  A
    recording (``replay``) and an attitude file (``import``) are added by their commands.
    """
    inputs = {}
    name = getattr(args, "scenario", None)
    if name:
        try:
            path = resolve_scenario(name)
        except Exception:
            path = None
        if path is not None and os.path.exists(path):
            inputs["--scenario"] = str(path)
    if getattr(args, "tle", None):
        inputs["--tle"] = args.tle
    settings = scenario.settings
    if settings.body not in BUILTINS:
        inputs["--body" if getattr(args, "body", None) else "the scenario's body mesh"] = settings.body
    if settings.surfaces:
        inputs["--surfaces" if getattr(args, "surfaces", None) else "the scenario's surfaces file"] = settings.surfaces
    named = [(f"comparison body {label!r}", changes) for label, changes in scenario.compare]
    named += [(getattr(e, "where", "") or f"the event at t={e.at:g} s", e.changes) for e in scenario.events]
    for who, changes in named:
        body, surfaces = changes.get("body"), changes.get("surfaces")
        if isinstance(body, str) and body not in BUILTINS:
            inputs.setdefault(f"{who}: its body mesh", body)
        if isinstance(surfaces, str) and surfaces:
            inputs.setdefault(f"{who}: its surfaces file", surfaces)
    return inputs


#: Notes and warnings held until every input is checked (:func:`note`, :func:`flush_notes`).
_NOTES: list = []


def note(text: str) -> None:
    """A note or warning for stderr, said once every input has been checked (a refusal stays one line)."""
    _NOTES.append(text)


def flush_notes() -> None:
    """Say the notes held so far (every check passed: the run starts)."""
    while _NOTES:
        say(_NOTES.pop(0))


def drop_notes() -> None:
    """Forget the notes held (a new command, or a refusal)."""
    _NOTES.clear()


def say(text: str) -> None:
    """One line on stderr; nothing when stderr is closed (never onto stdout, the data)."""
    if sys.stderr is not None:
        try:
            print(text, file=sys.stderr)
        except (OSError, ValueError):
            pass
