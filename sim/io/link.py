"""The live link's messages: a versioned JSON stream of states out and inputs in (docs/LINK.md).

A controller in another process flies the body through the link
(:mod:`app.link` serves it over ZeroMQ).  Every message is one UTF-8 JSON
object in one ZeroMQ frame, carrying the protocol version ``"v"`` and its
``"type"``:

* a **state** (simulator -> client)::

    {"v": 1, "type": "state", "seq": 41, "step": 4100, "t": 4.1,
     "q": [q1, q2, q3, q4], "w": [wx, wy, wz], "wheel_speeds": [], "ack": 12}

  ``q`` scalar LAST, the transformation inertial -> body (README
  "Conventions"); ``w`` body rates in body axes, rad/s; ``wheel_speeds``
  each wheel's speed relative to the body, rad/s (empty without wheels);
  ``ack`` the ``seq`` of the latest input of the link applied at or before
  this state (null before the first).  Later versions may add fields
  (``sensors``); a client ignores fields it does not know.

* an **input** (client -> simulator)::

    {"v": 1, "type": "input", "seq": 12, "torque": [tx, ty, tz]}

  with one or more of :data:`INPUT_KEYS`: ``torque`` (N m, body axes),
  ``command_deg`` (the attitude command's aircraft angles psi, theta, phi,
  degrees) and ``wheel_torques`` (N m, one per wheel).  ``seq`` is the
  client's own counter (an integer from 0 to 2**63 - 1), echoed as the states' ``ack``.
  An input is refused whole when anything in it is wrong: a field this
  version does not know, a missing or other version, a value that is not
  a finite number, a vector of the wrong length.

Decoding never raises anything but :class:`LinkMessageError`, whose
``reason`` is one of :data:`REASONS` (what the link counts).  The ranges of
the values are the settings' own (:data:`sim.io.limits.LIMITS`), checked
where the input is applied (:meth:`sim.run.runner.Runner.send`).
No sockets here: the codec is plain Python, for the server and the clients.
"""

from __future__ import annotations

import json
import math

__all__ = ["VERSION", "INPUT_KEYS", "MAX_MESSAGE_BYTES", "REASONS", "LinkMessageError", "encode_state",
           "decode_state", "encode_input", "decode_input"]

#: The protocol version written and the only one read.
VERSION = 1
#: The inputs a client may send, with the number of values of each (None: one per wheel, up to 32).
INPUT_KEYS = {"torque": 3, "command_deg": 3, "wheel_torques": None}
#: Largest input accepted, bytes (an input of every key with 32 wheel torques is about 1.2 kB).
MAX_MESSAGE_BYTES = 4096
#: Why a message was dropped: ``oversized`` (over :data:`MAX_MESSAGE_BYTES`), ``malformed`` (not a
#: UTF-8 JSON object of this protocol), ``version`` (another protocol version), ``refused`` (a value
#: the simulation refuses: out of range, another number of wheels), ``superseded`` (a newer input of
#: the same key came before it could be applied: what a flood turns into).
REASONS = ("oversized", "malformed", "version", "refused", "superseded")
_MAX_WHEELS = 32
_STATE_FIELDS = ("seq", "step", "t", "q", "w", "wheel_speeds", "ack")


class LinkMessageError(ValueError):
    """A message that cannot be read; ``reason`` is one of :data:`REASONS`."""

    def __init__(self, reason: str, text: str):
        super().__init__(f"{reason}: {text}")
        self.reason = reason
        self.text = text

    def __reduce__(self):  # made again from both (args holds the joined text alone)
        return type(self), (self.reason, self.text)


def _floats(values) -> list:
    return [float(x) for x in values]


def encode_state(seq: int, step: int, t: float, q, w, wheel_speeds=(), ack: int | None = None) -> bytes:
    """A state message (bytes); ``q`` scalar last, inertial -> body; ``w`` rad/s in body axes."""
    return json.dumps({"v": VERSION, "type": "state", "seq": int(seq), "step": int(step), "t": float(t),
                       "q": _floats(q), "w": _floats(w), "wheel_speeds": _floats(wheel_speeds),
                       "ack": None if ack is None else int(ack)},
                      separators=(",", ":")).encode("utf-8")


def _object(data: bytes, kind: str) -> dict:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise LinkMessageError("malformed", f"a {kind} is bytes, got {type(data).__name__}")
    if len(data) > MAX_MESSAGE_BYTES:
        raise LinkMessageError("oversized", f"{len(data):,} bytes (at most {MAX_MESSAGE_BYTES:,})")
    try:
        message = json.loads(bytes(data).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise LinkMessageError("malformed", "not UTF-8 JSON") from None
    if not isinstance(message, dict):
        raise LinkMessageError("malformed", "not a JSON object")
    version = message.get("v")
    if isinstance(version, bool) or not isinstance(version, int):
        raise LinkMessageError("malformed", f"no protocol version \"v\" (this is version {VERSION})")
    if version != VERSION:
        raise LinkMessageError("version", f"version {version}; this simulator speaks version {VERSION}")
    if message.get("type") != kind:
        raise LinkMessageError("malformed", f"type {message.get('type')!r}, expected {kind!r}")
    return message


def _vector(key, value, size) -> tuple:
    if not isinstance(value, list) or (size is not None and len(value) != size) or not (
            size is not None or 1 <= len(value) <= _MAX_WHEELS):
        want = f"{size} numbers" if size is not None else f"1 to {_MAX_WHEELS} numbers"
        raise LinkMessageError("malformed", f"{key}: expected a list of {want}")
    out = []
    for i, x in enumerate(value):
        try:  # an int beyond a float (a 401-digit JSON integer) overflows float(): not a finite number either
            ok = not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(float(x))
        except OverflowError:
            ok = False
        if not ok:
            big = isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 64
            shown = f"an integer of {x.bit_length()} bits" if big else repr(x)[:40]
            raise LinkMessageError("malformed", f"{key}[{i}]: {shown} is not a finite number")
        out.append(float(x))
    return tuple(out)


def encode_input(seq: int = 0, **inputs) -> bytes:
    """An input message (bytes): ``encode_input(3, torque=(0.1, 0, 0))``; keys from :data:`INPUT_KEYS`."""
    unknown = sorted(set(inputs) - set(INPUT_KEYS))
    if unknown or not inputs:
        raise ValueError(f"inputs: one or more of {', '.join(INPUT_KEYS)}, got {', '.join(unknown) or 'none'}")
    return json.dumps({"v": VERSION, "type": "input", "seq": int(seq),
                       **{key: _floats(value) for key, value in inputs.items()}},
                      separators=(",", ":")).encode("utf-8")


def decode_input(data: bytes) -> tuple[int, dict]:
    """``(seq, {key: tuple of floats})`` of an input message; :class:`LinkMessageError` when it cannot be read."""
    message = _object(data, "input")
    seq = message.get("seq", 0)
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 2 ** 63:
        raise LinkMessageError("malformed", f"seq {seq!r} is not an integer >= 0")
    unknown = sorted(set(message) - {"v", "type", "seq", *INPUT_KEYS})
    if unknown:
        raise LinkMessageError("malformed", f"unknown field {unknown[0]!r} (version {VERSION} knows "
                               f"{', '.join(INPUT_KEYS)})")
    inputs = {key: _vector(key, message[key], size) for key, size in INPUT_KEYS.items() if key in message}
    if not inputs:
        raise LinkMessageError("malformed", f"no input (one or more of {', '.join(INPUT_KEYS)})")
    return seq, inputs


def decode_state(data: bytes) -> dict:
    """A state message as a dict (``q``, ``w`` and ``wheel_speeds`` as tuples); for clients."""
    message = _object(data, "state")
    try:
        state = {key: message[key] for key in _STATE_FIELDS}
        for key, size in (("q", 4), ("w", 3)):
            state[key] = _vector(key, state[key], size)
        state["wheel_speeds"] = tuple(float(x) for x in state["wheel_speeds"])
    except (KeyError, TypeError, ValueError) as exc:
        raise LinkMessageError("malformed", f"not a state ({exc})") from None
    return state
