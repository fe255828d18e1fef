"""Issue 41: Settings.replace validates only the keys it changes, then the checks that combine keys.

The other fields were validated when the record was made; a second pass over all 61 of them for one change
(what dataclasses.replace does through __post_init__) is what a dampers change cost before.
"""

import pytest

import sim.model.settings as settings_module
from sim.model.settings import KEYS, Settings, SettingsError


@pytest.fixture
def counted(monkeypatch):
    calls = []
    real = settings_module.validate

    def validate(key, value):
        calls.append(key)
        return real(key, value)

    monkeypatch.setattr(settings_module, "validate", validate)
    return calls


def test_a_change_validates_the_changed_key_once(counted):
    s = Settings(dampers_on=True)
    counted.clear()
    out = s.replace(dampers=(1.0, 2.0, 3.0))
    assert counted == ["dampers"]
    assert out.dampers == (1.0, 2.0, 3.0) and out.dampers_on and s.dampers != out.dampers
    assert all(getattr(out, k) == getattr(s, k) for k in KEYS if k != "dampers")
    assert out == Settings(dampers_on=True, dampers=(1.0, 2.0, 3.0))  # the same record a full check makes


def test_the_changed_value_is_normalised_and_checked():
    s = Settings()
    assert s.replace(dt="0.01").dt == 0.01          # normalised as a new record's field would be
    with pytest.raises(SettingsError, match="dt"):
        s.replace(dt=-1.0)
    with pytest.raises(SettingsError, match="unknown setting 'bogus'"):
        s.replace(bogus=1)


def test_what_a_record_caches_is_made_again_from_the_new_fields():
    s = Settings(wheels="orthogonal")
    assert s.wheel_count == 3
    assert s.replace(wheels="pyramid").wheel_count == 4
    assert s.replace(wheels="none").wheel_set is None


def test_the_checks_that_combine_keys_still_run():
    with pytest.raises(SettingsError, match="needs an orbit"):
        Settings().replace(pointing="sun", controller="quaternion")
    with pytest.raises(SettingsError, match="needs a magnetic field"):
        Settings().replace(magnetorquers=1.0)
