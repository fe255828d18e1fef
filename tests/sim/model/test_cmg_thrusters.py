"""A CMG cluster with thrusters unloading it (issue 45, sim/model/cmg_step.py ``cmg_fire``).

The cluster flies the torque law; at each control period the thrusters fire on ``-k h``, ``h`` the cluster's
momentum (Wie ch. 7, momentum unloading), their torque held over the step as an external torque.  Checked:

* the many-step kernel (``cmg_run``, the drive's ``drive_step`` inside its loop) and the Python step
  (``fire_kernel`` then ``cmg_advance``, compiled or run as Python) give the same bits: state, gimbals, drive, fuel;
* the thrusters' torque is the only external one, so the craft's inertial momentum changes by their impulse,
  ``H(t) - H(0) = sum_k C(Q_k)^T T_k dt`` (Euler's law; the torque held in body axes over each step, so to
  first order in the body's turn over a step), and the cluster's momentum falls;
* the combinations that cannot be are refused in one line: no unloading gain, a dead band (it would hold the
  attitude against the cluster), and an ensemble of them (one body at a time: sim.model.one_body).
"""

from dataclasses import replace

import numpy as np
import pytest

from sim.core import jit
from sim.core.quaternion import cayley
from sim.model import cmg_step
from sim.model.settings import Settings, SettingsError
from sim.model.simulation import Simulation
from sim.run.scenario import load

#: cmg_fast_slew's craft holding its attitude, the pyramid off its rest angles (it holds momentum), cube thrusters.
SETTINGS = load("cmg_fast_slew").settings.replace(
    command_deg=(0.0, 0.0, 0.0), cmg_angles=(40.0, -20.0, 10.0, 30.0), thrusters="cube", thruster_force=0.25,
    thruster_unloading=0.2, thruster_on=0.2, thruster_off=0.05, thruster_period=0.5)


def _bits(sim):
    fuel = sim.fuel  # (first: reading it counts the on-times held so far into the drive's state)
    return np.array((*sim.q, *sim._w, *sim._cmg.delta, *sim._thr.x, fuel)).view(np.uint64)


def test_the_kernel_and_the_python_step_fire_alike(monkeypatch):
    def run(kernel: bool):
        with monkeypatch.context() as m:
            if not kernel:  # the Python step, one cmg_advance call a step
                m.setattr(cmg_step.CmgStep, "packed", lambda self, sim, n: None)
            sim = Simulation(SETTINGS)
            cmg_step.cmg_run.wait(*sim._cmg._sample())
            assert (sim._cmg.packed(sim, 1500) is not None) == kernel
            sim.step(1500)
            return sim

    cmg_step.fire_kernel.wait()
    assert cmg_step.fire_kernel.ready or jit.DISABLED
    python = run(False)  # fire_kernel compiled
    assert python.fuel > 0.0 and python._thr.x[17:29].any()  # they fired
    assert np.array_equal(_bits(run(True)), _bits(python))  # cmg_run: the drive inside its loop
    monkeypatch.setattr(cmg_step, "fire_kernel", cmg_step.fire_kernel.py_func)  # its text as Python
    assert np.array_equal(_bits(run(False)), _bits(python))


def _momentum(sim):
    """The craft's inertial momentum ``C(Q)^T (J w + h)``: the rows' ``hx..hz`` (their formula against Wie's
    pyramid: test_cmg_wired)."""
    cols, row = sim.columns(), sim.row()
    return np.array([row[cols.index(k)] for k in ("hx", "hy", "hz")])


def test_the_thrusters_impulse_is_the_change_of_momentum_and_the_cluster_unloads():
    sim = Simulation(SETTINGS)
    h_start = _momentum(sim)
    cluster_start = np.linalg.norm(sim._cmg.readout(sim._w, (0.0, 0.0, 0.0), 0.0)[2])
    impulse = np.zeros(3)
    for _ in range(1500):  # 30 s at dt 0.02 s
        q = np.array(sim.q)
        sim.step(1)
        impulse += cayley(q).T @ np.array(sim._thr.torque) * sim.settings.dt
    change = _momentum(sim) - h_start
    assert np.linalg.norm(impulse) > 0.5  # N m s: the thrusters did work
    np.testing.assert_allclose(change, impulse, rtol=0, atol=2e-3 * np.linalg.norm(impulse))
    cluster_end = np.linalg.norm(sim._cmg.readout(sim._w, (0.0, 0.0, 0.0), 0.0)[2])
    assert cluster_end < 0.6 * cluster_start
    assert np.degrees(2 * np.arccos(min(1.0, abs(sim.q[3])))) < 2.0  # the cluster held the attitude meanwhile


@pytest.mark.parametrize("changes, words", [
    (dict(thruster_unloading=0.0), "thruster_unloading: with CMGs the thrusters unload them"),
    (dict(thruster_modulation="deadband"), "deadband holds the attitude itself; with CMGs"),
])
def test_combinations_that_cannot_be_are_refused_in_one_line(changes, words):
    with pytest.raises(SettingsError, match=words) as info:
        SETTINGS.replace_validated(**changes)
    assert "\n" not in str(info.value)


def test_an_ensemble_of_them_is_refused_in_one_line(capsys):
    from app.cli import main
    from sim.ensemble import Ensemble, EnsembleSpec
    from sim.run.runner import ENSEMBLE, Runner

    words = "an ensemble flies no CMG clusters with thrusters"
    with pytest.raises(SettingsError, match=words):
        Ensemble(SETTINGS, EnsembleSpec(bodies=2))
    runner = Runner(replace(load("cmg_fast_slew"), settings=SETTINGS))
    with pytest.raises(SettingsError, match=words):  # the window's Ensemble tab: in the caller's thread
        runner.submit(ENSEMBLE, EnsembleSpec(bodies=2))
    assert main(["sweep", "--integrator", "rk4", "--cmg", "pyramid", "--thrusters", "cube", "--thruster-unloading",
                 "0.2", "--bodies", "2", "--duration", "0.1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and words in err, err


def test_thrusters_without_wheels_or_cmgs_still_refuse_an_unloading_gain():
    with pytest.raises(SettingsError, match="unloads the momentum of reaction wheels or CMGs; the body has none"):
        Settings(thrusters="cube", thruster_unloading=0.1)
