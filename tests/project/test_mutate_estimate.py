"""make mutate's estimate from a random sample (tools/mutate.py ``Part.estimate``; docs/RELIABILITY.md, "a sample").

The killed share of a module's mutants is the tested ones as they are plus the sample's share scaled to the
untested mutants it was drawn from; its 95 % interval the sample's binomial error, finite-population corrected,
with Agresti and Coull's (1998) p~ = (k + 2) / (n + 4) in the variance, so that a module of one drawn mutant has
an interval and not none.  Checked against those formulas written out here.
"""

import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import mutate  # noqa: E402


def _part(tmp_path, verdicts, sample):
    part = mutate.Part("sim", "sim/*", "")
    part.dir = tmp_path
    for module, codes in verdicts.items():
        meta = tmp_path / "mutants" / f"{module}.meta"
        meta.parent.mkdir(parents=True, exist_ok=True)
        meta.write_text(json.dumps({"exit_code_by_key": codes}))
    (tmp_path / "sample.json").write_text(json.dumps(sample))
    return part


def test_one_drawn_mutant_killed_gives_a_share_of_one_with_an_interval(tmp_path):
    names = [f"m{i}" for i in range(100)]
    codes = {n: None for n in names} | {"m7": 1}  # None: not checked yet
    part = _part(tmp_path, {"sim/a.py": codes}, {"sim/a.py": {"untested": names, "names": ["m7"]}})
    share, half = part.estimate()["sim/a.py"]
    assert share == 1.0
    wide = 3 / 5
    assert half == pytest.approx(1.96 * math.sqrt(wide * (1 - wide) / 1 * (1 - 1 / 100)), rel=1e-12)


def test_the_tested_mutants_count_as_they_are_and_the_sample_for_the_untested(tmp_path):
    untested = [f"u{i}" for i in range(10)]
    codes = {"t0": 1, "t1": 1, "t2": 0} | {n: None for n in untested} | {"u0": 1, "u1": 0}
    part = _part(tmp_path, {"sim/b.py": codes}, {"sim/b.py": {"untested": untested, "names": ["u0", "u1"]}})
    share, half = part.estimate()["sim/b.py"]
    assert share == pytest.approx((2 + 0.5 * 10) / 13, rel=1e-12)
    wide = 3 / 6
    assert half == pytest.approx(1.96 * math.sqrt(wide * (1 - wide) / 2 * (1 - 2 / 10)) * 10 / 13, rel=1e-12)
