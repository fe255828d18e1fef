"""One step of one body through ``sim.api.run`` with no rows kept: the table of issue 42.

Each row is ``(T(D2) - T(D1)) / (steps(D2) - steps(D1))`` for ``api.run(name, duration=D, every=10**9)``,
the difference of two durations, so set-up (loading the scenario, the first compile or the disk cache,
the first and last rows) falls out; CPU time of this process (``time.process_time``, as
bench/step_cost.py: the machine is shared), best of three.  Goals from the issue: the default aircraft
0.3 us (aim: 2x the C -O2 step, about 16 ns), rk4 torque-free 0.5, sun_pointing 3, detumble 3,
momentum_dumping 15, fly_on_estimate 8.  The plain bodies (:data:`ROW_CASES`) again with a history row every
step (``every`` = 1, as the window steps): the goal is at most 2x their no-row figure.
"""

from __future__ import annotations

import time

from sim import api
from sim.core import jit

#: (label, scenario, settings changed, short duration s, long duration s, goal us).  The long run takes enough
#: more steps that the difference is tens of milliseconds of CPU even at the goal (the process clock ticks in
#: about 1 ms here, and a loaded machine adds its own noise): 200,000 steps of the aircraft, 2,000-4,000 of a
#: spacecraft (at first 40-2,000, which gave negative figures under load).
CASES = (
    ("default aircraft (half-quat, dampers)", "default", {}, 1.0, 201.0, 0.3),
    ("rk4, torque-free (w0 = 1, 0.2, -0.5)", "default", {"integrator": "rk4", "rates": (1.0, 0.2, -0.5),
                                                         "dampers_on": False}, 1.0, 101.0, 0.5),
    ("sun_pointing", "sun_pointing", {}, 100.0, 2100.0, 3.0),
    ("detumble", "detumble", {}, 20.0, 420.0, 3.0),
    ("momentum_dumping, 208 facets", "momentum_dumping", {}, 100.0, 1100.0, 15.0),
    ("fly_on_estimate, MEKF", "fly_on_estimate", {}, 100.0, 1100.0, 8.0),
)


#: The cases measured again with a history row every step (``every`` = 1, the window's): goal at most 2x no rows.
ROW_CASES = ("default aircraft (half-quat, dampers)", "rk4, torque-free (w0 = 1, 0.2, -0.5)")


def _seconds(name, changes, duration, every=10**9) -> float:
    start = time.process_time()
    api.run(name, duration=duration, every=every, force=True, **changes)
    return time.process_time() - start


def step_us(name, changes, short, long, repeats=3, every=10**9) -> float:
    """Best of ``repeats`` of the difference of two durations, us a step."""
    dt = api.as_scenario(name).settings.replace(**changes).dt
    steps = round(long / dt) - round(short / dt)
    jit.WARM_SECONDS = 0.0  # every kernel the warm-up calls starts loading at its first call
    import sim.model.advance_craft  # the spacecraft step and the world: their sample arguments
    import sim.model.world  # noqa: F401
    jit.load_all(stream=False)  # what a long run loads after its WARM_AFTER steps or states
    _seconds(name, changes, short, every)  # the compile or the disk cache, once
    jit.wait_all()  # the kernels that run started loading in threads of their own: what is timed runs compiled
    return min(_seconds(name, changes, long, every) - _seconds(name, changes, short, every)
               for _ in range(repeats)) / steps * 1e6


def run(quick: bool = False) -> list[dict]:
    rows = []
    for label, name, changes, short, long, goal in CASES:
        if quick:
            long = short + (long - short) / 5.0
        us = step_us(name, changes, short, long)
        rows.append({"what": f"api step, {label}", "figure": f"{us:.3g} us/step", "budget": f"<= {goal:g} us",
                     "ok": us <= goal, "note": "sim.api.run, no rows kept, CPU time, best of 3 (issue 42)"})
        if label in ROW_CASES:
            with_rows = step_us(name, changes, short, long, every=1)
            rows.append({"what": f"api step, {label}, a history row every step", "figure": f"{with_rows:.3g} us/step",
                         "budget": f"<= 2x no rows ({2 * us:.3g} us)", "ok": with_rows <= 2 * us,
                         "note": "sim.api.run every = 1, the rows written by the compiled advance (issue 42)"})
    return rows


if __name__ == "__main__":
    for row in run():
        print(f"{row['what']:50s} {row['figure']:>14s}  goal {row['budget']}")
