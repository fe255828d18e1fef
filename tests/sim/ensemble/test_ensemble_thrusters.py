"""Thrusters in an ensemble (issue 45): each body bit for bit with its own run.

Each body's drive is a row of :class:`sim.model.thruster_drive.DriveColumns`, stepped by the same
``drive_step`` a single body's run steps (:func:`sim.model.thruster_drive.drive_bodies`); the ensemble's
columns run the single-source formulas.  So ``Simulation(ens.body_settings(j))`` flies column ``j``: the
state, the levels, the force and the fuel, to the bit, for bodies that differ in attitude, rates and inertia,
through a change of the thrusters' settings between steps and a reset.
"""

import numpy as np
import pytest

from sim.ensemble import Ensemble, EnsembleSpec
from sim.model.simulation import Simulation
from sim.run.scenario import load

SPEC = EnsembleSpec(bodies=4, seed=7, rate_spread=0.02, inertia_spread=0.1)


def _bits(values):
    return np.asarray(values, dtype=float).view(np.uint64)


def _same_as_runs(ens, runs):
    """Each body's state, levels, force and fuel against its run's."""
    fuel = ens._thr.fuel
    for j, sim in enumerate(runs):
        assert np.array_equal(_bits((*ens.q[:, j], *ens.w[:, j], *ens.wheel_speeds[:, j])), _bits((*sim.q, *sim._w)))
        cols = sim.columns()
        row = sim.row()
        thr = [row[cols.index(c)] for c in cols if c.startswith("thr_")]
        n = len(thr) - 3
        x = ens._thr.x[j]
        assert np.array_equal(_bits(thr), _bits((*x[17:17 + n], *x[14:17])))
        assert np.array_equal(_bits(fuel[j]), _bits(row[cols.index("fuel_kg")]))


@pytest.mark.parametrize("name, steps", [("thruster_limit_cycle", 1500), ("pwpf_slew", 800),
                                         ("thruster_unloading", 300)])
def test_each_body_flies_its_run(name, steps):
    ens = Ensemble(load(name).settings, SPEC)
    runs = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    for chunk in (1, 49, steps - 50):
        ens.step(chunk)
        for sim in runs:
            sim.step(chunk)
        _same_as_runs(ens, runs)
    fuel = ens._thr.fuel
    assert (fuel > 0.0).all()  # every body fired
    if name != "thruster_unloading":  # (its bodies unload the same wheels)
        assert len(set(fuel.tolist())) == ens.n  # and each its own way


def test_a_change_of_the_thrusters_and_a_reset():
    """A new modulation between steps (a new drive per body, carrying on its fuel), then a reset: as the runs."""
    ens = Ensemble(load("pwpf_slew").settings, SPEC)
    runs = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    for target in (ens, *runs):
        target.step(200)
        target.update({"thruster_modulation": "schmitt", "thruster_period": 0.05})
        target.step(200)
    _same_as_runs(ens, runs)
    ens.reset()
    assert not ens._thr.x.any() and not ens._thr.fuel.any()
    runs = [Simulation(ens.body_settings(j)) for j in range(ens.n)]
    for target in (ens, *runs):
        target.step(300)
    _same_as_runs(ens, runs)


def test_the_body_loop_compiled_and_as_python_alike(monkeypatch):
    """drive_bodies compiled (as a long ensemble has it) and run as Python: one text, the same bits."""
    from sim.model import thruster_drive

    def run():
        ens = Ensemble(load("pwpf_slew").settings, SPEC)
        ens.step(300)
        return np.concatenate((ens.q.ravel(), ens.w.ravel(), ens._thr.x.ravel(), ens._thr.fuel))

    kernel = thruster_drive.drive_bodies
    calls = []
    thruster_drive.load_bodies()
    assert kernel.ready or thruster_drive.jit.DISABLED
    compiled = run()

    def python(*args):
        calls.append(1)
        return kernel.py_func(*args)

    monkeypatch.setattr(thruster_drive, "drive_bodies", python)
    assert np.array_equal(_bits(compiled), _bits(run()))
    assert calls  # the Python text ran


def test_a_sweep_reports_each_bodys_fuel_as_its_run():
    """The sweep's chunk (sim.sweep.chunk) has fuel_kg after the wheels' columns: each body's run's fuel_kg."""
    from sim.sweep.chunk import columns, run_chunk

    settings = load("pwpf_slew").settings
    got = run_chunk(settings, SPEC, (), 200, 1, 3)
    names = columns(thrusters=True)
    assert tuple(got)[:len(names)] == names and names[-1] == "fuel_kg"
    ens = Ensemble(settings, SPEC, start=1, count=3)
    for j in range(3):
        sim = Simulation(ens.body_settings(j))
        sim.step(200)
        assert got["fuel_kg"][j] == sim.fuel == sim.row()[sim.columns().index("fuel_kg")] > 0.0
    assert len(set(got["fuel_kg"].tolist())) == 3  # each body its own
    assert "fuel_kg" not in columns(wheels=3) and columns(wheels=3, thrusters=True)[-4:] == (
        "wheel1", "wheel2", "wheel3", "fuel_kg")
