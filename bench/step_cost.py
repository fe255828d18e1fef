"""Step cost per integrator, and the same samples from scipy's solve_ivp and a numpy step.

Budget (issue "Performance", row 1): half-quat <= 10 us/step, full-quat <= 25,
rk4 <= 40; half-quat at least 3x faster than solve_ivp (RK45, rtol 1e-6)
producing the same 1 ms samples of the same torque-free motion.  The
formulations of issue 22 beside them (rkmk4, splitting, full-quat kane, the
norm mode elimination; the fourth-order ones held to rk4's budget), and
rkmk4 against rk4 + renormalize at equal accuracy.

Times are CPU time of this process (``time.process_time``), all rows alike.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from sim.core.body import Body
from sim.model.simulation import Simulation

W0 = (1.0, 0.2, -0.5)
DT = 1e-3

#: CPU time of this process, as bench/ensemble.py: on a shared machine wall time also counts the
#: time the process waits for a core (measured under a load of 3-4 on the 2 cores: three runs of
#: the same step 12-96 % apart in wall time, 0-16 % in CPU time).
_clock = time.process_time


def warm(steps: int = 500, **settings) -> None:
    """Every kernel a run of ``settings`` calls loaded before it is timed: a run loads a kernel in a thread of its
    own after its warm-up (``sim.core.jit.WARM_SECONDS``) and steps as Python meanwhile, so a timed run would
    otherwise measure some of its steps in Python (issue 42)."""
    from sim.core import jit
    jit.WARM_SECONDS = 0.0  # every kernel the warm-up run calls starts loading at its first call
    jit.load_all(stream=False)
    Simulation(**settings).step(steps)
    jit.wait_all()


def _median_us_per_step(integrator: str, steps: int, repeats: int, **extra) -> float:
    warm(integrator=integrator, rates=W0, dt=DT, **extra)
    times = []
    for _ in range(repeats):
        sim = Simulation(integrator=integrator, rates=W0, dt=DT, **extra)
        start = _clock()
        sim.step(steps)
        times.append((_clock() - start) / steps * 1e6)
    return statistics.median(times)


def _solve_ivp_us_per_sample(samples: int, repeats: int) -> float:
    from scipy.integrate import solve_ivp

    body = Body()
    J, J_inv = body.J, body.J_inv

    def rhs(t, y):
        w, q = y[:3], y[3:]
        q1, q2, q3, q4 = q
        x, yy, z = w
        qdot = 0.5 * np.array([-q4 * x - q3 * yy + q2 * z, q3 * x - q4 * yy - q1 * z,
                               -q2 * x + q1 * yy - q4 * z, q1 * x + q2 * yy + q3 * z])
        return np.concatenate([J_inv @ (-np.cross(w, J @ w)), qdot])

    y0 = np.array([*W0, 0.0, 0.0, 0.0, 1.0])
    t_eval = np.arange(samples + 1) * DT
    times = []
    for _ in range(repeats):
        start = _clock()
        solve_ivp(rhs, (0.0, t_eval[-1]), y0, method="RK45", rtol=1e-6, t_eval=t_eval)
        times.append((_clock() - start) / samples * 1e6)
    return statistics.median(times)


def _numpy_half_quat_us_per_step(steps: int, repeats: int) -> float:
    """A straightforward numpy implementation of the same Half-Quat step."""
    body = Body()
    J, J_inv = body.J, body.J_inv
    times = []
    for _ in range(repeats):
        w = np.array(W0)
        q = np.array([0.0, 0.0, 0.0, 1.0])
        torque = np.zeros(3)
        start = _clock()
        for _ in range(steps):
            w = w + DT * (J_inv @ (torque - np.cross(w, J @ w)))
            q1, q2, q3, q4 = q
            vt = np.array([[-q4, -q3, q2], [q3, -q4, -q1], [-q2, q1, -q4], [q1, q2, q3]])
            q = q + 0.5 * DT * (vt @ w)
            q = q + q * (1.0 - np.linalg.norm(q))
        times.append((_clock() - start) / steps * 1e6)
    return statistics.median(times)


def _runner_us_per_step(steps: int, repeats: int) -> float:
    """What the window's simulation thread pays per step: the step and its history row."""
    from sim.run.runner import Runner
    from sim.run.scenario import load

    times = []
    for _ in range(repeats):
        runner = Runner(load("default"))
        runner.submit("torque", (2.0, 0.0, 0.0))
        start = _clock()
        for _ in range(steps // 80):
            runner.advance(80)  # the worker's chunk at 10x speed
        times.append((_clock() - start) / (steps // 80 * 80) * 1e6)
    return statistics.median(times)


def _paired_us_per_step(plain: dict, more: dict, steps: int, repeats: int) -> tuple[float, float, float]:
    """Medians of the step cost of ``plain`` settings and of ``plain`` plus ``more``, measured in turns.

    Interleaved, one of each in every round, so that a busy machine weighs on
    both alike; returns ``(plain us, more us, median of the per-round ratios)``.
    """
    a, b = [], []
    for changes in (plain, {**plain, **more}):
        warm(rates=W0, dt=DT, **changes)
    for _ in range(repeats):
        for changes, out in ((plain, a), ({**plain, **more}, b)):
            sim = Simulation(rates=W0, dt=DT, **changes)
            start = _clock()
            sim.step(steps)
            out.append((_clock() - start) / steps * 1e6)
    return statistics.median(a), statistics.median(b), statistics.median(y / x for x, y in zip(a, b))


def _wheel_rows(steps: int, repeats: int) -> list[dict]:
    """The single-body step with four pyramid reaction wheels beside the same step without (issue 21: <= 2x)."""
    rows = []
    controller = {"controller": "quaternion", "dampers_on": True, "command_deg": (30.0, 20.0, 10.0)}
    for label, plain in (("torque-free", {}), ("quaternion controller + dampers", controller)):
        base, wheels, ratio = _paired_us_per_step(plain, {"wheels": "pyramid"}, steps, repeats)
        rows.append({"what": f"step cost half-quat with four pyramid reaction wheels, {label}",
                     "figure": f"{wheels:.2f} us/step", "budget": "<= 2x the plain step", "ok": ratio <= 2.0,
                     "note": f"{ratio:.2f}x the same step without wheels ({base:.2f} us), measured in turns"})
    base, wheels, ratio = _paired_us_per_step({"integrator": "rk4"}, {"wheels": "pyramid"}, steps // 4, repeats)
    rows.append({"what": "step cost rk4 with four pyramid reaction wheels, torque-free",
                 "figure": f"{wheels:.2f} us/step", "budget": "(comparison)", "ok": None,
                 "note": f"{ratio:.2f}x rk4 without wheels ({base:.2f} us)"})
    base, gg, ratio = _paired_us_per_step({"integrator": "rk4"}, {"gravity_gradient": True}, steps // 4, repeats)
    rows.append({"what": "step cost rk4 with the gravity gradient",
                 "figure": f"{gg:.2f} us/step", "budget": "(comparison)", "ok": None,
                 "note": f"{ratio:.2f}x rk4 without ({base:.2f} us): 3 n^2 c x Jc at every stage"})
    return rows


#: The accuracy both fourth-order integrators are held to: the attitude error after 10 s of the lab's tumble.
EQUAL_ACCURACY_RAD = 1e-8


def _error_and_cost(integrator: str, norm: str, steps: int, repeats: int) -> tuple[float, float]:
    """Attitude error (rad, against the closed form) after 10 s in ``steps`` steps, and the median CPU time (s)."""
    from sim import lab
    from sim.core.norm import unit
    from sim.core.quaternion import cayley
    from sim.core.tumble import FreeTumble, attitude_error

    c_ref = FreeTumble(Body(lab.INERTIA).J, lab.RATES).cayley(10.0)
    times, error = [], None
    for _ in range(repeats):
        sim = Simulation(inertia=lab.INERTIA, rates=lab.RATES, dt=10.0 / steps, integrator=integrator, norm=norm,
                         dampers_on=False)
        start = _clock()
        sim.step(steps)
        times.append(_clock() - start)
        error = attitude_error(cayley(unit(sim.q)), c_ref)
    return error, statistics.median(times)


def _fewest_steps(integrator: str, norm: str) -> int:
    """The fewest steps over 10 s whose attitude error is at most :data:`EQUAL_ACCURACY_RAD` (bisection)."""
    low, high = 50, 2000                                   # errors above and below the target here
    while high - low > 1:
        mid = (low + high) // 2
        if _error_and_cost(integrator, norm, mid, 1)[0] <= EQUAL_ACCURACY_RAD:
            high = mid
        else:
            low = mid
    return high


def _equal_accuracy_row(repeats: int) -> dict:
    """rkmk4 (no norm handling) against rk4 + renormalize: the CPU time of each at the same attitude error."""
    figures = {}
    for integrator, norm in (("rkmk4", "none"), ("rk4", "renormalize")):
        steps = _fewest_steps(integrator, norm)
        error, secs = _error_and_cost(integrator, norm, steps, repeats)
        figures[integrator] = (steps, error, secs)
    (n1, e1, s1), (n2, e2, s2) = figures["rkmk4"], figures["rk4"]
    cheaper = "rkmk4" if s1 < s2 else "rk4 + renormalize"
    return {"what": "rkmk4 against rk4 + renormalize at equal accuracy (the lab's tumble, 10 s, attitude error "
                    f"<= {EQUAL_ACCURACY_RAD:g} rad)",
            "figure": f"{s1 * 1e3:.1f} ms vs {s2 * 1e3:.1f} ms", "budget": "(comparison)", "ok": None,
            "note": f"{cheaper} is cheaper by {max(s1, s2) / min(s1, s2) - 1:.0%}: rkmk4 {n1} steps "
                    f"(error {e1:.1e}), rk4 {n2} steps (error {e2:.1e})"}


def run(quick: bool = False) -> list[dict]:
    steps = 5_000 if quick else 50_000
    repeats = 3 if quick else 7
    rows = []
    budgets = {"half-quat": 10.0, "full-quat": 25.0, "rk4": 40.0}
    measured = {}
    for name, budget in budgets.items():
        us = _median_us_per_step(name, steps, repeats)
        measured[name] = us
        rows.append({"what": f"step cost {name}", "figure": f"{us:.2f} us/step",
                     "budget": f"<= {budget:g} us/step", "ok": us <= budget})
    for form in ("raw", "lagrange"):
        us = _median_us_per_step("full-quat", steps, repeats, full_quat_form=form)
        rows.append({"what": f"step cost full-quat {form}", "figure": f"{us:.2f} us/step",
                     "budget": "<= 25 us/step", "ok": us <= 25.0})
    for name, extra, budget in (("full-quat kane", {"integrator": "full-quat", "full_quat_form": "kane"}, 25.0),
                                ("rkmk4", {"integrator": "rkmk4"}, 40.0),
                                ("splitting", {"integrator": "splitting"}, 40.0),
                                ("half-quat elimination", {"integrator": "half-quat", "norm": "elimination"}, 10.0)):
        extra = dict(extra)
        us = _median_us_per_step(extra.pop("integrator"), steps, repeats, **extra)
        rows.append({"what": f"step cost {name}", "figure": f"{us:.2f} us/step",
                     "budget": f"<= {budget:g} us/step", "ok": us <= budget})
    rows.append(_equal_accuracy_row(repeats))
    ivp = _solve_ivp_us_per_sample(steps, max(1, repeats // 2))
    ratio = ivp / measured["half-quat"]
    rows.append({"what": "solve_ivp RK45 rtol 1e-6, same 1 ms samples", "figure": f"{ivp:.2f} us/sample",
                 "budget": "half-quat >= 3x faster", "ok": ratio >= 3.0,
                 "note": f"half-quat is {ratio:.1f}x faster"})
    npy = _numpy_half_quat_us_per_step(steps // 5, repeats)
    rows.append({"what": "numpy half-quat step (reference)", "figure": f"{npy:.2f} us/step",
                 "budget": "(comparison)", "ok": None,
                 "note": f"pure-float half-quat is {npy / measured['half-quat']:.1f}x faster"})
    runner = _runner_us_per_step(steps // 5, repeats)
    rows.append({"what": "window's simulation thread: step + history row", "figure": f"{runner:.2f} us/step",
                 "budget": "(comparison)", "ok": None,
                 "note": "default scenario, Runner.advance(80): 10,000 steps/s at 10x"})
    rows += _wheel_rows(steps // 5, repeats)
    return rows
