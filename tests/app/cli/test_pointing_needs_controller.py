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
