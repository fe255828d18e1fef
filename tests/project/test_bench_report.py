"""`make bench`'s full run rewrites the head of docs/PERFORMANCE.md and keeps every section the engineers wrote.

A full run once wrote the report anew from its table, the profile and a copy of the table's reading
(bench/NOTES.md, older than the report's own), keeping only the comparison's section: the sections written by
hand below the table (4,000 lines of measured old-beside-new figures) were lost at each full run.
"""

from __future__ import annotations

from bench.__main__ import PROFILE_HEADING, REPORT, full_report, sections

HEAD = (f"# Performance\n\nMeasured now (full run).\n\n| what | figure | budget | | note |\n|---|---|---|---|---|\n"
        f"| new row | 1 ns | — | — | |\n\n{PROFILE_HEADING} (cProfile)\n\n```\nnew profile\n```\n")

OLD = (f"# Performance\n\nMeasured long ago (full run).\n\n| what | figure | budget | | note |\n|---|---|---|---|---|\n"
       f"| old row | 9 ns | — | — | |\n\n{PROFILE_HEADING} (cProfile)\n\n```\nold profile\n```\n\n"
       "## In short\n\nthe reading\n\n## An engineer's figures\n\nmeasured by hand\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
       "## Old beside new\n\nthe comparison\n")


def test_a_full_run_writes_its_head_and_keeps_every_other_section():
    text = full_report(OLD, HEAD)
    assert text == HEAD + "\n" + OLD[OLD.index("## In short"):]
    assert "old row" not in text and "old profile" not in text and text.count(PROFILE_HEADING) == 1


def test_a_full_run_without_a_report_writes_its_head():
    assert full_report("", HEAD) == HEAD


def test_the_real_report_keeps_every_section_through_a_full_run():
    old = REPORT.read_text()
    kept = [part for part in sections(old)[1:] if not part.startswith(PROFILE_HEADING)]
    assert len(kept) > 20
    text = full_report(old, HEAD)
    assert text.startswith(HEAD) and all(part.rstrip("\n") in text for part in kept)
    assert len(text) == len(HEAD) + 1 + len("".join(kept).lstrip("\n"))
