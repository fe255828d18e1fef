"""sim.lab.run_drift's cost figure: microseconds of CPU per step taken, the chunk that faulted included
(a run cut short by a fault still reports what its steps cost)."""

import time
from types import SimpleNamespace

import pytest

from sim import lab
from sim.model.simulation import Simulation, SimulationFault


class _FaultsAt(Simulation):
    FAULT_AT = 250  # steps: the run faults inside a chunk

    def step(self, n=1):
        if self.steps + n > self.FAULT_AT:
            super().step(self.FAULT_AT - self.steps)
            raise SimulationFault("quaternion norm ran away", self.t)
        super().step(n)


def test_a_faulted_run_costs_its_cpu_time_over_its_steps(monkeypatch):
    clock = iter(range(1000, 2000))  # 1 s of CPU between consecutive readings: each chunk costs 1 s
    monkeypatch.setattr(lab, "time", SimpleNamespace(process_time=lambda: float(next(clock))))
    monkeypatch.setattr(lab, "Simulation", _FaultsAt)
    combination = lab.combinations()[0]
    drift = lab.run_drift(combination, steps=1000, dt=0.01, samples=10)  # chunks up to log-spaced samples
    assert drift.fault == "quaternion norm ran away"
    assert drift.steps == 250
    chunks = sum(1 for k in lab.sample_steps(1000, 10)[1:] if k < 250) + 1  # the faulted one too
    assert drift.cost_us == pytest.approx(1e6 * chunks / 250)


def test_the_lab_reports_its_own_wall_and_cpu_time():
    # The report's "took W (C of CPU)": this process's CPU time over the run, at least what its steps cost
    # (each drift's cost_us x steps) and at most the CPU of the call around it; the wall time likewise.
    wall, cpu = time.perf_counter(), time.process_time()
    result = lab.run_lab(steps=200, combos=[lab.combinations()[0]], samples=10)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stepped = sum(d.cost_us * d.steps for d in result.drifts) * 1e-6
    assert 0.0 < stepped <= result.cpu_s <= cpu
    assert 0.0 < result.wall_s <= wall
