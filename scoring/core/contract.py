"""The scoring contract every benchmark scorer follows, like EvalAI's `evaluate()`.

A scorer takes the split's samples as plain records and the submitted file's path, and returns a
`ScoringResult`, or raises `SubmissionRejected` when the file itself is unusable. Nothing here knows Django.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

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
class SampleReading:
    """One sample under a second reading of the same answers (a plugin's `Reading`), kept only where it differs from
    the headline's score, validity or outcome."""

    score: float | None
    invalid: bool = False
    outcome: str = "ok"

    def as_dict(self) -> dict[str, Any]:
        return {"score": self.score, "invalid": self.invalid, "outcome": self.outcome}


@dataclass(frozen=True)
class ReadingFigures:
    """The figure set of a second reading of the same upload, stored with its score: the same columns as the
    headline's `overall`, `breakdown` and `intervals`. `tells_more`: per sample, these figures would tell a submitter
    more of the ground truth than the headline's do, so a split with hidden ground truth does not show them."""

    overall: float | None
    breakdown: Mapping[str, float | None]
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    tells_more: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"overall": self.overall, "breakdown": dict(self.breakdown),
                "intervals": {k: list(v) for k, v in self.intervals.items()}, "details": dict(self.details),
                "tells_more": self.tells_more}


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
    readings: Mapping[str, SampleReading] = field(default_factory=dict)  # by reading key, only where they differ


@dataclass(frozen=True)
class ScoringResult:
    overall: float | None
    breakdown: Mapping[str, float | None]
    samples: Sequence[SampleResult]
    scorer_version: str
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict)
    readings: Mapping[str, ReadingFigures] = field(default_factory=dict)  # the plugin's second readings, by key


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


PROBLEMS_KEPT = 100  # problems a rejection keeps, and a failed submission stores; the rest are only counted
PROBLEM_TEXT_KEPT = 1000  # characters of one problem's message that are stored (a message may quote the file)
GROUPS_KEPT = 100  # kinds of problem a rejection counts apart; problems of further kinds are counted together
GROUP_LINES_LISTED = 10  # lines a group names; the rest are counted

_QUOTED = re.compile(r"'[^']*'|`[^`]*`|\"[^\"]*\"")
_NUMBER = re.compile(r"\d+")


def problem_kind(problem: FileProblem) -> tuple[str | None, str]:
    """What a problem says regardless of the line it is on: its field and its message with quoted values and numbers
    blanked, so "'a-1' is not a sample" and "'a-2' is not a sample" are one kind."""
    return problem.field, _NUMBER.sub("#", _QUOTED.sub("'…'", problem.message))


@dataclass(frozen=True)
class ProblemGroup:
    """Problems of one kind (`problem_kind`): the first one's message and field, how many there are in all and the
    first GROUP_LINES_LISTED of their lines. `alike`: the messages differ only in quoted values or numbers (then the
    first stands for them, "e.g."), else they are identical."""

    message: str
    field: str | None
    count: int
    lines: tuple[int, ...] = ()
    alike: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"count": self.count, "lines": list(self.lines), "field": self.field, "message": self.message,
                "line": self.lines[0] if self.lines else None}

    def __str__(self) -> str:
        # a message that names its field itself ("field `imgs` is not known") is not prefixed with it again
        named = self.field and (f"`{self.field}`" in self.message or f"'{self.field}'" in self.message)
        first = FileProblem(self.message, field=None if named else self.field)
        if self.count == 1:
            return str(FileProblem(self.message, line=self.lines[0] if self.lines else None, field=first.field))
        shown = ", ".join(map(str, self.lines)) + (", …" if self.count > len(self.lines) else "")
        where = f"{self.count:,} lines ({shown})" if self.lines else f"{self.count:,} problems"
        return f"{where}{', e.g.' if self.alike else ':'} {first}"


class _Groups:
    """Problems counted by kind as they stream past: GROUPS_KEPT kinds apart, the rest as one count."""

    def __init__(self) -> None:
        self.first: dict[tuple[str | None, str], FileProblem] = {}
        self.counts: dict[tuple[str | None, str], int] = {}
        self.lines: dict[tuple[str | None, str], list[int]] = {}
        self.alike: set[tuple[str | None, str]] = set()
        self.other = 0

    def add(self, problem: FileProblem) -> None:
        kind = problem_kind(problem)
        if kind not in self.first:
            if len(self.first) >= GROUPS_KEPT:
                self.other += 1
                return
            self.first[kind], self.counts[kind], self.lines[kind] = problem, 0, []
        self.counts[kind] += 1
        if problem.message != self.first[kind].message:
            self.alike.add(kind)
        if problem.line is not None and len(self.lines[kind]) < GROUP_LINES_LISTED:
            self.lines[kind].append(problem.line)

    def groups(self) -> list[ProblemGroup]:
        found = [ProblemGroup(first.message, first.field, self.counts[kind], tuple(self.lines[kind]),
                              kind in self.alike) for kind, first in self.first.items()]
        if self.other:
            found.append(ProblemGroup("problems of other kinds", None, self.other))
        return found


class SubmissionRejected(Exception):
    """The submitted file cannot be scored; the problems say what is wrong and where.

    Keeps the first PROBLEMS_KEPT problems and counts them all (`problem_count`), so a file with a million bad
    lines costs no more than one with a hundred: `problems` may be any iterable, a generator included. Every
    problem is also counted by its kind (`groups()`: "50 lines: ..."), so what repeats is said once, with its
    count. `total` gives the count when the caller stopped collecting early."""

    def __init__(self, message: str, problems: Iterable[FileProblem] = (), *, total: int = 0):
        super().__init__(message)
        self.message = message
        self.problems: list[FileProblem] = []
        self._groups = _Groups()
        count = 0
        for problem in problems:
            if count < PROBLEMS_KEPT:
                self.problems.append(problem)
            self._groups.add(problem)
            count += 1
        self.problem_count = max(count, total)

    def groups(self) -> list[ProblemGroup]:
        """The problems by kind, in the order each kind first appeared, with their counts; problems counted only
        (`total` beyond those given) are one last group."""
        found = self._groups.groups()
        uncounted = self.problem_count - sum(group.count for group in found)
        if uncounted > 0:
            found.append(ProblemGroup("further problems, not told apart", None, uncounted))
        return found

    def left_out_problem(self) -> FileProblem | None:
        """"and K more problems", when problems were counted but not kept."""
        more = self.problem_count - len(self.problems)
        if more <= 0:
            return None
        return FileProblem(f"and {more:,} more problems ({self.problem_count:,} in all; the first "
                           f"{len(self.problems)} are listed)")

    def report(self) -> list[dict[str, Any]]:
        """What a failed submission stores (`Submission.error_report`): the kept problems as {line, field, message},
        and when there were more, a last entry of the same shape saying how many, with their number as `more`."""
        report = [{**p.as_dict(), "message": p.message[:PROBLEM_TEXT_KEPT]} for p in self.problems]
        left_out = self.left_out_problem()
        if left_out is not None:
            report.append({**left_out.as_dict(), "more": self.problem_count - len(self.problems)})
        return report


def report_groups(report: Iterable[Mapping[str, Any]]) -> list[ProblemGroup]:
    """A stored report (`SubmissionRejected.report()`) grouped by kind, as a refusal is: the kept problems only (the
    last entry saying how many more there were stays as it is)."""
    problems = [FileProblem(str(p.get("message", "")), p.get("line"), p.get("field")) for p in report
                if isinstance(p, Mapping) and not p.get("more")]
    return SubmissionRejected("", problems).groups()


MISSING_LISTED = 20  # keys of unanswered samples a pre-check report lists; the rest are only counted


@dataclass(frozen=True)
class AppliedSetting:
    """A choice the scorer will make when it reads the file, and why (EPIC: the coordinate system, from the upload's
    mode, the model's family or auto detection), so a submitter sees it before uploading."""

    setting: str  # what is chosen, e.g. "coordinate system"
    value: str  # the choice, e.g. "normalized_0_1000"
    why: str  # what decided it, e.g. "family Qwen3-VL, from the model name 'Qwen3-VL-8B'"

    def as_dict(self) -> dict[str, str]:
        return {"setting": self.setting, "value": self.value, "why": self.why}


@dataclass(frozen=True)
class PrecheckReport:
    """What a benchmark's pre-check found, without scoring: the problems its scorer would refuse the file for, what
    the file was read as, and how its lines line up with the split (counts, and the keys of samples no line answers:
    keys, never ground truth). A pre-check may return a bare list of problems instead (then only those are known)."""

    problems: Sequence[FileProblem] = ()
    file_format: str = ""  # what the reader took the file as, e.g. "raw responses", "VLMEvalKit result sheet (TSV)"
    records: int | None = None  # lines (rows) read as predictions
    matched: int | None = None  # of those, lines that answer a sample of the split
    samples: int | None = None  # samples in the split
    missing: Sequence[str] = ()  # the first MISSING_LISTED keys of samples no line answers (they score 0)
    missing_count: int = 0
    notes: Sequence[str] = ()  # what the submitter should know that is not a problem
    applied: Sequence[AppliedSetting] = ()  # the choices the scorer will make reading the file, and why

    @classmethod
    def of(cls, problems: Sequence[FileProblem], *, file_format: str, records: int, matched_keys: Iterable[str],
           samples: Sequence[SampleRecord], notes: Sequence[str] = (),
           applied: Sequence[AppliedSetting] = ()) -> "PrecheckReport":
        """A report from the keys the file's lines matched, in the split's sample order."""
        answered = set(matched_keys) & {s.key for s in samples}
        missing = [s.key for s in samples if s.key not in answered]
        return cls(problems=tuple(problems), file_format=file_format, records=records, matched=len(answered),
                   samples=len(samples), missing=tuple(missing[:MISSING_LISTED]), missing_count=len(missing),
                   notes=tuple(notes), applied=tuple(applied))


@dataclass(frozen=True)
class ScorerInput:
    file_path: Path
    samples: Sequence[SampleRecord]
    options: Mapping[str, Any]
    progress: ProgressCallback = lambda done, total: None
    model: str = ""  # the name of the model the predictions are from (its entry's); empty where not known
