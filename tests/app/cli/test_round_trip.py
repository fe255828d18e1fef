"""What a run writes, it reads back (issue 44, class 6): every writer and every option, read by an independent reader.

Each case is ``attitude-sim run`` to a file, read back by a reader that is
not the writer (the csv module, numpy's npz, ccsds-ndm-py and this project's
``import`` for AEM, the .a keywords by hand for STK) and compared with the
rows of :func:`sim.api.run` of the same scenario: the same times, the same
attitude (``Q``, or ``Q / |Q|`` where the rows carry a non-unit ``Q``: norm
handling elimination), the same rates where written; every row as wide as the
header; epochs strictly increasing; an attitude file's quaternions unit.
"""

import csv

import ccsds_ndm
import numpy as np
import pytest

from app.cli import main
from sim import api
from sim.io.conventions import Convention, to_convention

#: Runs that stress the writers: a tumble with elimination (|Q| drifts from 1), a step of 1e-7 s (AEM epochs
#: to the microsecond would repeat), and the default.
RUNS = {
    "default": dict(flags=["--duration", "2"], settings=dict(), duration=2.0),
    "elimination": dict(flags=["--norm", "elimination", "--integrator", "half-quat", "--rates", "3,2,1",
                               "--dampers", "0,0,0", "--dt", "0.05", "--duration", "5"],
                        settings=dict(norm="elimination", integrator="half-quat", rates=(3.0, 2.0, 1.0),
                                      dampers=(0.0, 0.0, 0.0), dt=0.05), duration=5.0),
    "dt 1e-7": dict(flags=["--dt", "1e-7", "--duration", "1e-5", "--rates", "0.5,0,0"],
                    settings=dict(dt=1e-7, rates=(0.5, 0.0, 0.0)), duration=1e-5),
}
#: Every writer and option of ``run --out``.
WRITERS = ["csv", "csv scalar-first body-to-inertial", "npz", "npz scalar-first", "aem", "aem --with-rates",
           "aem xml", "aem xml --with-rates", "stk"]


def _truth(run):
    result = api.run(duration=run["duration"], **run["settings"])
    q = np.column_stack([result[f"q{i}"] for i in range(1, 5)])
    w = np.column_stack([result[c] for c in ("wx", "wy", "wz")])
    return result["t"], q, w


def _unit(q):
    return q / np.linalg.norm(q, axis=1)[:, None]


def _angle_between(a, b):
    """Angles (rad) between attitudes ``a`` and ``b`` (rows), q and -q the same: ``4 asin(|a - b| / 2)`` of the unit
    quaternions, the nearer sign (arccos of their product loses half the digits near 0)."""
    ua, ub = _unit(a), _unit(b)
    chord = np.minimum(np.linalg.norm(ua - ub, axis=1), np.linalg.norm(ua + ub, axis=1))
    return 4.0 * np.arcsin(chord / 2.0)


def _write(tmp_path, run, writer):
    words = writer.split()
    fmt = words[0]
    suffix = {"csv": ".csv", "npz": ".npz", "aem": ".xml" if "xml" in words else ".aem", "stk": ".a"}[fmt]
    out = tmp_path / f"out{suffix}"
    flags = [*RUNS[run]["flags"], "--out", str(out)]
    if "--with-rates" in words:
        flags.append("--with-rates")
    order = "scalar-first" if "scalar-first" in words else "scalar-last"
    direction = "body-to-inertial" if "body-to-inertial" in words else "inertial-to-body"
    if fmt in ("csv", "npz") and (order, direction) != ("scalar-last", "inertial-to-body"):
        flags += ["--quaternion", order, "--direction", direction]
    assert main(["run", *flags]) == 0
    return out, Convention(order, direction), "--with-rates" in words


def _read_stk(path):
    lines = path.read_text().splitlines()
    assert sum(line.startswith("BEGIN Attitude") for line in lines) == 1
    count = int(next(line.split()[1] for line in lines if line.startswith("NumberOfAttitudePoints")))
    start = lines.index("AttitudeTimeQuaternions") + 2
    data = np.array([[float(x) for x in line.split()] for line in lines[start:start + count]])
    q_ref_to_body = data[:, 1:5]  # STK: reference -> body, scalar last: the conjugate of this project's Q
    return data[:, 0], q_ref_to_body * np.array([-1.0, -1.0, -1.0, 1.0]), None


def _read_aem(path, rates):
    message = ccsds_ndm.from_file(str(path))
    (segment,) = message.segments
    epochs = list(segment.data.attitude_states_epochs)
    values = segment.data.attitude_states_numpy
    seconds = []
    for e in epochs:  # the epochs to the nanosecond: seconds after 2000-01-01T12:00:00 by hand
        date, clock = e.split("T")
        assert date == "2000-01-01", e
        hh, mm, ss = clock.split(":")
        whole, _, frac = ss.partition(".")
        seconds.append((int(hh) - 12) * 3600 + int(mm) * 60 + int(whole) + int(frac.ljust(9, "0")) * 1e-9)
    q = values[:, :4] * np.array([-1.0, -1.0, -1.0, 1.0])  # EME2000 -> SC_BODY_1: the conjugate
    w = np.radians(values[:, 4:7]) if rates else None
    return np.array(seconds), q, w


def _read_table(path, fmt, conv):
    if fmt == "csv":
        with open(path, newline="") as f:
            table = list(csv.reader(f))
        header, rows = table[0], table[1:]
        assert all(len(r) == len(header) for r in rows), "every row as wide as the header"
        columns = {name: np.array([float(r[i]) for r in rows]) for i, name in enumerate(header)}
    else:
        with np.load(path) as data:
            columns = {name: data[name] for name in data.files}
            assert len({len(v) for v in columns.values()}) == 1, "every column as long as the others"
    names = [n for n in columns if n[:1] == "q" and n[1:].isdigit()]  # q1..q4 or q0..q3 (scalar first)
    return columns["t"], np.column_stack([columns[n] for n in names]), np.column_stack(
        [columns[c] for c in ("wx", "wy", "wz")])


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("run", list(RUNS))
def test_what_a_run_writes_reads_back(tmp_path, run, writer):
    out, conv, rates = _write(tmp_path, run, writer)
    t, q, w = _truth(RUNS[run])
    fmt = writer.split()[0]
    if fmt == "stk":
        t_read, q_read, w_read = _read_stk(out)
    elif fmt == "aem":
        t_read, q_read, w_read = _read_aem(out, rates)
    else:
        t_read, q_read, w_read = _read_table(out, fmt, conv)
    assert len(t_read) == len(t)
    assert np.all(np.diff(t_read) > 0.0), "times strictly increasing"
    # times: to the nanosecond in an AEM (its epochs), exact elsewhere
    assert np.max(np.abs(t_read - t)) <= (1e-9 if fmt == "aem" else 0.0) + 1e-15 * np.max(np.abs(t))
    if fmt in ("aem", "stk"):
        assert np.max(np.abs(np.linalg.norm(q_read, axis=1) - 1.0)) < 1e-12, "an attitude file's Q is unit"
        assert np.max(_angle_between(q_read, q)) < 1e-12  # the attitude Q / |Q| of the rows
    else:
        assert np.max(np.abs(q_read - to_convention(q, conv))) == 0.0  # the rows' own Q, in the chosen convention
    if w_read is not None:
        assert np.max(np.abs(w_read - w)) <= 1e-12 * max(1.0, np.max(np.abs(w)))


@pytest.mark.parametrize("xml", [False, True], ids=["kvn", "xml"])
@pytest.mark.parametrize("run", list(RUNS))
def test_import_reads_what_run_wrote(tmp_path, capsys, run, xml):
    """The program's own ``import`` takes every AEM ``run`` writes (it refused repeated epochs and QC > 1)."""
    out = tmp_path / ("x.xml" if xml else "x.aem")
    assert main(["run", *RUNS[run]["flags"], "--with-rates", "--out", str(out)]) == 0
    back = tmp_path / "back.csv"
    assert main(["import", str(out), "--out", str(back)]) == 0, capsys.readouterr().err
    t, q, _ = _truth(RUNS[run])
    with open(back, newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(t)
    q_back = np.array([[float(r[f"q{i}"]) for i in range(1, 5)] for r in rows])
    assert np.max(_angle_between(q_back, q)) < 1e-12
