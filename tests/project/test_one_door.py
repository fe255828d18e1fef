"""The one door from app/ into sim/ (issue 41): the lazy face ``sim`` and tools/one_door.py, which rewrites imports.

The face must hand out the very objects of the rooms behind it and load nothing until a name is asked for; the
script must rewrite only import statements, every form of them, leave ruff nothing to say, change nothing on a
second run, and print what it could not convert (the lead reruns it over merged branches).
"""

import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sim

#: the script and the face are read as source text (make mutate leaves these out: its copy of sim is mutmut's).
pytestmark = pytest.mark.source

ROOT = Path(__file__).parents[2]


def test_every_name_on_the_face_is_the_object_of_its_room():
    """Read from the rooms themselves: a name of the face is the module's own object, found in exactly one room."""
    rooms = ("sim.core", "sim.world", "sim.gnc", "sim.model", "sim.io", "sim.run", "sim.ensemble", "sim.sweep")
    assert len(sim.__all__) == len(set(sim.__all__)) > 100
    for name in sim.__all__:
        value = getattr(sim, name)
        homes = [m for m in list(sys.modules) if m.startswith(rooms) and getattr(sys.modules[m], "__name__", "") == m
                 and any(v is value for v in vars(sys.modules[m]).values())]
        assert homes, name
    assert set(sim.__all__) <= set(dir(sim))
    assert sim.load_scenario is importlib.import_module("sim.run.scenario").load
    assert sim.load_shape is importlib.import_module("sim.model.shape").load
    assert sim.sweep_summary is importlib.import_module("sim.sweep.summary").summary
    with pytest.raises(AttributeError, match="no_such_name"):
        sim.no_such_name  # noqa: B018 - the attribute access is the test


def test_importing_sim_loads_none_of_its_rooms():
    code = ("import sys, sim\nbefore = sorted(m for m in sys.modules if m.startswith('sim.'))\n"
            "from sim import cayley\nprint(before, 'sim.core.quaternion' in sys.modules, 'sim.run.runner' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["[]", "True", "False"]


SAMPLE = '''"""A module of app written before the door."""

import os
from sim.model.settings import Settings, validate as check
from sim.api import plan
from sim.run.scenario import (
    load,
    Event,
)
from sim.io.limits import SettingsError
import sim.model.shape
from sim.model.settings import no_such_name
from sim import api
from sim import lab

try:
    from sim.io.files import whole_path
except ImportError:
    whole_path = None


def inside():
    from sim.core.quaternion import cayley as c
    import sim.core.quaternion as quat_mod
    return c, quat_mod, os

USED = (Settings, check, plan, load, Event, SettingsError, inside, whole_path, sim.model.shape, no_such_name,
        api, lab)
'''

CONVERTED = '''"""A module of app written before the door."""

import os
from sim import Settings, validate as check
from sim.api import plan
from sim import load_scenario as load, Event, SettingsError
import sim.model.shape
from sim.model.settings import no_such_name
from sim import api
from sim import lab

try:
    from sim import whole_path
except ImportError:
    whole_path = None


def inside():
    from sim import cayley as c, quaternion_module as quat_mod
    return c, quat_mod, os

USED = (Settings, check, plan, load, Event, SettingsError, inside, whole_path, sim.model.shape, no_such_name,
        api, lab)
'''


def one_door(root: Path, *flags) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / "one_door.py"), str(root), *flags],
                          capture_output=True, text=True, timeout=120, cwd=root)


def test_the_script_rewrites_every_form_of_import_once_and_names_what_it_cannot(tmp_path):
    shutil.copytree(ROOT / "sim", tmp_path / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    init = tmp_path / "sim" / "__init__.py"   # a module on the face, for `import sim.x.y as z`
    init.write_text(init.read_text().replace("_FACE = {\n", '_FACE = {\n    "quaternion_module": "sim.core:quaternion",\n'))
    (tmp_path / "app").mkdir()
    sample = tmp_path / "app" / "sample.py"
    sample.write_text(SAMPLE)
    assert one_door(tmp_path, "--check").returncode == 1 and sample.read_text() == SAMPLE

    first = one_door(tmp_path)
    assert sample.read_text() == CONVERTED
    assert first.returncode == 1, first.stdout   # two imports left as they were, and said so
    assert "app/sample.py:11: 'import sim.model.shape' is used as a dotted path" in first.stdout
    assert "app/sample.py:12: sim.model.settings.no_such_name is not on the face" in first.stdout
    assert "1 files rewritten, 2 imports not converted" in first.stdout

    second = one_door(tmp_path)
    assert sample.read_text() == CONVERTED and "0 files rewritten" in second.stdout
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", "--select",
                           "E4,E7,E9,F,B,UP", "--target-version", "py311", str(sample)],
                          capture_output=True, text=True, timeout=60)
    assert ruff.returncode == 0, ruff.stdout
    loaded = subprocess.run([sys.executable, "-c", "import sim; print(sim.quaternion_module.__name__)"],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path)})
    assert loaded.stdout.strip() == "sim.core.quaternion", loaded.stderr


def test_app_has_nothing_left_to_convert():
    proc = one_door(ROOT, "--check")
    assert proc.returncode == 0, proc.stdout


def test_add_puts_a_missing_name_on_the_face_and_leaves_a_clash_to_a_person(tmp_path):
    """What the lead runs over merged branches: a new room's name goes on the face, a second `validate` does not."""
    shutil.copytree(ROOT / "sim", tmp_path / "sim", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "sim" / "model" / "extra.py").write_text('"""A room\'s new module."""\n\n\ndef fresh():\n    return 41\n\n\n'
                                                          'def validate():\n    return None\n')
    (tmp_path / "app").mkdir()
    sample = tmp_path / "app" / "late.py"
    sample.write_text("from sim.model.extra import fresh\n\nfrom sim.model.extra import validate as v2\n\nUSED = (fresh, v2)\n")
    proc = one_door(tmp_path, "--add")
    assert sample.read_text() == ("from sim import fresh\n\nfrom sim.model.extra import validate as v2\n\n"
                                  "USED = (fresh, v2)\n"), proc.stdout
    assert "put on the face: fresh (sim.model.extra)" in proc.stdout
    assert "app/late.py:3: 'validate' on the face is sim.model.settings.validate, not sim.model.extra.validate" \
        in proc.stdout
    assert '    # sim.model.extra\n    "fresh": "sim.model.extra",\n}' in (tmp_path / "sim" / "__init__.py").read_text()
    again = one_door(tmp_path, "--add")
    assert "0 files rewritten, 1 imports not converted" in again.stdout and "put on the face" not in again.stdout
    loaded = subprocess.run([sys.executable, "-c", "import sim; print(sim.fresh())"],
                            capture_output=True, text=True, timeout=60, cwd=tmp_path, env={"PYTHONPATH": str(tmp_path)})
    assert loaded.stdout.strip() == "41", loaded.stderr
