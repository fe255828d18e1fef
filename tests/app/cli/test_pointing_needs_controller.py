"""Issue 41: a pointing mode that no controller reads is refused where it enters, in one line that names the fix.

The pointing command is read by the attitude controller only (sim.core.control); with ``controller = none`` a
moving mode would do nothing, silently. One check in the checks of Settings that combine keys refuses it for
every entry point: the API, a scenario file, the command line (exit 2, one line, nothing on stdout).
"""

import pytest

from app.cli import main
from sim import api
from sim.model.settings import Settings, SettingsError
from sim.run.scenario import ScenarioError, load

ORBIT = (500.0, 0.0, 97.0, 0.0, 0.0, 0.0)
FIX = "--controller quaternion"


@pytest.mark.parametrize("mode", ["nadir", "sun", "target", "velocity"])
def test_the_api_refuses_a_moving_mode_without_a_controller(mode):
    with pytest.raises(SettingsError, match=rf"^pointing: {mode} needs an attitude controller .*controller quaternion"):
        Settings(orbit=ORBIT, pointing=mode)
    with pytest.raises(SettingsError, match="needs an attitude controller"):
        api.run(Settings(), duration=1.0, orbit=ORBIT, pointing=mode)
    for controller in ("quaternion", "euler"):
        assert Settings(orbit=ORBIT, pointing=mode, controller=controller).pointing == mode


def test_switching_the_controller_off_under_a_moving_mode_is_refused_too():
    flying = Settings(orbit=ORBIT, pointing="sun", controller="quaternion")
    with pytest.raises(SettingsError, match="pointing: sun needs an attitude controller"):
        flying.replace(controller="none")
    assert flying.replace(controller="none", pointing="inertial").controller == "none"
    assert Settings(orbit=ORBIT, controller="none").pointing == "inertial"  # inertial needs nothing


def test_the_command_line_exits_2_with_one_line_naming_the_fix(capsys):
    code = main(["run", "--orbit", "500,0,97,0,0,0", "--pointing", "sun"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "needs an attitude controller" in err and FIX in err
    assert main(["run", "--orbit", "500,0,97,0,0,0", "--pointing", "sun", "--controller", "quaternion",
                 "--duration", "1", "--dt", "0.5"]) == 0


def test_a_scenario_file_is_refused_with_the_same_line(tmp_path, capsys):
    path = tmp_path / "sun.toml"
    path.write_text('[scenario]\nduration = 10.0\n\n[settings]\norbit = [500.0, 0.0, 97.0, 0.0, 0.0, 0.0]\n'
                    'pointing = "sun"\n')
    with pytest.raises(ScenarioError, match=r"sun\.toml, line 6: \[settings\] pointing: sun needs an attitude controller"):
        load(str(path))
    before = path.read_bytes()
    code = main(["run", "--scenario", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and FIX in err
    assert path.read_bytes() == before


def test_command_angles_a_moving_mode_overrides_for_the_whole_run_exit_2_naming_the_fix(tmp_path, capsys):
    """Stop 54, the twin at the command line of the window's disabled command sliders: under nadir pointing the
    command angles would never fly (the run's attitude is the same with or without them,
    tests/sim/model/test_settings.py), so ``--command`` is refused; with --pointing inertial, or an event that
    makes the pointing inertial, it runs."""
    out_csv = tmp_path / "out.csv"
    code = main(["run", "--scenario", "nadir_pointing", "--command", "0,30,0", "--duration", "1", "--out",
                 str(out_csv)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and not out_csv.exists()
    assert len(err.strip().splitlines()) == 1
    assert "--command 0,30,0: the nadir pointing makes the command" in err and "--pointing inertial" in err
    assert main(["run", "--scenario", "nadir_pointing", "--command", "0,30,0", "--pointing", "inertial",
                 "--duration", "1", "--dt", "0.5"]) == 0
    path = tmp_path / "later.toml"  # nadir first, inertial from t = 0.5 s: the command flies then
    path.write_text('[scenario]\nduration = 1.0\n\n[settings]\norbit = [500.0, 0.0, 97.0, 0.0, 0.0, 0.0]\n'
                    'pointing = "nadir"\ncontroller = "quaternion"\ndt = 0.5\n\n'
                    '[[events]]\nat = 0.5\npointing = "inertial"\n')
    assert main(["run", "--scenario", str(path), "--command", "0,30,0"]) == 0
