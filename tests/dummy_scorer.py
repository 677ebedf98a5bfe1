"""The test suite's "dummy" benchmark (the `dummy_benchmark` fixture, or EXTRA_BENCHMARKS for worker processes):
each file line is a number in [0, 1] for the sample at that position.

Options: `sleep` seconds per sample (so a test can kill the worker mid-job) and `marker`, a file that gets one
line each time a scoring run *completes* (so a test can count completed runs).

The scorer's version is DUMMY_SCORER_VERSION (default "dummy-1"); from "dummy-2" on, every figure is halved, so a
test can bump the version of a worker process and see scores move (`tests/scoring/test_rescore*.py`). Option
`fail_from` (a version): the scorer refuses the file under that version and later ones (a re-score that fails).
"""
from __future__ import annotations

import os
import time

from scoring.core.columns import BoardSpec, Column
from scoring.core.contract import FileProblem, SampleResult, ScorerInput, ScoringResult, SubmissionRejected
from scoring.core.plugin import BenchmarkPlugin


def current_version() -> str:
    return os.environ.get("DUMMY_SCORER_VERSION", "dummy-1")


def _halves(version: str) -> bool:
    return version != "dummy-1"


def score(inp: ScorerInput) -> ScoringResult:
    version = current_version()
    if inp.options.get("fail_from") and version >= str(inp.options["fail_from"]):
        raise SubmissionRejected(f"refused under {version} on purpose", [FileProblem("refused on purpose", line=1)])
    lines = inp.file_path.read_text(encoding="utf-8").splitlines()
    problems = []
    values = []
    for number, text in enumerate(lines, start=1):
        try:
            values.append(float(text))
        except ValueError:
            problems.append(FileProblem(f"'{text}' is not a number", line=number, field="value"))
    if problems:
        raise SubmissionRejected(f"{len(problems)} line(s) are not numbers", problems)
    if inp.options.get("crash"):
        raise RuntimeError("scorer crashed on purpose")
    results = []
    total = len(inp.samples)
    for i, sample in enumerate(inp.samples):
        time.sleep(float(inp.options.get("sleep", 0)))
        value = values[i] if i < len(values) else 0.0
        value = value / 2 if _halves(version) else value
        results.append(SampleResult(index=i, key=sample.key, score=value, task=sample.task))
        inp.progress(i + 1, total)
    if inp.options.get("marker"):
        with open(inp.options["marker"], "a", encoding="utf-8") as handle:
            handle.write("completed\n")
    overall = 100 * sum(r.score for r in results) / max(1, len(results))
    return ScoringResult(overall=overall, breakdown={"mean": overall}, samples=results, scorer_version=version)


PLUGIN = BenchmarkPlugin(
    slug="dummy",
    title="Dummy",
    scorer="tests.dummy_scorer:score",
    scorer_version="tests.dummy_scorer:current_version",
    board=BoardSpec("dummy", (Column("overall", "Overall"), Column("mean", "Mean"))),
)
