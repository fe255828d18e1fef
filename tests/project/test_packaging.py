"""Packaging: the sdist and the wheel carry every scenario and mesh, and an
installed wheel finds them through importlib.resources outside the checkout.

One build per test session (module fixture): the source tree is copied to a
temporary folder with two probe files added in a new subfolder of
``assets/`` (the package-data globs must take files nobody listed), the sdist
is built from the copy, and the wheel from the unpacked sdist, as
``python -m build`` does, so a file missing from the sdist is missing from
the wheel too.  The full check of an installed wheel in a fresh virtual
environment (``attitude-sim`` commands and a window screenshot) runs in
``.ci/check_install.py``, after the tests, in ``make test``.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

from app.view3d.mesh import aircraft_path
from sim.run.scenario import builtin_dir, builtin_names, load

ROOT = Path(__file__).resolve().parents[2]
ASSETS = ROOT / "assets"
#: What counts as package data in assets/ (pyproject.toml's package-data).
DATA_SUFFIXES = {".obj", ".npz", ".stl", ".ply", ".glb", ".toml"}
#: Files added to the copied tree only: new files in a new subfolder.
PROBES = ("assets/probe_bodies/deeper/probe.stl", "assets/probe_bodies/probe.toml")
COPY_IGNORE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                                     ".pytest_cache", ".hypothesis", "out", "*.pyc")


def _data_files(root: Path) -> set[str]:
    """Package data under ``root/assets``, as posix paths relative to ``root``."""
    return {p.relative_to(root).as_posix() for p in (root / "assets").rglob("*")
            if p.is_file() and p.suffix in DATA_SUFFIXES}


def _build(backend_call: str, cwd: Path, out: Path) -> Path:
    """Run a setuptools build-backend hook in a fresh process; return the file it made."""
    out.mkdir(parents=True, exist_ok=True)
    code = f"from setuptools import build_meta; print(build_meta.{backend_call}({str(out)!r}))"
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out / proc.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(sdist names, wheel names, expected data files, wheel path) of one build of a copy of the tree."""
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=COPY_IGNORE)
    for probe in PROBES:
        (src / probe).parent.mkdir(parents=True, exist_ok=True)
        (src / probe).write_text("# probe\n")
    sdist = _build("build_sdist", src, tmp / "sdist")
    with tarfile.open(sdist) as archive:
        sdist_names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python >= 3.11.4
        archive.extractall(tmp / "unpacked", **safe)
    (unpacked,) = (tmp / "unpacked").iterdir()
    wheel = _build("build_wheel", unpacked, tmp / "wheel")
    with zipfile.ZipFile(wheel) as archive:
        wheel_names = set(archive.namelist())
    return sdist_names, wheel_names, _data_files(src), wheel


def test_the_probe_tree_has_every_checkout_asset(built):
    _, _, expected, _ = built
    assert _data_files(ROOT) <= expected
    assert set(PROBES) <= expected


def test_wheel_holds_every_scenario_and_mesh(built):
    _, wheel_names, expected, _ = built
    missing = expected - wheel_names
    assert not missing, f"not in the wheel: {sorted(missing)}"
    assert "assets/__init__.py" in wheel_names
    assert {f"assets/scenarios/{name}.toml" for name in builtin_names()} <= wheel_names
    assert "assets/aircraft.obj" in wheel_names


def test_wheel_holds_only_the_packages(built):
    _, wheel_names, _, _ = built
    top = {name.split("/", 1)[0] for name in wheel_names if ".dist-info/" not in name}
    assert top == {"app", "sim", "assets"}


def test_sdist_holds_the_data_and_the_readme_images(built):
    sdist_names, _, expected, _ = built
    missing = expected - sdist_names
    assert not missing, f"not in the sdist: {sorted(missing)}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    images = set(re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", readme))
    assert images, "the README shows no image: this test reads its image links"
    assert images <= sdist_names, sorted(images - sdist_names)


def test_sdist_holds_the_docs_pages_and_their_images(built):
    """What the README links (docs/*.md) and what those pages show, so an unpacked sdist reads whole."""
    sdist_names, _, _, _ = built
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md")}
    linked = set()
    for page in pages | {"README.md"}:
        text = (ROOT / page).read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)", text):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):
                path = ((ROOT / page).parent / target).resolve()
                if path.is_file():      # tests/project/test_docs.py checks that they exist
                    linked.add(path.relative_to(ROOT).as_posix())
    assert len(pages) >= 8 and {"docs/PHYSICS.md", "docs/screenshot.png"} <= linked
    assert pages | linked <= sdist_names, sorted((pages | linked) - sdist_names)


def test_wheel_metadata_carries_the_readme_as_markdown(built):
    _, _, _, wheel = built
    with zipfile.ZipFile(wheel) as archive:
        (meta,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(meta).decode("utf-8")
        entry_points = archive.read(meta.replace("METADATA", "entry_points.txt")).decode("utf-8")
    head, _, body = text.partition("\n\n")
    assert "Description-Content-Type: text/markdown" in head
    assert "Classifier: Programming Language :: Python :: 3" in head
    assert body.strip() == (ROOT / "README.md").read_text(encoding="utf-8").strip()
    # relative image links cannot resolve off the repository: each says what it shows instead
    assert all(alt.strip() for alt in re.findall(r"!\[([^\]]*)\]", body))
    assert "attitude-sim = app.cli:main" in entry_points


def test_installed_wheel_finds_its_data_outside_the_checkout(built, tmp_path):
    """The wheel unpacked as site-packages would hold it, run from a folder that is not the checkout."""
    _, _, expected, wheel = built
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    code = (
        "import json\n"
        "from importlib.resources import files\n"
        "from sim.run.scenario import builtin_names, builtin_dir, load\n"
        "from app.view3d.mesh import aircraft_path\n"
        "import sim, app, assets\n"
        "def walk(node, prefix):\n"
        "    for child in node.iterdir():\n"
        "        name = prefix + '/' + child.name\n"
        "        yield from walk(child, name) if child.is_dir() else [name]\n"
        "print(json.dumps({'names': builtin_names(), 'titles': [load(n).title for n in builtin_names()],\n"
        "                  'files': [m.__file__ for m in (sim, app, assets)], 'dir': str(builtin_dir()),\n"
        "                  'aircraft': aircraft_path().read_text(), 'data': sorted(walk(files('assets'), 'assets'))}))\n")
    # -S: no site-packages .pth files, so the checkout's editable finder stays out;
    # numpy comes from this environment's site-packages, after the unpacked wheel
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), sysconfig.get_paths()["purelib"],
                                                        sysconfig.get_paths()["platlib"]])}
    proc = subprocess.run([sys.executable, "-S", "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert all(Path(f).is_relative_to(site) for f in found["files"]), found["files"]
    assert Path(found["dir"]).is_relative_to(site)
    expected_names = sorted(Path(p).stem for p in expected
                            if p.startswith("assets/scenarios/") and p.count("/") == 2 and p.endswith(".toml"))
    assert found["names"] == expected_names
    assert all(found["titles"])
    assert found["aircraft"] == (ASSETS / "aircraft.obj").read_text()
    assert expected <= set(found["data"])  # every mesh and scenario, the probes in the new subfolder too


def test_python_m_app_runs_the_command_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "app", "scenarios"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    listed = [line.split()[0] for line in proc.stdout.splitlines()]
    assert listed == builtin_names()


def test_resources_in_the_checkout_are_the_asset_files():
    assert Path(str(builtin_dir())) == ASSETS / "scenarios"
    assert builtin_names() == sorted(p.stem for p in (ASSETS / "scenarios").glob("*.toml"))
    assert Path(str(aircraft_path())) == ASSETS / "aircraft.obj"
    for name in builtin_names():
        assert load(name).name == name
