"""The world state compiled (issue 42): sim.model.world_kernel.world_kernel against the same formulas run as
Python, bit for bit, for every pointing mode, field and atmosphere over an orbit; the compiled world against
independent references (astropy's Sun, sidereal time and geodetic coordinates; the two-vector command's own
definition; the nadir rate of a circular orbit); numba's libm against Python's; the same source with
NUMBA_DISABLE_JIT=1."""

import dataclasses
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import sim.model.world_kernel as wk
from sim import api
from sim.core.angles import cayley_entries
from sim.core import jit
from sim.core.jit import kernel
from sim.core.ops import atan2_of, cos_of, sin_of
from sim.model.world import World
from sim.world.orbit import R_EARTH_KM
from sim.world.time import parse_epoch
from world_columns import three_orbits

MODES = ("inertial", "nadir", "sun", "target", "velocity")
FIELDS = ("none", "dipole", "igrf")
AIRS = ((False, "exponential"), (True, "exponential"), (True, "msis"))


def settings(**changes):
    """sun_pointing's settings on an eccentric J2 orbit that passes through the Earth's shadow."""
    base = dict(j2=True, target=(40.0, -100.0, 0.2), orbit=(520.0, 0.01, 51.6, 30.0, 20.0, 10.0),
                epoch="2024-03-20T03:06:00Z")
    base.update(changes)
    return api.load_scenario("sun_pointing").settings.replace(**base)


def values(state):
    return tuple(getattr(state, f.name) for f in dataclasses.fields(state) if f.name != "orbit")


#: The world's kernel never loaded (no warm-up): a World asking it computes its states in Python.
PYTHON_WORLD = jit.Kernel(wk.world_kernel.py_func)


def python_state(world, t, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(wk, "world_kernel", PYTHON_WORLD)
        return world.state(t)


@pytest.fixture(scope="module")
def compiled():
    wk.world_kernel.wait()
    assert wk.world_kernel.ready


def shadow_times(world, monkeypatch):
    """Times over one orbit, with a few inside the penumbra (0 < sunlit < 1) found by bisection."""
    period = world.orbit.period
    times = list(np.linspace(0.0, period, 25))
    lit = [python_state(world, t, monkeypatch).sunlit for t in times]
    for a, b, la, lb in zip(times, times[1:], lit, lit[1:]):
        if la != lb:
            for _ in range(40):  # to the shadow's edge
                mid = 0.5 * (a + b)
                if (python_state(world, mid, monkeypatch).sunlit == la):
                    a = mid
                else:
                    b = mid
            times += [a - 1.0, a, b, 0.5 * (a + b), b + 1.0]
    return times


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("air", AIRS, ids=lambda a: a[1] if a[0] else "nodrag")
def test_the_compiled_world_is_the_python_world_bit_for_bit(compiled, monkeypatch, mode, field, air):
    if air[1] == "msis":
        pytest.importorskip("pymsis")
    s = settings(pointing=mode, magnetic_field=field, drag=air[0], atmosphere=air[1])
    world = World(s)
    assert world.compilable  # one body on a Kepler orbit: the kernel's case
    times = shadow_times(world, monkeypatch) if (mode, field, air[0]) == ("sun", "none", False) else list(
        np.linspace(0.0, 6000.0, 9)) + [3.25, 17.5]
    partial = 0
    for t in times:
        got = world.state(t)
        want = python_state(world, t, monkeypatch)
        assert values(got) == values(want), t
        partial += 0.0 < want.sunlit < 1.0
        assert (got.qc is None) == (mode == "inertial") and (got.b_eci is None) == (field == "none")
        assert (got.density is None) == (not air[0]) and (got.target_elevation is None) == (mode != "target")
    if (mode, field, air[0]) == ("sun", "none", False):
        assert partial >= 4  # the penumbra's formula ran


@kernel
def _libm(x, out):
    for j in range(x.shape[0]):
        out[0, j] = sin_of(x[j], None)
        out[1, j] = cos_of(x[j], None)
        out[2, j] = atan2_of(x[j], 1.0 - 0.5 * x[j], None)
        out[3, j] = math.exp(-abs(x[j]) * 1e-2)


def test_numbas_sin_cos_atan2_and_exp_are_pythons_math_bit_for_bit():
    rng = np.random.default_rng(42)
    x = np.concatenate([rng.uniform(-7.0, 7.0, 2000), rng.uniform(-1e6, 1e6, 2000), [0.0, -0.0, 1e-300, 1e22]])
    out = np.empty((4, x.size))
    _libm(x, out)
    want = np.array([[math.sin(v) for v in x], [math.cos(v) for v in x], [math.atan2(v, 1.0 - 0.5 * v) for v in x],
                     [math.exp(-abs(v) * 1e-2) for v in x]])
    assert np.array_equal(out, want)


def test_the_compiled_world_against_astropy(compiled):
    import tests.astropy_offline  # noqa: F401
    import astropy.units as u
    from astropy.coordinates import GCRS, ITRS, CartesianRepresentation, get_sun
    from astropy.time import Time
    s = settings(pointing="sun")
    world = World(s)
    epoch = parse_epoch(s.epoch)
    for t in (0.0, 1800.0, 86400.0 * 40):
        ws = world.state(t)
        when = Time(epoch.jd_day, epoch.jd_frac + t / 86400.0, format="jd", scale="utc")
        sun = get_sun(when).cartesian.xyz.to(u.km).value
        assert math.degrees(math.acos(np.dot(ws.sun, sun) / np.linalg.norm(sun))) < 0.012
        assert ws.sun_km == pytest.approx(np.linalg.norm(sun), rel=2e-4)
        when.delta_ut1_utc = 0.0  # sim's UT1 = UTC
        gmst = when.sidereal_time("mean", "greenwich", model="IAU1982").rad
        assert abs((ws.gmst - gmst + math.pi) % (2 * math.pi) - math.pi) < 1e-8
        itrs = GCRS(CartesianRepresentation(*ws.r_km, unit=u.km), obstime=when).transform_to(ITRS(obstime=when))
        place = itrs.earth_location.to_geodetic("WGS84")
        # nutation and polar motion neglected (sim.world.frames): under 0.75 km on the ground
        assert abs(ws.alt_km - place.height.to(u.km).value) < 0.75
        assert math.hypot(ws.lat - place.lat.rad, (ws.lon - place.lon.rad + math.pi) % (2 * math.pi) - math.pi
                          ) * R_EARTH_KM < 0.75


def test_the_compiled_command_sends_the_axis_to_its_reference_and_turns_at_the_orbit_rate(compiled):
    # nadir pointing of body z on a circular two-body orbit: C(qc) nadir = z, and the LVLH frame turns about
    # minus the orbit normal at the mean motion n: w = (0, -n, 0) in LVLH's body axes (Markley & Crassidis (2.77))
    s = settings(pointing="nadir", pointing_axis=(0.0, 0.0, 1.0), j2=False, orbit=(600.0, 0.0, 30.0, 0.0, 0.0, 0.0))
    world = World(s)
    n = math.sqrt(398600.4418 / (R_EARTH_KM + 600.0) ** 3)
    for t in (0.0, 1000.0, 2500.0):
        ws = world.state(t)
        c = np.array(cayley_entries(ws.qc)).reshape(3, 3)
        nadir = -np.array(ws.r_km) / np.linalg.norm(ws.r_km)
        assert np.allclose(c @ nadir, (0.0, 0.0, 1.0), atol=1e-14)
        assert np.allclose(c @ np.array(ws.v_kms) / np.linalg.norm(ws.v_kms), (1.0, 0.0, 0.0), atol=1e-14)
        assert np.allclose(ws.wc, (0.0, -n, 0.0), atol=1e-12)
        assert np.allclose(ws.reference, nadir * np.linalg.norm(ws.r_km), rtol=1e-15)


def test_a_column_world_rows_are_the_compiled_one_body_worlds_to_rounding(compiled):
    # COLUMN runs numpy's sin, cos, atan2 and exp, which may round differently from libm's in the last place
    # (sim.core.ops): the rows agree with each body's compiled world to rounding, not bit for bit
    s = settings(pointing="target", magnetic_field="dipole", drag=True, atmosphere="exponential")
    rows, ones = three_orbits(s)
    for t in (0.0, 700.0, 2900.0):
        got = rows.state(t)
        for k, one in enumerate(ones):
            assert one.compilable and not rows.compilable
            want = one.state(t)
            for name in ("r_km", "v_kms", "sun", "qc", "wc", "reference", "b_eci", "b_rate"):
                assert np.allclose([np.broadcast_to(x, (3,))[k] for x in getattr(got, name)], getattr(want, name), rtol=1e-12,
                                   atol=1e-12 * np.abs(getattr(want, name)).max()), name
            for name in ("sunlit", "gmst", "lat", "lon", "alt_km", "target_elevation", "density"):
                assert np.broadcast_to(getattr(got, name), (3,))[k] == pytest.approx(getattr(want, name), rel=1e-12,
                                                                                     abs=1e-12), name


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="the JIT is off: nothing is compiled")
def test_a_process_loads_the_world_kernel_after_its_python_states(compiled, monkeypatch):
    """The one warm-up rule (sim.core.jit.Kernel.wanted) for the world: WARM_AFTER states in Python, then a thread
    loads the kernel (here from the disk cache the fixture filled) while the states go on in Python; the same
    numbers before, during and after."""
    fresh = jit.Kernel(wk.world_kernel.py_func).warms(wk.world_kernel.sample, wk.WARM_AFTER)
    fresh.python_steps = wk.WARM_AFTER - 2
    world = World(settings(pointing="sun"))
    want = [python_state(world, t, monkeypatch) for t in (0.0, 1.0, 2.0, 3.0)]
    monkeypatch.setattr(wk, "world_kernel", fresh)
    assert world.state(0.0) == want[0]
    assert not fresh.loading and not fresh.ready  # WARM_AFTER - 1 states in Python
    assert world.state(1.0) == want[1]  # the WARM_AFTER-th starts the load, in a thread
    assert fresh.loading or fresh.ready
    assert world.state(2.0) == want[2]  # in Python or compiled, whichever: the same bits
    jit.wait_all()
    assert fresh.ready
    assert world.state(3.0) == want[3]  # compiled


def test_the_same_source_runs_as_python_without_the_jit(compiled, monkeypatch):
    script = (
        "import sim.core.jit as j, sim.model.world as w, sim.model.world_kernel as wk\n"
        "from sim import api\n"
        "assert j.DISABLED\n"
        "s = api.load_scenario('sun_pointing').settings.replace(magnetic_field='dipole', drag=True)\n"
        "world = w.World(s)\n"
        "a = world.state(100.0)\n"
        "wk.world_kernel.wait()\n"
        "b = world.state(100.0)\n"
        "assert wk.world_kernel.ready and a == b, (a, b)\n"
        "print(repr(b.qc), repr(b.b_eci), repr(b.density))\n")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    s = api.load_scenario("sun_pointing").settings.replace(magnetic_field="dipole", drag=True)
    ws = World(s).state(100.0)
    assert out.stdout.split() == f"{ws.qc!r} {ws.b_eci!r} {ws.density!r}".split()
