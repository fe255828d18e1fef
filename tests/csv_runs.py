"""A run of the command line read back as columns, or refused: what the command-line tests share."""

import csv
import io

import numpy as np

from app.cli import main


def csv_columns(text: str) -> dict:
    """The CSV ``text`` (a header, then rows of numbers) as ``{column: array}``, in the header's order."""
    rows = list(csv.reader(io.StringIO(text)))
    return {name: np.array([float(r[i]) for r in rows[1:]]) for i, name in enumerate(rows[0])}


def run_columns(capsys, *argv) -> dict:
    """``attitude-sim run ARGV`` (exit 0 asserted, its stderr shown when not) as :func:`csv_columns`."""
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return csv_columns(out)


def run_refused(capsys, argv, fragment: str) -> None:
    """``attitude-sim run --duration 0.01 ARGV`` refused as bad input: exit 2, nothing on stdout, one line on
    stderr starting ``attitude-sim: error:`` and holding ``fragment``."""
    code = main(["run", "--duration", "0.01", *argv])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("attitude-sim: error:")
    assert fragment in err, err
