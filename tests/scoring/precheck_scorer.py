"""A test scorer module that exposes the optional `precheck` hook (numbers only, one per line)."""
from __future__ import annotations

from scoring.core.contract import FileProblem, ScorerInput
from tests.dummy_scorer import score  # noqa: F401 - the registered scoring function


def precheck(inp: ScorerInput) -> list[FileProblem]:
    problems = []
    for number, text in enumerate(inp.file_path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            float(text)
        except ValueError:
            problems.append(FileProblem(f"'{text}' is not a number ({len(inp.samples)} samples)", line=number,
                                        field="value"))
    return problems
