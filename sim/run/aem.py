"""CCSDS Attitude Ephemeris Messages (AEM, CCSDS 504.0-B-2) out and in, through ccsds-ndm-py.

Writing (:func:`aem_text`): the run's quaternions, and optionally its body
rates, from ``EME2000`` (REF_FRAME_A) to ``SC_BODY_1`` (REF_FRAME_B), in UTC,
the epochs counted from the run's epoch (:func:`run_epoch`), as KVN or XML.

The standard's quaternion (504.0-B-2 annex F2) is not this project's Q.
Version 2 fixes the order (``Q1 Q2 Q3 QC``, the scalar last; annex J, AEM
change 7) and the direction (always from REF_FRAME_A to REF_FRAME_B; the
keywords QUATERNION_TYPE and ATTITUDE_DIR are gone), and defines
``X_B = M_BA X_A`` with ``M_BA`` the transpose of Hoffmann's ``C`` of the
same four numbers (F2.1; checked on the example of F2.2).  So the AEM
quaternion from EME2000 to SC_BODY_1 is the conjugate of this project's Q
(:mod:`sim.io.conventions`: ``body-to-inertial``, scalar last).  The angular
velocity (F4) is that of frame B relative to frame A, in deg/s: with
``ANGVEL_FRAME = SC_BODY_1`` it is this project's body rates ``w``.

Reading (:func:`read_aem`): any AEM that ccsds-ndm-py reads (version 2, KVN
or XML): quaternions, Euler angles (any EULER_ROT_SEQ, annex F3) or spin
data (annex F5.2), with or without rates, in either direction (the
spacecraft body frame as REF_FRAME_B or as REF_FRAME_A), converted to this
project's Q.  Rates come from the file when it has them (ANGVEL, or the
quaternion's derivative, or the spin rate of SPIN), else from the
quaternions by differences (:func:`sim.core.quaternion.rates_from_samples`).
A file that is malformed or that this reader cannot use raises
:class:`AttitudeFileError`: one line naming the line (or the epoch) and the
field.  Nothing is returned half read.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

from sim.core.quaternion import (cayley, conjugate, from_axis_angle, normalize, product, rates_from_qdot,
                                 rates_from_samples)
from sim.io.costs import AEM_BYTES_PER_STATE
from sim.io.limits import LIMITS, RunTooLong, check_cost
from sim.io.reading import FileRefused, read_regular

__all__ = ["DEFAULT_EPOCH", "AttitudeFileError", "AttitudeTrack", "run_epoch", "epoch_text", "attitudes",
           "comment_line", "aem_text",
           "read_aem", "parse_aem", "count_states", "MAX_AEM_BYTES"]

#: The epoch of t = 0 when the scenario names none: 2000-01-01T12:00:00 UTC (J2000's calendar date and hour).
DEFAULT_EPOCH = datetime(2000, 1, 1, 12, 0, 0, tzinfo=UTC)
#: Largest attitude file read (bytes).
MAX_AEM_BYTES = 512 << 20
_DEG = math.pi / 180.0
#: The body rates a file may hold: those the simulator accepts (a derivative of 1e308 gives inf).
_RATES = LIMITS["rates"]


class AttitudeFileError(ValueError):
    """An attitude file that cannot be read: the message is one line naming the file, the line or epoch and the field."""


@dataclass(frozen=True)
class AttitudeTrack:
    """An attitude history read from a file, in this project's convention.

    ``t`` (N,) s from the first epoch; ``q`` (N, 4) scalar last, inertial ->
    body; ``w`` (N, 3) body rates, rad/s; ``rates_from`` says where the rates
    came from; ``epoch`` the first epoch as written in the file;
    ``time_system`` as the file states it; ``summary`` one line saying what
    was converted.
    """

    t: np.ndarray
    q: np.ndarray
    w: np.ndarray
    epoch: str
    time_system: str
    rates_from: str
    summary: str


def run_epoch(scenario=None) -> datetime:
    """The calendar epoch of a run's t = 0: the scenario's (or its settings') ``epoch`` if it has one, else
    :data:`DEFAULT_EPOCH`.

    Kept small and alone: the scenario's date (issue 31) plugs in here.  An
    epoch may be a timezone-aware :class:`datetime` or an ISO 8601 text; a
    naive one is taken as UTC.
    """
    value = None
    for holder in (scenario, getattr(scenario, "settings", None)):
        value = getattr(holder, "epoch", None) if holder is not None else None
        if value is not None:
            break
    if value is None:
        return DEFAULT_EPOCH
    if isinstance(value, str):
        value = datetime.fromisoformat(value)  # Python >= 3.11 (requires-python) reads a trailing Z
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def epoch_text(epoch: datetime, t: float) -> str:
    """``epoch + t`` seconds as a CCSDS UTC time, ``YYYY-MM-DDThh:mm:ss.fffffffff``, to the nanosecond.

    The smallest step a run takes is a nanosecond (``LIMITS["dt"]``): written to the microsecond, the
    epochs of a run at ``dt = 1e-7`` repeat, and the file is no attitude ephemeris (504.0-B-2 4.2.5.3:
    increasing epochs).  CCSDS 301.0-B-4 (3.5.1) allows any number of digits of the second.
    """
    ns = round(float(t) * 1e9)
    whole = (epoch + timedelta(microseconds=ns // 1000)).astimezone(UTC)
    return f"{whole:%Y-%m-%dT%H:%M:%S.%f}{ns % 1000:03d}"


def attitudes(q) -> np.ndarray:
    """The attitudes of quaternion rows ``q`` (N, 4): ``Q / |Q|``, what an attitude file holds.

    With norm handling ``elimination`` the carried Q (the rows' q columns) is not unit and the attitude
    is ``Q / |Q|`` (Joshi (25); :attr:`sim.model.simulation.Simulation.attitude`); the standards'
    quaternions are unit (504.0-B-2 F2; STK's .a format), and readers refuse a component above 1.
    """
    q = np.asarray(q, dtype=float)
    n = np.sqrt(np.einsum("ij,ij->i", q, q))[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0.0, q / n, q)  # a zero row stays zero (the reader names it)


def comment_line(text: str) -> str:
    """``text`` as one comment line: line breaks and other control characters written as escapes
    (a scenario's name cannot start a line of its own, such as a forged ``BEGIN Attitude``)."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in str(text))


def aem_text(t, q, epoch: datetime = DEFAULT_EPOCH, w=None, *, xml: bool = False,
             object_name: str = "ATTITUDE-SIM", object_id: str = "UNKNOWN", comment: str = "") -> str:
    """An AEM (KVN, or XML) of attitudes ``q`` at times ``t`` from ``epoch``; with ``w``, QUATERNION/ANGVEL.

    Parameters
    ----------
    t : array_like, shape (N,)
        Times, s, increasing; the epochs written to the nanosecond (:func:`epoch_text`).
    q : array_like, shape (N, 4)
        This project's quaternions (scalar last, inertial -> body); written
        as the standard's quaternion from EME2000 to SC_BODY_1, their
        conjugates.  The standard's quaternion is unit: give the attitudes
        (:func:`attitudes` of a run with norm handling elimination).
    epoch : datetime
        The UTC time of t = 0.
    w : array_like, shape (N, 3), optional
        Body rates, rad/s; written in deg/s with ANGVEL_FRAME = SC_BODY_1.
    """
    import ccsds_ndm as ndm

    t = np.asarray(t, dtype=float)
    q = np.asarray(q, dtype=float)
    epochs = [epoch_text(epoch, x) for x in t]
    values = q * np.array([-1.0, -1.0, -1.0, 1.0]) + 0.0  # the conjugate (+ 0.0: no "-0"): A = EME2000 -> B = SC_BODY_1 (annex F2)
    kind = "QUATERNION"
    if w is not None:
        values = np.hstack([values, np.asarray(w, dtype=float) / _DEG])
        kind = "QUATERNION/ANGVEL"
    metadata = ndm.AemMetadata(
        object_name=object_name, object_id=object_id, center_name="EARTH", ref_frame_a="EME2000",
        ref_frame_b="SC_BODY_1", start_time=epochs[0], stop_time=epochs[-1], time_system="UTC",
        attitude_type=kind, angvel_frame="SC_BODY_1" if w is not None else None,
        comment=[line for line in (
            "attitude-sim: quaternion Q1 Q2 Q3 QC (scalar last) from EME2000 to SC_BODY_1 (504.0-B-2 F2)",
            "attitude-sim: the conjugate of the simulator's Q (Hoffmann, inertial -> body)",
            comment_line(comment)) if line])
    data = ndm.AemData.from_numpy(epochs, np.ascontiguousarray(values), kind)
    header = ndm.AdmHeader(creation_date=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S"),
                           originator="attitude-sim")
    message = ndm.Aem(header, [ndm.AemSegment(metadata, data)])
    return message.to_str("xml" if xml else "kvn")


# ------------------------------------------------------------------ reading
_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
_TIME = re.compile(r"^(\d{4})-(?:(\d{2})-(\d{2})|(\d{3}))T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z?$")


def _seconds(text: str, where: str) -> tuple:
    """A CCSDS time (calendar or day-of-year) as (whole-second datetime, fraction of a second)."""
    m = _TIME.match(text.strip())
    if not m:
        raise AttitudeFileError(f"{where}: EPOCH: not a CCSDS time: {text!r}")
    year, month, day, doy, hh, mm, ss, frac = m.groups()
    try:
        if doy is not None:
            base = datetime(int(year), 1, 1) + timedelta(days=int(doy) - 1)
            if base.year != int(year):  # day 000, or 366 of a common year, or 367: not a day of that year
                raise ValueError(f"day of year {doy} is not in {year}")
        else:
            base = datetime(int(year), int(month), int(day))
        second = int(ss)
        if second > 60:  # 60: a leap second (CCSDS 301.0-B-4 3.5.1.4), counted as the next minute's 00
            raise ValueError(f"second {ss} is not in 00..60")
        base = base.replace(hour=int(hh), minute=int(mm)) + timedelta(seconds=second)
    except ValueError as exc:
        raise AttitudeFileError(f"{where}: EPOCH: {text!r}: {exc}") from None
    return base, float(frac) if frac else 0.0


def _data_lines(text: str) -> list:
    """The line numbers (1-based) of a KVN file's data lines, segment by segment; [] for XML."""
    segments, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        word = line.strip()
        if word == "DATA_START":
            segments.append([])
            inside = True
        elif word == "DATA_STOP":
            inside = False
        elif inside and word and not word.startswith("COMMENT"):
            segments[-1].append(number)
    return segments


def _check_data_lines(text: str, name: str) -> None:
    """Each KVN data line's values are finite numbers, or the line and the value are named.

    Checked before the library reads the file: its own parse errors name
    the line after the one at fault.
    """
    all_lines = text.splitlines()
    for segment in _data_lines(text):
        for number in segment:
            words = all_lines[number - 1].split()
            for k, word in enumerate(words[1:], 2):
                try:
                    ok = math.isfinite(float(word))
                except ValueError:
                    ok = False
                if not ok:
                    raise AttitudeFileError(f"{name}, line {number}: data value {k} ({word!r} after the epoch "
                                            f"{words[0]}): not a finite number")


def _rate_text(w) -> str:
    return "(" + ", ".join(f"{x:.3g}" for x in w) + ")"


def _line_of(text: str, keyword: str) -> str:
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith(keyword):
            return f"line {number}"
    return keyword


def _is_body(frame: str) -> bool:
    return frame.upper().startswith("SC_BODY")


def _euler(seq: str, angles_deg) -> np.ndarray:
    """Hoffmann's Q of the transformation A -> B for intrinsic rotations ``seq`` (504.0-B-2 F3): Q3 . Q2 . Q1."""
    q = np.array([0.0, 0.0, 0.0, 1.0])
    for axis, angle in zip(seq, angles_deg):
        q = product(from_axis_angle(_AXES[axis], angle * _DEG), q)
    return q


def parse_aem(text: str, name: str = "AEM") -> AttitudeTrack:
    """An :class:`AttitudeTrack` from the text of an AEM (KVN or XML); :class:`AttitudeFileError` if it cannot be.

    Every number is checked where it is read: finite (:func:`_check_data_lines`), a quaternion whose
    ``|Q|^2`` is a normal float (the simulator's own rule for normalising), body rates (given, or from
    the quaternion's derivative) in the range the simulator accepts (``LIMITS["rates"]``).
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # overflow is checked, not printed
        return _parse(text, name)


def _parse(text: str, name: str) -> AttitudeTrack:
    import ccsds_ndm as ndm

    if re.search(r"CCSDS_AEM_VERS\s*=\s*1\.", text):
        raise AttitudeFileError(f"{name}, {_line_of(text, 'CCSDS_AEM_VERS')}: CCSDS_AEM_VERS: version 1 AEMs "
                                "(QUATERNION_TYPE, ATTITUDE_DIR) are not read (ccsds-ndm-py reads 504.0-B-2, "
                                "version 2)")
    _check_data_lines(text, name)
    try:
        message = ndm.from_str(text)
    except (ndm.NdmError, ValueError, RuntimeError, TypeError) as exc:
        parts = [p.strip().rstrip(":") for p in str(exc).strip().splitlines() if p.strip()]
        text_ = "; ".join(parts) if parts else type(exc).__name__
        raise AttitudeFileError(f"{name}: not a valid AEM: {text_}") from None
    if type(message).__name__ != "Aem":
        raise AttitudeFileError(f"{name}: a CCSDS {type(message).__name__.upper()}, not an AEM")
    lines = _data_lines(text)
    times, quats, rates = [], [], []
    origin = None
    origin_frac = 0.0
    first_epoch = time_system = None
    kinds, directions, rate_sources = set(), set(), set()
    for k, segment in enumerate(message.segments):
        meta, data = segment.metadata, segment.data
        where = f"{name}, segment {k + 1}"
        kind = meta.attitude_type.upper()  # one of 504.0-B-2's nine: ccsds-ndm-py refuses any other
        a, b = meta.ref_frame_a, meta.ref_frame_b
        if _is_body(b) == _is_body(a):
            raise AttitudeFileError(f"{where}, {_line_of(text, 'REF_FRAME_A')}: REF_FRAME_A/REF_FRAME_B: "
                                    f"{a} -> {b}: exactly one must be a spacecraft body frame (SC_BODY_n)")
        body_is_b = _is_body(b)
        if time_system is None:
            time_system = meta.time_system
        elif meta.time_system != time_system:
            raise AttitudeFileError(f"{where}: TIME_SYSTEM: {meta.time_system} after {time_system}")
        epochs = list(data.attitude_states_epochs)
        table = data.attitude_states_numpy  # float64, one row per epoch, the type's columns (the library checks)
        seg_lines = lines[k] if k < len(lines) else []
        angvel_frame = (meta.angvel_frame or "").upper()
        rates_in_body = angvel_frame in ("REF_FRAME_B", b.upper()) if body_is_b else angvel_frame in (
            "REF_FRAME_A", a.upper())
        for i, (epoch, row) in enumerate(zip(epochs, table)):
            at = f"{name}, line {seg_lines[i]}" if i < len(seg_lines) else f"{where}, epoch {epoch}"
            base, frac = _seconds(epoch, at)
            if origin is None:
                origin, origin_frac, first_epoch = base, frac, epoch
            t = (base - origin).total_seconds() + (frac - origin_frac)
            if not np.all(np.isfinite(row)):
                raise AttitudeFileError(f"{at}: {kind}: a value is not finite")
            if kind.startswith("QUATERNION"):
                raw = row[:4]
                if not np.any(raw):
                    raise AttitudeFileError(f"{at}: Q1 Q2 Q3 QC: the quaternion is zero")
                n2 = float(raw @ raw)
                if not sys.float_info.min <= n2 < math.inf:  # the simulator's own rule (elimination's |Q|^2)
                    big = float(np.max(np.abs(raw)))
                    raise AttitudeFileError(f"{at}: Q1 Q2 Q3 QC: |Q| = {big * np.linalg.norm(raw / big):.3g} is "
                                            "too small to normalise (|Q|^2 underflows)")
                n = math.sqrt(n2)
                # the standard's A -> B quaternion is the conjugate of Hoffmann's for A -> B (annex F2)
                q_ab = conjugate(raw / n)
            elif kind.startswith("EULER"):
                # the library requires EULER_ROT_SEQ for these types, refuses all but the twelve sequences
                # and gives numeric ones (321) as letters (ZYX)
                q_ab = _euler(meta.euler_rot_seq.upper(), row[:3])
            else:  # SPIN: Z, X, Z by alpha + 90, 90 - delta, the spin angle (annex F5.2)
                q_ab = _euler("ZXZ", (row[0] + 90.0, 90.0 - row[1], row[2]))
            q = q_ab if body_is_b else conjugate(q_ab)
            w = None
            if kind in ("QUATERNION/ANGVEL", "EULER_ANGLE/ANGVEL"):
                v = row[-3:] * _DEG  # frame B relative to A (F4), in ANGVEL_FRAME
                v_body = v if rates_in_body else cayley(q) @ v
                w = v_body if body_is_b else -v_body
                rate_sources.add(f"ANGVEL ({meta.angvel_frame})")
            elif kind == "QUATERNION/DERIVATIVE":
                qdot = conjugate(row[4:8] / n)
                w = rates_from_qdot(q, qdot if body_is_b else conjugate(qdot))
                rate_sources.add("the quaternion derivative")
            elif kind == "SPIN" and body_is_b:  # the spin model's body rate (F5.1: B is the body)
                w = np.array([0.0, 0.0, row[3] * _DEG])
                rate_sources.add("SPIN_ANGLE_VEL")
            if w is not None and not _RATES.accepts(float(np.max(np.abs(w)))):
                raise AttitudeFileError(f"{at}: {kind}: body rates of {_rate_text(w)} rad/s; the simulator "
                                        f"accepts {_RATES.describe()} about each axis")
            if times and t <= times[-1]:
                if t == times[-1] and k > 0 and i == 0:
                    continue  # a segment starting where the last one stopped
                raise AttitudeFileError(f"{at}: EPOCH: {epoch} is not after the epoch before it")
            times.append(t)
            quats.append(normalize(q))
            rates.append(w)
        kinds.add(kind)
        directions.add(f"{a} -> {b}")
    if len(times) < 2:
        raise AttitudeFileError(f"{name}: needs at least two attitude states, has {len(times)}")
    t = np.array(times)
    q = np.array(quats)
    if any(w is None for w in rates):
        w = rates_from_samples(t, q)
        source = "the quaternions (central differences, rates_from_samples)"
    else:
        w = np.array(rates)
        source = " and ".join(sorted(rate_sources))
    summary = (f"{name}: {len(t)} states of {', '.join(sorted(kinds))}, {', '.join(sorted(directions))}, "
               f"{time_system}, from {first_epoch} over {t[-1]:g} s; converted to Q scalar last, "
               f"inertial -> body (Hoffmann); rates from {source}")
    return AttitudeTrack(t=t, q=q, w=w, epoch=first_epoch, time_system=time_system, rates_from=source,
                         summary=summary)


def read_aem(path) -> AttitudeTrack:
    """:func:`parse_aem` of the file ``path`` (a regular file of at most :data:`MAX_AEM_BYTES`)."""
    try:
        raw = read_regular(path, MAX_AEM_BYTES, None, "attitude file")
    except FileRefused as exc:
        raise AttitudeFileError(str(exc)) from None
    states = count_states(raw)
    try:
        check_cost(f"{path}: importing {states:,} attitude states", memory=states * AEM_BYTES_PER_STATE,
                   memory_hint="split the file into shorter spans")
    except RunTooLong as exc:
        raise AttitudeFileError(str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        number = raw.count(b"\n", 0, exc.start) + 1
        raise AttitudeFileError(f"{path}, line {number}: not text (UTF-8)") from None
    return parse_aem(text, str(path))


#: An epoch as a KVN data line or an XML ``<EPOCH>`` starts it: a calendar or day-of-year date and a time.
_STATE_EPOCH = re.compile(rb"(?m)(?:^[ \t]*|<EPOCH>[ \t]*)\d{4}-(?:\d\d-\d\d|\d{3})T\d\d:\d\d", re.IGNORECASE)


def count_states(raw: bytes) -> int:
    """The attitude states of an AEM counted in its bytes, before it is parsed (the import's cost grows with them):
    the lines (KVN) or ``<EPOCH>`` elements (XML) that start with an epoch."""
    return len(_STATE_EPOCH.findall(raw))
