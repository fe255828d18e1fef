"""A controller in another process: holds the body's attitude through attitude-sim's live link (docs/LINK.md).

Start the simulator with the link, then this client::

    attitude-sim run --link --dampers 0,0,0 --rates 0.3,-0.2,0.1 --duration 60 --out linked.csv &
    python examples/pd_client.py --seconds 60

It subscribes to the states (``tcp://127.0.0.1:5555``), answers each with a
PD torque ``-Kp e - Kd w`` that holds the attitude of the first state it
received (or ``--target``), and pushes it to the inputs (the next port).
Only pyzmq and the standard library: the protocol is plain JSON, version 1.
Q is scalar last, the transformation inertial -> body (x_B = C(Q) x_I);
w and the torque are in body axes.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import zmq

VERSION = 1


def cayley(q):
    """C(Q) for Q = (q1, q2, q3, q4) scalar last, inertial -> body (Hoffmann 2.12), as 3 rows."""
    x, y, z, s = q
    return ((s * s + x * x - y * y - z * z, 2 * (x * y + s * z), 2 * (x * z - s * y)),
            (2 * (x * y - s * z), s * s - x * x + y * y - z * z, 2 * (y * z + s * x)),
            (2 * (x * z + s * y), 2 * (y * z - s * x), s * s - x * x - y * y + z * z))


def attitude_error(q, target):
    """The body's small rotation away from ``target``, in body axes (rad): the skew part of C(Q) C(Qt)^T.

    For C_err = C(Q) C(Qt)^T = I + [e x] (small e), e = ((C32 - C23), (C13 - C31), (C21 - C12)) / 2;
    for any angle it is sin(angle) times the axis.
    """
    a, b = cayley(q), cayley(target)
    c = [[sum(a[i][k] * b[j][k] for k in range(3)) for j in range(3)] for i in range(3)]
    return (0.5 * (c[2][1] - c[1][2]), 0.5 * (c[0][2] - c[2][0]), 0.5 * (c[1][0] - c[0][1]))


def pd_torque(q, w, target, kp, kd):
    """The PD torque, N m in body axes: ``-kp e - kd w`` per axis."""
    e = attitude_error(q, target)
    return tuple(-kp[i] * e[i] - kd[i] * w[i] for i in range(3))


def angle_deg(q, target) -> float:
    """The angle between two attitudes, degrees."""
    dot = abs(sum(a * b for a, b in zip(q, target)))
    return math.degrees(2.0 * math.acos(min(1.0, dot / math.sqrt(sum(a * a for a in q) * sum(b * b for b in target)))))


def _vector(text, n):
    values = tuple(float(x) for x in text.split(","))
    if len(values) != n:
        raise argparse.ArgumentTypeError(f"expected {n} numbers separated by commas")
    return values


def run(address="tcp://127.0.0.1:5555", seconds=10.0, kp=(2.4, 4.0, 6.0), kd=(2.16, 3.6, 5.4), target=None,
        timeout=5.0):
    """Fly until ``seconds`` of simulated time have passed since the first state; returns a summary dict.

    ``address``: the simulator's state socket (the inputs are on the next port).
    """
    host, _, port = address.rpartition(":")
    context = zmq.Context()
    states = context.socket(zmq.SUB)
    states.setsockopt(zmq.SUBSCRIBE, b"")
    states.setsockopt(zmq.LINGER, 0)
    states.connect(address)
    inputs = context.socket(zmq.PUSH)
    inputs.setsockopt(zmq.LINGER, 1000)
    inputs.setsockopt(zmq.SNDHWM, 100)
    inputs.connect(f"{host}:{int(port) + 1}")
    poller = zmq.Poller()
    poller.register(states, zmq.POLLIN)
    start = None
    worst = 0.0
    answered = 0
    state = None
    try:
        while True:
            if not poller.poll(timeout * 1000):
                raise TimeoutError(f"no state from {address} for {timeout:g} s")
            while True:  # the newest state: a client that falls behind answers the latest
                try:
                    state = json.loads(states.recv(zmq.NOBLOCK))
                except zmq.Again:
                    break
            if state.get("v") != VERSION:
                raise RuntimeError(f"protocol version {state.get('v')}, this client speaks {VERSION}")
            q, w = state["q"], state["w"]
            if start is None:
                start, target = state["t"], tuple(target or q)
            torque = pd_torque(q, w, target, kp, kd)
            inputs.send(json.dumps({"v": VERSION, "type": "input", "seq": state["seq"],
                                    "torque": list(torque)}).encode(), zmq.NOBLOCK)
            answered += 1
            if state["t"] - start > 0.5 * seconds:
                worst = max(worst, angle_deg(q, target))
            if state["t"] - start >= seconds:
                break
    finally:
        states.close()
        inputs.close()
        context.term()
    return {"t": state["t"], "answered": answered, "error_deg": angle_deg(state["q"], target),
            "worst_second_half_deg": worst, "rate": math.sqrt(sum(x * x for x in state["w"]))}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", default="tcp://127.0.0.1:5555", help="the simulator's state socket")
    parser.add_argument("--seconds", type=float, default=10.0, help="simulated seconds to fly (default 10)")
    parser.add_argument("--kp", type=lambda t: _vector(t, 3), default=(2.4, 4.0, 6.0),
                        help="proportional gains per axis, N m/rad (default: the aircraft's inertia times 4/s^2)")
    parser.add_argument("--kd", type=lambda t: _vector(t, 3), default=(2.16, 3.6, 5.4),
                        help="derivative gains per axis, N m s/rad (damping ratio 0.9)")
    parser.add_argument("--target", type=lambda t: _vector(t, 4), default=None,
                        help="Q1,Q2,Q3,Q4 to hold (scalar last); default: the first state's attitude")
    args = parser.parse_args(argv)
    try:
        result = run(args.address, args.seconds, args.kp, args.kd, args.target)
    except (TimeoutError, RuntimeError) as exc:
        print(f"pd_client: {exc}", file=sys.stderr)
        return 1
    print(f"t={result['t']:.3f} s  answered {result['answered']} states  error {result['error_deg']:.4f} deg  "
          f"worst in the second half {result['worst_second_half_deg']:.4f} deg  |w| {result['rate']:.2e} rad/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
