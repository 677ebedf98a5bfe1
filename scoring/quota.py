"""Upload quotas per user and phase, per UTC day and in total (the free format pre-check uses none:
scoring.precheck).

A split's phase (`scoring.models.Phase`) sets `daily_quota` (uploads since midnight UTC) and `total_quota`
(uploads over the whole phase), counted over all the phase's splits; None is unlimited, and a split in no phase has
no quota. Failures caused by the file count; failures the site caused (`failure_is_site_error`) do not.
Uploads the site kept queued past QUEUE_STALE_AFTER_MINUTES do not count either (`scoring.queue_health.overdue_q`).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta
from datetime import timezone as dt_timezone

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from scoring.errors import SubmissionError
from scoring.models import Phase, Split, Submission, UploadQuotaDay
from scoring.queue_health import overdue_q


@dataclass(frozen=True)
class QuotaState:
    limit: int | None  # per day; None: unlimited
    used: int  # today
    resets_at: datetime
    total_limit: int | None = None  # over the phase; None: unlimited
    total_used: int = 0
    phase: str = ""  # the phase's name, "" for a split in no phase

    @property
    def remaining(self) -> int | None:
        """Uploads left today: the smaller of what is left of the day's and of the phase's quota."""
        left = [n for n in (self._left(self.limit, self.used), self._left(self.total_limit, self.total_used))
                if n is not None]
        return min(left) if left else None

    @property
    def total_remaining(self) -> int | None:
        return self._left(self.total_limit, self.total_used)

    @staticmethod
    def _left(limit: int | None, used: int) -> int | None:
        return None if limit is None else max(0, limit - used)

    @property
    def exhausted(self) -> bool:
        return self.daily_exhausted or self.total_exhausted

    @property
    def daily_exhausted(self) -> bool:
        return self.limit is not None and self.used >= self.limit

    @property
    def total_exhausted(self) -> bool:
        return self.total_limit is not None and self.total_used >= self.total_limit


def _day_start(now: datetime) -> datetime:
    return datetime.combine(now.astimezone(dt_timezone.utc).date(), time.min, tzinfo=dt_timezone.utc)


def _phase(split: Split) -> Phase | None:
    return split.phase if split.phase_id else None


def submission_quota(*, user: AbstractBaseUser, split: Split, now: datetime | None = None) -> QuotaState:
    """The user's uploads to the split's phase today and in total, against its quotas."""
    now = now or timezone.now()
    start = _day_start(now)
    phase = _phase(split)
    if phase is None:
        return QuotaState(limit=None, used=0, resets_at=start + timedelta(days=1))
    counted = (
        Submission.objects.filter(submitter_id=user.pk, split__phase=phase,
                                  # a hub run of theirs uses it too
                                  source__in=(Submission.Source.UPLOAD, Submission.Source.HUB_RUN))
        .exclude(status=Submission.Status.FAILED, failure_is_site_error=True)
        .exclude(overdue_q(now))
    )
    total = counted.count() if phase.total_quota is not None else 0
    return QuotaState(limit=phase.daily_quota, used=counted.filter(created_at__gte=start).count(),
                      resets_at=start + timedelta(days=1), total_limit=phase.total_quota, total_used=total,
                      phase=phase.name)


def submission_quota_check(*, user: AbstractBaseUser, split: Split, now: datetime | None = None) -> None:
    """Refuse an upload past the phase's daily or total quota (HTTP 429)."""
    state = submission_quota(user=user, split=split, now=now)
    where = f"phase '{state.phase}' of {split.benchmark.name}"
    if state.total_exhausted:
        raise SubmissionError(
            f"Total quota reached for {where}: {state.total_used} of {state.total_limit} submissions used in this "
            "phase. Nothing was stored. The format pre-check does not use quota.",
            status=429,
            field="split",
        )
    if state.daily_exhausted:
        raise SubmissionError(
            f"Daily quota reached for {where} (split {split.name}): {state.used} of {state.limit} submissions used "
            f"today (UTC). It resets at {state.resets_at:%Y-%m-%d %H:%M} UTC. The format pre-check does not use quota.",
            status=429,
            field="split",
        )


def submission_quota_claim(*, user: AbstractBaseUser, split: Split, now: datetime | None = None) -> None:
    """Check the quota as part of the transaction that stores the upload (HTTP 429 past it).

    The user's row for this phase and day is written, then locked, before counting: parallel uploads to the phase
    wait for each other there, so each counts the ones stored before it, and the count and the insert are one
    decision, for the day's quota and the phase's total alike (on SQLite the write takes the database's write lock;
    on PostgreSQL the row lock is held until commit)."""
    phase = _phase(split)
    if phase is None or (phase.daily_quota is None and phase.total_quota is None):
        return
    now = now or timezone.now()
    day = _day_start(now).date()
    UploadQuotaDay.objects.bulk_create([UploadQuotaDay(user_id=user.pk, phase=phase, day=day)], ignore_conflicts=True)
    UploadQuotaDay.objects.select_for_update().get(user_id=user.pk, phase=phase, day=day)
    submission_quota_check(user=user, split=split, now=now)


def quota_days_prune(*, now: datetime | None = None) -> int:
    """Delete the lock rows of past days (only today's row is ever locked); returns how many went."""
    today = _day_start(now or timezone.now()).date()
    deleted, _ = UploadQuotaDay.objects.filter(day__lt=today).delete()
    return deleted


def quotas_for_user(*, user: AbstractBaseUser, splits) -> list[tuple[Phase, QuotaState]]:
    """The user's quota in each phase of these splits that has one (the upload form's list), in the splits' order."""
    seen: dict[int, tuple[Phase, QuotaState]] = {}
    for split in splits:
        phase = _phase(split)
        if phase is None or phase.pk in seen or (phase.daily_quota is None and phase.total_quota is None):
            continue
        seen[phase.pk] = (phase, submission_quota(user=user, split=split))
    return list(seen.values())
