"""Where a body-step of the ensemble on an orbit goes: its parts timed alone in compiled loops (issue 42, stop 50).

``python -m bench.orbit_parts [sun|inertial] [--nonatomic] [--ir]`` builds the ensemble of
:mod:`bench.orbit_ensemble` (``_satellite_on_orbit``: half-quat at dt 0.1 s, the gravity gradient, one orbit and
epoch a body), takes one body's packed arguments (:func:`sim.ensemble.orbit_loop.pack_orbits`) and times each part
of its body-step in a numba loop of 200,000 calls (CPU time, best of five): Kepler's equation, one orbit state,
the world of a step (:func:`sim.ensemble.orbit_world.world_into`, the orbit states kept), the Sun, the moving
mode's three commands, the craft step (:func:`sim.model.advance_craft.craft_step`) and the metrics' torque.
``--nonatomic`` compiles them with numba's reference counts made plain adds (``nrtdynmod._disable_atomicity``,
numba's own switch for measuring their cost); ``--ir`` counts the calls of ``NRT_incref``/``NRT_decref`` in each
function of the craft step's and the world's final LLVM modules.  The loops compile here (tens of seconds), not
from the disk cache.  Figures: docs/PERFORMANCE.md, "The ensemble on an orbit, body-step cost".
"""

from __future__ import annotations

import math
import re
import sys
import time

import numpy as np

from sim.core.jit import numba_module

N = 200_000


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    numba = numba_module()
    if "--nonatomic" in argv:
        import numba.core.runtime.nrtdynmod as nrt
        nrt._disable_atomicity = 1
    from bench.ensemble import _satellite_on_orbit
    from sim.core.advance import inertia, law_torque
    from sim.ensemble import Ensemble, EnsembleSpec
    from sim.ensemble.orbit_world import NO_SUN, SAMPLES, fixed_part, new_kept, orbit_at, world_into
    from sim.model import advance_craft as craft
    from sim.model.world_kernel import moving_command
    from sim.world.orbit import eccentric_anomaly
    from sim.world.sun import sun_direction
    from sim.world.time import days_tt_of

    pointing = "inertial" if "inertial" in argv else "sun"
    spec = EnsembleSpec(bodies=4, seed=1, rate_spread=0.5, orbit_spread=(50.0, 0.005, 2.0, 30.0, 10.0, 180.0),
                        epoch_spread=86400.0)
    ens = Ensemble(_satellite_on_orbit(pointing), spec, compiled=False)
    ens._compiled = True
    par, flags, table, orbit, shared, wheels, groups, _, _, terms = ens._packed_orbits(1)

    @numba.njit
    def kepler_loop(n, m0, e):
        s = 0.0
        for i in range(n):
            s += eccentric_anomaly(m0 + 1e-4 * i, e)
        return s

    @numba.njit
    def orbit_loop(n, el):
        orb = fixed_part(el)
        s = 0.0
        for i in range(n):
            s += orbit_at(el, orb, 0.1 * i)[0][0]
        return s

    @numba.njit
    def world_loop(n, el, inp, terms):
        orb = fixed_part(el)
        fs = np.full(SAMPLES, np.nan)
        world = np.zeros(39)
        kept = new_kept(0.1)
        s = 0.0
        for i in range(n):
            world_into(world, el, orb, 0.0 + i * 0.1, inp, False, fs, terms[0], kept, NO_SUN, False)
            s += world[24]
        return s

    @numba.njit
    def sun_loop(n, el):
        s = 0.0
        for i in range(n):
            s += sun_direction(days_tt_of(el[9], el[10], 0.1 * i), None)[0][0]
        return s

    @numba.njit
    def command_loop(n, el, inp):
        rv = orbit_at(el, fixed_part(el), 0.0)
        s = 0.0
        for i in range(n):
            qc = moving_command(el[9], el[10], 0.1 * i, rv, rv, rv, (0.6, 0.8, 0.0), int(inp[36]),
                                (inp[12], inp[13], inp[14]), (inp[15], inp[16], inp[17]), (inp[18], inp[19], inp[20]),
                                (inp[21], inp[22], inp[23]), None)
            s += qc[0][0] + qc[1][0]
        return s

    @numba.njit
    def step_loop(n, p, fl, wh, gr, tab, world):
        buf = np.zeros((9, 0))
        speeds = buf[6]
        q, w = (0.1, 0.2, 0.3, math.sqrt(1 - 0.14)), (0.01, 0.02, 0.03)
        s = 0.0
        for _ in range(n):
            q1, w1 = craft.craft_step(q, w, speeds, world[2], world, p, fl, wh, gr, tab, buf)
            s += q1[0] + w1[0]
        return s

    @numba.njit
    def metric_loop(n, p, fl, tab, world):
        jr, _ = inertia(p)
        q, w, c = (0.1, 0.2, 0.3, math.sqrt(1 - 0.14)), (0.01, 0.02, 0.03), (0.0, 0.0, 0.0, 1.0)
        s = 0.0
        for _ in range(n):
            tq = law_torque(q, w, c, p, fl)
            e, _ = craft.external(q, world[2], world, p, fl, jr, tab)
            s += tq[0] + e[0]
        return s

    def timed(label, fn, *args):
        c0 = time.process_time()
        fn(10, *args)
        c0 = time.process_time() - c0
        best = min(_cpu(fn, *args) for _ in range(5))
        print(f"{label:40s} {best / N * 1e9:7.1f} ns   (compiled in {c0:.1f} s CPU)", flush=True)

    el = orbit[0].copy()
    p, fl = par[0].copy(), flags.copy()
    world = np.zeros(39)
    world_into(world, el, fixed_part(el), 0.0, shared, False, np.full(SAMPLES, np.nan), terms[0], new_kept(0.1), NO_SUN,
               False)
    world[24:28] = (0.0, 0.0, 0.0, 1.0)
    timed(f"Kepler's equation (e = {el[1]:.4f})", kepler_loop, el[5], el[1])
    timed("one orbit state (Kepler + state)", orbit_loop, el)
    timed(f"world_into ({pointing}, states kept)", world_loop, el, shared, terms)
    timed("the Sun", sun_loop, el)
    timed("moving_command (three two-vector)", command_loop, el, shared)
    timed("craft_step (half-quat)", step_loop, p, fl, wheels, groups, table, world)
    timed("metrics' torque (law + external)", metric_loop, p, fl, table, world)
    if "--ir" in argv:
        for name, fn in (("craft_step", step_loop), ("world_into", world_loop)):
            print(f"{name}'s module: NRT_incref / NRT_decref calls per function (static)")
            for text in re.split(r"\ndefine ", fn.inspect_llvm(fn.signatures[0]))[1:]:
                found = re.search(r'@"?([^"(]+)', text)
                head = re.sub(r"B\d+v\d+B\d+.*", "", found.group(1) if found else "?")
                if "@NRT_incref" in text or "@NRT_decref" in text:
                    print(f"  {head[:70]:70s} {text.count('@NRT_incref'):3d} {text.count('@NRT_decref'):3d}")
    return 0


def _cpu(fn, *args) -> float:
    t = time.process_time()
    fn(N, *args)
    return time.process_time() - t


if __name__ == "__main__":
    sys.exit(main())
