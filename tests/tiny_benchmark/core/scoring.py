"""Tiny-Bench scoring: a JSONL file of {"id": ..., "answer": ...} lines against the samples' answers. Pure."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from scoring.core.contract import FileProblem, SampleRecord, SampleResult, ScoringResult, SubmissionRejected

KINDS = ("colour", "shape")  # the two board columns besides overall
VERSION = "tiny-1"


def read_answers(path: Path) -> dict[str, str]:
    answers: dict[str, str] = {}
    problems = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            line = json.loads(text)
            answers[str(line["id"])] = str(line["answer"])
        except (ValueError, KeyError, TypeError) as exc:
            problems.append(FileProblem(f"not an {{id, answer}} object ({exc})", line=number))
    if problems:
        raise SubmissionRejected(f"{len(problems)} unreadable line(s)", problems)
    return answers


def score(samples: Sequence[SampleRecord], answers: dict[str, str]) -> ScoringResult:
    results = [
        SampleResult(index=i, key=s.key, task=s.task,
                     score=float(answers.get(s.key, "").strip().lower() == str(s.ground_truth["answer"]).lower()))
        for i, s in enumerate(samples)
    ]

    def mean(rows: list[SampleResult]) -> float | None:
        return 100 * sum(r.score or 0.0 for r in rows) / len(rows) if rows else None

    breakdown = {kind: mean([r for r in results if r.task == kind]) for kind in KINDS}
    return ScoringResult(overall=mean(results), breakdown=breakdown, samples=results, scorer_version=VERSION)
