"""The live link (app.link): a controller in another process flies the body at 1x, its run replays bit for bit,
and hostile input (malformed, oversized, other versions, a flood) is dropped and counted while the run goes on."""

import importlib.util
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import zmq

from app.cli import main
from app.link import LinkError, LinkServer
from app.worker import SimulationWorker
from sim.io.link import MAX_MESSAGE_BYTES, decode_state, encode_input
from sim.run.runner import Runner
from sim.run.scenario import load

ROOT = Path(__file__).resolve().parents[3]
ATTITUDE_SIM = str(Path(sys.executable).with_name("attitude-sim"))


def _client():
    spec = importlib.util.spec_from_file_location("pd_client", ROOT / "examples" / "pd_client.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_ports() -> int:
    """A port p with p and p + 1 free on loopback now."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port >= 65534:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 1))
        except OSError:
            continue
        return port
    raise RuntimeError("no two free ports")


@pytest.mark.subprocess
def test_the_example_client_holds_an_attitude_at_1x_and_the_recording_replays_bit_for_bit(tmp_path):
    """The PD client of examples/ in this process, the simulator in another: the body starts tumbling under a
    disturbance torque without dampers, and the client's torques bring it back and hold it."""
    port = _free_ports()
    out, record, replayed = tmp_path / "linked.csv", tmp_path / "linked.jsonl", tmp_path / "replayed.csv"
    sim = subprocess.Popen([ATTITUDE_SIM, "run", "--link", f"tcp://127.0.0.1:{port}", "--link-rate", "200",
                            "--dampers", "0,0,0", "--rates", "0.3,-0.2,0.1", "--disturbance", "0.005,-0.004,0.003",
                            "--duration", "8", "--every", "50", "--record", str(record), "--out", str(out)],
                           stderr=subprocess.PIPE, text=True)
    try:
        result = _client().run(f"tcp://127.0.0.1:{port}", seconds=6.0, timeout=60.0)
        _, err = sim.communicate(timeout=60)
    finally:
        sim.kill()
    assert sim.returncode == 0, err
    assert result["worst_second_half_deg"] < 0.5, result   # steady error of the disturbance: 0.005/2.4 rad
    assert result["rate"] < 0.01, result
    assert result["answered"] > 500
    assert "dropped" in err and "inputs read" in err
    assert main(["replay", str(record), "--every", "50", "--out", str(replayed)]) == 0
    assert out.read_bytes() == replayed.read_bytes()     # the linked run, replayed bit for bit


@pytest.fixture
def linked():
    """A paced worker at 1x on the default scenario (dampers off) with a link; yields (worker, link, push, sub)."""
    scenario = load("default")
    scenario = scenario.__class__(**{**scenario.__dict__, "settings": scenario.settings.replace(
        dampers_on=False, dampers=(0.0, 0.0, 0.0)), "duration": 1e6})
    worker = SimulationWorker(Runner(scenario), speed=1.0)
    port = _free_ports()
    link = LinkServer(f"tcp://127.0.0.1:{port}", rate=1000).attach(worker)
    context = zmq.Context()
    push = context.socket(zmq.PUSH)
    push.setsockopt(zmq.LINGER, 0)
    push.connect(f"tcp://127.0.0.1:{port + 1}")
    sub = context.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.setsockopt(zmq.LINGER, 0)
    sub.connect(f"tcp://127.0.0.1:{port}")
    worker.start()
    link.start()
    yield worker, link, push, sub
    push.close()
    sub.close()
    context.term()
    worker.stop()
    link.close()


def _wait(condition, seconds=10.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return False


def _next_state(sub, seconds=5.0):
    assert sub.poll(seconds * 1000)
    return decode_state(sub.recv())


@pytest.mark.timing
def test_a_torque_through_the_link_turns_the_body_the_right_way(linked):
    worker, link, push, sub = linked
    first = _next_state(sub)
    push.send(encode_input(9, torque=(0.0, 0.0, 0.3)))
    assert _wait(lambda: worker.settings.torque == (0.0, 0.0, 0.3))
    seen = []
    assert _wait(lambda: seen.append(_next_state(sub)) or seen[-1]["ack"] == 9)  # the states say when it applied
    state = seen[-1]
    while state["t"] < seen[-1]["t"] + 0.2:                         # 0.2 s of flight under the torque
        state = _next_state(sub)                                    # (each within 5 s, or the test fails)
    # +z torque from rest: the z rate grows the way the torque points (J_zz = 1.5 kg m^2, J_xz = 0.2)
    assert state["w"][2] > first["w"][2] + 0.01
    stats = link.stats()
    assert stats.applied == 1 and stats.dropped_total == 0 and stats.sent > 0 and stats.clients >= 1


@pytest.mark.timing
def test_hostile_input_is_dropped_and_counted_and_the_run_goes_on(linked):
    worker, link, push, sub = linked
    hostile = [b"\xff\x00 binary", b"{not json", b"[1,2,3]", b'{"v":1,"type":"input","torque":[0,0,NaN]}',
               json.dumps({"v": 2, "type": "input", "torque": [0, 0, 0]}).encode(),
               b"x" * (MAX_MESSAGE_BYTES + 1),
               encode_input(1, torque=(1e30, 0, 0))]                  # beyond the settings' range: refused
    for data in hostile:
        push.send(data)
    push.send_multipart([encode_input(2, torque=(0, 0, 0)), b"second frame"])
    assert _wait(lambda: link.stats().received == len(hostile) + 1)
    assert _wait(lambda: link.stats().dropped.get("refused") == 1)
    stats = link.stats()
    assert stats.dropped == {"malformed": 5, "version": 1, "oversized": 1, "refused": 1, "superseded": 0}
    assert worker.fault is None and worker.settings.torque == (0.0, 0.0, 0.0)

    # a flood: 10,000 valid inputs in about a second; the newest wins, the rest are counted as superseded
    t0, steps0 = time.perf_counter(), worker.steps_taken
    sent = 0
    while sent < 10_000:
        for _ in range(100):
            push.send(encode_input(100 + sent, torque=(0.0, 0.0, 1e-3 * (sent % 7))))
            sent += 1
        time.sleep(max(0.0, t0 + sent / 10_000 - time.perf_counter()))
    push.send(encode_input(99_999, torque=(0.0, 0.0, 0.05)))
    assert _wait(lambda: link.stats().received == len(hostile) + 1 + sent + 1, 30.0)
    assert _wait(lambda: worker.settings.torque == (0.0, 0.0, 0.05))  # the last one is applied
    wall = time.perf_counter() - t0
    stats = link.stats()
    assert stats.received == stats.applied + stats.dropped_total     # every message counted once
    assert stats.dropped["superseded"] > 0
    assert worker.fault is None
    simulated = (worker.steps_taken - steps0) * worker.settings.dt
    assert simulated > 0.5 * wall, (simulated, wall)                  # the simulation went on at about 1x


def test_the_link_refuses_a_bad_address_or_a_port_in_use():
    with pytest.raises(LinkError, match="only tcp"):
        LinkServer("ipc:///tmp/x")
    with pytest.raises(LinkError, match="port"):
        LinkServer("tcp://127.0.0.1:80")
    with pytest.raises(LinkError, match="IP address"):
        LinkServer("tcp://example.com:5555")
    port = _free_ports()
    link = LinkServer(str(port))
    try:
        with pytest.raises(LinkError, match="cannot open"):
            LinkServer(f"127.0.0.1:{port}")
    finally:
        link.close()


@pytest.mark.parametrize("argv, fragment", [
    (["--record", "x.jsonl"], "--record: only with --link"),
    (["--link-rate", "50"], "--link-rate: only with --link"),
    (["--link", "--link-rate", "0"], "--link-rate"),
    (["--link", "udp://127.0.0.1:5555"], "only tcp"),
])
def test_the_link_flags_are_checked_on_the_command_line(capsys, argv, fragment):
    assert main(["run", *argv]) == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1
