"""A fresh attack on round four's surfaces (issue 44), scripted: hundreds of generated cases, each with its promise.

Run: ``python -m tests.hostile_attack44 [--jobs 2]``; it prints per surface how
many were tried and how many held, and every case that broke.  The findings
are in docs/RELIABILITY.md ("Hostile input, round four").

In process (each call one case): every setting through the one validator
(:class:`sim.model.settings.Settings`) with numbers no float holds, NaN,
infinities, text of them, bools, complex, bytes and containers (the promise:
accepted, or :class:`SettingsError`, nothing else); every numeric field of a
TLE with NaN, infinities, letters, signs, exponents and non-ASCII digits
(``OrbitError`` or a set whose every element is finite and in range, and a
run's settings that accept it or refuse it with SettingsError); every value
of an AEM data line of four attitude types with the same (AttitudeFileError
or a track of finite times, unit quaternions and rates in range); the link's
decoder with generated messages (LinkMessageError or an input of finite
numbers) and its address parser (LinkError or a loopback address unless
public); epochs (EpochError or an Epoch in the ephemeris's years).  As real
processes (tests/hostile_cases.py's :class:`Case`): every numeric command
line flag of ``run`` with such text (exit 2, one line, no traceback).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import hostile_cases as h
from hostile_round4 import L1, L2, aem, checksum, field

#: Values no setting may take as a number, or that test the edges of the one number check.
HOSTILE_VALUES = (10 ** 400, -10 ** 400, 10 ** 5000, float("nan"), float("inf"), -float("inf"), "1e400", "nan",
                  "٣", "5²", True, complex(1, 1), b"1", 5e-324, -0.0, [], None, "")
#: Text a TLE field or a command-line number may hold.
HOSTILE_TEXT = ("nan", "inf", "-inf", "ABC", "-1", "1e9", "", "+.", "٣٣", "1_0", "0x1F", "9" * 12)
#: Values of an AEM data line.
AEM_VALUES = ("nan", "inf", "1e308", "-1e308", "5e-324", "1e-200", "0", "1e-320", "0x1p3", "1_0", "٣", "-0")


def _accepted_or(kind, call):
    """None when ``call()`` returns or raises ``kind``; else what it raised."""
    try:
        call()
    except kind:
        return None
    except Exception as exc:  # the promise is broken: anything else escaped
        return f"{type(exc).__name__}: {str(exc)[:160]}"
    return None


def settings_cases():
    from sim.model.settings import KEYS, Settings, SettingsError

    for key, value in itertools.product(KEYS, HOSTILE_VALUES):
        label = f"Settings({key}={value!r:.30})" if not (isinstance(value, int) and abs(value) > 10 ** 300) else (
            f"Settings({key}=<{len(str(abs(value))) if abs(value) < 10 ** 4000 else 'thousands of'} digits>)")
        yield "settings", label, lambda k=key, v=value: _accepted_or(SettingsError, lambda: Settings(**{k: v}))


def tle_cases():
    from sim.model.settings import Settings, SettingsError
    from sim.world.orbit import TLE_FIELDS, OrbitError, read_tle

    def check(text):
        try:
            sat = read_tle(text)
        except OrbitError:
            return None
        except Exception as exc:
            return f"read_tle: {type(exc).__name__}: {exc}"
        values = (sat.no_kozai, sat.ecco, sat.inclo, sat.nodeo, sat.argpo, sat.mo, sat.bstar, sat.epochdays)
        if not all(math.isfinite(v) for v in values) or not sat.no_kozai > 0 or not 0 <= sat.ecco < 1:
            return f"read_tle accepted {values}"
        return _accepted_or(SettingsError, lambda: Settings(tle=text))

    lines = {1: L1, 2: L2}
    for (k, fields), value in itertools.product(TLE_FIELDS.items(), HOSTILE_TEXT):
        for start, end, what in fields:
            changed = dict(lines)
            changed[k] = field(lines[k], start, end, value)
            text = f"{checksum(changed[1][:68])}\n{checksum(changed[2][:68])}\n"
            yield "TLE fields", f"line {k} {what} = {value!r}", lambda t=text: check(t)


def aem_cases():
    import numpy as np

    from sim.io.limits import LIMITS
    from sim.run.aem import AttitudeFileError, parse_aem

    kinds = {"QUATERNION": ("0 0 0 1", 4, ""), "QUATERNION/ANGVEL": ("0 0 0 1 0 0 0", 7, "ANGVEL_FRAME = SC_BODY_1\n"),
             "QUATERNION/DERIVATIVE": ("0 0 0 1 0 0 0 0", 8, ""),
             "EULER_ANGLE": ("0 0 0", 3, "EULER_ROT_SEQ = ZYX\n")}

    def check(text):
        try:
            track = parse_aem(text, "x.aem")
        except AttitudeFileError:
            return None
        except Exception as exc:
            return f"{type(exc).__name__}: {str(exc)[:160]}"
        if not (np.all(np.isfinite(track.t)) and np.all(np.isfinite(track.q)) and np.all(np.isfinite(track.w))):
            return "a track with values that are not finite"
        if np.max(np.abs(np.linalg.norm(track.q, axis=1) - 1.0)) > 1e-12:
            return "a track of quaternions that are not unit"
        if np.max(np.abs(track.w)) > LIMITS["rates"].high:
            return f"rates of {np.max(np.abs(track.w)):g} rad/s"
        return None

    for kind, (row, n, meta) in kinds.items():
        for position, value in itertools.product(range(n), AEM_VALUES):
            words = row.split()
            words[position] = value
            text = aem([row, " ".join(words), row], kind, meta)
            yield "AEM values", f"{kind} value {position + 1} = {value}", lambda t=text: check(t)


def link_cases():
    import json

    from app.link import LinkError, parse_address
    from sim.io.link import LinkMessageError, decode_input

    def decode(data):
        try:
            _, inputs = decode_input(data)
        except LinkMessageError:
            return None
        except Exception as exc:
            return f"{type(exc).__name__}: {str(exc)[:120]}"
        if not all(math.isfinite(x) for v in inputs.values() for x in v):
            return f"decoded {inputs}"
        return None

    numbers = ["1" + "0" * 400, "-1" + "0" * 400, "9" * 5000, "1e400", "-1e400", "NaN", "Infinity", "-Infinity",
               "true", "null", '"1"', "[1]", "{}", "1e-400", "0", "-0.0"]
    for key, number in itertools.product(("torque", "command_deg", "wheel_torques"), numbers):
        message = f'{{"v": 1, "type": "input", "seq": 1, "{key}": [{number}, 0, 0]}}'.encode()
        yield "link messages", f"{key}[0] = {number[:20]}", lambda m=message: decode(m)
    for seq in ("1" + "0" * 400, "-1", "1.5", "true", "null", '"x"', str(2 ** 63), "1e400"):
        message = f'{{"v": 1, "type": "input", "seq": {seq}, "torque": [0, 0, 0]}}'.encode()
        yield "link messages", f"seq = {seq[:20]}", lambda m=message: decode(m)
    for version in ("1" + "0" * 400, "1.0", "true", "NaN", '"1"', "-1"):
        message = f'{{"v": {version}, "type": "input", "torque": [0, 0, 0]}}'.encode()
        yield "link messages", f"v = {version[:20]}", lambda m=message: decode(m)
    deep = b"[" * 100_000 + b"]" * 100_000
    yield "link messages", "nested 100,000 deep (oversized)", lambda: decode(deep)
    yield "link messages", "a JSON string", lambda: decode(json.dumps("x").encode())

    def address(text, public):
        try:
            state, _ = parse_address(text, public)
        except LinkError:
            return None
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
        host = state[len("tcp://"):].rpartition(":")[0]
        import ipaddress

        ip = ipaddress.ip_address(host)
        plain = getattr(ip, "ipv4_mapped", None) or ip
        if plain.is_multicast or (not public and not plain.is_loopback):
            return f"accepted {state}"
        return None

    for text in ("55²5", "٥٥٥٥", "5555\n", " 5555 ", "+5555", "-5555", "5_555", "0x15B3", "5555.0", "1e4", "65535",
                 "1023", "0.0.0.0:5555", "::ffff:0.0.0.0:5555", "::ffff:127.0.0.1:5555", "::1:5555", "[::1]:5555",
                 "255.255.255.255:5555", "224.0.0.1:5555", "ff02::1:5555", "127.1:5555", "127.0.0.2:5555",
                 "localhost:5555", "LOCALHOST:5555", "tcp://0.0.0.0:5555", "udp://127.0.0.1:5555",
                 "tcp://127.0.0.1:5555/x", "10.0.0.1:5555", "169.254.1.1:5555", "", ":", "127.0.0.1:",
                 "127.0.0.1:5555:5556", "١٢٧.0.0.1:5555"):
        for public in (False, True):
            yield "link addresses", f"{text!r} public={public}", lambda t=text, p=public: address(t, p)


def epoch_cases():
    from sim.world.time import EpochError, parse_epoch

    for text in ("2016-12-31T23:59:60Z", "2016-12-31T23:59:60.999Z", "2016-12-31 23:59:60+00:00", "2016-12-31T23:59:61Z",
                 "2016-12-31T24:00:00Z", "2016-02-30T00:00:00Z", "1949-12-31T23:59:59Z", "2051-01-01T00:00:00Z",
                 "2050-12-31T23:59:59.999999Z", "+002016-01-01", "2016-W01-1", "2016-001", "٢٠١٦-01-01",
                 "2016-01-01T00:00:00+14:00", "2016-01-01T00:00:00-23:59", "2016-01-01T00:00:00.0000001Z",
                 "nan", "", " ", "2016-01-01\n", "2016-01-01T00:00:00ZZ", 2016, None, 2016.5):
        yield "epochs", repr(text), lambda t=text: _accepted_or(EpochError, lambda: parse_epoch(t))


def cli_cases():
    flags = ["--dt", "--duration", "--rates", "--angles", "--torque", "--dampers", "--mass", "--every",
             "--disturbance", "--disturbance-period", "--link-rate", "--orbit", "--epoch", "--magnetorquers",
             "--gyro", "--star-tracker", "--sensor-seed", "--magnetometer"]
    for flag, text in itertools.product(flags, ("1e400", "nan", "٣", "5²", "-" + "9" * 400)):
        value = text if flag not in ("--rates", "--angles", "--torque", "--dampers", "--disturbance", "--gyro",
                                     "--star-tracker") else f"{text},0,0"
        if flag == "--orbit":
            value = f"{text},0,97,0,0,0"
        argv = ["run", f"{flag}={value}", "--duration", "0.01"] if flag != "--duration" else ["run", f"{flag}={value}"]
        if flag == "--link-rate":
            argv += ["--link"]
        yield "command line", f"run {flag} {value[:24]}", h.Case("command line", "A", f"{flag} {value}", argv, 2)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.hostile_attack44", description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=2, help="processes run at once (default 2)")
    parser.add_argument("--no-processes", action="store_true", help="only the in-process cases")
    args = parser.parse_args(argv)
    tried, held, broken = Counter(), Counter(), []
    for surface, name, call in itertools.chain(settings_cases(), tle_cases(), aem_cases(), link_cases(),
                                                epoch_cases()):
        tried[surface] += 1
        try:
            problem = call()
        except Exception:
            problem = "the check itself raised: " + traceback.format_exc(limit=2).splitlines()[-1]
        held[surface] += problem is None
        if problem:
            broken.append((surface, name, problem))
    if not args.no_processes:
        cases = [case for _, _, case in cli_cases()]
        for case, problem in h.run_all(cases, args.jobs):
            tried["command line"] += 1
            held["command line"] += problem is None
            if problem:
                broken.append(("command line", case.name, problem))
    print("| surface | tried | held |\n|---|---|---|")
    for surface in tried:
        print(f"| {surface} | {tried[surface]} | {held[surface]} |")
    print(f"| **all** | **{sum(tried.values())}** | **{sum(held.values())}** |")
    for surface, name, problem in broken:
        print(f"BROKE {surface}: {name}: {problem}")
    return 0 if not broken else 1


if __name__ == "__main__":
    sys.exit(main())
