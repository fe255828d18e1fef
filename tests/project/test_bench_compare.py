"""`make bench-compare`: figures read as the bench prints them, verdicts, and one real run against HEAD.

The real run checks the mechanism end to end on the quickest part (the
step costs, about two seconds a side): a temporary worktree of HEAD, each
side's code imported from its own tree, the worktree gone afterwards.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench import compare
from bench.__main__ import FULL, ONLY

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("figure, value, unit", [
    ("2.14 us/step", 2.14, "us/step"), ("18.0 ns", 18.0, "ns"), ("10530 ns", 10530.0, "ns"),
    ("1.74x faster", 1.74, "x faster"), ("62 fps", 62.0, "fps"), ("0.9999", 0.9999, ""),
    ("+5.1 MB", 5.1, "MB"), ("-0.4 MB", -0.4, "MB"), ("24.3 s wall", 24.3, "s wall"), ("1,234 ms", 1234.0, "ms"),
    ("skipped", None, "skipped"), ("about 3 s", None, "about 3 s")])
def test_figures_are_read_as_the_bench_prints_them(figure, value, unit):
    assert compare.parse_figure(figure) == (value, unit)


def test_the_direction_of_better_follows_the_unit():
    assert [compare.better(u) for u in ("us/step", "ns", "s wall", "MB", "fps", "x faster", "")] == \
        [-1, -1, -1, -1, 1, 1, 0]


def test_rows_compare_the_median_runs_and_judge_them():
    old = {"step": ["2.00 us/step", "2.40 us/step", "2.10 us/step"], "fps": ["60 fps", "62 fps", "61 fps"],
           "rtf": ["1.0000", "1.0000", "1.0000"], "gone": ["1 ns"] * 3, "text": ["skipped"] * 3}
    new = {"step": ["2.50 us/step", "2.40 us/step", "2.30 us/step"], "fps": ["70 fps", "71 fps", "72 fps"],
           "rtf": ["1.2000", "1.2000", "1.2000"], "text": ["skipped"] * 3, "added": ["3 ns"] * 3}
    rows = {r["what"]: r for r in compare.compare_rows(old, new)}
    assert list(rows) == ["step", "fps", "rtf", "gone", "text", "added"]
    step = rows["step"]
    assert (step["old"], step["new"]) == ("2.10 us/step", "2.40 us/step")   # the middle run of each side
    assert step["change"] == pytest.approx(100 * (2.40 - 2.10) / 2.10) and step["verdict"] == "**no: worse**"
    assert step["spread"] == pytest.approx((100 * 0.4 / 2.1, 100 * 0.2 / 2.4))
    assert rows["fps"]["verdict"] == "no: better" and not rows["fps"]["worse"]
    assert rows["rtf"]["verdict"] == "**no**" and rows["rtf"]["worse"]       # no direction: outside is a failure
    assert rows["gone"]["verdict"] == "only in old" and rows["added"]["verdict"] == "only in new"
    assert rows["text"]["change"] is None
    within = compare.compare_rows({"a": ["100 ns"]}, {"a": ["109.9 ns"]})[0]
    assert within["verdict"] == "yes" and not within["worse"] and within["spread"] == (None, None)
    text = compare.table(list(rows.values()))
    assert text.splitlines()[0] == "| row | old | new | change | within 10 % | spread old / new |"
    assert "| step | 2.10 us/step | 2.40 us/step | +14.3 % | **no: worse** | 19 % / 8 % |" in text


def test_the_compare_takes_the_benchs_own_parts():
    assert set(FULL) <= set(ONLY) and "memory" in ONLY
    with pytest.raises(SystemExit) as exc:
        compare.main(["--base", "HEAD", "--only", "nonsense"])
    assert exc.value.code == 2


def test_a_run_that_imported_the_other_tree_is_refused(tmp_path):
    side = compare.Side("old", tmp_path / "old", tmp_path / "old", tmp_path / "stage")
    with pytest.raises(RuntimeError, match="sim was imported from"):
        side._check({"sim": str(ROOT / "sim" / "__init__.py")})


def test_a_bench_older_than_its_parts_is_still_its_own(tmp_path):
    """A commit whose ONLY lacks "step" (main before this tool) is measured by its own bench.step_cost."""
    tree = tmp_path / "old"
    (tree / "bench").mkdir(parents=True)
    (tree / "bench" / "__init__.py").write_text("")
    (tree / "bench" / "__main__.py").write_text("ONLY = {'ensemble': (lambda quick: [], ())}\n")
    (tree / "bench" / "step_cost.py").write_text(
        "def run(quick=False):\n    return [{'what': 'step cost x', 'figure': '1.5 us/step' if quick else '?'}]\n")
    side = compare.Side("old", tree, tree, tmp_path / "stage")
    assert side.run("__parts__", quick=True)["parts"] == ["ensemble", "step"]
    result = side.run("step", quick=True)
    assert result["rows"] == [{"what": "step cost x", "figure": "1.5 us/step"}]
    assert result["where"]["bench"].startswith(str(tree.resolve()))


@pytest.mark.subprocess
def test_the_old_side_falls_back_to_its_own_bench_when_this_trees_cannot_run_its_code(tmp_path):
    def tree(name, main, step=None):
        root = tmp_path / name
        (root / "bench").mkdir(parents=True)
        (root / "bench" / "__init__.py").write_text("")
        (root / "bench" / "__main__.py").write_text(main)
        (root / "sim").mkdir()
        (root / "sim" / "__init__.py").write_text("")
        return root

    # this tree's bench needs a module the old code does not have (what a refactoring's bench may do)
    current = tree("current", "def step(quick):\n    import sim.engine\n\nONLY = {'step': (step, ())}\n")
    old = tree("old", "ONLY = {'step': (lambda quick: [{'what': 'step cost x', 'figure': '2 ns'}], ())}\n")
    with_current = compare.Side("old with this bench", old, current, tmp_path / "stage-current")
    own = compare.Side("old", old, old, tmp_path / "stage-own")
    side, result, note = compare._first_run([with_current, own], own, "step", True, 1)
    assert side is own and result["rows"] == [{"what": "step cost x", "figure": "2 ns"}]
    assert note.startswith("its own (this tree's failed on the old code: ") and "sim.engine" in note
    with pytest.raises(RuntimeError, match="sim.engine"):
        compare._first_run([with_current], own, "step", True, 1)   # nothing else to try: the error shows


def worktrees() -> str:
    return subprocess.run(["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True, check=True).stdout


@pytest.mark.subprocess
def test_a_quick_compare_with_head_measures_both_trees_and_cleans_up(monkeypatch):
    made = []
    mkdtemp = compare.tempfile.mkdtemp
    monkeypatch.setattr(compare.tempfile, "mkdtemp", lambda **kw: made.append(mkdtemp(**kw)) or made[-1])
    report, _ = compare.run("HEAD", ["step"], quick=True, repeats=1, bench="own")
    assert len(made) == 1 and not Path(made[0]).exists() and made[0] not in worktrees()
    lines = report.splitlines()
    assert lines[0] == "## Old beside new"
    assert any(line.startswith("- old: `HEAD` = ") for line in lines)
    assert "- bench that measured the old side, per part: step: its own" in lines
    rows = [line for line in lines if line.startswith("| step cost half-quat |")]
    assert len(rows) == 1 and rows[0].count(" us/step") == 2


REPORT = """# Performance

| what | figure | budget | | note |
|---|---|---|---|---|
| step cost half-quat | 2.00 us/step | <= 10 us/step | pass |  |
| window's simulation thread: step + history row | 8.00 us/step | (comparison) | — |  |

## Reading the table

Notes.

## Old beside new

| row | old | new | change | within 10 % | spread old / new |
|---|---|---|---|---|---|
| step cost half-quat | 2.00 us/step | 2.10 us/step | +5.0 % | yes | — / — |
"""


def test_only_replaces_rows_of_the_table_of_figures_not_the_comparison():
    from bench.__main__ import _replace_rows

    row = {"what": "step cost half-quat", "figure": "3.00 us/step", "budget": "<= 10 us/step", "ok": True}
    text = _replace_rows(REPORT, [row], ("step cost",))
    assert "| step cost half-quat | 3.00 us/step | <= 10 us/step | pass |  |" in text
    assert "| step cost half-quat | 2.00 us/step | 2.10 us/step | +5.0 % | yes | — / — |" in text
    assert text.count("| step cost half-quat |") == 2 and "2.00 us/step | <= 10" not in text


def test_the_comparison_section_is_replaced_in_place_and_kept_by_a_full_run():
    from bench.__main__ import COMPARE_HEADING, section, with_section

    old = section(REPORT, COMPARE_HEADING)
    assert old.startswith("## Old beside new\n") and old.endswith("| yes | — / — |\n")
    new = with_section(REPORT, COMPARE_HEADING, "## Old beside new\n\nnew table\n")
    assert new == REPORT.replace(old, "## Old beside new\n\nnew table\n")
    fresh = "# Performance\n\n| what | figure |\n\n## Reading the table\n\nNotes.\n"
    kept = with_section(fresh, COMPARE_HEADING, old)   # what a full `make bench` does with it
    assert kept.endswith("Notes.\n\n" + old) and section(kept, "## Reading the table") == "## Reading the table\n\nNotes.\n\n"
