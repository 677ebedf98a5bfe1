"""The dummy benchmark with the optional pre-check declared (numbers only, one per line)."""
from __future__ import annotations

from dataclasses import replace

from scoring.core.contract import FileProblem, ScorerInput
from tests import dummy_scorer


def precheck(inp: ScorerInput) -> list[FileProblem]:
    problems = []
    for number, text in enumerate(inp.file_path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            float(text)
        except ValueError:
            problems.append(FileProblem(f"'{text}' is not a number ({len(inp.samples)} samples)", line=number,
                                        field="value"))
    return problems


PLUGIN = replace(dummy_scorer.PLUGIN, precheck="tests.scoring.precheck_scorer:precheck")
