"""Daily submission quotas per user and split, and the free format pre-check that uses none.

A split's `daily_quota` (None: unlimited) counts the user's uploads to that split since midnight UTC.
Failures caused by the file count; failures the site caused (`failure_is_site_error`) do not.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone as dt_timezone
from pathlib import Path
from typing import Any, Mapping

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.utils import timezone

from scoring.benchmarks import UnknownBenchmark, plugin_for
from scoring.core.bounded import document_error
from scoring.core.contract import FileProblem, PrecheckReport, ScorerInput, SubmissionRejected
from scoring.core.jsonl import json_lines, text_lines
from scoring.errors import SubmissionError
from scoring.models import Split, Submission, UploadQuotaDay
from scoring.selectors import split_samples


@dataclass(frozen=True)
class QuotaState:
    limit: int | None  # None: unlimited
    used: int
    resets_at: datetime

    @property
    def remaining(self) -> int | None:
        return None if self.limit is None else max(0, self.limit - self.used)

    @property
    def exhausted(self) -> bool:
        return self.limit is not None and self.used >= self.limit


def _day_start(now: datetime) -> datetime:
    return datetime.combine(now.astimezone(dt_timezone.utc).date(), time.min, tzinfo=dt_timezone.utc)


def submission_quota(*, user: AbstractBaseUser, split: Split, now: datetime | None = None) -> QuotaState:
    now = now or timezone.now()
    start = _day_start(now)
    used = (
        Submission.objects.filter(
            submitter_id=user.pk, split=split, source=Submission.Source.UPLOAD, created_at__gte=start
        )
        .exclude(status=Submission.Status.FAILED, failure_is_site_error=True)
        .count()
    )
    return QuotaState(limit=split.daily_quota, used=used, resets_at=start + timedelta(days=1))


def submission_quota_check(*, user: AbstractBaseUser, split: Split, now: datetime | None = None) -> None:
    """Refuse an upload past the split's daily quota (HTTP 429)."""
    state = submission_quota(user=user, split=split, now=now)
    if state.exhausted:
        raise SubmissionError(
            f"Daily quota reached for {split}: {state.used} of {state.limit} submissions used today "
            f"(UTC). It resets at {state.resets_at:%Y-%m-%d %H:%M} UTC. The format pre-check does not use quota.",
            status=429,
            field="split",
        )


def submission_quota_claim(*, user: AbstractBaseUser, split: Split, now: datetime | None = None) -> None:
    """Check the quota as part of the transaction that stores the upload (HTTP 429 past it).

    The user's row for this split and day is written, then locked, before counting: parallel uploads wait for each
    other there, so each counts the ones stored before it, and the count and the insert are one decision (on
    SQLite the write takes the database's write lock; on PostgreSQL the row lock is held until commit)."""
    if split.daily_quota is None:
        return
    now = now or timezone.now()
    day = _day_start(now).date()
    UploadQuotaDay.objects.bulk_create([UploadQuotaDay(user_id=user.pk, split=split, day=day)], ignore_conflicts=True)
    UploadQuotaDay.objects.select_for_update().get(user_id=user.pk, split=split, day=day)
    submission_quota_check(user=user, split=split, now=now)


def quota_days_prune(*, now: datetime | None = None) -> int:
    """Delete the lock rows of past days (only today's row is ever locked); returns how many went."""
    today = _day_start(now or timezone.now()).date()
    deleted, _ = UploadQuotaDay.objects.filter(day__lt=today).delete()
    return deleted


def quotas_for_user(*, user: AbstractBaseUser, splits) -> list[tuple[Split, QuotaState]]:
    return [(split, submission_quota(user=user, split=split)) for split in splits]


def _generic_problems(path: Path, name: str, *, samples: int) -> list[FileProblem]:
    """The checks every file gets when its benchmark has no pre-check of its own: it is UTF-8 text read with the
    readers' shared decoding (scoring.core.jsonl), no longer than the split's line bound, and a .jsonl / .json
    file's lines or document are JSON. Stops at the 20th problem."""
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix == "json":
        error = document_error(path.read_bytes())
        return [FileProblem(error)] if error else []
    problems: list[FileProblem] = []
    try:
        with path.open("rb") as handle:
            lines = json_lines(handle, samples=samples) if suffix in ("jsonl", "ndjson") else text_lines(
                handle, samples=samples)
            for line in lines:
                if line.error:
                    problems.append(FileProblem(line.error, line=line.number))
                    if len(problems) >= 20:
                        break
    except SubmissionRejected as exc:
        problems += exc.problems
    return problems


@dataclass(frozen=True)
class PrecheckResult:
    problems: list[FileProblem]
    checked_by: str  # "scorer" when the benchmark's scorer has a pre-check, else "generic"
    report: PrecheckReport = PrecheckReport()  # what the scorer's pre-check found beyond the problems

    @property
    def ok(self) -> bool:
        return not self.problems


def submission_precheck(*, split: Split, uploaded_file: UploadedFile,
                        options: Mapping[str, Any] | None = None) -> PrecheckResult:
    """Validate a file's format without scoring it and without using quota.

    The benchmark's plugin may declare a `precheck(ScorerInput) -> PrecheckReport` (the built-in ones read the file
    with the upload's `options`, e.g. EPIC's raw flag, and match it to the split as their scorer does, saying which
    samples no line answers); else the generic check reads every line. The work is bounded, for this runs on the
    request of anyone: files over PRECHECK_MAX_BYTES are not read, reading stops at the split's line bound, and the
    samples are given as keys and labels only (matching lines to samples needs no inputs and no ground truth, and
    the pre-check must not load hidden ground truth either). Nothing is stored: the file goes to a temporary file
    that is removed at once.
    """
    limit = settings.PRECHECK_MAX_BYTES
    if uploaded_file.size > limit:
        return PrecheckResult([FileProblem(
            f"the pre-check reads files of up to {limit:,} bytes and this one has {uploaded_file.size:,}: upload it "
            "to have it checked and scored, or check a part of it here")], "generic")
    try:
        precheck = plugin_for(split.benchmark.scorer).precheck_function()
    except UnknownBenchmark:
        precheck = None
    with tempfile.NamedTemporaryFile(suffix="-" + Path(uploaded_file.name).name[-80:]) as tmp:
        for chunk in uploaded_file.chunks():
            tmp.write(chunk)
        tmp.flush()
        path = Path(tmp.name)
        if precheck is None:
            return PrecheckResult(_generic_problems(path, uploaded_file.name, samples=split.samples.count()), "generic")
        samples = split_samples(split=split, labels_only=True)
        try:
            found = precheck(ScorerInput(file_path=path, samples=samples, options=dict(options or {})))
        except SubmissionRejected as exc:
            found = exc if exc.problems else SubmissionRejected(exc.message, [FileProblem(exc.message)])
    if isinstance(found, SubmissionRejected):  # the file cannot be read far enough to be matched
        report = PrecheckReport(samples=len(samples))
        rejection = found
    else:
        report = found if isinstance(found, PrecheckReport) else PrecheckReport(problems=tuple(found))
        rejection = SubmissionRejected("", report.problems)
    left_out = rejection.left_out_problem()
    return PrecheckResult(rejection.problems + ([left_out] if left_out else []), "scorer", report)
