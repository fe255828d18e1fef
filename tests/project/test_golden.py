"""Every built-in scenario against its golden output, recorded from the code before the compiled kernels (issue 42).

tests/golden/<name>.npz was written by ``python -m tools.record_golden`` on the unchanged code (commit
message of the golden files): the columns of :func:`sim.api.run`, the first 1,000 steps (every 10th
row) and, where the run is short enough, the whole run (about 100 rows) with the spread that a one-ulp
change of the initial state gives (:func:`tools.record_golden.one_ulp`).

* the first 1,000 steps agree within 1e-10 of each column's scale (its largest magnitude in the golden
  rows; a column that is zero throughout must stay exactly zero);
* the whole run agrees within 1e-10 of the scale, or within the one-ulp spread where that is larger:
  the scenarios whose dynamics amplify rounding (:data:`AMPLIFIERS` names them and which columns move;
  a test checks that list against the files, so it stays true).  Every scenario has its whole run
  recorded (a missing one fails, it is never skipped); where the whole run is too slow for the suite
  (:data:`PREFIX_STEPS`), a fixed prefix of it is checked against the same rows, within the spread of
  that prefix (``spread_rows``), not of the whole run.

The scenarios with an orbit (:data:`ORBITING`, checked against their settings) are where the stage-time
orbit of issue 42 could change the numbers; it does in those whose load reads the orbit inside a step
(:data:`STAGE_TIME`: the gravity gradient, the drag's air velocity), the one intended change of outputs.
Before it, a stage at ``t + tau`` read the straight line ``r + v tau`` with ``v`` held: the position was
second order in ``n tau`` (``n`` the mean motion) but the velocity's direction, which the drag reads, was
first order, off by ``n tau`` radians.  So their columns are checked within ``n dt`` of the scale of the
vector they belong to (``hx, hy, hz`` together, the wheels together): the old code's own error bound,
about 6e-4 at dt 0.5 s on a low orbit; measured, at most 2.4e-4.  The new orbit is checked against
DOP853 at rtol 1e-12 by tests/sim/model/test_stage_time_orbit.py, which is where its accuracy is judged.  Their
whole runs are not compared with the old ones: over thousands of steps the closed loops carry the old
error along (disturbances' small body rates, 2e-7 rad/s, move by 1.8e-10 after 25 rows), and no bound
of the old code's error there is simpler than the new orbit's own check against DOP853.

In every scenario with an orbit the orbit's state is made from the eccentric anomaly directly (issue 42, stop 54:
no true anomaly; Newton's passes stopped on their a priori bound), which moves ``r`` and ``v`` by an ulp or two and
with them the attitude's last bits (every column within 1e-15 of its scale, measured).  Two kinds of column are
rounding itself there, and 1e-10 of their own scale would check them bit for bit: ``norm`` (``|Q| - 1``), checked
within 4 eps of ``|Q| = 1`` as for :data:`STAGE_TIME`; and, with wheels, the inertial momentum ``hx, hy, hz``,
the sum of the body's and the wheels' momenta, near zero where they cancel (target_tracking's 1e-14 N m s is the
rounding of about 6 N m s), checked within 1e-10 of the wheels' largest momentum ``I_w |W|``.
"""

import math
import os

import numpy as np
import pytest

from sim import api
from sim.run.scenario import builtin_names, load

HERE = os.path.join(os.path.dirname(__file__), "..", "golden")
RTOL = 1e-10
#: The scenarios whose whole run moves by more than 1e-10 of a column's scale when the initial state moves
#: by one ulp (found by tools/record_golden.py; checked by test_amplifiers_named).
AMPLIFIERS = frozenset({
    # at rest at zero angles: the one-ulp change of psi itself shows in q3, qc3 and psi_deg (zero otherwise):
    "default",
    # the one-ulp change shows in the command quaternion's qc3 (zero throughout the run), and detumble_sweep's norm:
    "detumble_sweep", "disturbances", "thruster_unloading",
    # only |Q| - 1 (the rounding-level "norm" column, of some body of the scenario) moves:
    "detumble", "ensemble_controller", "ensemble_long_way", "fly_on_estimate", "geometric", "hoffmann",
    "integrators", "mekf", "mekf_monte_carlo", "momentum_exchange", "nadir_pointing", "shortest_path",
    "sun_mag_triad", "sun_pointing", "pwpf_slew",
    # only the gravity gradient's z torque, 1.6e-13 N m at most (J diagonal, +z at nadir: rounding level), by 1.7e-20:
    "momentum_dumping",
    # the norm and the inertial momentum hx, hy, hz near zero (a body holding its momentum on wheels):
    "reaction_wheels", "target_tracking",
    # the dynamics themselves: phi at gimbal lock (theta = 90 deg), the tumble near the separatrix of the
    # intermediate axis (wy), the tennis racket's flips (the whole state):
    "gimbal_lock", "intermediate_axis", "tennis_racket",
    # issue 45: the Moore-Penrose ghost pinned at its rate limit near the singular set (its whole state, 1e-8 of
    # q1 by the end); elsewhere the rounding-level columns of an exactly planar slew (x, y, roll near zero) and
    # the momentum hx, hy, hz near zero:
    "cmg_singularity", "cmg_fast_slew",
})
#: Whole runs longer than this many steps are checked under the ``slow`` marker only.
QUICK_STEPS = 20_000
#: Scenarios whose whole run is too slow for the suite (over ~10 s here, idle) and the fixed prefix checked
#: instead, in steps: it must end on a recorded row.  momentum_dumping (33,600 steps at dt 0.5 s, about
#: 340 us a step in Python: 11-16 s): its first 16,800 steps (8,400 s, 1.5 orbits of 5,614 s), row 50 of
#: 100, about 6 s; a whole orbit (every phase of the field, the Sun and the flow) beside the controller's
#: turn from its initial state and the dumping loop's time constant (1/k = 500 s) many times over.
PREFIX_STEPS = {"momentum_dumping": 16_800}
#: Scenarios whose whole run is never recorded nor run in a test, only their first 1,000 steps: a year at dt
#: 0.1 s (3.2e8 steps, about 15 h of a core here; issue 42's bench projects it instead, bench/world_steps.py).
FIRST_ONLY = frozenset({"cubesat_year"})
#: The scenarios with an orbit (checked by test_orbiting_named): those that issue 42's stage-time orbit changes.
ORBITING = frozenset({
    "cubesat_year", "detumble", "detumble_sweep", "disturbances", "fly_on_estimate", "j2_precession",
    "momentum_dumping", "nadir_pointing", "sun_mag_triad", "sun_pointing", "target_tracking",
})

#: The scenarios whose load reads the orbit inside a step (checked by test_stage_time_named): the stage-time
#: orbit changes them by up to the old straight line's error (see the module's docstring).
STAGE_TIME = frozenset({"cubesat_year", "disturbances", "fly_on_estimate", "j2_precession", "momentum_dumping",
                        "nadir_pointing"})


@pytest.fixture(autouse=True, scope="module")
def _compiled_now():
    """The compiled advance, the spacecraft's step and the world from the first step (a process loads them
    only after WARM_AFTER Python steps or world states)."""
    from sim.core import advance
    from sim.model import advance_craft, world_kernel
    for kernel in (advance.advance, advance_craft.advance_craft, world_kernel.world_kernel):
        kernel.wait()


def _golden(name):
    path = os.path.join(HERE, f"{name}.npz")
    return np.load(path)


def _matrix(result, columns):
    assert tuple(result) == tuple(str(c) for c in columns)
    return np.column_stack([np.asarray(result[c], dtype=float) for c in result])


def _tolerance(gold, spread=None, name=None, columns=None):
    scale = np.abs(gold).max(axis=0)
    tol = RTOL * scale
    if name in STAGE_TIME:  # the old straight-line orbit's error, n dt of the vector's scale (module docstring)
        sc = load(name).settings
        a = 6378137.0 + 1e3 * sc.orbit[0]
        n_dt = math.sqrt(3.986004418e14 / a**3) * sc.dt
        group = [str(c).rstrip("xyz0123456789") for c in columns]
        vector = np.array([max(scale[k] for k in range(len(group)) if group[k] == g) for g in group])
        tol = np.maximum(tol, n_dt * vector)
        # |Q| - 1, at rounding level: from an attitude that moved, it rounds anew (a few ulp of |Q| = 1)
        tol[[str(c) for c in columns].index("norm")] = max(tol[[str(c) for c in columns].index("norm")],
                                                            4 * np.finfo(float).eps)
    if name in ORBITING:  # the rounding-level columns of the orbit's state made anew (module docstring, stop 54)
        names = [str(c) for c in columns]
        k = names.index("norm")
        tol[k] = max(tol[k], 4 * np.finfo(float).eps)
        wheels = [j for j, c in enumerate(names) if c.startswith("wheel")]
        if wheels:  # hx, hy, hz within 1e-10 of the wheels' largest momentum, of which they are the rounding
            h = RTOL * max(load(name).settings.wheel_set.inertia) * scale[wheels].max()
            for c in ("hx", "hy", "hz"):
                tol[names.index(c)] = max(tol[names.index(c)], h)
    return tol if spread is None else np.maximum(tol, spread)


def _compare(now, gold, tol, what):
    assert now.shape == gold.shape, (what, now.shape, gold.shape)
    diff = np.abs(now - gold)
    bad = ~(diff <= tol) & ~(np.isnan(now) & np.isnan(gold))
    if bad.any():
        rows, cols = np.nonzero(bad)
        raise AssertionError(f"{what}: {bad.sum()} values off, first at row {rows[0]} column {cols[0]}: "
                             f"{now[rows[0], cols[0]]!r} against {gold[rows[0], cols[0]]!r}")


def test_every_builtin_scenario_has_a_golden_file():
    assert sorted(builtin_names()) == sorted(f[:-4] for f in os.listdir(HERE) if f.endswith(".npz"))


@pytest.mark.parametrize("name", builtin_names())
def test_first_thousand_steps(name):
    g = _golden(name)
    dt = load(name).settings.dt
    now = _matrix(api.run(name, duration=1000 * dt, every=10, force=True), g["columns"])
    _compare(now, g["first"], _tolerance(g["first"], None, name, g["columns"]), f"{name}, first 1,000 steps")


def _whole_names(quick):
    out = []
    for name in builtin_names():
        sc = load(name)
        steps = round(sc.duration / sc.settings.dt)
        if (steps <= QUICK_STEPS) == quick and name not in STAGE_TIME and name not in FIRST_ONLY:
            out.append(name)
    return out


def _whole(name):
    g = _golden(name)
    assert "whole" in g, f"{name}: no whole run recorded (python -m tools.record_golden on the code before the change)"
    sc = load(name)
    dt = sc.settings.dt
    steps = round(sc.duration / dt)
    every = max(1, -(-steps // 100))
    if name in PREFIX_STEPS:
        prefix = PREFIX_STEPS[name]
        assert prefix % every == 0 and prefix < steps, (name, prefix, every)
        rows = prefix // every + 1
        gold, spread = g["whole"][:rows], g["spread_rows"][:rows].max(axis=0)
        now = _matrix(api.run(name, duration=prefix * dt, every=every, force=True), g["columns"])
        what = f"{name}, first {prefix} steps of the whole run"
    else:
        gold, spread = g["whole"], g["spread"]
        now = _matrix(api.run(name, every=every, force=True), g["columns"])
        what = f"{name}, whole run"
    _compare(now, gold, _tolerance(gold, spread, name, g["columns"]), what)


@pytest.mark.parametrize("name", _whole_names(quick=True))
def test_whole_run(name):
    _whole(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", _whole_names(quick=False))
def test_whole_run_long(name):
    _whole(name)


def test_amplifiers_named():
    """:data:`AMPLIFIERS` is exactly the set of scenarios whose one-ulp spread exceeds the tolerance somewhere."""
    found = set()
    for name in builtin_names():
        g = _golden(name)
        if "whole" in g and (g["spread"] > RTOL * np.abs(g["whole"]).max(axis=0)).any():
            found.add(name)
    assert found == AMPLIFIERS


def test_every_whole_run_recorded():
    """No whole run is left out: each golden file holds one, with its one-ulp spread row by row where a prefix is checked."""
    for name in builtin_names():
        g = _golden(name)
        if name in FIRST_ONLY:
            sc = load(name)
            assert "whole" not in g and round(sc.duration / sc.settings.dt) > 10**8, name
            continue
        assert "whole" in g and "spread" in g, name
        if name in PREFIX_STEPS:
            assert "spread_rows" in g, name


def test_orbiting_named():
    """:data:`ORBITING` is exactly the set of built-in scenarios with an orbit."""
    assert ORBITING == {name for name in builtin_names() if load(name).settings.has_orbit}


def test_stage_time_named():
    """:data:`STAGE_TIME` is exactly the set of built-in scenarios whose load reads the orbit inside a step."""
    def reads_orbit(s):
        return s.has_orbit and (s.gravity_gradient or getattr(s, "drag", False))
    assert STAGE_TIME == {name for name in builtin_names() if reads_orbit(load(name).settings)}
