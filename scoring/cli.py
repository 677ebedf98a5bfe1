"""Command-line scoring, one sub-command per benchmark. Pure: no Django, no database."""
from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "epic-bench": ("scoring.benchmarks.epic.core.cli", "EPIC-Bench: score std_format or raw responses"),
    "plan-bench": ("scoring.benchmarks.plan.core.cli", "PLAN-Bench: score predictions against items"),
    "vge-bench": ("scoring.benchmarks.vge.core.cli", "VGEBench: replay action logs through the engine"),
}


def usage() -> str:
    lines = ["usage: python -m scoring <benchmark> [options]", "", "benchmarks:"]
    lines += [f"  {name:<12} {text}" for name, (_, text) in COMMANDS.items()]
    lines.append("\n`python -m scoring <benchmark> --help` shows each one's options.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"unknown benchmark '{name}'\n\n{usage()}", file=sys.stderr)
        return 2
    try:
        module = importlib.import_module(COMMANDS[name][0])
    except ModuleNotFoundError as exc:
        print(f"the {name} scorer is not available yet ({exc})", file=sys.stderr)
        return 2
    return int(module.main(rest) or 0)
