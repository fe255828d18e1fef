"""The drift lab (sim.lab, ``attitude-sim lab``), reduced: what it measures, and the report it writes.

The full lab (10^6 steps per combination, about 4 minutes of CPU) writes
docs/LAB.md; these tests run it with a few thousand steps.  References:
the closed form of the free top (sim.core.tumble, checked against solve_ivp in
tests/sim/core/test_elliptic.py) and its flip period 4 K(m)/lambda with K from scipy.
"""

import math
import os
import re

import numpy as np
import pytest
from scipy import special

from app.cli import main
from sim import lab
from sim.core.body import Body
from sim.core.integrators import FULL_QUAT_FORMS, INTEGRATORS
from sim.core.norm import NORM_MODES
from sim.run.scenario import load

STEPS = 3000


@pytest.fixture(scope="module")
def result():
    return lab.run_lab(steps=STEPS)


def test_every_integrator_form_and_norm_mode_is_measured(result):
    methods = len(INTEGRATORS) - 1 + len(FULL_QUAT_FORMS)
    assert len(result.drifts) == methods * len(NORM_MODES) == len(lab.combinations())
    seen = {(d.combination.integrator, d.combination.form, d.combination.norm) for d in result.drifts}
    assert ("full-quat", "kane", "elimination") in seen and ("rkmk4", "hoffmann", "renormalize") in seen
    for d in result.drifts:
        assert set(d.series) == set(lab.SERIES)
        assert d.series["t"][0] == 0.0 and np.all(np.diff(d.series["t"]) > 0)
        assert d.cost_us > 0.0
        if d.fault is None:
            assert d.steps == STEPS and d.t_end == pytest.approx(STEPS * lab.DT)
        else:   # only a runaway norm with 'none', or a state no longer finite
            assert d.combination.norm == "none" or "finite" in d.fault


def _drift(result, method, norm):
    return next(d for d in result.drifts if d.combination.method == method and d.combination.norm == norm)


def test_the_measured_orders_are_the_methods_orders(result):
    expected = {"half-quat": 1, "full-quat lagrange": 1, "full-quat kane": 1, "rk4": 4, "rkmk4": 4, "splitting": 2}
    for method, order in expected.items():
        d = _drift(result, method, "hoffmann")
        e1, e2 = d.order_errors[-2:]
        assert d.order == pytest.approx(math.log2(e1 / e2))
        assert abs(d.order - order) < 0.15, (method, d.order)


def test_the_lab_sees_what_each_method_keeps(result):
    split, rkmk, rk4 = (_drift(result, m, "none") for m in ("splitting", "rkmk4", "rk4"))
    assert split.worst("momentum") < 1e-13 and split.worst("norm") < 1e-14 and split.worst("energy") < 1e-5
    assert rkmk.worst("norm") < 1e-14 < rk4.worst("norm")
    elim, hoff = _drift(result, "half-quat", "elimination"), _drift(result, "half-quat", "hoffmann")
    assert elim.worst("norm") > 1e-2 and hoff.worst("norm") < 1e-8
    assert elim.final("error") == pytest.approx(hoff.final("error"), rel=1e-6)
    assert _drift(result, "full-quat raw", "hoffmann").worst("energy") > 0.5      # Hoffmann's artificial damping
    # the attitude error of rk4 is its own, against the closed form: far below a first-order method's
    assert rk4.worst("error") < 1e-7 < _drift(result, "half-quat", "hoffmann").worst("error")


def test_the_reference_is_the_closed_form():
    # the lab's reference attitude at its sample times is FreeTumble's, whose period is 4 K(m)/lambda
    ks = lab.sample_steps(1000, 50)
    assert ks[0] == 0 and ks[-1] == 1000 and len(set(ks)) == len(ks)
    tumble = lab.FreeTumble(Body(lab.INERTIA).J, lab.RATES)
    assert tumble.period() == pytest.approx(4.0 * special.ellipk(tumble.m) / tumble.rate, rel=1e-14)


def test_flip_period_measured_matches_the_closed_form(result):
    # rk4 at dt = 1 ms: the T-handle's and the phone's period within 1e-5 relative of 4 K(m)/lambda
    assert [f.body for f in result.flips] == ["T-handle", "phone"]
    for f in result.flips:
        settings = load(f.scenario).settings
        body = Body(settings.mass_properties.inertia)
        assert f.closed_form == pytest.approx(lab.FreeTumble(body.J, settings.rates).period(), rel=1e-15)
        assert abs(f.relative) < 1e-5, f
        assert 0.999 < f.m < 1.0          # a tiny wobble: near the separatrix, K(m) large
    assert 5.0 < result.flips[0].closed_form < 30.0 and 3.0 < result.flips[1].closed_form < 15.0


# ------------------------------------------------------------------ the command
@pytest.mark.qt  # the plots are drawn by pyqtgraph in a QApplication (off screen)
def test_lab_command_writes_the_report_and_the_plots(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["lab", "--steps", "500", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().err
    text = (out / "LAB.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (half-quat|full-quat \w+|rk4|rkmk4|splitting) \| (\w+) \|", text, re.M)
    assert len(rows) == len(lab.combinations())
    assert "## The intermediate-axis flip period" in text and "4 K(m) / lambda" in text
    for name in re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text):
        data = (out / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5000, name
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["LAB.md", "lab_energy.png", "lab_momentum.png", "lab_norm.png", "lab_error.png", "lab_order.png",
         "lab_cost.png"])


@pytest.mark.parametrize("argv, message", [(["--steps", "5"], "--steps"), (["--steps", "x"], "--steps"),
                                           (["--steps", "1e9"], "--steps")])
def test_lab_command_refuses_bad_input_with_one_line(argv, message, tmp_path, capsys):
    assert main(["lab", *argv, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not (tmp_path / "r").exists()


def test_lab_command_leaves_the_old_report_when_it_fails(tmp_path, monkeypatch):
    out = tmp_path / "docs"
    out.mkdir()
    (out / "LAB.md").write_text("the old report\n")

    def broken(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(lab, "run_lab", broken)
    assert main(["lab", "--steps", "500", "--out", str(out)]) == 130
    assert (out / "LAB.md").read_text() == "the old report\n"
    assert sorted(os.listdir(out)) == ["LAB.md"]


def test_lab_command_refuses_a_file_as_folder(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["lab", "--steps", "500", "--out", str(f)]) == 2
    assert f.read_text() == "x"
