"""``attitude-sim scenarios``: the built-in scenarios, one line each."""

from __future__ import annotations

from sim import builtin_names, load_scenario as load

__all__ = ["add_parser", "cmd_scenarios"]


def add_parser(subparsers) -> None:
    """Add ``scenarios`` to ``subparsers``."""
    subparsers.add_parser("scenarios", help="list the built-in scenarios").set_defaults(handler=cmd_scenarios)


def cmd_scenarios(args) -> int:
    for name in builtin_names():
        scenario = load(name)
        print(f"{name:<20} {scenario.title}: {scenario.caption.split('. ')[0].rstrip('.')}.")
    return 0
