"""The live link's messages (sim.io.link): what a client sends is read back exactly, anything else is refused
with the reason the link counts, and never with another exception."""

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.io.link import (INPUT_KEYS, MAX_MESSAGE_BYTES, REASONS, VERSION, LinkMessageError, decode_input,
                         decode_state, encode_input, encode_state)


def test_an_input_reads_back_exactly():
    torque = (0.1, -2.5e-7, 3.0)
    seq, inputs = decode_input(encode_input(7, torque=torque, command_deg=(10, -20, 30)))
    assert seq == 7
    assert inputs == {"torque": torque, "command_deg": (10.0, -20.0, 30.0)}


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=3, max_size=3))
def test_any_finite_torque_reads_back_bit_for_bit(values):
    _, inputs = decode_input(encode_input(0, torque=values))
    assert inputs["torque"] == tuple(values)  # repr precision: the recording of a linked run replays exactly


def test_a_state_is_scalar_last_and_reads_back():
    q, w = (0.1, 0.2, 0.3, math.sqrt(1 - 0.14)), (0.01, -0.02, 0.03)
    data = encode_state(4, 400, 0.4, q, w, (100.0, -50.0), ack=3)
    raw = json.loads(data)
    assert raw["v"] == VERSION and raw["type"] == "state" and raw["q"][3] == q[3]  # the scalar is the last
    state = decode_state(data)
    assert state["q"] == q and state["w"] == w and state["wheel_speeds"] == (100.0, -50.0)
    assert (state["seq"], state["step"], state["t"], state["ack"]) == (4, 400, 0.4, 3)


def _raw(**fields):
    return json.dumps({"v": VERSION, "type": "input", "seq": 1, **fields}).encode()


@pytest.mark.parametrize("data, reason", [
    (b"\xff\xfe\x00binary", "malformed"),
    (b"{not json", "malformed"),
    (b"[1, 2, 3]", "malformed"),
    (b'{"type": "input", "torque": [0, 0, 0]}', "malformed"),              # no version
    (json.dumps({"v": 2, "type": "input", "torque": [0, 0, 0]}).encode(), "version"),
    (json.dumps({"v": True, "type": "input", "torque": [0, 0, 0]}).encode(), "malformed"),
    (_raw(), "malformed"),                                                  # no input
    (_raw(torque=[0, 0]), "malformed"),
    (_raw(torque=[0, 0, "1"]), "malformed"),
    (_raw(torque=[0, 0, True]), "malformed"),
    (b'{"v": 1, "type": "input", "torque": [0, 0, NaN]}', "malformed"),   # Python's json reads NaN
    (b'{"v": 1, "type": "input", "torque": [0, 0, Infinity]}', "malformed"),
    (_raw(torque=[0, 0, 0], rates=[1, 2, 3]), "malformed"),                 # not an input of version 1
    (_raw(wheel_torques=[]), "malformed"),
    (_raw(wheel_torques=[0.0] * 33), "malformed"),
    (json.dumps({"v": 1, "type": "state", "torque": [0, 0, 0]}).encode(), "malformed"),
    (json.dumps({"v": 1, "type": "input", "seq": -1, "torque": [0, 0, 0]}).encode(), "malformed"),
    (b"[" * 100_000 + b"]" * 100_000, "oversized"),
    (_raw(torque=[0, 0, 0], pad="x" * MAX_MESSAGE_BYTES), "oversized"),
    (b"[" * 2000 + b"]" * 2000, "malformed"),                               # nested: not an object
])
def test_a_bad_input_is_refused_with_its_reason(data, reason):
    with pytest.raises(LinkMessageError) as caught:
        decode_input(data)
    assert caught.value.reason == reason and reason in REASONS


@given(st.binary(max_size=200))
def test_any_bytes_are_read_or_refused_with_a_reason(data):
    try:
        seq, inputs = decode_input(data)
    except LinkMessageError as exc:
        assert exc.reason in REASONS
    else:
        assert set(inputs) <= set(INPUT_KEYS)


def test_encode_input_names_what_it_takes():
    with pytest.raises(ValueError, match="torque"):
        encode_input(0, rates=(1, 2, 3))
