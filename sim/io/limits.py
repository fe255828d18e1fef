"""One table of limits: every number a user can give, with its range, its unit and the words of its refusal.

The settings (:mod:`sim.model.settings`), the ensemble spec
(:class:`sim.ensemble.EnsembleSpec`), scenario files (:mod:`sim.run.scenario`),
the command line (``--dt``, ``--bodies``, ...), the window's fields (which
check through :func:`sim.model.settings.validate`) and the Python API read their
numbers here, and check them with :meth:`Limit.check`, so a value one of
them accepts is never refused later by another.  A refusal starts with the
name it was given (a setting's key, or a command-line flag) and says the
value and the range::

    >>> LIMITS["rate_spread"].check("5000", "--rate-spread")
    Traceback (most recent call last):
    ...
    sim.io.limits.SettingsError: --rate-spread: 5000 is too large (at most 1000 rad/s)

Besides the fields, the table holds what a run may cost (bodies, values
per axis of a gains grid, body-steps, Dask workers, comparison bodies, the
sizes of the files read and of a sweep's trajectories, the wall time a run
may take without ``--force``): the same kind of entry, so a future cost
limit is one more line here.

What the machine has is read here too (:func:`available_memory`,
:func:`usable_cores`), and :func:`check_cost` is the one gate every
estimate goes through (a run, a replay, a sweep, the API): a run estimated
to take longer than ``run_seconds`` is refused unless forced; one that needs
more memory than the machine has available is refused, forced or not.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

import numpy as np

from sim.io.limits_actuators import actuator_limits
from sim.io.numbers import huge_integer, short_repr

__all__ = ["SettingsError", "RunTooLong", "Limit", "LIMITS", "as_number", "as_integer", "huge_integer", "short_repr", "components", "listed",
           "available_memory", "usable_cores", "check_cost", "check_workers", "least_seconds", "duration_text",
           "size_text"]


class SettingsError(ValueError):
    """A setting has a bad value; the message names the setting, the value and why."""


class RunTooLong(ValueError):
    """A run would take too long or need more memory than the machine has; the message gives the figures."""


def as_number(name: str, value) -> float:
    """``value`` (a number, or text from a command line) as a finite float; SettingsError naming ``name``."""
    if isinstance(value, bool) or value is None or isinstance(value, str) and not value.isascii():
        # float() reads any script's digits ("٣" is 3): a number is written in ASCII, as a port is
        raise SettingsError(f"{name}: expected a number, got {short_repr(value)}")
    try:
        x = float(value)
    except OverflowError:  # an int beyond any float (10**400): as infinite as float("inf")
        raise SettingsError(f"{name}: {short_repr(value)} is not a finite number") from None
    except (TypeError, ValueError):
        raise SettingsError(f"{name}: expected a number, got {short_repr(value)}") from None
    if not math.isfinite(x):
        raise SettingsError(f"{name}: {value!r} is not a finite number")
    return x


def as_integer(name: str, value, low: int, high: int) -> int:
    """``value`` as a whole number in ``[low, high]``; SettingsError naming ``name``.

    Accepts ints, numpy integers, floats with an integral value (TOML's
    ``10.0``) and text of either (a command line's ``"10"`` or ``"1e6"``).
    """
    number = None
    if isinstance(value, str) and not value.isascii():  # int() reads any script's digits, as float() does
        raise SettingsError(f"{name}: must be an integer in [{low:,}, {high:,}], got {short_repr(value)}")
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
        raise SettingsError(f"{name}: must be an integer in [{low:,}, {high:,}], got {short_repr(value)}")
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
    zero_means : str
        When set, 0 is accepted besides the range above ``least`` and means
        this ("constant"): a period of 0 is no period, one of 5e-324 s is
        degenerate.
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
    zero_means: str = ""

    @property
    def lowest(self) -> float:
        """The smallest value accepted (``least`` if any, else ``low``; ``low`` itself excluded when open)."""
        return self.least if self.least is not None else self.low

    def accepts(self, x) -> bool:
        """True when the number ``x`` lies in the range."""
        return (x > self.low if self.low_open else x >= self.low) and x <= self.high and (
            self.least is None or x >= self.least or (bool(self.zero_means) and x == 0))

    def describe(self) -> str:
        """The range in words for help texts: ``"1e-09 to 1 s"``, ``"above 0, at most 180 deg"``, ``"1 to 10,000,000"``."""
        unit = f" {self.unit}" if self.unit else ""
        if self.integer:
            return f"{int(self.low):,} to {int(self.high):,}{unit}"
        if self.low_open and self.least is None:
            return f"above {self.low:g}, at most {self.high:g}{unit}"
        if self.zero_means:
            return f"0 ({self.zero_means}) or {self.lowest:g} to {self.high:g}{unit}"
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
        if self.least is not None and x < self.least and not (self.zero_means and x == 0):
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


def listed(name: str, value, expected: str) -> list:
    """The parts of ``value``, a sequence or ``"a,b,c"`` text; SettingsError saying what was ``expected`` otherwise."""
    if isinstance(value, str):
        return [s.strip() for s in value.split(",")]
    try:
        return list(value)
    except TypeError:
        raise SettingsError(f"{name}: expected {expected}, got {short_repr(value)}") from None


def components(name: str, value, n: int) -> list:
    """The ``n`` components of a vector given as a sequence or as ``"a,b,c"`` text; SettingsError otherwise."""
    parts = listed(name, value, f"{n} numbers")
    if len(parts) != n:
        raise SettingsError(f"{name}: expected {n} numbers, got {len(parts)} ({short_repr(value)})")
    return parts


#: Largest magnitude accepted for torques, gains, dampers, limits (absurd beyond).
_MAGNITUDE = 1e6
#: Largest angle and rate magnitude accepted (deg, rad/s).
_ANGLE = _RATE = 1e4

#: Every limit, by key.
LIMITS = {lim.key: lim for lim in (
    # ---- settings (sim.model.settings.Settings)
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
    # The principal moments (sim.core.body.Body checks the tensor): below, a 1 g bead at 3 mm from the
    # axis, whose rates run away in one step under any accepted torque; above, about a thousand
    # times a supertanker's roll inertia, where 1/2 w^T J w and J w overflow for accepted rates.
    Limit("inertia", 1e-8, 1e12, "kg m^2", size=6),
    *actuator_limits(Limit, _MAGNITUDE),  # wheels, CMGs, thrusters (sim.io.limits_actuators)
    # ---- environment (sim.world.environment): a circular orbit from the Karman line (100 km; lower is
    # no orbit) to well beyond the Moon (384,400 km), where the gradient is about 1e-9 of LEO's
    Limit("altitude_km", 100.0, 1e6, "km"),
    Limit("disturbance", -_MAGNITUDE, _MAGNITUDE, "N m", size=3),
    # ---- orbit and pointing (sim.world, sim.gnc; issue 31): --orbit ALT_KM,E,I,RAAN,ARGP,NU with
    # a = R_E + ALT_KM (the perigee above the surface is checked with e), angles in degrees
    Limit("orbit_altitude_km", 100.0, 1e6, "km"),
    Limit("orbit_angle_deg", -360.0, 360.0, "deg"),
    Limit("target_lat_deg", -90.0, 90.0, "deg"),
    Limit("target_lon_deg", -360.0, 360.0, "deg"),
    Limit("target_alt_km", -1.0, 100.0, "km"),
    Limit("pointing_axis", -_MAGNITUDE, _MAGNITUDE, size=3),
    Limit("disturbance_period", 0.0, 1e7, "s", least=1e-9, least_what="period",
          least_why="the smallest step; a shorter period is not resolved, and 2 pi t / period overflows",
          zero_means="constant"),
    # ---- the field, magnetorquers and surface torques (issue 32): a 3U CubeSat's rods make 0.2 A m^2, a
    # large satellite's 400; 1e4 is beyond any rod. The B-dot gain (A m^2 s / T) of a CubeSat is about
    # 1e4-1e6 (k_w / |B|^2, sim.gnc.magnetic); dumping rates (1/s) faster than 1 would fight the wheels.
    Limit("magnetorquers", 0.0, 1e4, "A m^2"),
    Limit("magnetorquer_axis", -_MAGNITUDE, _MAGNITUDE, size=3),
    Limit("residual_dipole", -1e4, 1e4, "A m^2", size=3),
    Limit("bdot_gain", 0.0, 1e12, "A m^2 s/T", low_open=True),
    # the magnetometer's sampling period: a millisecond to a quarter of an hour
    Limit("bdot_period", 0.0, 1e3, "s", low_open=True, least=1e-3, least_what="period",
          least_why="a magnetometer samples at most at a kilohertz"),
    Limit("dumping_gain", 0.0, 1.0, "1/s"),
    # where the centre of mass lies in the mesh's coordinates: within a kilometre of its origin
    Limit("center_of_mass", -1e3, 1e3, "m", size=3),
    # ---- sensors and estimation (sim.gnc.sensors, sim.model.navigation; issue 33): from a navigation-grade
    # gyro (1e-7 rad/sqrt(s)) to a consumer MEMS part, star trackers from 0.1 arcsec to a degree
    Limit("gyro_arw", 0.0, 1e-1, "rad/sqrt(s)", low_open=True),
    Limit("gyro_rrw", 0.0, 1e-2, "rad/s^(3/2)"), Limit("gyro_bias", 0.0, 0.1, "rad/s"),
    Limit("star_tracker_noise_arcsec", 0.0, 3600.0, "arcsec", low_open=True),
    Limit("star_tracker_rate_hz", 0.0, 1000.0, "Hz", low_open=True),
    Limit("magnetometer_noise", 0.0, 1e-4, "T", low_open=True),
    Limit("sensor_seed", 0, 2**63 - 1, integer=True),
    # ---- ensemble spec (sim.ensemble.EnsembleSpec); its gains grid takes the values of "gains"
    Limit("bodies", 1, 10_000_000, integer=True),
    Limit("seed", 0, 2**64 - 1, integer=True),
    Limit("rate_spread", 0.0, 1e3, "rad/s"),
    Limit("inertia_spread", 0.0, 50.0, "percent"),  # not "%": argparse help texts format with %
    Limit("settle_deg", 0.0, 180.0, "deg", low_open=True),
    Limit("detumble_deg_s", 0.0, 1e3, "deg/s", low_open=True),
    # per-body orbits (issue 31): half-widths of the uniform spreads about --orbit's elements and the epoch
    Limit("orbit_spread_km", 0.0, 1e5, "km"),
    Limit("orbit_spread_e", 0.0, 1.0),
    Limit("orbit_spread_deg", 0.0, 360.0, "deg"),
    Limit("epoch_spread", 0.0, 31_622_400.0, "s"),  # a leap year
    Limit("gains_grid_values", 1, 1000, integer=True),
    # ---- runs
    # up to three years: a year of a CubeSat (the cubesat_year scenario, 3.16e7 s) and more
    Limit("duration", 0.0, 1e8, "s", low_open=True),
    # the window's speed factor (simulated seconds per wall second): a tenth of real time for a
    # close look, up to a thousand times for an orbit (a 95 min orbit in under 6 s)
    Limit("speed", 0.1, 1000.0, "x"),
    # the window's plotted time window (s): a second for a close look at a fast spin, a week of an orbit
    Limit("plot_seconds", 1.0, 1e6, "s"),
    Limit("body_steps", 1, 10**12, integer=True),
    Limit("workers", 0, 1024, integer=True),
    # the drift lab's long runs (attitude-sim lab --steps): a hundred steps show nothing, 1e8 take a day
    Limit("lab_steps", 100, 100_000_000, integer=True),
    # Comparison bodies of a scenario: each is a column group of the CSV and a curve in every
    # plot; beyond a few dozen neither can be read, and each multiplies the run's cost.
    Limit("compare_bodies", 0, 64, integer=True),
    # Estimated wall time a run, replay or sweep may take unless forced (--force, force=True).
    Limit("run_seconds", 0.0, 3600.0, "s"),
    # ---- files read whole (bytes), refused by their size before they are read
    # (a scenario is about 2 kB; a recording line about 60 bytes, its header a scenario;
    # a mesh of the most triangles the view draws is at most about 130 MB as ASCII STL)
    Limit("scenario_bytes", 0, 1 << 20, "bytes", integer=True),
    Limit("scenario_line_bytes", 0, 1 << 16, "bytes", integer=True),
    Limit("recording_bytes", 0, 256 << 20, "bytes", integer=True),
    Limit("recording_line_bytes", 0, 4 << 20, "bytes", integer=True),
    Limit("mesh_bytes", 0, 256 << 20, "bytes", integer=True), Limit("mesh_triangles", 1, 500_000, integer=True),
    # ---- what a sweep keeps: every k-th sample of every body's Q and w
    Limit("trajectory_bytes", 0, 4 << 30, "bytes", integer=True),
    # ---- the window: what it flies live (the Ensemble tab's body count; sweeps run up to "bodies").
    # 10,000 bodies at dt 1 ms with dampers and the quaternion controller cost the simulation
    # thread about half of one core (SLERP of the command included; docs/PERFORMANCE.md);
    # beside it the window draws both 3D views at >= 30 frames per second on the 2-core
    # software-OpenGL reference machine (docs/PERFORMANCE.md). More would fall behind real time.
    Limit("window_bodies", 1, 10_000, integer=True),
    # ---- the live link (app.link, docs/LINK.md): states sent per second, at most one a step of the
    # smallest dt that keeps up at 1x on this machine's kind (dt 0.1 ms)
    Limit("link_rate", 0.0, 10_000.0, "Hz", low_open=True),
    # ---- videos (attitude-sim video; File > Record video): an hour of 4K UHD at most. The length is the
    # video's own (its frames / fps), not the simulated time it shows: frames and wall time are what cost
    Limit("video_seconds", 0.0, 3600.0, "s", low_open=True),
    Limit("video_width", 16, 3840, "pixels", integer=True), Limit("video_height", 16, 2160, "pixels", integer=True),
)}

#: Share of the available memory a run may plan to use (the rest: the libraries, the OS, other programs).
MEMORY_SHARE = 0.8


def _meminfo() -> dict:
    info = {}
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                key, _, rest = line.partition(":")
                parts = rest.split()
                if parts and parts[0].isdigit():
                    info[key] = int(parts[0]) * (1024 if parts[1:] == ["kB"] else 1)
    except (OSError, ValueError, IndexError):
        pass
    return info


def _cgroup_room() -> float:
    """Bytes left under this process's cgroup (v2) memory limit; inf without one."""
    try:
        with open("/proc/self/cgroup", encoding="ascii") as f:
            path = next((line.split(":", 2)[2].strip() for line in f if line.startswith("0::")), None)
        if path is None:
            return math.inf
        folder = os.path.join("/sys/fs/cgroup", path.lstrip("/"))
        with open(os.path.join(folder, "memory.max"), encoding="ascii") as f:
            limit = f.read().strip()
        if limit == "max":
            return math.inf
        with open(os.path.join(folder, "memory.current"), encoding="ascii") as f:
            return max(0.0, float(limit) - float(f.read().strip()))
    except (OSError, ValueError, IndexError, StopIteration):
        return math.inf


def available_memory() -> int:
    """Bytes the machine can give a new allocation now, without swapping.

    ``MemAvailable`` of ``/proc/meminfo`` (the kernel's estimate, page cache
    that can be dropped included), else the free pages of
    ``os.sysconf``; lower when a cgroup memory limit leaves less.
    """
    info = _meminfo()
    room = info.get("MemAvailable")
    if room is None:
        try:
            room = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, AttributeError):
            room = 1 << 30
    return int(min(room, _cgroup_room(), _address_room()))


def _address_room() -> float:
    """Bytes of address space the process may still map under ``ulimit -v`` (RLIMIT_AS), inf without one.

    A library that allocates past it aborts the process (ccsds-ndm-py's Rust core: SIGABRT).
    """
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return math.inf
        with open("/proc/self/statm", encoding="ascii") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        return max(0.0, float(soft - used))
    except (ImportError, OSError, ValueError, IndexError):
        return math.inf


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _digits(value: float) -> str:
    """Three significant digits, and whole numbers from 100 up (``"1010"``, never ``"1.01e+03"``)."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def size_text(size: float) -> str:
    """Bytes in words: ``"1.5 GiB"``, ``"300 MiB"``, ``"12 kiB"``."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("kiB", 2**10)):
        if size >= scale:
            return f"{_digits(size / scale)} {unit}"
    return f"{size:.0f} bytes"


def duration_text(seconds: float) -> str:
    """Seconds in words: ``"3.2 h"``, ``"12 min"``, ``"2.5 days"``, ``"1 year"``."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            digits = _digits(seconds / size)
            return f"{digits} {unit[:-1] if digits == '1' and unit.endswith('s') else unit}"
    return f"{_digits(seconds)} s"


def least_seconds(work, repeats: int = 3) -> float:
    """The least wall time of ``repeats`` calls of ``work()``, s.

    The least, not the mean: a busy machine that takes the core away during
    one timing would otherwise inflate an estimate many times over.
    """
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def check_cost(what: str, *, seconds: float | None = None, memory: float | None = None,
               force: bool = False, hint: str = "", memory_hint: str = "", most_seconds: float | None = None) -> None:
    """The one gate of every estimate: raise :class:`RunTooLong` with the figure, or return.

    Parameters
    ----------
    what : str
        What is estimated, the start of the message ("10,000,000 steps",
        "a sweep of 1,000,000 bodies x 10,000 steps").
    seconds : float, optional
        Estimated wall time; refused beyond ``LIMITS["run_seconds"]`` unless ``force``.
    memory : float, optional
        Estimated bytes held at once; refused beyond :data:`MEMORY_SHARE` of
        :func:`available_memory`, whatever ``force`` says (a need the
        machine cannot meet ends in the kernel's OOM killer or swapping,
        not in a result).
    hint, memory_hint : str
        What to do instead (ends the time and the memory message).
    most_seconds : float, optional
        The time limit (default ``LIMITS["run_seconds"].high``).
    """
    if memory is not None:
        room = MEMORY_SHARE * available_memory()
        if memory > room:
            raise RunTooLong(f"{what} would need {size_text(memory)} in memory, more than this machine can "
                             f"give ({size_text(room / MEMORY_SHARE)} available)"
                             + (f"; {memory_hint}" if memory_hint else ""))
    most = LIMITS["run_seconds"].high if most_seconds is None else most_seconds
    if seconds is not None and not force and seconds > most:
        raise RunTooLong(f"{what} would take about {duration_text(seconds)} here (at most "
                         f"{duration_text(most)})" + (f"; {hint}" if hint else ""))


def check_workers(value, name: str = "workers") -> int:
    """A number of Dask worker processes for this machine: the table's range, and at most its cores.

    Each worker is a process of its own (with numpy and the simulation
    loaded: :data:`sim.io.costs.WORKER_BYTES`) running one chunk at a time; more workers than
    cores only share the cores and multiply the memory.
    """
    workers = LIMITS["workers"].number(value, name)
    cores = usable_cores()
    if workers > cores:
        raise SettingsError(f"{name}: {workers:,} worker processes on a machine with {cores} "
                            f"core{'s' if cores > 1 else ''}: at most {cores} (one per core)")
    return workers
