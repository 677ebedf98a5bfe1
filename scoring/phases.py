"""Phases (scoring.models.Phase): whether a split takes uploads now, whether an upload may be private, whether a
board may show a submission's results yet, and the words the pages use for a phase's dates.

An upload to a split passes `phase_upload_check` (in `scoring.precheck.submission_check`, before anything is
stored): refused before the phase opens and from its close, with the dates in UTC. Boards hold back the uploads of
a phase whose results come at its close (`results_waiting_q`) until it has closed; the submitter sees their own
on the submission page at once."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.db.models import Q
from django.utils import timezone

from scoring.errors import SubmissionError
from scoring.models import Phase, Split, Submission

DATE = "%Y-%m-%d %H:%M UTC"


def duration_words(delta: timedelta) -> str:
    """'3 days', '5 hours', '12 minutes' (the largest whole unit; at least a minute)."""
    seconds = max(0, int(delta.total_seconds()))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return "less than a minute"


def utc(moment: datetime) -> str:
    return moment.astimezone(dt_timezone.utc).strftime(DATE)


@dataclass(frozen=True)
class PhaseShown:
    """A phase as the board, the format page and the upload form state it."""

    phase: Phase
    state: str  # "upcoming", "open" or "closed"
    dates: str  # "2026-01-01 00:00 UTC – 2026-03-01 00:00 UTC" or "from 2026-01-01 00:00 UTC, no close date"
    when: str  # "opens in 3 days", "closes in 5 hours", "open, no close date", "closed 2 days ago"
    results_waiting: bool

    @property
    def name(self) -> str:
        return self.phase.name


def phase_shown(phase: Phase, *, now: datetime | None = None) -> PhaseShown:
    now = now or timezone.now()
    if phase.closes_at is not None:
        dates = f"{utc(phase.opens_at)} – {utc(phase.closes_at)}"
    else:
        dates = f"from {utc(phase.opens_at)}, no close date"
    if not phase.has_opened(now):
        state, when = "upcoming", f"opens in {duration_words(phase.opens_at - now)}"
    elif phase.has_closed(now):
        assert phase.closes_at is not None
        state, when = "closed", f"closed {duration_words(now - phase.closes_at)} ago"
    elif phase.closes_at is not None:
        state, when = "open", f"closes in {duration_words(phase.closes_at - now)}"
    else:
        state, when = "open", "open, no close date"
    return PhaseShown(phase, state, dates, when, phase.results_waiting(now))


def phase_of(split: Split) -> Phase | None:
    return split.phase if split.phase_id else None


def phase_upload_check(*, split: Split, now: datetime | None = None) -> None:
    """Refuse an upload to a split whose phase has not opened yet or has closed (HTTP 403, field `split`)."""
    phase = phase_of(split)
    if phase is None:
        return
    now = now or timezone.now()
    where = f"Phase '{phase.name}' of {split.benchmark.name} (split {split.name})"
    if not phase.has_opened(now):
        raise SubmissionError(
            f"{where} opens at {utc(phase.opens_at)} (in {duration_words(phase.opens_at - now)}); uploads are "
            "taken from then. Nothing was stored and no quota was used.", status=403, field="split")
    if phase.has_closed(now):
        assert phase.closes_at is not None
        raise SubmissionError(
            f"{where} closed at {utc(phase.closes_at)}; it takes no more uploads. Nothing was stored and no quota "
            "was used.", status=403, field="split")


def phase_private_check(*, split: Split, visibility: str) -> None:
    """Refuse a private upload (or making one private) where the split's phase allows public results only."""
    phase = phase_of(split)
    if visibility == Submission.Visibility.PRIVATE and phase is not None and not phase.private_allowed:
        raise SubmissionError(
            f"Phase '{phase.name}' of {split.benchmark.name} takes public submissions only: private ones are not "
            "allowed here. Choose public, or withdraw it later.", status=400, field="visibility")


def results_waiting_q(*, now: datetime | None = None) -> Q:
    """Submissions whose results the boards hold back now: uploads to a phase that shows results at its close, not
    closed yet (reported rows from the papers are never held back)."""
    now = now or timezone.now()
    return (Q(source=Submission.Source.UPLOAD, split__phase__results_at_close=True)
            & (Q(split__phase__closes_at__isnull=True) | Q(split__phase__closes_at__gt=now)))


def results_waiting(submission: Submission, *, now: datetime | None = None) -> bool:
    """Whether a board holds this submission back now (see `results_waiting_q`)."""
    phase = phase_of(submission.split)
    return (submission.source == Submission.Source.UPLOAD and phase is not None
            and phase.results_waiting(now))
