"""Daily submission quotas per user and split, and the free format pre-check that uses none.

A split's `daily_quota` (None: unlimited) counts the user's uploads to that split since midnight UTC.
Failures caused by the file count; failures the site caused (`failure_is_site_error`) do not.
"""
from __future__ import annotations

import importlib
import json
import tempfile
from dataclasses import dataclass
from datetime import datetime, time, timedelta, timezone as dt_timezone
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.utils import timezone

from scoring.core.contract import FileProblem, ScorerInput, SubmissionRejected
from scoring.models import Split, Submission


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
    from scoring.services import SubmissionError

    state = submission_quota(user=user, split=split, now=now)
    if state.exhausted:
        raise SubmissionError(
            f"Daily quota reached for {split}: {state.used} of {state.limit} submissions used today "
            f"(UTC). It resets at {state.resets_at:%Y-%m-%d %H:%M} UTC. The format pre-check does not use quota.",
            status=429,
            field="split",
        )


def quotas_for_user(*, user: AbstractBaseUser, splits) -> list[tuple[Split, QuotaState]]:
    return [(split, submission_quota(user=user, split=split)) for split in splits]


def _generic_problems(path: Path, name: str) -> list[FileProblem]:
    """The checks every file gets when a scorer has no pre-check of its own: JSON / JSONL must parse."""
    problems: list[FileProblem] = []
    suffix = name.lower().rsplit(".", 1)[-1] if "." in name else ""
    if suffix == "jsonl":
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    json.loads(raw)
                except (ValueError, UnicodeDecodeError) as exc:
                    problems.append(FileProblem(f"not valid JSON: {exc}", line=number))
                    if len(problems) >= 20:
                        break
    elif suffix == "json":
        try:
            json.loads(path.read_bytes())
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(FileProblem(f"not valid JSON: {exc}"))
    return problems


@dataclass(frozen=True)
class PrecheckResult:
    problems: list[FileProblem]
    checked_by: str  # "scorer" when the benchmark's scorer has a pre-check, else "generic"

    @property
    def ok(self) -> bool:
        return not self.problems


def submission_precheck(*, split: Split, uploaded_file: UploadedFile) -> PrecheckResult:
    """Validate a file's format without scoring it and without using quota.

    The benchmark's scorer module may expose `precheck(ScorerInput) -> list[FileProblem]`; it is used when
    present. Nothing is stored: the file goes to a temporary file that is removed at once.
    """
    from scoring.scorers import NoScorer, _registered
    from scoring.services import _samples

    target = _registered().get(split.benchmark.scorer, "")
    precheck = None
    if target:
        try:
            precheck = getattr(importlib.import_module(target.partition(":")[0]), "precheck", None)
        except ImportError:
            precheck = None
    with tempfile.NamedTemporaryFile(suffix="-" + Path(uploaded_file.name).name[-80:]) as tmp:
        for chunk in uploaded_file.chunks():
            tmp.write(chunk)
        tmp.flush()
        path = Path(tmp.name)
        if precheck is None:
            return PrecheckResult(_generic_problems(path, uploaded_file.name), "generic")
        try:
            problems = list(precheck(ScorerInput(file_path=path, samples=_samples(split), options={})))
        except SubmissionRejected as exc:
            problems = exc.problems or [FileProblem(exc.message)]
        except NoScorer as exc:
            problems = [FileProblem(str(exc))]
    return PrecheckResult(problems, "scorer")
