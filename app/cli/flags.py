"""The numeric flags of ``attitude-sim``, made from the one table of limits (:data:`sim.io.limits.LIMITS`).

A number's range is written once, in the table.  Each flag here names its
entry; its help text ends with the entry's range (:meth:`~sim.io.limits.Limit.describe`)
and its value is checked by the entry (:meth:`Numeric.read`): a setting
through :func:`sim.model.settings.validate` (the table's range and the
setting's own rules, such as one value per wheel), refused as
``--flag TEXT: reason``; any other number by the table alone, refused as
``--flag: reason``.  Both are one line and exit 2 (:class:`UsageError`).

Every entry of the table is placed (a test holds it): a flag of
:data:`NUMERIC`, a part of a flag that reads several numbers
(:data:`PARTS`: ``--orbit``, ``--gyro``, ...), or no flag at all
(:data:`NO_FLAG`, with the reason).  A setting's entry that none of them
names gets a flag by itself: ``--KEY`` with dashes (:func:`generated`),
added to ``run``, ``sweep`` and ``video`` and applied as the setting.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields

from sim import LIMITS, Settings, SettingsError, validate

__all__ = ["UsageError", "Numeric", "NUMERIC", "PARTS", "NO_FLAG", "numeric", "add_numeric", "add_generated",
           "generated", "setting_flags", "flag_value", "limited"]


class UsageError(Exception):
    """Bad input on the command line: one line, exit code 2."""


def flag_value(flag, key, text):
    """``text`` validated as setting ``key``; errors name the flag (``flag``: its argparse dest)."""
    try:
        return validate(key, text)
    except SettingsError as exc:
        reason = str(exc).split(": ", 1)[-1]
        raise UsageError(f"--{flag.replace('_', '-')} {text}: {reason}") from None


def limited(key, flag, text):
    """``text`` checked against ``LIMITS[key]`` (:mod:`sim.io.limits`, the one table); UsageError naming ``flag``."""
    try:
        return LIMITS[key].check(text, flag)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


#: The settings' field names (a flag whose entry is one of them is read as that setting).
_SETTINGS = frozenset(f.name for f in fields(Settings))


@dataclass(frozen=True)
class Numeric:
    """One flag that takes the numbers of one entry of :data:`sim.io.limits.LIMITS`.

    Attributes
    ----------
    key : str
        The entry of the table (its range, unit and checks).
    words : str
        The help text; the range is put where ``{range}`` stands, else after a comma.
    metavar : str
        The value's name in the help (``S``, ``WX,WY,WZ``).
    option : str
        The flag's spelling (default ``--`` and the key with dashes).
    setting : str or None
        The setting the flag sets, read by :func:`sim.model.settings.validate`
        (default: ``key`` when it is a setting; ``""``: none, the table alone checks it).
    applied : bool
        The flag sets its setting by itself (:data:`app.cli.options.SETTING_FLAGS`);
        False when the command applies it in its own way (``--dampers`` also
        switches the dampers on, ``--mass`` goes with ``--body``).
    """

    key: str
    words: str
    metavar: str = ""
    option: str = ""
    setting: str | None = None
    applied: bool = True

    @property
    def flag(self) -> str:
        """The spelling on the command line."""
        return self.option or "--" + self.key.replace("_", "-")

    @property
    def dest(self) -> str:
        """argparse's attribute for the flag."""
        return self.flag[2:].replace("-", "_")

    @property
    def setting_key(self) -> str:
        """The setting the flag is read as, ``""`` for a number the table alone checks."""
        if self.setting is not None:
            return self.setting
        return self.key if self.key in _SETTINGS else ""

    def help(self, **words) -> str:
        """The help text with the table's range in it (and ``words`` where ``{name}`` stands)."""
        span = LIMITS[self.key].describe()
        if LIMITS[self.key].size > 1:
            span = f"each {span}"
        if "{range}" in self.words:
            return self.words.format(range=span, **words)
        return f"{self.words.format(**words)}, {span}"

    def add(self, parser, default=None, **words) -> None:
        """Add the flag to ``parser`` (an argparse parser or group); ``words`` fill the help's other blanks."""
        parser.add_argument(self.flag, metavar=self.metavar or self.key.upper(), default=default,
                            help=self.help(**words))

    def read(self, text):
        """``text`` checked: a setting's value (:func:`flag_value`) or the table's number (:func:`limited`)."""
        if self.setting_key:
            return flag_value(self.dest, self.setting_key, text)
        return limited(self.key, self.flag, text)


def _n(key, words, metavar="", **kw) -> Numeric:
    return Numeric(key, words, metavar, **kw)


#: The numeric flags written for a purpose, by spelling (where each goes: :func:`add_numeric`).
NUMERIC = {n.flag: n for n in (
    # the settings (run, sweep, video; --mass also gui)
    _n("dt", "step", "S"),
    _n("inertia", "inertia tensor components, kg m^2, Hoffmann's signs on the products; the principal moments "
       "{range}", "JXX,JYY,JZZ,JXY,JXZ,JYZ"),
    _n("mass", "total mass for an inertia from the mesh, {range} (default: the body's)", "KG", applied=False),
    _n("angles_deg", "initial aircraft angles", "PSI,THETA,PHI", option="--angles"),
    _n("rates", "initial body rates", "WX,WY,WZ"),
    _n("torque", "command torque", "TX,TY,TZ"),
    _n("slerp_time", "the torque acts while t < S, {range}", "S", option="--torque-until", applied=False),
    _n("dampers", "rate damper gains, {range} (0 = off)", "K1,K2,K3", applied=False),
    _n("gains", "attitude controller gains", "K1,K2,K3"),
    _n("command_deg", "command angles, {range} (a change at t = 0)", "PSI,THETA,PHI", option="--command"),
    _n("slerp_time", "time of the SLERP to a new command, {range} (0 = at once)", "S"),
    _n("limits", "torque limits per axis, {range} (switches the limiter on)", "L1,L2,L3"),
    _n("wheel_inertia", "each wheel's axial inertia (one value, or one per wheel W1,W2,...)", "KG_M2"),
    _n("wheel_torque_limit", "motor-torque limit per wheel", "N_M"),
    _n("wheel_speed_limit", "speed limit per wheel (relative to the body)", "RAD_S"),
    _n("wheel_friction", "viscous friction per wheel, {range} (default 0)", "N_M_S"),
    _n("wheel_speeds", "initial wheel speeds relative to the body, one per wheel, {range} (default: at rest)",
       "W1,W2,..."),
    _n("wheel_torques", "direct motor torques, one per wheel, {range}, added to the wheels' share of the "
       "torque command", "U1,U2,..."),
    # control moment gyros and thrusters (issue 45; their groups: app.cli.options, app.cli.thruster_flags)
    _n("cmg_h0", "each rotor's momentum, {range} (default 1)", "N_M_S"),
    _n("cmg_skew", "the pyramid's skew, {range} (default 54.74)", "DEG"),
    _n("cmg_lambda0", "SR weight lam0, in h0^2, {range} (default 0.01): lam = lam0 h0^2 exp(-mu m / h0^6)", "L0"),
    _n("cmg_mu", "how fast the SR weight falls with m / h0^6, {range} (default 10)", "MU"),
    _n("cmg_null_gain", "the null motion's gain (law null), {range} (default 0.1)", "RAD_S"),
    _n("cmg_dither", "Wie's dither amplitude (law gsr), {range} (default 0.1)", "EPS0"),
    _n("cmg_dither_rate", "the dither's frequency (law gsr), {range} (default pi/2)", "RAD_S"),
    _n("cmg_rate_limit", "gimbal-rate limit, {range} (default 1)", "RAD_S"),
    _n("cmg_angles", "initial gimbal angles, one per CMG, {range} (default 0)", "D1,D2,..."),
    _n("thruster_force", "thrust (one value, or one per thruster), {range} (default 1)", "N"),
    _n("thruster_isp", "specific impulse (one value, or one per thruster), {range} (default 220, hydrazine)", "S"),
    _n("thruster_impulse_bit", "minimum impulse bit: shorter firings are not made, {range} (default 0)", "N_S"),
    _n("thruster_period", "the control period, {range} (default 0.1; a whole number of steps)", "S"),
    _n("thruster_on", "the trigger's on threshold, command normalised to 1, {range} (default 0.45; rule of thumb "
       "above 0.3)", "U_ON"),
    _n("thruster_off", "the trigger's off threshold, below U_ON, {range} (default 0.15; rule of thumb below "
       "0.8 U_ON)", "U_OFF"),
    _n("pwpf_km", "PWPF's filter gain, {range} (default 4.5; rule of thumb 2 to 7)", "K_M"),
    _n("pwpf_tau", "PWPF's filter time constant, {range} (default 0.35; rule of thumb 0.1 to 1 s)", "S"),
    _n("thruster_deadband_deg", "the dead band of --thruster-modulation deadband, {range} (default 1)", "DEG"),
    _n("thruster_unloading", "with wheels: the thrusters unload them, T = -K h_w, {range}", "K"),
    _n("disturbance", "a disturbance torque", "TX,TY,TZ"),
    _n("disturbance_period", "the disturbance's period, {range}: TX,TY,TZ times sin(2 pi t / S) "
       "(default 0, constant)", "S"),
    _n("pointing_axis", "the body axis pointed, {range} (default 0,0,1)", "X,Y,Z"),
    _n("magnetometer_noise", "a magnetometer, noise 1 sigma per axis, {range} (IGRF-14; needs an orbit)",
       "NOISE_T", option="--magnetometer", setting="magnetometer"),
    _n("sensor_seed", "the sensors' seed, {range} (default 0)", "N"),
    _n("bdot_period", "B-dot's magnetometer sampling period, {range} (default 1)", "S"),
    _n("dumping_gain", "momentum dumping of the wheels by the rods, m = GAIN (dh x B)/|B|^2, {range} (0: off)",
       "GAIN", option="--dumping"),
    _n("residual_dipole", "the body's residual dipole, body axes", "X,Y,Z"),
    _n("center_of_mass", "the centre of mass in the mesh's coordinates, {range}, for the surface torques "
       "(default: the body's own)", "X,Y,Z"),
    # the ensemble (sweep, video)
    _n("bodies", "number of bodies, {range} (default: the scenario's, else 1000)", "N"),
    _n("seed", "seed of the random samples", "S"),
    _n("rate_spread", "dispersion of each initial rate component", "RAD_S"),
    _n("inertia_spread", "dispersion of the inertia", "PCT"),
    _n("settle_deg", "settling threshold, {range} (default 1)", "DEG"),
    _n("detumble_deg_s", "the rate under which a body counts as detumbled (the detumble_time column), {range} "
       "(default 0.5)", "DEG_S"),
    _n("epoch_spread", "one epoch per body: half-width of a uniform spread about --epoch", "S"),
    # one command each
    _n("duration", "simulated time, {range} (default: the scenario's); the run takes round(duration/dt) steps",
       "S"),
    _n("link_rate", "states sent per second on the link, {range} (default {rate}; at most one a step)", "HZ"),
    _n("speed", "simulated seconds per second of video, {range} (default: the scenario's own speed, 1 unless "
       "it says; the window's speed factor)", "X"),
    _n("workers", "Dask local cluster of N worker processes, {range} and at most one per core; 0 = in this "
       "process (default: by size, one per core)", "N"),
    _n("lab_steps", "steps of each long run at dt = {dt} s, {range} (default {steps}: about 4 minutes of CPU)",
       "N", option="--steps"),
)}

#: Entries read as a part of a flag that takes several numbers (or a word): entry -> the flag.
PARTS = {
    "altitude_km": "--gravity-gradient", "magnetorquers": "--magnetorquers", "magnetorquer_axis": "--magnetorquers",
    "bdot_gain": "--bdot", "wheel_count": "--wheels", "wheel_axis": "--wheels",
    "orbit_altitude_km": "--orbit", "orbit_angle_deg": "--orbit",
    "target_lat_deg": "--target", "target_lon_deg": "--target", "target_alt_km": "--target",
    "gyro_arw": "--gyro", "gyro_rrw": "--gyro", "gyro_bias": "--gyro",
    "star_tracker_noise_arcsec": "--star-tracker", "star_tracker_rate_hz": "--star-tracker",
    "orbit_spread_km": "--orbit-spread", "orbit_spread_e": "--orbit-spread", "orbit_spread_deg": "--orbit-spread",
    "gains_grid_values": "--gains-grid", "video_width": "--size", "video_height": "--size",
    "thruster_count": "--thrusters", "thruster_position": "--thrusters",
}

#: Entries no flag takes, and why.
NO_FLAG = {
    "plot_seconds": "the window's plotted time (its Plots tab)",
    "window_bodies": "the window's Ensemble tab",
    "compare_bodies": "a scenario's comparison bodies",
    "body_steps": "a sweep's cost (bodies x steps), from --bodies and --duration",
    "run_seconds": "the wall time a run may take unless --force",
    "video_seconds": "a video's length, --duration / --speed",
    "scenario_bytes": "a file's size, refused before it is read",
    "scenario_line_bytes": "a file's line, refused before it is read",
    "recording_bytes": "a file's size, refused before it is read",
    "recording_line_bytes": "a file's line, refused before it is read",
    "mesh_bytes": "a file's size, refused before it is read",
    "mesh_triangles": "a mesh's size, refused when it is read",
    "trajectory_bytes": "a sweep's trajectories (--trajectories, --traj-every)",
}


def generated() -> dict:
    """Flags for the settings' entries of the table that no flag names: ``--KEY``, read as the setting."""
    placed = {n.key for n in NUMERIC.values()} | set(PARTS) | set(NO_FLAG)
    return {n.flag: n for n in (Numeric(key, f"the setting {key} (sim/io/limits.py)")
                                for key in LIMITS if key in _SETTINGS and key not in placed)}


def setting_flags() -> dict:
    """The numeric flags that set their setting by themselves: argparse dest -> setting key."""
    return {n.dest: n.setting_key for n in (*NUMERIC.values(), *generated().values()) if n.setting_key and n.applied}


def numeric(flag: str) -> Numeric:
    """The flag spelt ``flag`` (of :data:`NUMERIC` or :func:`generated`)."""
    return NUMERIC.get(flag) or generated()[flag]


def add_numeric(parser, *flags: str) -> None:
    """Add the numeric flags spelt ``flags`` to ``parser`` (a parser or a group), in that order."""
    for flag in flags:
        numeric(flag).add(parser)


def add_generated(parser) -> None:
    """The flags of :func:`generated`, in a group of their own; one a command already has is left as it is."""
    extra = generated()
    if not extra:
        return
    group = parser.add_argument_group("more settings (each its range in sim/io/limits.py)")
    for n in extra.values():
        try:
            n.add(group)
        except argparse.ArgumentError:  # the command spells this flag by hand
            pass
