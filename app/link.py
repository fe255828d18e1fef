"""The live link: states out and inputs in over ZeroMQ, for a controller in another process (docs/LINK.md).

A :class:`LinkServer` binds two ZeroMQ sockets on one address
``tcp://HOST:PORT`` (default :data:`DEFAULT_ADDRESS`, loopback only):

* a PUB socket on ``PORT`` sends a state (:func:`sim.io.link.encode_state`)
  at the chosen rate; it is fed by the simulation thread
  (:meth:`SimulationWorker.add_listener <app.worker.SimulationWorker.add_listener>`)
  and never blocks it: a subscriber that does not keep up loses states
  (ZeroMQ's high-water mark), the simulation does not wait;
* a PULL socket on ``PORT + 1`` takes inputs
  (:func:`sim.io.link.decode_input`), read by the link's own thread and
  sent through the one public route, ``send`` (the worker's or the
  runner's queue): each lands on a step boundary and is recorded like any
  other input, so a recording of a linked run replays bit for bit.

Hostile input never reaches the simulation: a message over
:data:`sim.io.link.MAX_MESSAGE_BYTES`, not JSON, of another version, or
refused by the settings' ranges is dropped and counted by its reason
(:data:`sim.io.link.REASONS`).  At most :data:`MAX_SUBMIT_RATE` submissions
a second reach the queue; inputs that arrive faster are merged, the newest
value of each key winning, and the older ones counted ``superseded``
(a flood of 10,000 messages a second costs the simulation nothing more).
A message over :data:`MAX_FRAME_BYTES` makes ZeroMQ close that peer's
connection (the client reconnects by itself).  No Qt here.
"""

from __future__ import annotations

import collections
import ipaddress
import math
import threading
import time
from dataclasses import dataclass, field

import zmq
from zmq.utils.monitor import recv_monitor_message

from sim import LIMITS, SettingsError, INPUT_KEYS, REASONS, LinkMessageError, decode_input, encode_state

__all__ = ["LinkServer", "LinkStats", "LinkError", "parse_address", "exposure", "DEFAULT_ADDRESS", "DEFAULT_RATE",
           "MAX_SUBMIT_RATE", "MAX_FRAME_BYTES"]

#: Where the link listens unless told: loopback only (states on 5555, inputs on 5556).
DEFAULT_ADDRESS = "tcp://127.0.0.1:5555"
#: States sent per second unless told, Hz.
DEFAULT_RATE = 100.0
#: Most submissions to the simulation's queue per second (and in one burst: :data:`BURST`).
MAX_SUBMIT_RATE = 2000.0
BURST = 20
#: Largest frame ZeroMQ takes at all (its ZMQ_MAXMSGSIZE): a bigger one closes the sender's connection.
MAX_FRAME_BYTES = 1 << 16
#: Most messages queued by ZeroMQ on each socket (its high-water marks); more wait at the sender.
QUEUE_MESSAGES = 1000
#: Most messages read in one turn of the link's thread before it submits.
READ_BATCH = 256
#: Seconds the link's thread waits for input at most (it looks at its stop flag this often).
POLL_SECONDS = 0.05


class LinkError(Exception):
    """The link cannot be opened (a bad address, a port in use); the message says which and why."""


def parse_address(text: str | None, public: bool = False) -> tuple[str, str]:
    """``(state_address, input_address)`` of ``tcp://HOST:PORT``, ``HOST:PORT`` or ``PORT``; LinkError otherwise.

    The one parser of a link's address.  HOST is an IP address or ``localhost``; PORT is ASCII digits
    (``str.isdigit`` also takes ``"²"``) from 1024 to 65534, the inputs on PORT + 1.  A host that is not
    loopback (``0.0.0.0``, ``::ffff:0.0.0.0``, an interface's address) lets anyone who reaches the machine
    fly the body, with no authentication: it needs ``public`` (``--link-public``; :func:`exposure` says the
    warning); a multicast or broadcast address is never one a TCP link can listen on.

    >>> parse_address("5600")
    ('tcp://127.0.0.1:5600', 'tcp://127.0.0.1:5601')
    """
    text = (text or DEFAULT_ADDRESS).strip()
    rest = text[len("tcp://"):] if text.startswith("tcp://") else text
    if "://" in rest:
        raise LinkError(f"{text}: only tcp:// addresses (tcp://127.0.0.1:5555)")
    host, _, port = rest.rpartition(":")
    host = host or "127.0.0.1"
    if host == "localhost":
        host = "127.0.0.1"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        raise LinkError(f"{text}: {host!r} is not an IP address (127.0.0.1 is loopback only, 0.0.0.0 every "
                        "interface)") from None
    if not (port.isascii() and port.isdigit()) or not 1024 <= int(port) <= 65534:
        raise LinkError(f"{text}: the port must be a number from 1024 to 65534 (the inputs use the next)")
    plain = getattr(ip, "ipv4_mapped", None) or ip  # ::ffff:a.b.c.d is a.b.c.d
    if plain.is_multicast or plain == ipaddress.IPv4Address("255.255.255.255"):
        raise LinkError(f"{text}: {host} is a {'multicast' if plain.is_multicast else 'broadcast'} address; "
                        "a link listens on one host (127.0.0.1 loopback only, 0.0.0.0 every interface)")
    if not plain.is_loopback and not public:
        raise LinkError(f"{text}: {host} is not loopback: anyone who can reach this machine could fly the body "
                        "(the link has no authentication); add --link-public to listen there")
    return f"tcp://{host}:{port}", f"tcp://{host}:{int(port) + 1}"


def exposure(address: str) -> str | None:
    """The warning for a link on ``address`` (as :func:`parse_address` gives it) that is not loopback, else None."""
    host = address[len("tcp://"):].rpartition(":")[0]
    ip = ipaddress.ip_address(host)
    if (getattr(ip, "ipv4_mapped", None) or ip).is_loopback:
        return None
    return (f"warning: the live link listens on {host}, not only on this machine: anyone who can reach it can "
            "fly the body (no authentication)")


@dataclass(frozen=True)
class LinkStats:
    """What the link did so far (any thread may read it: :meth:`LinkServer.stats`).

    Attributes
    ----------
    address : str
        Where the states go (the inputs come in on the next port).
    clients : int
        Peers connected to the state socket now.
    received, sent, applied : int
        Input messages read, states sent, input messages submitted to the simulation.
    dropped : dict
        Reason (:data:`sim.io.link.REASONS`) -> input messages dropped for it.
    """

    address: str
    clients: int = 0
    received: int = 0
    sent: int = 0
    applied: int = 0
    dropped: dict = field(default_factory=dict)

    @property
    def dropped_total(self) -> int:
        """Input messages dropped for any reason."""
        return sum(self.dropped.values())


class LinkServer:
    """The live link on ``address`` (:func:`parse_address`) sending ``rate`` states a second.

    Parameters
    ----------
    address : str, optional
        ``tcp://HOST:PORT``; default :data:`DEFAULT_ADDRESS`.
    rate : float, optional
        States per second (``LIMITS["link_rate"]``); a state is a step's, so at
        most one a step is sent.

    Use: ``link = LinkServer(addr); link.attach(worker)`` (a
    :class:`~app.worker.SimulationWorker`: inputs through its ``send``,
    states from its listener), ``link.start()``, ..., ``link.close()``.
    """

    def __init__(self, address: str | None = None, rate: float = DEFAULT_RATE, public: bool = False):
        try:
            self.rate = LIMITS["link_rate"].check(rate, "link rate")
        except SettingsError as exc:
            raise LinkError(str(exc)) from None
        self.address, self.input_address = parse_address(address, public)
        self._context = zmq.Context()
        self._pub = self._context.socket(zmq.PUB)
        self._pull = self._context.socket(zmq.PULL)
        for sock in (self._pub, self._pull):
            sock.setsockopt(zmq.LINGER, 0)
        self._pub.setsockopt(zmq.SNDHWM, QUEUE_MESSAGES)
        self._pull.setsockopt(zmq.RCVHWM, QUEUE_MESSAGES)
        self._pull.setsockopt(zmq.MAXMSGSIZE, MAX_FRAME_BYTES)
        try:
            self._pub.bind(self.address)
            self._pull.bind(self.input_address)
        except zmq.ZMQError as exc:
            self._context.destroy(0)
            raise LinkError(f"cannot open the link on {self.address} and {self.input_address}: {exc}") from None
        self._monitor = self._pub.get_monitor_socket(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        self._send = None
        self._pub_lock = threading.Lock()
        self._stopping = False
        self._thread = threading.Thread(target=self._serve, name="attitude-sim link", daemon=True)
        # counters: written by one thread each, read by any
        self._clients = self._received = self._sent = self._applied = 0
        self._dropped = dict.fromkeys(REASONS, 0)
        self._seq = 0
        self._next_t = 0.0
        self._last_t = -math.inf
        self._ack = None
        self._acks: collections.deque = collections.deque(maxlen=256)  # (seq, {key: value}) submitted, not seen applied

    # ------------------------------------------------------------- lifecycle
    def attach(self, target) -> LinkServer:
        """Send inputs to ``target`` and states from it.

        ``target`` is a :class:`~app.worker.SimulationWorker` (its
        ``send`` and ``add_listener``), or anything with ``send``
        whose owner calls :meth:`publish` after each batch (a bare
        :class:`~sim.run.runner.Runner`).
        """
        self._send = target.send
        if hasattr(target, "add_listener"):
            target.add_listener(self.publish)
        return self

    def start(self) -> LinkServer:
        """Start reading inputs (the link's thread)."""
        self._thread.start()
        return self

    def close(self, timeout: float = 1.0) -> None:
        """Stop the link's thread and close the sockets (states offered afterwards are not sent)."""
        self._stopping = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        with self._pub_lock:
            pub, self._pub = self._pub, None
        if pub is not None:
            self._context.destroy(0)

    def stats(self) -> LinkStats:
        """The counters now."""
        return LinkStats(self.address, self._clients, self._received, self._sent, self._applied,
                         dict(self._dropped))

    # ---------------------------------------------------- simulation thread
    def publish(self, runner, batch) -> None:
        """Send the states of ``batch`` due at the link's rate (the simulation thread calls it; never raises).

        Also notes which of the link's inputs the batch applied (the states' ``ack``).
        """
        try:
            if batch.applied and self._acks:
                self._note_applied(batch.applied)
            rows = batch.rows
            if not len(rows):
                return
            columns = runner.columns
            wheels = [i for i, name in enumerate(columns) if name.startswith("wheel") and name[5:].isdigit()]
            first = runner.total_steps - len(rows) + 1
            period = 1.0 / self.rate
            with self._pub_lock:
                if self._pub is None:
                    return
                for i, row in enumerate(rows):
                    t = float(row[0])
                    if t < self._last_t:  # a reset: time starts again
                        self._next_t = t
                    self._last_t = t
                    if t < self._next_t - 1e-9:
                        continue
                    self._next_t = (math.floor(t / period + 1e-6) + 1) * period
                    message = encode_state(self._seq, first + i, t, row[1:5], row[5:8], [row[j] for j in wheels],
                                           self._ack)
                    try:
                        self._pub.send(message, zmq.NOBLOCK)
                    except zmq.Again:
                        continue
                    self._seq += 1
                    self._sent += 1
        except Exception:  # the link must never stop the simulation
            return

    def _note_applied(self, applied) -> None:
        """Match the applied inputs against the link's submissions, oldest first."""
        for _, key, value in applied:
            if key not in INPUT_KEYS:
                continue
            for index, (seq, inputs) in enumerate(self._acks):
                if inputs.get(key) == tuple(float(x) for x in value):
                    del inputs[key]
                    if not inputs:
                        for _ in range(index + 1):
                            self._acks.popleft()
                        self._ack = seq
                    break

    # ------------------------------------------------------- link's thread
    def _serve(self) -> None:
        poller = zmq.Poller()
        poller.register(self._pull, zmq.POLLIN)
        poller.register(self._monitor, zmq.POLLIN)
        pending: dict = {}  # key -> (value, id of the message it came in)
        merged: list = []  # ids of the messages read since the last submission, with their seq
        tokens, last = float(BURST), time.monotonic()
        while not self._stopping:
            wait = POLL_SECONDS
            if pending:
                wait = min(POLL_SECONDS, max(0.0, (1.0 - tokens) / MAX_SUBMIT_RATE))
            try:
                ready = dict(poller.poll(wait * 1000.0))
            except zmq.ZMQError:
                return
            if self._monitor in ready:
                self._read_monitor()
            if self._pull in ready:
                self._read(pending, merged)
            now = time.monotonic()
            tokens, last = min(float(BURST), tokens + (now - last) * MAX_SUBMIT_RATE), now
            if pending and tokens >= 1.0:
                tokens -= 1.0
                self._submit(pending, merged)
                pending.clear()
                merged.clear()

    def _read_monitor(self) -> None:
        while True:
            try:
                event = recv_monitor_message(self._monitor, zmq.NOBLOCK)
            except (zmq.Again, zmq.ZMQError):
                return
            if event["event"] == zmq.EVENT_ACCEPTED:
                self._clients += 1
            elif event["event"] == zmq.EVENT_DISCONNECTED:
                self._clients = max(0, self._clients - 1)

    def _read(self, pending: dict, merged: list) -> None:
        """Read what is waiting (at most :data:`READ_BATCH`): each input merged into ``pending``, the newest winning."""
        for _ in range(READ_BATCH):
            try:
                frames = self._pull.recv_multipart(zmq.NOBLOCK)
            except zmq.ZMQError:  # zmq.Again: nothing more
                return
            self._received += 1
            try:
                if len(frames) != 1:
                    raise LinkMessageError("malformed", f"{len(frames)} frames (one JSON object in one frame)")
                seq, inputs = decode_input(frames[0])
            except LinkMessageError as exc:
                self._dropped[exc.reason] += 1
                continue
            except Exception:  # a message the codec did not foresee: dropped, the thread reads on
                self._dropped["malformed"] += 1
                continue
            merged.append(seq)
            for key, value in inputs.items():
                pending[key] = (value, len(merged) - 1)

    def _submit(self, pending: dict, merged: list) -> None:
        """One submission of the newest value of each key.

        Every message read is counted once: applied when one of its values
        is submitted, ``superseded`` when newer ones replaced them all,
        ``refused`` when the simulation refuses the submission.
        """
        inputs = tuple((key, value) for key, (value, _) in pending.items())
        survivors = {index for _, index in pending.values()}
        self._dropped["superseded"] += len(merged) - len(survivors)
        try:
            self._send(inputs)
        except Exception:  # SettingsError (out of range, another number of wheels) or anything else
            self._dropped["refused"] += len(survivors)
            return
        self._acks.append((merged[max(survivors)], dict(inputs)))
        self._applied += len(survivors)
