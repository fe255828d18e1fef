"""The live link's protocol, version 1, as docs/LINK.md writes it: the edges of what an input may hold (seq,
the wheel torques' count, the size of a message), the defaults a client may leave out, and what a refusal
says: its reason (what the link counts) and a message naming what is wrong."""

import json
import math
import re

import pytest

from sim.io.link import (INPUT_KEYS, MAX_MESSAGE_BYTES, VERSION, LinkMessageError, decode_input, decode_state,
                         encode_input, encode_state)


def _input(**fields) -> bytes:
    return json.dumps({"v": VERSION, "type": "input", **fields}).encode()


def _refusal(decode, data) -> LinkMessageError:
    with pytest.raises(LinkMessageError) as caught:
        decode(data)
    return caught.value


def _words(text: str) -> set:
    """The words of a message (a key glued to other letters is not named)."""
    return set(re.findall(r"[\w.]+", text))


# ------------------------------------------------------------------ what a client may leave out
def test_an_input_without_seq_is_seq_0_and_encode_input_counts_from_0():
    assert decode_input(_input(torque=[0.1, 0, 0])) == (0, {"torque": (0.1, 0.0, 0.0)})   # "optional, 0 by default"
    seq, _ = decode_input(encode_input(torque=(0.1, 0, 0)))
    assert seq == 0


def test_a_state_before_the_first_input_acks_null():
    data = encode_state(0, 0, 0.0, (0, 0, 0, 1), (0, 0, 0))
    assert json.loads(data)["ack"] is None            # "null before the first"
    assert decode_state(data)["ack"] is None


# The messages are made in the test, not in the parametrize list: what runs at collection runs before
# mutmut activates a mutant, so a list of made messages would test the unmutated encoders.
@pytest.mark.parametrize("make", [
    lambda: encode_state(41, 4100, 4.1, (0.0, 0.0, 0.0, 1.0), (0.01, -0.02, 0.0), (1.0,) * 32, ack=40),
    lambda: encode_input(2 ** 63 - 1, torque=(0.1, 0, -0.2), command_deg=(10, 20, 30), wheel_torques=(0.5,) * 32),
], ids=["state", "input"])
def test_messages_are_compact_json(make):
    # a state every step at up to 10 kHz: no insignificant whitespace on the wire
    data = make()
    assert b" " not in data and b"\n" not in data
    assert json.loads(data.decode("utf-8"))["v"] == VERSION


# ------------------------------------------------------------------ the edges of version 1
@pytest.mark.parametrize("seq", [0, 1, 2 ** 62, 2 ** 63 - 1])
def test_seq_is_any_integer_from_0_below_2_to_the_63(seq):
    assert decode_input(_input(seq=seq, torque=[0, 0, 0]))[0] == seq


@pytest.mark.parametrize("seq", [-1, 2 ** 63, 2 ** 64, True, False, "3", 1.0, None, [1]])
def test_a_seq_that_is_not_a_63_bit_count_is_refused_by_value(seq):
    error = _refusal(decode_input, _input(seq=seq, torque=[0, 0, 0]))
    assert error.reason == "malformed"
    assert "seq" in str(error) and repr(seq) in str(error)


@pytest.mark.parametrize("count", [1, 2, 31, 32])
def test_one_to_32_wheel_torques_are_read(count):
    torques = [0.01 * (k + 1) for k in range(count)]
    assert decode_input(_input(wheel_torques=torques))[1] == {"wheel_torques": tuple(torques)}


@pytest.mark.parametrize("count", [0, 33])
def test_no_wheel_torque_or_more_than_32_is_refused_naming_the_range(count):
    error = _refusal(decode_input, _input(wheel_torques=[0.0] * count))
    assert error.reason == "malformed"
    assert {"wheel_torques", "1", "32"} <= _words(str(error)), str(error)


@pytest.mark.parametrize("key, count", [("torque", 2), ("torque", 4), ("command_deg", 1), ("command_deg", 32)])
def test_a_vector_of_the_wrong_length_is_refused_naming_the_key_and_its_length(key, count):
    error = _refusal(decode_input, _input(**{key: [0.0] * count}))
    assert error.reason == "malformed"
    words = _words(str(error))
    assert key in words and "3" in words and "32" not in words, str(error)


@pytest.mark.parametrize("value", ["1", True, None, [1.0]])
def test_a_value_that_is_not_a_number_is_refused_naming_the_key_and_the_value(value):
    error = _refusal(decode_input, _input(torque=[0.0, value, 0.0]))
    assert error.reason == "malformed"
    assert "torque" in _words(str(error)) and repr(value) in str(error), str(error)


def test_an_input_of_exactly_the_largest_size_is_read_and_one_byte_more_is_not():
    data = _input(seq=5, torque=[0.25, 0, 0])
    padded = data[:-1] + b" " * (MAX_MESSAGE_BYTES - len(data)) + b"}"      # JSON whitespace: the same object
    assert len(padded) == MAX_MESSAGE_BYTES
    assert decode_input(padded) == (5, {"torque": (0.25, 0.0, 0.0)})
    error = _refusal(decode_input, padded[:-1] + b" }")
    assert error.reason == "oversized"
    numbers = {int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", str(error))}
    assert {MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES + 1} <= numbers, str(error)   # its size and the limit


# ------------------------------------------------------------------ what a refusal says
@pytest.mark.parametrize("data", ["a str", bytes.decode(b"{}"), 42, None, [b"{}"]])
def test_a_message_that_is_not_bytes_is_malformed_naming_its_type(data):
    error = _refusal(decode_input, data)
    assert error.reason == "malformed" and type(data).__name__ in _words(str(error)), str(error)


@pytest.mark.parametrize("data, names", [
    (b"\xff\xfe", {"UTF", "JSON"}),
    (b"{not json", {"JSON"}),
    (b"[1, 2]", {"JSON", "object"}),
    (b'{"type": "input", "torque": [0, 0, 0]}', {"v", "version"}),
])
def test_a_message_that_is_not_a_v1_object_is_malformed_saying_what_it_lacks(data, names):
    error = _refusal(decode_input, data)
    assert error.reason == "malformed" and names <= _words(str(error)), str(error)


def test_another_version_names_both_versions():
    error = _refusal(decode_input, json.dumps({"v": 7, "type": "input", "torque": [0, 0, 0]}).encode())
    assert error.reason == "version" and {"7", str(VERSION)} <= _words(str(error)), str(error)


def test_a_message_of_the_other_type_names_both_types():
    state = encode_state(1, 1, 0.01, (0, 0, 0, 1), (0, 0, 0))
    error = _refusal(decode_input, state)
    assert error.reason == "malformed" and "'state'" in str(error) and "'input'" in str(error), str(error)
    error = _refusal(decode_state, encode_input(1, torque=(0, 0, 0)))
    assert error.reason == "malformed" and "'input'" in str(error) and "'state'" in str(error), str(error)


def test_an_unknown_field_is_named_with_the_fields_version_1_knows():
    error = _refusal(decode_input, _input(torque=[0, 0, 0], rates=[1, 2, 3]))
    assert error.reason == "malformed"
    assert {"rates", *INPUT_KEYS} <= _words(str(error)), str(error)


def test_an_input_of_nothing_names_what_it_may_hold():
    error = _refusal(decode_input, _input(seq=3))
    assert error.reason == "malformed" and set(INPUT_KEYS) <= _words(str(error)), str(error)


def test_a_link_message_error_reads_reason_then_text():
    error = LinkMessageError("refused", "torque 1e9 N m is out of range")
    assert error.reason == "refused" and str(error).startswith("refused") and "torque 1e9 N m" in str(error)


def test_encode_input_names_every_unknown_key_and_the_keys_it_takes():
    with pytest.raises(ValueError) as caught:
        encode_input(0, rates=(1, 2, 3), spin=(0, 0, 1))
    assert {"rates", "spin", *INPUT_KEYS} <= _words(str(caught.value)), str(caught.value)
    with pytest.raises(ValueError) as caught:
        encode_input(0)
    assert {"none", *INPUT_KEYS} <= _words(str(caught.value)), str(caught.value)   # got none


# ------------------------------------------------------------------ a client reading states
@pytest.mark.parametrize("key, value", [("q", [0, 0, 1]), ("q", [0, 0, 0, 1, 0]), ("w", [0, 0]),
                                        ("q", [0, 0, "x", 1]), ("w", [0, math.inf, 0])])
def test_a_state_with_a_bad_q_or_w_is_malformed_naming_it(key, value):
    raw = json.loads(encode_state(1, 10, 0.1, (0, 0, 0, 1), (0, 0, 0)))
    raw[key] = value
    error = _refusal(decode_state, json.dumps(raw).encode())
    assert error.reason == "malformed" and key in _words(str(error)), str(error)


@pytest.mark.parametrize("drop", ["seq", "step", "t", "q", "w", "wheel_speeds", "ack"])
def test_a_state_without_one_of_its_fields_is_malformed_naming_it(drop):
    raw = json.loads(encode_state(1, 10, 0.1, (0, 0, 0, 1), (0, 0, 0)))
    del raw[drop]
    error = _refusal(decode_state, json.dumps(raw).encode())
    assert error.reason == "malformed" and drop in _words(str(error)), str(error)
