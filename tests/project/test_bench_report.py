"""`make bench`'s full run rewrites the head of docs/PERFORMANCE.md and keeps every section the engineers wrote.

A full run once wrote the report anew from its table, the profile and bench/NOTES.md, keeping only the
comparison's section: the sections written by hand below the table (4,000 lines of measured old-beside-new
figures) were lost at each full run.
"""

from __future__ import annotations

from pathlib import Path

from bench.__main__ import PROFILE_HEADING, REPORT, full_report, sections

NOTES = Path(__file__).resolve().parents[2] / "bench" / "NOTES.md"

HEAD = (f"# Performance\n\nMeasured now (full run).\n\n| what | figure | budget | | note |\n|---|---|---|---|---|\n"
        f"| new row | 1 ns | — | — | |\n\n{PROFILE_HEADING} (cProfile)\n\n```\nnew profile\n```\n")

OLD = (f"# Performance\n\nMeasured long ago (full run).\n\n| what | figure | budget | | note |\n|---|---|---|---|---|\n"
       f"| old row | 9 ns | — | — | |\n\n{PROFILE_HEADING} (cProfile)\n\n```\nold profile\n```\n\n"
       "## In short\n\nold reading\n\n## An engineer's figures\n\nmeasured by hand\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
       "## Old beside new\n\nthe comparison\n")

NEW_NOTES = "## In short\n\nnew reading\n\n## Reading the table\n\nhow to read it\n"


def test_a_full_run_writes_its_head_and_keeps_the_sections_by_hand():
    text = full_report(OLD, HEAD, NEW_NOTES)
    assert text.startswith(HEAD)
    assert "old row" not in text and "old profile" not in text and text.count(PROFILE_HEADING) == 1
    assert "## An engineer's figures\n\nmeasured by hand\n\n| a | b |\n|---|---|\n| 1 | 2 |\n" in text
    assert "## Old beside new\n\nthe comparison\n" in text
    assert "new reading" in text and "old reading" not in text    # a section of the notes replaces its old text
    assert text.rstrip().endswith("## Reading the table\n\nhow to read it")  # and one the report lacks is added
    assert text.index("## In short") < text.index("## An engineer's figures")  # in the old place


def test_a_full_run_on_an_empty_report_writes_the_head_and_the_notes():
    text = full_report("", HEAD, NEW_NOTES)
    assert text == HEAD + "\n" + NEW_NOTES


def test_the_real_report_keeps_every_section_through_a_full_run():
    old = REPORT.read_text()
    text = full_report(old, HEAD, NOTES.read_text())
    headings = [part.splitlines()[0] for part in sections(old)[1:] if not part.startswith(PROFILE_HEADING)]
    assert len(headings) > 20
    assert [h for h in headings if h not in text] == []
    kept = [part for part in sections(old)[1:] if not part.startswith(PROFILE_HEADING)
            and part.splitlines()[0] not in [p.splitlines()[0] for p in sections(NOTES.read_text())[1:]]]
    assert all(part.rstrip("\n") in text for part in kept)
