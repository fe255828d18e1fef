"""A run of the command line read back as columns: the CSV reader the command-line tests share."""

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
