"""A rejection keeps its first problems and counts them all, so a file of a million bad lines costs what one of a
hundred does; what a failed submission stores says how many were left out."""
from __future__ import annotations

from scoring.core.contract import PROBLEMS_KEPT, FileProblem, SubmissionRejected


def test_a_rejection_keeps_the_first_problems_and_counts_all_without_a_list_of_them():
    problems = (FileProblem("not a sample", line=n, field="key") for n in range(1, 1_000_001))
    rejected = SubmissionRejected("a million bad lines", problems)
    assert PROBLEMS_KEPT == 100
    assert [p.line for p in rejected.problems] == list(range(1, 101))
    assert rejected.problem_count == 1_000_000


def test_the_stored_report_lists_the_kept_problems_then_how_many_more():
    rejected = SubmissionRejected("bad", [FileProblem("x" * 5000, line=n) for n in range(1, 151)])
    report = rejected.report()
    assert len(report) == 101
    assert report[0] == {"line": 1, "field": None, "message": "x" * 1000}
    assert report[100] == {"line": None, "field": None, "more": 50,
                           "message": "and 50 more problems (150 in all; the first 100 are listed)"}


def test_a_short_report_is_unchanged_and_a_caller_may_give_the_total():
    few = [FileProblem("bad", line=1, field="id")]
    assert SubmissionRejected("bad", few).report() == [{"line": 1, "field": "id", "message": "bad"}]
    stopped_early = SubmissionRejected("bad", few, total=20)
    assert stopped_early.problem_count == 20 and stopped_early.report()[-1]["more"] == 19
