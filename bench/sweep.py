"""`attitude-sim sweep` at scale: 10,000 random attitudes for 60 s at dt = 1 ms.

The ensemble_controller scenario (Hoffmann's quaternion controller with
dampers, gains and limits, command heading 180 deg) at dt = 1 ms: 6e8
body-steps.  Budgets (issue #10, "Speed"): at most 60 s on one core (the
sweep in this process); on a Dask local cluster, 2 worker processes at least
1.6x faster than 1.  Cluster start-up is not timed (it is about 2 s); the
three runs must give bit-identical columns.

``python -m bench.sweep [--quick]`` runs this module alone.
"""

from __future__ import annotations

import argparse
import logging
import time
from dataclasses import replace

from sim.ensemble import EnsembleSpec
from sim.run.scenario import load
from sim.sweep import Sweep
from sim.sweep.chunk import COLUMNS


def _sweep(quick: bool) -> Sweep:
    bodies, duration = (2_000, 10.0) if quick else (10_000, 60.0)
    scenario = load("ensemble_controller")
    scenario = replace(scenario, duration=duration, settings=scenario.settings.replace(dt=0.001))
    return Sweep(scenario, EnsembleSpec(bodies=bodies, seed=0))


def _timed(sweep: Sweep, client=None):
    """(wall time, this process's CPU time, result) of one run."""
    start, cpu = time.perf_counter(), time.process_time()
    result = sweep.run(client)
    return time.perf_counter() - start, time.process_time() - cpu, result


def _on_cluster(sweep: Sweep, workers: int):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        wall, _, result = _timed(sweep, client)
        return wall, result


def _same(a, b) -> bool:
    return all(a.columns[k].tobytes() == b.columns[k].tobytes() for k in COLUMNS)


def run(quick: bool = False) -> list[dict]:
    sweep = _sweep(quick)
    bodies = sweep.spec.bodies
    serial, serial_cpu, reference = _timed(sweep)
    one, r1 = _on_cluster(sweep, 1)
    two, r2 = _on_cluster(sweep, 2)
    identical = _same(reference, r1) and _same(reference, r2)
    label = f"{bodies:,} random attitudes, {sweep.scenario.duration:g} s at dt 1 ms" + (" (quick)" if quick else "")
    budget = 60.0 * sweep.body_steps / 6e8
    speedup = one / two
    settled = int((reference.columns["final_error_deg"] < 1.0).sum())
    return [
        {"what": f"sweep {label}, one core (in process)", "figure": f"{serial:.1f} s wall",
         "budget": f"<= {budget:g} s", "ok": serial <= budget,
         "note": f"{sweep.body_steps:,} body-steps, {serial / sweep.body_steps * 1e9:.0f} ns each "
                 f"({serial_cpu:.1f} s of CPU time, {serial_cpu / sweep.body_steps * 1e9:.0f} ns); "
                 f"{settled:,} of {bodies:,} within 1 deg at the end"},
        {"what": f"sweep {label}, Dask local cluster: 2 workers vs 1", "figure": f"{speedup:.2f}x faster",
         "budget": ">= 1.6x", "ok": speedup >= 1.6 and identical,
         "note": f"1 worker {one:.1f} s, 2 workers {two:.1f} s (cluster start-up not timed); columns "
                 f"bit-identical to the in-process run: {'yes' if identical else '**no**'}"},
    ]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.sweep")
    parser.add_argument("--quick", action="store_true")
    for row in run(parser.parse_args().quick):
        print(f"{row['what']}: {row['figure']} (budget {row['budget']}, {'pass' if row['ok'] else 'MISS'}); "
              f"{row['note']}")
