"""Basilisk's side of ``python -m bench --only peer`` (:mod:`bench.peer`): run by the Python of .venv-peer
(``make peer``), never by the project's; it imports Basilisk and numpy only, not attitude-sim.

``python bench/peer_bsk.py '<json case>'`` prints one JSON line: the CPU time of ``ExecuteSimulation``
(set-up left out, as attitude-sim's side leaves it out), the final ``sigma_BN`` and ``omega_BN_B``.
The case: ``inertia`` (3x3, Basilisk's ``IHubPntBc_B``: the tensor itself), ``rates`` (rad/s, body),
``duration`` and ``dt`` (s), ``gravity_gradient`` with ``mu`` (m^3/s^2) and ``radius`` (m) of the circular
orbit, started at ``r = (0, 0, -R)``, ``v = (sqrt(mu/R), 0, 0)`` (attitude-sim's orbit frame at t = 0,
sim/world/environment.py), and ``wheels`` (``[[axis], Js, Omega0]`` each: balanced wheels, no motor torque).
"""

from __future__ import annotations

import json
import math
import sys
import time


def run(case: dict) -> dict:
    from Basilisk.simulation import GravityGradientEffector, spacecraft
    from Basilisk.utilities import SimulationBaseClass, macros, simIncludeGravBody

    sim = SimulationBaseClass.SimBaseClass()
    process = sim.CreateNewProcess("dynamics")
    process.addTask(sim.CreateNewTask("step", macros.sec2nano(case["dt"])))
    craft = spacecraft.Spacecraft()
    craft.ModelTag = "craft"
    craft.hub.mHub = 100.0
    craft.hub.IHubPntBc_B = case["inertia"]
    craft.hub.omega_BN_BInit = [[x] for x in case["rates"]]
    craft.hub.sigma_BNInit = [[0.0], [0.0], [0.0]]
    sim.AddModelToTask("step", craft)
    keep = []  # Basilisk's Python objects must outlive the run
    if case.get("wheels"):
        from Basilisk.simulation import reactionWheelStateEffector
        from Basilisk.utilities import simIncludeRW

        factory = simIncludeRW.rwFactory()
        for axis, js, omega in case["wheels"]:
            factory.create("custom", axis, Js=js, Omega=omega * 60.0 / (2.0 * math.pi), u_max=1.0,  # rpm
                           RWModel=reactionWheelStateEffector.BalancedWheels if hasattr(reactionWheelStateEffector, "BalancedWheels") else 0)
        wheels = reactionWheelStateEffector.ReactionWheelStateEffector()
        factory.addToSpacecraft("wheels", wheels, craft)
        sim.AddModelToTask("step", wheels, 2)
        keep += [factory, wheels]
    if case.get("gravity_gradient"):
        gravity = simIncludeGravBody.gravBodyFactory()
        earth = gravity.createEarth()
        earth.isCentralBody = True
        earth.mu = case["mu"]
        gravity.addBodiesTo(craft)
        radius = case["radius"]
        craft.hub.r_CN_NInit = [[0.0], [0.0], [-radius]]
        craft.hub.v_CN_NInit = [[math.sqrt(case["mu"] / radius)], [0.0], [0.0]]
        effector = GravityGradientEffector.GravityGradientEffector()
        effector.ModelTag = craft.ModelTag
        effector.addPlanetName(earth.planetName)
        craft.addDynamicEffector(effector)
        sim.AddModelToTask("step", effector)
        keep += [gravity, earth, effector]
    sim.InitializeSimulation()
    sim.ConfigureStopTime(macros.sec2nano(case["duration"]))
    start = time.process_time()  # CPU time, as attitude-sim's side: the machine is shared
    sim.ExecuteSimulation()
    loop = time.process_time() - start
    state = craft.scStateOutMsg.read()
    return {"loop": loop, "sigma": list(state.sigma_BN), "omega": list(state.omega_BN_B)}


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))
