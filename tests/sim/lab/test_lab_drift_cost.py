"""sim.lab.run_drift's cost figure: microseconds of CPU per step taken, the chunk that faulted included
(a run cut short by a fault still reports what its steps cost)."""

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
