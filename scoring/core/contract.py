"""The scoring contract every benchmark scorer follows, like EvalAI's `evaluate()`.

A scorer takes the split's samples as plain records and the submitted file's path, and returns a
`ScoringResult`, or raises `SubmissionRejected` when the file itself is unusable. Nothing here knows Django.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True)
class SampleRecord:
    key: str
    position: int
    category: str = ""
    group: str = ""
    task: str = ""
    inputs: Mapping[str, Any] = field(default_factory=dict)
    ground_truth: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SampleResult:
    index: int
    key: str
    score: float | None
    task: str = ""
    outcome: str = "ok"
    invalid: bool = False
    error: str = ""
    components: Mapping[str, Any] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoringResult:
    overall: float | None
    breakdown: Mapping[str, float | None]
    samples: Sequence[SampleResult]
    scorer_version: str
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FileProblem:
    message: str
    line: int | None = None
    field: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "field": self.field, "message": self.message}

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message


class SubmissionRejected(Exception):
    """The submitted file cannot be scored; the problems say what is wrong and where."""

    def __init__(self, message: str, problems: Sequence[FileProblem] = ()):
        super().__init__(message)
        self.message = message
        self.problems = list(problems)


@dataclass(frozen=True)
class ScorerInput:
    file_path: Path
    samples: Sequence[SampleRecord]
    options: Mapping[str, Any]
    progress: ProgressCallback = lambda done, total: None
