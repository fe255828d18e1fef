"""The ensemble engine (sim/ensemble/): cost per body-step against one body, a C step and solve_ivp.

Budgets (issue #10, "Speed"):

* the half-quat ensemble step at N = 10,000 (beside one body's step, compiled since issue 42; at least
  25x cheaper than its pure-Python step was the budget before), and within 3x of a C
  version of the same step (compiled here with the system C compiler,
  ``cc -O2``, loaded with ctypes; the row says why when it cannot be);
* rk4 over N = 1,000 bodies at least 5x cheaper per body-sample than scipy's
  ``solve_ivp`` (DOP853) on each body at the same accuracy: the loosest
  DOP853 tolerance whose largest attitude error against a tight reference is
  no larger than rk4's.

Times are CPU time of this process (``time.process_time``), all rows alike.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np

from bench import step_cost
from sim.core.body import Body
from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.settings import Settings
from sim.model.simulation import Simulation

W0 = (1.0, 0.2, -0.5)
DT = 1e-3

#: CPU time of this process: on a shared machine wall time also counts the time the process
#: waits for a core, which would make every figure here depend on the other users' load.
_clock = time.process_time

#: The same step as Ensemble's half-quat path, torque-free, with Hoffmann's norm controller:
#: the same operations in the same order (sim/core/integrators.py half_quat, sim/core/norm.py hoffmann).
C_SOURCE = r"""
#include <math.h>
void half_quat_steps(long n, long steps, double dt, const double *jr, const double *jir,
                     double *q1, double *q2, double *q3, double *q4,
                     double *wx, double *wy, double *wz)
{
    double h = 0.5 * dt;
    for (long k = 0; k < steps; k++) {
        for (long i = 0; i < n; i++) {
            double x = wx[i], y = wy[i], z = wz[i];
            double lx = jr[0] * x + jr[1] * y + jr[2] * z;
            double ly = jr[3] * x + jr[4] * y + jr[5] * z;
            double lz = jr[6] * x + jr[7] * y + jr[8] * z;
            double rx = 0.0 - (y * lz - z * ly);
            double ry = 0.0 - (z * lx - x * lz);
            double rz = 0.0 - (x * ly - y * lx);
            double ax = jir[0] * rx + jir[1] * ry + jir[2] * rz;
            double ay = jir[3] * rx + jir[4] * ry + jir[5] * rz;
            double az = jir[6] * rx + jir[7] * ry + jir[8] * rz;
            x = x + dt * ax;
            y = y + dt * ay;
            z = z + dt * az;
            double a = q1[i], b = q2[i], c = q3[i], d = q4[i];
            double n1 = a + h * (-d * x - c * y + b * z);
            double n2 = b + h * (c * x - d * y - a * z);
            double n3 = c + h * (-b * x + a * y - d * z);
            double n4 = d + h * (a * x + b * y + c * z);
            double qn = 1.0 - sqrt(n1 * n1 + n2 * n2 + n3 * n3 + n4 * n4);
            q1[i] = n1 + n1 * qn; q2[i] = n2 + n2 * qn; q3[i] = n3 + n3 * qn; q4[i] = n4 + n4 * qn;
            wx[i] = x; wy[i] = y; wz[i] = z;
        }
    }
}
"""


def _spec(n: int) -> EnsembleSpec:
    return EnsembleSpec(bodies=n, seed=1, rate_spread=0.5)


def _ensemble_ns(settings: Settings, n: int, steps: int, repeats: int, track: bool,
                 fused: bool = True) -> tuple[float, Ensemble]:
    ens = Ensemble(settings, _spec(n), track=track, fused=fused, compiled=False)
    ens.step(5)
    times = []
    for _ in range(repeats):
        start = _clock()
        ens.step(steps)
        times.append((_clock() - start) / steps / n * 1e9)
    return statistics.median(times), ens


def _single_body_ns(steps: int, repeats: int) -> float:
    step_cost.warm(rates=W0, dt=DT)
    times = []
    for _ in range(repeats):
        sim = Simulation(rates=W0, dt=DT)
        start = _clock()
        sim.step(steps)
        times.append((_clock() - start) / steps * 1e9)
    return statistics.median(times)


def _compile_c(tmp: str):
    """The C step as a ctypes function, or a string saying why there is none."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return "no C compiler (cc, gcc) on PATH"
    src, lib = os.path.join(tmp, "step.c"), os.path.join(tmp, "step.so")
    with open(src, "w") as f:
        f.write(C_SOURCE)
    proc = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", lib, src, "-lm"], capture_output=True, text=True)
    if proc.returncode != 0:
        return f"{cc} -O2 failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else proc.returncode}"
    fn = ctypes.CDLL(lib).half_quat_steps
    fn.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_double] + [ctypes.c_void_p] * 9
    fn.restype = None
    return fn


def _c_ns(fn, n: int, steps: int, repeats: int):
    """ns per body-step of the C step from the ensemble's initial state, and the final (q, w) of one run."""
    ens = Ensemble(Settings(rates=W0, dt=DT), _spec(n), track=False, compiled=False)
    body = Body()
    jr, jir = np.array(body.j_rows), np.array(body.j_inv_rows)
    q, w = np.ascontiguousarray(ens.q), np.ascontiguousarray(ens.w)
    rows = [np.ascontiguousarray(r) for r in (*q, *w)]
    ptrs = [ctypes.c_void_p(a.ctypes.data) for a in (jr, jir, *rows)]
    fn(n, 5, DT, *ptrs)
    times = []
    for _ in range(repeats):
        start = _clock()
        fn(n, steps, DT, *ptrs)
        times.append((_clock() - start) / steps / n * 1e9)
    return statistics.median(times), 5 + repeats * steps, np.array(rows[:4]), np.array(rows[4:])


def _step_rows(quick: bool) -> list[dict]:
    n = 10_000
    steps = 100 if quick else 400
    repeats = 3 if quick else 7
    settings = Settings(rates=W0, dt=DT)
    ens_ns, _ = _ensemble_ns(settings, n, steps, repeats, track=False)
    single_ns = _single_body_ns(steps * 20, repeats)
    ratio = single_ns / ens_ns
    rows = [{"what": "ensemble half-quat step, N = 10,000, torque-free (per body-step)",
             "figure": f"{ens_ns:.1f} ns", "budget": "(comparison)", "ok": None,
             "note": f"one body's step, compiled (sim.core.advance.advance), costs {single_ns:.1f} ns ({ratio:.2f}x "
                     "the ensemble's body-step); the budget of 25x cheaper was against one body's pure-Python step "
                     "(1.74 us) before issue 42 compiled it: the ensemble is held to C's step now (next row)"}]
    with tempfile.TemporaryDirectory() as tmp:
        fn = _compile_c(tmp)
        if isinstance(fn, str):
            rows.append({"what": "C -O2 version of the same step (ctypes)", "figure": "skipped",
                         "budget": "ensemble within 3x", "ok": None, "note": fn})
        else:
            c_ns, c_steps, c_q, c_w = _c_ns(fn, n, steps, repeats)
            same = Ensemble(settings, _spec(n), track=False, compiled=False)
            same.step(c_steps)
            identical = np.array_equal(same.q, c_q) and np.array_equal(same.w, c_w)
            rows.append({"what": "C -O2 version of the same step, N = 10,000 (ctypes)", "figure": f"{c_ns:.1f} ns",
                         "budget": "ensemble within 3x", "ok": ens_ns <= 3.0 * c_ns,
                         "note": f"ensemble / C = {ens_ns / c_ns:.2f}; after {c_steps} steps the two states are "
                                 + ("bit-identical" if identical else "NOT bit-identical")})
    plain_ns, _ = _ensemble_ns(settings, n, steps, repeats, track=False, fused=False)
    rows.append({"what": "ensemble half-quat step, torque-free, single-source formulas (no fused kernel), "
                         "N = 10,000", "figure": f"{plain_ns:.1f} ns", "budget": "(comparison)", "ok": None,
                 "note": f"the fused half-quat kernel is {plain_ns / ens_ns:.1f}x faster, bit-identical"})
    tracked_ns, _ = _ensemble_ns(settings, n, steps, repeats, track=True)
    rows.append({"what": "ensemble half-quat step with per-step metrics, N = 10,000", "figure": f"{tracked_ns:.1f} ns",
                 "budget": "(comparison)", "ok": None, "note": "peak rate, path length, settling test"})
    ctrl = Settings(dt=DT, dampers_on=True, controller="quaternion", command_deg=(0.0, 0.0, 0.0), slerp_time=0.0)
    ctrl_ns, _ = _ensemble_ns(ctrl, n, steps, repeats, track=True)
    rows.append({"what": "ensemble half-quat + dampers + quaternion controller + metrics, N = 10,000",
                 "figure": f"{ctrl_ns:.1f} ns", "budget": "(comparison)", "ok": None,
                 "note": f"10,000 bodies x 60 s at dt 1 ms on one core: about {ctrl_ns * 6e8 / 1e9:.0f} s"})
    plain_ns, _ = _ensemble_ns(ctrl, n, steps, repeats, track=True, fused=False)
    rows.append({"what": "ensemble half-quat + dampers + quaternion controller + metrics, single-source formulas "
                         "(no fused kernel), N = 10,000", "figure": f"{plain_ns:.1f} ns", "budget": "(comparison)",
                 "ok": None, "note": f"the fused kernels are {plain_ns / ctrl_ns:.1f}x faster, bit-identical"})
    return rows


# ------------------------------------------------------------ rk4 vs DOP853
def _rhs(body: Body):
    J, J_inv = body.J, body.J_inv

    def rhs(t, y):
        w, q = y[:3], y[3:]
        q1, q2, q3, q4 = q
        x, yy, z = w
        qdot = 0.5 * np.array([-q4 * x - q3 * yy + q2 * z, q3 * x - q4 * yy - q1 * z,
                               -q2 * x + q1 * yy - q4 * z, q1 * x + q2 * yy + q3 * z])
        return np.concatenate([J_inv @ (-np.cross(w, J @ w)), qdot])

    return rhs


def _angle_deg(p, q):
    """Rotation angle between attitudes (columns), degrees: 2 atan2(|P^Q|, |P.Q|)."""
    dot = np.abs(np.sum(p * q, axis=0))
    cross = np.sqrt(np.maximum(np.sum(p * p, axis=0) * np.sum(q * q, axis=0) - dot * dot, 0.0))
    return np.degrees(2.0 * np.arctan2(cross, dot))


def _dop853(y0s, t_eval, rtol, body):
    from scipy.integrate import solve_ivp

    rhs = _rhs(body)
    out = []
    start = _clock()
    for y0 in y0s:
        sol = solve_ivp(rhs, (0.0, t_eval[-1]), y0, method="DOP853", rtol=rtol, atol=rtol * 1e-2, t_eval=t_eval)
        out.append(sol.y[3:])
    return _clock() - start, np.array(out)  # (bodies, 4, samples)


def _rk4_rows(quick: bool) -> list[dict]:
    n, dt, steps = 1000, 0.01, 1000           # 10 s of torque-free motion, a sample every step
    check_every = 100                          # attitude error checked every second
    subset = 8 if quick else 20                # bodies given to solve_ivp (it runs one at a time)
    settings = Settings(integrator="rk4", dt=dt, rates=W0)
    spec = EnsembleSpec(bodies=n, seed=1, rate_spread=0.5)
    ens = Ensemble(settings, spec, track=False, compiled=False)
    samples = [ens.q.copy()]
    start = _clock()
    for _ in range(steps // check_every):
        ens.step(check_every)
        samples.append(ens.q.copy())
    rk4_s = _clock() - start
    rk4_q = np.array(samples)[:, :, :subset]   # (checks, 4, subset)
    t_eval = np.arange(0, steps + 1, check_every) * dt
    y0s = [np.concatenate([ens.initial()["rates0"][:, j], ens.initial()["q0"][:, j]]) for j in range(subset)]
    body = Body()
    _, ref = _dop853(y0s, t_eval, 1e-13, body)
    ref = ref.transpose(2, 1, 0)               # (checks, 4, subset)
    rk4_err = max(_angle_deg(rk4_q[k], ref[k]).max() for k in range(len(t_eval)))
    chosen = None
    for exponent in range(3, 14):
        rtol = 10.0 ** -exponent
        secs, q = _dop853(y0s, t_eval, rtol, body)
        q = q.transpose(2, 1, 0)
        err = max(_angle_deg(q[k], ref[k]).max() for k in range(len(t_eval)))
        if err <= rk4_err:
            chosen = (rtol, err, secs)
            break
    rk4_ns = rk4_s / (n * steps) * 1e9
    if chosen is None:
        return [{"what": "rk4 ensemble N = 1,000 vs solve_ivp DOP853, same accuracy", "figure": f"{rk4_ns:.0f} ns",
                 "budget": ">= 5x cheaper", "ok": False, "note": "no DOP853 tolerance down to 1e-13 matched rk4"}]
    rtol, err, secs = chosen
    # Per body-sample: both produce every sample of every body (DOP853 at its dense output).
    t_fine = np.arange(steps + 1) * dt
    secs_fine, _ = _dop853(y0s, t_fine, rtol, body)
    ivp_ns = secs_fine / (subset * steps) * 1e9
    ratio = ivp_ns / rk4_ns
    return [{"what": "rk4 ensemble N = 1,000, dt 10 ms, 10 s torque-free (per body-sample)",
             "figure": f"{rk4_ns:.0f} ns", "budget": ">= 5x cheaper than solve_ivp DOP853", "ok": ratio >= 5.0,
             "note": f"largest attitude error {rk4_err:.1e} deg"},
            {"what": f"solve_ivp DOP853 rtol {rtol:.0e} on each body, same samples (per body-sample)",
             "figure": f"{ivp_ns:.0f} ns", "budget": "(the reference)", "ok": None,
             "note": f"largest attitude error {err:.1e} deg; rk4 ensemble {ratio:.0f}x cheaper; {subset} bodies"}]


def _wheel_rows(quick: bool) -> list[dict]:
    """The ensemble step with four pyramid reaction wheels beside the same step without (issue 21: <= 3x).

    Measured in turns on two ensembles of N = 10,000, so that a busy machine
    weighs on both alike; the ratio is the median of the per-round ratios.
    """
    n = 10_000
    steps = 50 if quick else 200
    repeats = 3 if quick else 7
    rows = []
    ctrl = Settings(dt=DT, dampers_on=True, controller="quaternion", command_deg=(0.0, 0.0, 0.0), slerp_time=0.0)
    for label, plain, track in (("torque-free", Settings(rates=W0, dt=DT), False),
                                ("dampers + quaternion controller + metrics", ctrl, True)):
        pair = [Ensemble(s, _spec(n), track=track, compiled=False) for s in (plain, plain.replace(wheels="pyramid"))]
        times = ([], [])
        for ens in pair:
            ens.step(5)
        for _ in range(repeats):
            for ens, out in zip(pair, times):
                start = _clock()
                ens.step(steps)
                out.append((_clock() - start) / steps / n * 1e9)
        base, wheels = (statistics.median(t) for t in times)
        ratio = statistics.median(b / a for a, b in zip(*times))
        rows.append({"what": f"ensemble half-quat with four pyramid reaction wheels, {label}, N = 10,000",
                     "figure": f"{wheels:.1f} ns", "budget": "<= 3x the plain ensemble step", "ok": ratio <= 3.0,
                     "note": f"{ratio:.2f}x the same ensemble without wheels ({base:.1f} ns, "
                             f"{'the fused kernel' if not track else 'fused kernels'}); single-source formulas"})
    return rows


def _formulation_rows(quick: bool) -> list[dict]:
    """Issue 22's integrators and norm mode on the ensemble's columns (the single source: no fused kernel)."""
    n = 10_000
    steps = 20 if quick else 100
    repeats = 3 if quick else 5
    rows = []
    for name, changes in (("rk4", {"integrator": "rk4"}), ("rkmk4", {"integrator": "rkmk4", "norm": "none"}),
                          ("splitting", {"integrator": "splitting", "norm": "none"}),
                          ("full-quat kane", {"integrator": "full-quat", "full_quat_form": "kane"}),
                          ("half-quat elimination", {"integrator": "half-quat", "norm": "elimination"})):
        ns, _ = _ensemble_ns(Settings(rates=W0, dt=DT, **changes), n, steps, repeats, track=False)
        rows.append({"what": f"ensemble {name} step, N = 10,000, torque-free (per body-step)", "figure": f"{ns:.0f} ns",
                     "budget": "(comparison)", "ok": None, "note": "single-source formulas on columns"})
    return rows


def _orbit_rows(quick: bool) -> list[dict]:
    """The ensemble step on an orbit with Sun pointing and the gravity gradient (issue 31), beside the same step
    without the orbit: one world shared by every body (floats, once a step) and one world per body (columns,
    ``orbit_spread`` and ``epoch_spread``).  Half-quat at dt 0.1 s, the satellite with dampers and the quaternion
    controller, metrics on; measured in turns, as the wheel rows."""
    steps = 10 if quick else 40
    repeats = 3 if quick else 5
    plain = Settings(body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), dt=0.1, dampers_on=True,
                     dampers=(14.0, 17.0, 7.0), controller="quaternion", gains=(1.0, 1.2, 0.5),
                     command_deg=(0.0, 0.0, 0.0), slerp_time=0.0)
    orbit = plain.replace(command_deg=None, orbit=(500.0, 0.01, 97.4, 0.0, 20.0, 0.0), epoch="2024-03-20T03:06:00Z",
                          pointing="sun", gravity_gradient=True)
    spread = dict(orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0), epoch_spread=86400.0)
    rows = []
    for n in (1_000, 10_000):
        cases = [Ensemble(plain, _spec(n), compiled=False), Ensemble(orbit, _spec(n), compiled=False),
                 Ensemble(orbit, EnsembleSpec(bodies=n, seed=1, rate_spread=0.5, **spread), compiled=False)]
        times = tuple([] for _ in cases)
        for ens in cases:
            ens.step(2)
        for _ in range(repeats):
            for ens, out in zip(cases, times):
                start = _clock()
                ens.step(steps)
                out.append((_clock() - start) / steps / n * 1e9)
        base, shared, own = (statistics.median(t) for t in times)
        for label, ns, k in (("one orbit shared", shared, 1), ("one orbit per body", own, 2)):
            ratio = statistics.median(b / a for a, b in zip(times[0], times[k]))
            rows.append({"what": f"ensemble on an orbit, Sun pointing + gravity gradient, {label}, N = {n:,} "
                                 "(per body-step)", "figure": f"{ns:.0f} ns", "budget": "(comparison)", "ok": None,
                         "note": f"{ratio:.1f}x the same ensemble without an orbit ({base:.0f} ns: half-quat, "
                                 "dampers + quaternion controller + metrics, the fused kernels)"})
    return rows


def _in_turns(trio, two: int, warm: int, steps: int, repeats: int, n: int) -> tuple:
    """Numpy, compiled on one thread and compiled on ``two`` (the ensembles ``trio``) stepped in turns, ``warm``
    steps first: ``(numpy ns, one thread ns, two threads ns (wall), one / numpy gain, two / one scale in wall
    time, two threads' CPU / one's)`` a body-step; medians of the ``repeats`` rounds, ratios the medians of the
    per-round ratios (the other users' load falls on all three alike)."""
    import numba

    times = ([], [], [])
    for ens, count in zip(trio, (1, 1, two)):
        numba.set_num_threads(count)
        ens.step(warm)
    for _ in range(repeats):
        for ens, out, count in zip(trio, times, (1, 1, two)):
            numba.set_num_threads(count)
            start, cpu = time.perf_counter(), _clock()
            ens.step(steps)
            out.append(((time.perf_counter() - start) / steps / n * 1e9, (_clock() - cpu) / steps / n * 1e9))
    old, one = (statistics.median(c for _, c in t) for t in times[:2])
    both = statistics.median(w for w, _ in times[2])
    gain = statistics.median(a[1] / b[1] for a, b in zip(times[0], times[1]))
    scale = statistics.median(a[0] / b[0] for a, b in zip(times[1], times[2]))
    work = statistics.median(b[1] / a[1] for a, b in zip(times[1], times[2]))
    return old, one, both, gain, scale, work


def _compiled_rows(quick: bool) -> list[dict]:
    """The compiled body loop (sim/ensemble/compiled.py, issue 42) beside the numpy kernels, one core and two.

    One core against numpy: CPU time, as the other rows.  Two cores against one: wall time
    (``time.perf_counter``), since the CPU time of a parallel loop is the sum over its threads.  The three (numpy, compiled on one thread,
    compiled on two) are measured in turns on ensembles of N = 10,000, so the load of the other users
    of the machine weighs on all alike; each figure is the median of the rounds, each ratio the median
    of the per-round ratios.  Every case is checked bit for bit between the three after the run.  The CPU time
    of two threads against one's is given beside (1.00: the second thread adds no work, no contention): a
    figure the other users' load does not make, as it makes the wall time's.
    """
    import numba

    from sim.ensemble import compiled

    compiled.advance_bodies.wait()
    n = 10_000
    steps = 100 if quick else 400
    repeats = 3 if quick else 7
    ctrl = Settings(dt=DT, dampers_on=True, controller="quaternion", command_deg=(0.0, 0.0, 0.0), slerp_time=0.0)
    cases = (("half-quat, torque-free", Settings(rates=W0, dt=DT), False),
             ("half-quat + dampers + quaternion controller + metrics", ctrl, True),
             ("rk4, torque-free", Settings(rates=W0, dt=DT, integrator="rk4"), False),
             ("rk4 + dampers + quaternion controller + metrics", ctrl.replace(integrator="rk4"), True))
    threads = numba.get_num_threads()
    two = min(2, numba.config.NUMBA_NUM_THREADS)
    rows = []
    try:
        for label, settings, track in cases:
            trio = [Ensemble(settings, _spec(n), track=track, compiled=c) for c in (False, True, True)]
            old, one, both, gain, scale, work = _in_turns(trio, two, 5, steps, repeats, n)
            same = all(np.array_equal(trio[0]._x, e._x) for e in trio[1:]) and all(
                np.array_equal(trio[0].metrics()[k], e.metrics()[k], equal_nan=True)
                for e in trio[1:] for k in trio[0].metrics())
            bits = "bit-identical states and metrics" if same else "NOT bit-identical"
            rows.append({"what": f"ensemble compiled, {label}, N = 10,000, one core (per body-step)",
                         "figure": f"{one:.1f} ns", "budget": "(beats the numpy kernels)", "ok": gain > 1.0,
                         "note": f"{gain:.2f}x the numpy kernels ({old:.1f} ns, same rounds); {bits}"})
            rows.append({"what": f"ensemble compiled, {label}, N = 10,000, {two} cores (per body-step, wall time)",
                         "figure": f"{both:.1f} ns", "budget": ">= 1.8x one core", "ok": scale >= 1.8,
                         "note": f"{scale:.2f}x one core in wall time; CPU time of two threads {work:.2f}x one's; "
                                 f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (other users)"})
    finally:
        numba.set_num_threads(threads)
    return rows


def _satellite_on_orbit(pointing: str) -> Settings:
    """:func:`_orbit_rows`'s satellite on its orbit: half-quat at dt 0.1 s, dampers, the quaternion controller, the
    gravity gradient; Sun pointing, or inertial pointing holding a fixed command."""
    s = Settings(body="satellite", inertia=(100.0, 120.0, 50.0, 0.0, 0.0, 0.0), dt=0.1, dampers_on=True,
                 dampers=(14.0, 17.0, 7.0), controller="quaternion", gains=(1.0, 1.2, 0.5),
                 orbit=(500.0, 0.01, 97.4, 0.0, 20.0, 0.0), epoch="2024-03-20T03:06:00Z", gravity_gradient=True)
    if pointing == "sun":
        return s.replace(pointing="sun")
    return s.replace(command_deg=(0.0, 0.0, 0.0), slerp_time=0.0)


def orbit_compiled_rows(quick: bool) -> list[dict]:
    """The ensemble on an orbit through its compiled loop (sim/ensemble/orbit_loop.py, issue 42) beside the numpy
    columns (``compiled=False``: the path of every orbit ensemble before, 06c9771's code), one core and two.

    N = 10,000 with one orbit per body (``orbit_spread``, ``epoch_spread``: issue 42's "one orbit each") and with
    one orbit shared, the metrics on.  As :func:`_compiled_rows`: numpy, compiled on one thread and on two in
    turns; one core against numpy in CPU time, two against one in wall time; medians of the rounds, ratios the
    medians of the per-round ratios.  After the rounds the one-thread and two-thread states are compared bit for
    bit, and the largest difference from the numpy path is given (0 for a shared orbit; about 1e-16 with one
    orbit each, where numpy's per-body worlds round an ulp off now and then).
    """
    import numba

    from sim.ensemble import orbit_loop

    orbit_loop.advance_orbit_bodies.wait()
    n = 10_000
    steps = 10 if quick else 40
    repeats = 3 if quick else 5
    spread = dict(orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0), epoch_spread=86400.0)
    cases = (("Sun pointing + gravity gradient, one orbit per body", "sun", spread),
             ("inertial pointing + gravity gradient, one orbit per body", "inertial", spread),
             ("Sun pointing + gravity gradient, one orbit shared", "sun", {}),
             ("inertial pointing + gravity gradient, one orbit shared", "inertial", {}))
    threads = numba.get_num_threads()
    two = min(2, numba.config.NUMBA_NUM_THREADS)
    rows = []
    try:
        for label, pointing, orbits in cases:
            spec = EnsembleSpec(bodies=n, seed=1, rate_spread=0.5, **orbits)
            settings = _satellite_on_orbit(pointing)
            trio = [Ensemble(settings, spec, compiled=c) for c in (False, True, True)]
            old, one, both, gain, scale, work = _in_turns(trio, two, 2, steps, repeats, n)
            same = np.array_equal(trio[1]._x, trio[2]._x)
            apart = float(np.abs(trio[0]._x - trio[1]._x).max())
            load = (f"CPU time of two threads {work:.2f}x one's; load average {os.getloadavg()[0]:.1f} on "
                    f"{os.cpu_count()} cores (other users)")
            rows.append({"what": f"ensemble on an orbit compiled, {label}, N = 10,000, one core (per body-step)",
                         "figure": f"{one:.0f} ns", "budget": "<= 100 ns", "ok": one <= 100.0,
                         "note": f"{gain:.2f}x the numpy columns ({old:.0f} ns, same rounds); one and two threads "
                                 + ("bit-identical" if same else "NOT bit-identical")
                                 + f"; numpy path {apart:.1e} apart; {load}"})
            rows.append({"what": f"ensemble on an orbit compiled, {label}, N = 10,000, {two} cores (per body-step, "
                                 "wall time)", "figure": f"{both:.0f} ns", "budget": ">= 1.8x one core",
                         "ok": scale >= 1.8, "note": f"{scale:.2f}x one core in wall time; {load}"})
    finally:
        numba.set_num_threads(threads)
    return rows


def run(quick: bool = False) -> list[dict]:
    return (_step_rows(quick) + _compiled_rows(quick) + _wheel_rows(quick) + _formulation_rows(quick)
            + _orbit_rows(quick) + orbit_compiled_rows(quick) + _rk4_rows(quick))
