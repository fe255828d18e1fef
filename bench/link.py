"""The live link's round trip at 1 kHz: state out -> torque in -> applied (docs/LINK.md).

``attitude-sim run --link --link-rate 1000`` (dt 1 ms: a state every step)
runs in its own process; this process is the client: it answers every
state with a PD torque tagged with the state's step (``seq``), and reads
in the later states' ``ack`` when each answer was applied.  Reported: the
round trip in steps (the step at which the torque took effect minus the
step of the state it answered) and in wall time (the state received ->
the first state that acknowledges the answer, so one more state's way
out is included), median and 99th percentile; and the share of states
answered (the client keeps up).
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import zmq

ATTITUDE_SIM = str(Path(sys.executable).with_name("attitude-sim"))


def _port() -> int:
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue
    raise RuntimeError("no two free ports")


def measure(seconds: float = 20.0) -> dict:
    """Fly ``seconds`` at 1x with a state every step; the figures of the round trip."""
    port = _port()
    address = f"tcp://127.0.0.1:{port}"
    sim = subprocess.Popen([ATTITUDE_SIM, "run", "--link", address, "--link-rate", "1000", "--dt", "0.001",
                            "--dampers", "0,0,0", "--rates", "0.2,-0.1,0.1", "--duration", str(seconds + 2),
                            "--every", "1000", "--out", "/dev/null"], stderr=subprocess.PIPE, text=True)
    context = zmq.Context()
    sub = context.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(address)
    push = context.socket(zmq.PUSH)
    push.connect(f"tcp://127.0.0.1:{port + 1}")
    received: dict[int, float] = {}
    steps, walls = [], []
    states = answered = 0
    pending = []  # steps answered, not yet acknowledged
    start = None
    try:
        while True:
            if not sub.poll(30_000):
                raise RuntimeError("no state from the simulator for 30 s")
            state = json.loads(sub.recv())
            now = time.perf_counter()
            states += 1
            step = state["step"]
            start = state["t"] if start is None else start
            ack = state["ack"]
            while pending and ack is not None and pending[0] <= ack:
                answered_step = pending.pop(0)
                if answered_step == ack:
                    steps.append(step - ack)  # a bound: applied at or before this state's step
                    walls.append(now - received.pop(answered_step))
                else:
                    received.pop(answered_step, None)
            w = state["w"]
            push.send(json.dumps({"v": 1, "type": "input", "seq": step,
                                  "torque": [-2.0 * w[0], -3.0 * w[1], -4.0 * w[2]]}).encode())
            received[step] = now
            pending.append(step)
            answered += 1
            if state["t"] - start >= seconds:
                break
    finally:
        sub.close(0)
        push.close(0)
        context.term()
        sim.kill()
        sim.wait()
    walls.sort()
    steps.sort()
    return {"states": states, "answered": answered, "acknowledged": len(steps),
            "steps_median": statistics.median(steps), "steps_p99": steps[int(0.99 * (len(steps) - 1))],
            "wall_median_ms": 1e3 * statistics.median(walls), "wall_p99_ms": 1e3 * walls[int(0.99 * (len(walls) - 1))],
            "seconds": seconds}


def run(quick: bool = False) -> list[dict]:
    """The bench rows (``python -m bench --only link``)."""
    m = measure(5.0 if quick else 20.0)
    note = (f"{m['seconds']:g} s at 1x, dt 1 ms, a state every step; {m['states']:,} states, every one answered by "
            f"a client in another process; {m['acknowledged']:,} answers acknowledged one by one, the rest together "
            "with a newer answer (applied at the same step boundary, or merged by the link: the newest wins)")
    return [
        {"what": "link round trip at 1 kHz, steps (state out -> torque in -> applied)",
         "figure": f"median {m['steps_median']} steps, p99 {m['steps_p99']}", "budget": "—", "ok": None,
         "note": note},
        {"what": "link round trip at 1 kHz, wall time (state received -> its ack seen)",
         "figure": f"median {m['wall_median_ms']:.2f} ms, p99 {m['wall_p99_ms']:.2f} ms", "budget": "—", "ok": None,
         "note": "one more state's way out included"},
    ]
