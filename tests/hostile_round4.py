"""Round four's hostile cases (issue 44), each a real attitude-sim process: :func:`cases` gives them to tests/hostile_cases.py.

The classes are issue 44's: ``D1`` a model's domain checked where the input
enters (IGRF-14's years over the run's span, a TLE SGP4 cannot propagate at
the epoch; a TLE that fails mid-run a fault with its rows kept), ``D2``
every number a reader reads finite and in range (TLE fields, AEM
quaternions and rates), ``D3`` the live link (a bad message dropped, the
thread alive; one address parser: ASCII digits, loopback unless
``--link-public``), ``D4`` one rule names every input of a run, ``D5`` costs
estimated (the AEM import's memory from its states, the sweep's facets),
``D6`` outputs that agree with themselves (the columns kept, AEM epochs to
the nanosecond, unit attitudes, one-line comments), ``D7`` signals and stops
that report truly (Ctrl-C during import, a video that faults), ``D8`` the
API's one number check (integers beyond a float), ``D9`` rough edges (the
leap second, ``--j2`` without an orbit).

Kept apart from tests/hostile_cases.py (which imports this module and passes
itself, so the helpers are shared and nothing is imported in a circle).
"""

from __future__ import annotations

import csv
import io
import json
import shlex
import signal
import sys
import time

#: ISS, 2024 (valid checksums); and its 2008 set, which SGP4 cannot take back to 1950.
L1 = "1 25544U 98067A   24079.54791667  .00016717  00000-0  30057-3 0  9997"
L2 = "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.49815311 44296"
ISS_2008 = ("1 25544U 98067A   08264.51782528 -.00002182  00000-0 -11606-4 0  2927\n"
            "2 25544  51.6416 247.4627 0006703 130.5360 325.0288 15.72125391563537\n")
_ORBIT = ["--orbit", "500,0,97,0,0,0"]


def checksum(line68: str) -> str:
    """``line68`` with NORAD's modulo-10 checksum (digits their value, '-' one) appended."""
    return line68 + str(sum(int(c) if c.isdigit() else (1 if c == "-" else 0) for c in line68[:68]) % 10)


def tle(line1=L1, line2=L2) -> str:
    return f"{checksum(line1[:68])}\n{checksum(line2[:68])}\n"


def field(line: str, start: int, end: int, text: str) -> str:
    """``line`` with columns ``start+1..end`` replaced by ``text`` right-aligned."""
    return line[:start] + text.rjust(end - start)[: end - start] + line[end:]


#: ISS with B* 9.9999: SGP4 fails at t = 943.9 s from this epoch (the rows before it are kept).
BSTAR = tle(field(L1, 53, 61, "99999+1"))
BSTAR_EPOCH = ["--epoch", "2024-03-19T13:09:00Z"]


def aem(rows, kind="QUATERNION", extra_meta="") -> str:
    """A KVN AEM (504.0-B-2) of ``rows`` (text after each epoch), one a second from 2000-01-01T12:00:00."""
    epochs = [f"2000-01-01T12:00:{k:02d}.000" for k in range(len(rows))]
    data = "\n".join(f"{e} {r}" for e, r in zip(epochs, rows))
    return ("CCSDS_AEM_VERS = 2.0\nCREATION_DATE = 2024-01-01T00:00:00\nORIGINATOR = HOSTILE\n\nMETA_START\n"
            "OBJECT_NAME = X\nOBJECT_ID = 1\nCENTER_NAME = EARTH\nREF_FRAME_A = EME2000\nREF_FRAME_B = SC_BODY_1\n"
            f"TIME_SYSTEM = UTC\nSTART_TIME = {epochs[0]}\nSTOP_TIME = {epochs[-1]}\nATTITUDE_TYPE = {kind}\n"
            f"{extra_meta}META_STOP\n\nDATA_START\n{data}\nDATA_STOP\n")


def aem_line(text: str, row: str) -> int:
    """The line number of the data line holding ``row``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.endswith(row))


def big_aem(states: int):
    """A QUATERNION AEM of ``states`` states, written line by line (35 bytes a state)."""
    def make(path):
        head = aem(["0 0 0 1", "0 0 0 1"]).split("DATA_START\n")[0]
        with open(path, "w") as f:
            f.write(head + "DATA_START\n")
            for k in range(states):
                s = k // 10
                f.write(f"2000-{1 + s // 86400:03d}T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{k % 10}"
                        " 0 0 0 1\n")
            f.write("DATA_STOP\n")
    return make


def icosphere(subdivisions: int):
    """An OBJ sphere of 20 * 4**subdivisions facets, radius 0.5 m, wound outward."""
    def make(path):
        t = (1 + 5 ** 0.5) / 2
        v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
             (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
        f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
             (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
             (6, 2, 10), (8, 6, 7), (9, 8, 1)]

        def unit(p):
            n = sum(x * x for x in p) ** 0.5
            return tuple(x / n for x in p)

        v = [unit(p) for p in v]
        for _ in range(subdivisions):
            cache, out = {}, []

            def mid(a, b):
                key = (min(a, b), max(a, b))
                if key not in cache:
                    v.append(unit(tuple(x + y for x, y in zip(v[a], v[b]))))
                    cache[key] = len(v) - 1
                return cache[key]

            for a, b, c in f:
                ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
                out += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
            f = out
        lines = [f"v {x * 0.5!r} {y * 0.5!r} {z * 0.5!r}" for x, y, z in v]
        lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in f]
        path.write_text("\n".join(lines) + "\n")
    return make


def api_call(expression: str) -> str:
    """A shell line: Python evaluates ``expression`` (sim.api as ``api``) and prints the exception's type and message."""
    code = (f"import sim.api as api\ntry:\n    {expression}\n    print('accepted')\n"
            "except Exception as exc:\n    print(type(exc).__name__ + ': ' + str(exc))\n")
    return f"{sys.executable} -c {shlex.quote(code)}"


def says_out(pattern: str):
    """stdout matches ``pattern`` (a regular expression)."""
    import re

    def check(folder, out, err):
        return None if re.search(pattern, out) else f"stdout lacks {pattern!r}: {out.strip()[-300:]!r}"
    return check


def csv_rows_at_least(name: str, least: int):
    def check(folder, out, err):
        data = (folder / name).read_text()
        table = list(csv.reader(io.StringIO(data)))
        if len(table) - 1 < least or any(len(r) != len(table[0]) for r in table):
            return f"{name}: {len(table) - 1} rows (at least {least}, each whole expected)"
        return None
    return check


def one_line_block(name: str, keyword: str):
    """``keyword`` starts exactly one line of ``name`` (no comment forged a second block)."""
    def check(folder, out, err):
        lines = (folder / name).read_text().splitlines()
        count = sum(line.startswith(keyword) for line in lines)
        return None if count == 1 else f"{name}: {count} lines start with {keyword!r}"
    return check


def unit_quaternions(name: str):
    """Every quaternion of the AEM ``name`` (KVN, QUATERNION) is unit to 1e-12: the standard's, an attitude."""
    def check(folder, out, err):
        worst = 0.0
        for line in (folder / name).read_text().splitlines():
            if line[:2] == "20":
                q = [float(x) for x in line.split()[1:5]]
                worst = max(worst, abs(sum(x * x for x in q) ** 0.5 - 1.0))
        return None if worst < 1e-12 else f"{name}: a quaternion of |Q| - 1 = {worst:.3g}"
    return check


def epochs_increase(name: str):
    def check(folder, out, err):
        epochs = [line.split()[0] for line in (folder / name).read_text().splitlines() if line[:2] == "20"]
        if len(set(epochs)) != len(epochs) or len(epochs) < 2:
            return f"{name}: {len(epochs)} epochs, {len(set(epochs))} distinct"
        return None
    return check


def _two_free_ports() -> int:
    """A port ``p`` below the kernel's ephemeral range with ``p`` and ``p + 1`` free (the link's two sockets)."""
    import random
    import socket

    while True:
        port = random.randrange(20000, 30000)
        try:
            with socket.socket() as a, socket.socket() as b:
                a.bind(("127.0.0.1", port))
                b.bind(("127.0.0.1", port + 1))
            return port
        except OSError:
            continue


def link_client(messages, expect_ack=True):
    """Run the argv (a ``run --link PORT``), send ``messages`` (bytes) once the link's states arrive, then the
    good input last; wait for its ack, and let the run end."""
    def run(case, folder):
        import zmq

        h = link_client.h
        port = _two_free_ports()
        argv = [a.replace("{port}", str(port)) for a in case.argv]
        proc = h._popen(case, folder, argv)
        context = zmq.Context()
        sub, push = context.socket(zmq.SUB), context.socket(zmq.PUSH)
        for sock in (sub, push):
            sock.setsockopt(zmq.LINGER, 0)
        try:
            sub.setsockopt(zmq.SUBSCRIBE, b"")
            sub.connect(f"tcp://127.0.0.1:{port}")
            push.connect(f"tcp://127.0.0.1:{port + 1}")
            deadline = time.monotonic() + case.timeout / 2
            while time.monotonic() < deadline and proc.poll() is None and not sub.poll(100):
                pass
            push.setsockopt(zmq.SNDTIMEO, 10_000)  # never block for ever on a link that is gone
            for message in messages:
                push.send(message)
            good = json.dumps({"v": 1, "type": "input", "seq": 7, "torque": [0.01, 0, 0]}).encode()
            push.send(good)
            while expect_ack and time.monotonic() < deadline and proc.poll() is None:
                if sub.poll(100) and json.loads(sub.recv()).get("ack") == 7:
                    break
        finally:
            sub.close()
            push.close()
            context.term()
        return h._finish(proc, case.timeout)
    return run


def ctrl_c_when_partial(name):
    def ready(folder, pid, elapsed):
        return any(p.name.startswith(name + ".") for p in folder.iterdir())
    return ready


def cases(h) -> list:
    """Round four's cases, built with tests/hostile_cases.py's :class:`Case` and helpers (``h``)."""
    Case, KEEP = h.Case, h.KEEP
    link_client.h = h  # the runner's helpers (_free_port, _popen, _finish)
    K = {"keep.csv": KEEP}
    orbit_igrf = [*_ORBIT, "--magnetic-field", "igrf"]
    iss_nan = tle(L1, field(L2, 52, 63, "nan"))
    iss_neg = tle(L1, field(L2, 52, 63, "-1.00000000"))
    iss_letter = tle(field(L1, 20, 21, "X"), L2)
    iss_ecc = tle(L1, field(L2, 26, 33, "00O6703"))
    tiny = aem(["0 0 0 1", "5e-324 0 0 0", "0 0 0 1"])
    tiny4 = aem(["0 0 0 1", "1e-200 1e-200 1e-200 1e-200", "0 0 0 1"])
    deriv = aem(["0 0 0 1 0 0 0 0", "0 0 0 1 1e308 1e308 1e308 1e308", "0 0 0 1 0 0 0 0"],
                "QUATERNION/DERIVATIVE")
    angvel = aem(["0 0 0 1 0 0 0", "0 0 0 1 1e300 0 0", "0 0 0 1 0 0 0"], "QUATERNION/ANGVEL",
                 "ANGVEL_FRAME = SC_BODY_1\n")
    est = ('[scenario]\nduration = 0.2\n[settings]\ngyro = [1e-5, 1e-7]\nstar_tracker = [10, 10]\n'
           'estimator = "mekf"\n[[events]]\nat = 0.1\nestimator = "truth"\n')
    surf = "[default]\ndrag = 2\n"
    srp_scenario = '[scenario]\nduration = 0.1\n[settings]\norbit = [500, 0, 97, 0, 0, 0]\nsrp = true\nsurfaces = "surf.toml"\n'
    evil = "evil\nBEGIN Attitude\nNumberOfAttitudePoints 1\nDATA_START\n2000-01-01T12:00:00 0 0 0 1.toml"
    big_int = ('{"v": 1, "type": "input", "seq": 1, "torque": [1' + "0" * 400 + ', 0, 0]}').encode()
    api = "api.run(duration=0.01, {})"
    link_argv = ["run", "--link", "127.0.0.1:{port}", "--duration", "5", "--out", "o.csv"]
    out = [
        # ---------------------------------------------------------- D1. a model's domain where the input enters
        Case("domain", "D1", "run: IGRF at 2040 refused up front, not an internal error",
             ["run", *orbit_igrf, "--epoch", "2040-01-01T00:00:00Z", "--out", "keep.csv"], 2,
             "IGRF-14 covers the years 1900 to 2030", files=K, keep=("keep.csv",)),
        Case("domain", "D1", "run: the dipole (IGRF's first coefficients) at 2040 likewise",
             ["run", *_ORBIT, "--magnetic-field", "dipole", "--epoch", "2040-01-01T00:00:00Z"], 2,
             "IGRF-14 covers"),
        Case("domain", "D1", "run: a run whose span leaves 2030 refused for the whole span",
             ["run", *_ORBIT, "--magnetic-field", "dipole", "--epoch", "2029-12-31T00:00:00Z", "--dt", "1",
              "--duration", "200000", "--out", "keep.csv"], 2, "a run of 200000 s .* reaches 2030", files=K,
             keep=("keep.csv",)),
        Case("domain", "D1", "sweep: --epoch-spread past 2030 refused for its latest epoch",
             ["sweep", "--bodies", "4", "--duration", "1", *orbit_igrf, "--epoch", "2029-12-20T00:00:00Z",
              "--epoch-spread", "3e7", "--out", "keep.csv"], 2, r"epoch_spread: .* \+ 3e\+07 s: .*IGRF-14",
             files=K, keep=("keep.csv",)),
        Case("domain", "D1", "run: an event that moves the epoch past 2030: its line named",
             ["run", "--scenario", "ev.toml", "--out", "keep.csv"], 2, r"ev.toml, line 6: .*IGRF-14 covers",
             files={"ev.toml": '[scenario]\nduration = 10\n[settings]\norbit = [500, 0, 97, 0, 0, 0]\n'
                               'magnetic_field = "igrf"\n[[events]]\nat = 5\nepoch = "2031-01-01T00:00:00Z"\n',
                    **K}, keep=("keep.csv",)),
        Case("domain", "D1", "video: IGRF at 2040 refused before any frame",
             ["video", *orbit_igrf, "--epoch", "2040-01-01T00:00:00Z", "--out", "keep.mp4"], 2, "IGRF-14 covers",
             files={"keep.mp4": KEEP}, keep=("keep.mp4",), absent=("keep.mp4.*",)),
        Case("domain", "D1", "gui: a scenario of IGRF at 2040 refused before the window",
             ["gui", "--scenario", "s.toml", "--screenshot", "s.png"], 2, r"s.toml, line \d+: .*IGRF-14 covers",
             files={"s.toml": '[scenario]\nduration = 1\n[settings]\norbit = [500, 0, 97, 0, 0, 0]\n'
                              'magnetic_field = "igrf"\nepoch = "2040-01-01T00:00:00Z"\n'}, absent=("s.png",)),
        Case("domain", "D1", "API: IGRF at 2040 is a SettingsError",
             shell=api_call(api.format("orbit=(500, 0, 97, 0, 0, 0), magnetic_field='igrf', "
                                       "epoch='2040-01-01T00:00:00Z'")), code=0, lines=0,
             check=says_out(r"^SettingsError: magnetic_field: the field model IGRF-14")),
        Case("domain", "D1", "run: ISS's 2008 TLE at 1950: SGP4's error 6 named, exit 2",
             ["run", "--tle", "iss.tle", "--epoch", "1950-01-01", "--out", "keep.csv"], 2,
             r"tle: cannot be propagated at the epoch 1950-01-01T00:00:00Z: SGP4 error 6",
             files={"iss.tle": ISS_2008, **K}, keep=("keep.csv",)),
        Case("domain", "D1", "run: B* 9.9999 fails at t = 943.9 s: a fault, its 9,439 rows kept, exit 1",
             ["run", "--tle", "b.tle", *BSTAR_EPOCH, "--duration", "2000", "--dt", "0.1", "--out", "b.csv"], 1,
             r"simulation fault: t=943.9 s: tle: SGP4 error 1", files={"b.tle": BSTAR},
             check=csv_rows_at_least("b.csv", 9400), timeout=120),
        Case("domain", "D1", "sweep: the same TLE (one orbit for every body): a fault, exit 1, not an internal error",
             ["sweep", "--tle", "b.tle", *BSTAR_EPOCH, "--duration", "1200", "--bodies", "4", "--out", "keep.csv"], 1,
             r"simulation fault: t=943.\d+ s: tle: SGP4 error 1 .* every body of the sweep", files={"b.tle": BSTAR, **K},
             keep=("keep.csv",), timeout=120),
        Case("domain", "D1", "video: the same TLE: the frames before the fault kept, exit 1 as run",
             ["video", "--tle", "b.tle", *BSTAR_EPOCH, "--duration", "1200", "--dt", "0.1", "--speed", "100",
              "--what", "view", "--size", "320x240", "--out", "v.mp4"], 1,
             r"simulation fault: t=943.9 s: .*v.mp4 holds the \d+ frames before it", files={"b.tle": BSTAR},
             check=lambda folder, out, err: None if (folder / "v.mp4").stat().st_size > 0 else "no v.mp4",
             timeout=180),
        # ---------------------------------------------------------- D2. every number a reader reads
        Case("readers", "D2", "TLE: a nan mean motion with valid checksums: refused at the reader",
             ["run", "--tle", "t.tle", "--out", "keep.csv"], 2, r"line 2, columns 53-63: the mean motion 'nan'",
             files={"t.tle": iss_nan, **K}, keep=("keep.csv",)),
        Case("readers", "D2", "TLE: mean motion -1 refused with its range",
             ["run", "--tle", "t.tle", "--out", "keep.csv"], 2, r"the mean motion is -1, outside the TLE's range",
             files={"t.tle": iss_neg, **K}, keep=("keep.csv",)),
        Case("readers", "D2", "TLE: a letter in the epoch refused",
             ["run", "--tle", "t.tle"], 2, r"line 1, columns 19-32: the epoch '24X79.54791667' is not a number",
             files={"t.tle": iss_letter}),
        Case("readers", "D2", "TLE: a letter O for a zero in the eccentricity refused",
             ["run", "--tle", "t.tle"], 2, r"line 2, columns 27-33: the eccentricity", files={"t.tle": iss_ecc}),
        Case("readers", "D2", "gui: a scenario's nan TLE refused before the window",
             ["gui", "--scenario", "s.toml", "--screenshot", "s.png"], 2, "the mean motion 'nan'",
             files={"s.toml": f'[scenario]\nduration = 1\n[settings]\ntle = """{iss_nan}"""\n'}, absent=("s.png",)),
        Case("readers", "D2", "AEM: a state 5e-324 0 0 0 refused with its line",
             ["import", "a.aem", "--out", "keep.csv"], 2,
             rf"a.aem, line {aem_line(tiny, '5e-324 0 0 0')}: Q1 Q2 Q3 QC: .* too small to normalise",
             files={"a.aem": tiny, **K}, keep=("keep.csv",)),
        Case("readers", "D2", "AEM: 1e-200 four times refused with its line",
             ["import", "a.aem", "--out", "keep.csv"], 2,
             rf"a.aem, line {aem_line(tiny4, '1e-200 1e-200 1e-200 1e-200')}: Q1 Q2 Q3 QC: \|Q\| = 2e-200 is too small",
             files={"a.aem": tiny4, **K}, keep=("keep.csv",)),
        Case("readers", "D2", "AEM: a QUATERNION/DERIVATIVE of 1e308: rates of inf refused, not imported",
             ["import", "a.aem", "--out", "keep.csv"], 2,
             r"line \d+: QUATERNION/DERIVATIVE: body rates of \(inf, inf, inf\) rad/s",
             files={"a.aem": deriv, **K}, keep=("keep.csv",)),
        Case("readers", "D2", "AEM: an ANGVEL of 1e300 deg/s refused with the simulator's range",
             ["import", "a.aem", "--out", "keep.csv"], 2, r"body rates of .* the simulator accepts -10000 to 10000",
             files={"a.aem": angvel, **K}, keep=("keep.csv",)),
        # ---------------------------------------------------------- D3. the live link
        Case("link", "D3", "a 401-digit integer, then a valid input: one dropped, one applied, the thread alive",
             link_argv, 0, r"2 inputs read, 1 applied, 1 dropped", lines=None,
             run=link_client([big_int]), timeout=60),
        Case("link", "D3", "ten malformed messages of every kind, then a valid one: all counted, the last applied",
             link_argv, 0, r"11 inputs read, 1 applied, 10 dropped", lines=None,
             run=link_client([b"\xff\xfe", b"[]", b"{", b'{"v": 1e400}', b'{"v": 1, "type": "input", "seq": -1}',
                              b'{"v": 1, "type": "input", "torque": [NaN, 0, 0]}',
                              b'{"v": 1, "type": "input", "torque": [1e999, 0, 0]}',
                              b'{"v": 1, "type": "input", "seq": ' + b"9" * 5000 + b'}',
                              b'{"v": 2, "type": "input", "torque": [0, 0, 0]}',
                              b'{"v": 1, "type": "input", "torque": "0,0,0"}']), timeout=60),
        Case("link", "D3", "--link 55(superscript 2)5: the port's digits are ASCII only", ["run", "--link", "55²5"], 2,
             "the port must be a number from 1024 to 65534"),
        Case("link", "D3", "--link with an Arabic-Indic port", ["run", "--link", "٥٥٥٥"], 2, "the port must be"),
        Case("link", "D3", "--link 0.0.0.0 needs --link-public", ["run", "--link", "0.0.0.0:5555"], 2,
             "0.0.0.0 is not loopback.*add --link-public"),
        Case("link", "D3", "--link ::ffff:0.0.0.0 (0.0.0.0 mapped) needs --link-public",
             ["run", "--link", "::ffff:0.0.0.0:5555"], 2, "is not loopback"),
        Case("link", "D3", "--link of the broadcast address refused", ["run", "--link", "255.255.255.255:5555"], 2,
             "is a broadcast address"),
        Case("link", "D3", "--link of a multicast address refused", ["run", "--link", "224.0.0.1:5555"], 2,
             "is a multicast address"),
        Case("link", "D3", "--link-public without --link refused", ["run", "--link-public"], 2,
             "--link-public: only with --link"),
        Case("link", "D3", "gui --link 0.0.0.0 needs --link-public", ["gui", "--link", "0.0.0.0:5555"], 2,
             "add --link-public"),
        # ---------------------------------------------------------- D4. one rule names every input
        Case("inputs", "D4", "run --out is the --tle file", ["run", "--tle", "t.tle", "--out", "t.tle"], 2,
             r"is the run's input \(--tle\)", files={"t.tle": tle()}, keep=("t.tle",)),
        Case("inputs", "D4", "run --out is the --surfaces file",
             ["run", *_ORBIT, "--srp", "--surfaces", "surf.toml", "--out", "surf.toml"], 2,
             r"is the run's input \(--surfaces\)", files={"surf.toml": surf}, keep=("surf.toml",)),
        Case("inputs", "D4", "run --out a hard link to the scenario's surfaces file",
             ["run", "--scenario", "s.toml", "--out", "hard.csv"], 2, r"the scenario's surfaces file",
             files={"surf.toml": surf, "s.toml": srp_scenario, "hard.csv": h.hardlink_to("surf.toml")},
             keep=("surf.toml",)),
        Case("inputs", "D4", "sweep --out a link to the TLE",
             ["sweep", "--tle", "t.tle", "--bodies", "2", "--duration", "0.1", "--out", "l.csv"], 2,
             r"\(--tle\)", files={"t.tle": tle(), "l.csv": h.symlink_to("t.tle")}, keep=("t.tle",)),
        Case("inputs", "D4", "sweep --trajectories is the surfaces file",
             ["sweep", "--scenario", "s.toml", "--bodies", "2", "--trajectories", "surf.toml"], 2,
             "surfaces file", files={"surf.toml": surf, "s.toml": srp_scenario}, keep=("surf.toml",)),
        Case("inputs", "D4", "gui --screenshot is the scenario's surfaces file",
             ["gui", "--scenario", "s.toml", "--screenshot", "surf.toml"], 2, "the scenario's surfaces file",
             files={"surf.toml": surf, "s.toml": srp_scenario}, keep=("surf.toml",)),
        Case("inputs", "D4", "video --out a link to the surfaces file",
             ["video", "--scenario", "s.toml", "--out", "v.mp4"], 2, "surfaces file",
             files={"surf.toml": surf, "s.toml": srp_scenario, "v.mp4": h.symlink_to("surf.toml")},
             keep=("surf.toml",)),
        Case("inputs", "D4", "run --out is a mesh an event switches to",
             ["run", "--scenario", "e.toml", "--out", "box.obj"], 2, "its body mesh",
             files={"box.obj": h.obj(), "e.toml": h.scenario(extra='[[events]]\nat = 0.01\nbody = "box.obj"\n')},
             keep=("box.obj",)),
        # ---------------------------------------------------------- D5. costs estimated
        Case("costs", "D5", "import of 1,000,000 states under ulimit -v 2.5 GB: refused with the estimate, no abort",
             shell="ulimit -v 2500000; {cli} import big.aem --out keep.csv", code=2,
             says=r"importing 1,000,000 attitude states would need 4.66 GiB in memory",
             files={"big.aem": big_aem(1_000_000), **K}, keep=("keep.csv",), timeout=120),
        Case("costs", "D5", "sweep: 30,000 bodies on a 20,480-facet sphere with SRP: the facets counted, refused",
             ["sweep", "--body", "sphere.obj", "--mass", "10", *_ORBIT, "--srp", "--bodies", "30000",
              "--duration", "1", "--out", "keep.csv"], 2, r"GiB in memory", files={"sphere.obj": icosphere(5), **K},
             keep=("keep.csv",), timeout=120),
        # ---------------------------------------------------------- D6. outputs that agree with themselves
        Case("outputs", "D6", "an event estimator = truth: refused at load, its line, no CSV of two widths",
             ["run", "--scenario", "est.toml", "--out", "keep.csv"], 2,
             r"est.toml, line 7: \[\[events\]\] #1: estimator: a run keeps the columns of its rows",
             files={"est.toml": est, **K}, keep=("keep.csv",)),
        Case("outputs", "D6", "the same with npz: refused, not an internal error",
             ["run", "--scenario", "est.toml", "--out", "keep.npz"], 2, "a run keeps the columns",
             files={"est.toml": est, "keep.npz": KEEP}, keep=("keep.npz",)),
        Case("outputs", "D6", "run --dt 1e-7 to AEM: 101 distinct epochs, and import reads it back",
             shell="{cli} run --dt 1e-7 --duration 1e-5 --out x.aem && {cli} import x.aem --out x.csv", code=0,
             lines=2, says="x.aem: 101 states", check=h.both(epochs_increase("x.aem"), h.whole_csv("x.csv", rows=101))),
        Case("outputs", "D6", "elimination to AEM: unit attitudes, import reads them back",
             shell="{cli} run --norm elimination --rates 3,2,1 --dt 0.05 --duration 20 --out e.aem && "
                   "{cli} import e.aem --out e.csv", code=0, lines=2, says="e.aem: 401 states",
             check=h.both(unit_quaternions("e.aem"), h.whole_csv("e.csv", rows=401))),
        Case("outputs", "D6", "STK: a scenario's name with newlines stays in its comment",
             ["run", "--scenario", evil, "--out", "s.a"], 0, lines=1,
             files={evil: "[scenario]\nduration = 0.1\n"}, check=one_line_block("s.a", "BEGIN Attitude")),
        Case("outputs", "D6", "AEM: the same name cannot open a second DATA_START (ccsds-ndm-py held already)",
             shell="{cli} run --scenario " + shlex.quote(evil) + " --out s.aem && {cli} import s.aem --out s.csv",
             code=0, lines=2, files={evil: "[scenario]\nduration = 0.1\n"}, check=one_line_block("s.aem", "DATA_START")),
        # ---------------------------------------------------------- D7. signals and stops that report truly
        Case("signals", "D7", "Ctrl-C during import: exit 130, 'nothing written', the old file kept",
             ["import", "big.aem", "--out", "keep.csv"], 130, r"interrupted; nothing written, keep.csv is as it was",
             files={"big.aem": big_aem(100_000), **K}, keep=("keep.csv",), absent=("keep.csv.*",),
             run=h.signal_when(signal.SIGINT, ctrl_c_when_partial("keep.csv")), timeout=120),
        Case("signals", "D7", "video of a numerical fault (rkmk4, huge rates) exits 1 as run does",
             ["video", "--integrator", "rkmk4", "--rates", "1e4,3e3,1e3", "--dampers", "0,0,0", "--dt", "1",
              "--duration", "60", "--what", "view", "--size", "320x240", "--out", "v.mp4"], 1,
             r"simulation fault: t=\d+ s: the state is no longer finite.*frames before it", lines=None, timeout=120),
        # ---------------------------------------------------------- D9. rough edges
        Case("rough edges", "D9", "the leap second 2016-12-31T23:59:60Z named as such",
             ["run", "--epoch", "2016-12-31T23:59:60Z"], 2, "is a leap second \\(23:59:60\\)"),
        Case("rough edges", "D9", "--j2 without an orbit refused", ["run", "--j2"], 2, "j2: perturbs an orbit"),
        Case("rough edges", "D9", "API: j2=True without an orbit a SettingsError", shell=api_call(api.format("j2=True")),
             code=0, lines=0, check=says_out(r"^SettingsError: j2: perturbs an orbit")),
    ]
    # ---------------------------------------------------------- D8. the API's one number check
    for key, value in (("orbit", "(10**400, 0, 97, 0, 0, 0)"), ("pointing_axis", "(10**400, 0, 0)"),
                       ("magnetorquers", "10**400"), ("star_tracker", "(10**400, 1)"), ("rates", "(10**400, 0, 0)"),
                       ("dt", "10**400"), ("gyro", "(10**400, 0)"), ("inertia", "(10**400, 1, 1, 0, 0, 0)"),
                       ("rates", "(10**5000, 0, 0)"), ("duration", "-10**400")):
        expression = (f"api.run(duration={value})" if key == "duration" else api.format(f"{key}={value}"))
        out.append(Case("API", "D8", f"{key}={value}: SettingsError, not OverflowError", shell=api_call(expression),
                        code=0, lines=0, check=says_out(r"^SettingsError: ")))
    return out
