"""Daily submission quotas per user and split (the free format pre-check, which uses none: scoring.precheck).

A split's `daily_quota` (None: unlimited) counts the user's uploads to that split since midnight UTC.
Failures caused by the file count; failures the site caused (`failure_is_site_error`) do not.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from datetime import timezone as dt_timezone

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from scoring.errors import SubmissionError
from scoring.models import Split, Submission, UploadQuotaDay


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
            submitter_id=user.pk, split=split, created_at__gte=start,
            source__in=(Submission.Source.UPLOAD, Submission.Source.HUB_RUN),  # a hub run of theirs uses it too
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
