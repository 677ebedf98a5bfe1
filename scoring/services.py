"""Writes for submissions: create (check, then do), score, requeue what a dead worker left behind."""
from __future__ import annotations

import hashlib
import logging
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.text import slugify

from scoring.core.contract import SampleRecord, ScorerInput, ScoringResult, SubmissionRejected
from scoring.models import Benchmark, ModelEntry, Sample, SampleScore, Score, Split, Submission
from scoring.scorers import NoScorer, get_scorer

log = logging.getLogger(__name__)


class SubmissionError(Exception):
    """An upload that is refused before anything is stored. `status` is the HTTP status to answer with."""

    def __init__(self, message: str, *, status: int = 400, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field


def split_resolve(*, benchmark_slug: str, split_name: str | None) -> Split:
    """The split a request names: the benchmark's default split (newest version) when no name is given."""
    benchmark = Benchmark.objects.filter(slug=benchmark_slug).first()
    if benchmark is None:
        known = ", ".join(Benchmark.objects.values_list("slug", flat=True))
        raise SubmissionError(f"Unknown benchmark '{benchmark_slug}'. Known: {known}.", status=404, field="benchmark")
    splits = benchmark.splits.order_by("-version")
    split = splits.filter(name=split_name).first() if split_name else splits.filter(is_default=True).first()
    if split is None:
        known = ", ".join(sorted(set(benchmark.splits.values_list("name", flat=True))))
        raise SubmissionError(
            f"Unknown split '{split_name}' for {benchmark.slug}. Known: {known or 'none'}.", status=404, field="split"
        )
    return split


def model_entry_slug(name: str, thinking: str) -> str:
    """A free slug for a model variant: the name, with "-thinking" for thinking variants, numbered if taken."""
    base = slugify(f"{name}-thinking" if thinking == ModelEntry.Thinking.YES else name)[:200] or "model"
    slug, n = base, 1
    while ModelEntry.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def model_entry_for_upload(*, user: AbstractBaseUser, name: str, fields: dict[str, Any] | None = None) -> ModelEntry:
    """The entry an upload goes to: the user's own entry of that name, or a new one owned by the user."""
    name = name.strip()
    if not name:
        raise SubmissionError("A model name is required.", field="model")
    fields = {k: v for k, v in (fields or {}).items() if v not in (None, "")}
    thinking = fields.pop("thinking", "")
    entry = ModelEntry.objects.filter(name=name, thinking=thinking).first()
    if entry is None:
        return ModelEntry(name=name, slug=model_entry_slug(name, thinking), thinking=thinking, owner=user, **fields)
    if entry.owner_id != user.pk and not user.is_staff:
        raise SubmissionError(
            f"The model entry '{entry}' belongs to someone else; choose another name.", status=403, field="model"
        )
    return entry


def _refuse_anonymous(user: AbstractBaseUser | None) -> None:
    if user is None or not user.is_authenticated:
        raise SubmissionError("Sign in to submit (use an API token for scripts).", status=401)


def upload_request_check(*, user: AbstractBaseUser | None, content_length: str | None) -> None:
    """Refuse an upload request before its body is read: anonymous, or declaring more than the file limit
    (plus room for the form's other fields)."""
    _refuse_anonymous(user)
    try:
        declared = int(content_length or "")
    except ValueError:
        return
    limit = settings.SUBMISSION_MAX_BYTES
    if declared > limit + 1024 * 1024:
        raise SubmissionError(f"The upload is larger than the limit of {limit} bytes.", status=413, field="file")


def submission_check(*, user: AbstractBaseUser | None, split: Split | None, uploaded_file: UploadedFile | None) -> None:
    """Refuse an upload that must not be stored: anonymous, over quota, missing, empty or too large."""
    _refuse_anonymous(user)
    if split is not None:
        from scoring.quota import submission_quota_check

        submission_quota_check(user=user, split=split)
    limit = settings.SUBMISSION_MAX_BYTES
    if uploaded_file is None:
        raise SubmissionError("No file was uploaded (form field 'file').", field="file")
    if uploaded_file.size == 0:
        raise SubmissionError(f"The file '{uploaded_file.name}' is empty.", field="file")
    if uploaded_file.size > limit:
        raise SubmissionError(
            f"The file '{uploaded_file.name}' is {uploaded_file.size} bytes, over the limit of {limit} bytes.",
            status=413,
            field="file",
        )


def _sha256(uploaded_file: UploadedFile) -> str:
    digest = hashlib.sha256()
    for chunk in uploaded_file.chunks():
        digest.update(chunk)
    uploaded_file.seek(0)
    return digest.hexdigest()


def submission_create(
    *,
    user: AbstractBaseUser,
    split: Split,
    model_entry: ModelEntry,
    uploaded_file: UploadedFile,
    options: dict[str, Any] | None = None,
    note: str = "",
) -> Submission:
    """Store the file and the submission in one transaction; scoring is enqueued once it commits."""
    submission_check(user=user, split=split, uploaded_file=uploaded_file)
    sha = _sha256(uploaded_file)
    stored_name = None
    try:
        with transaction.atomic():
            if model_entry.pk is None:
                model_entry.save()
            submission = Submission(
                model_entry=model_entry,
                split=split,
                submitter=user,
                original_filename=uploaded_file.name[:255],
                size_bytes=uploaded_file.size,
                sha256=sha,
                options=options or {},
                note=note,
            )
            submission.file.save(uploaded_file.name, uploaded_file, save=False)
            stored_name = submission.file.name
            submission.save()
            transaction.on_commit(lambda: submission_enqueue(submission_id=submission.pk))
    except Exception:
        if stored_name:
            Submission.file.field.storage.delete(stored_name)
        raise
    return submission


def submission_enqueue(*, submission_id: int) -> None:
    from scoring.tasks import score_submission

    score_submission.delay(submission_id)


def _claim(*, submission_id: int, worker: str) -> int | None:
    """Take the submission for this worker; returns the attempt number, or None if it is not ours to score."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.SCORING_LEASE_SECONDS)
    claimable = Q(status=Submission.Status.QUEUED) | Q(status=Submission.Status.RUNNING, heartbeat_at__lt=stale)
    claimed = Submission.objects.filter(claimable, pk=submission_id).update(
        status=Submission.Status.RUNNING,
        attempts=F("attempts") + 1,
        worker=worker,
        heartbeat_at=now,
        started_at=now,
        progress_done=0,
    )
    if not claimed:
        return None
    return Submission.objects.values_list("attempts", flat=True).get(pk=submission_id)


def _samples(split: Split) -> list[SampleRecord]:
    return [
        SampleRecord(
            key=s.key,
            position=s.position,
            category=s.category,
            group=s.group,
            task=s.task,
            inputs=s.inputs,
            ground_truth=s.ground_truth,
        )
        for s in Sample.objects.filter(split=split).order_by("position", "key").iterator(chunk_size=2000)
    ]


class _Progress:
    """Reports progress and keeps the lease alive, at most every half second."""

    def __init__(self, submission_id: int, attempt: int):
        self.submission_id = submission_id
        self.attempt = attempt
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.5 and done < total:
            return
        self.last = now
        Submission.objects.filter(pk=self.submission_id, attempts=self.attempt).update(
            progress_done=done, progress_total=total, heartbeat_at=timezone.now()
        )
        from scoring.events import submission_progress_event

        submission_progress_event(submission_id=self.submission_id, done=done, total=total)


def submission_score(*, submission_id: int, worker: str) -> str:
    """Score one submission exactly once. Returns what happened: scored, failed, or skipped."""
    attempt = _claim(submission_id=submission_id, worker=worker)
    if attempt is None:
        return "skipped"
    submission = Submission.objects.select_related("split__benchmark").get(pk=submission_id)
    try:
        scorer = get_scorer(submission.split.benchmark.scorer)
        result = scorer(
            ScorerInput(
                file_path=Path(submission.file.path),
                samples=_samples(submission.split),
                options=submission.options,
                progress=_Progress(submission_id, attempt),
            )
        )
    except (NoScorer, SubmissionRejected) as exc:
        problems = [p.as_dict() for p in getattr(exc, "problems", [])]
        return _finish_failed(submission_id, attempt, str(exc), problems, site_error=False)
    _finish_scored(submission, attempt, result)
    return "scored"


def _finish_failed(submission_id: int, attempt: int, message: str, problems: list, *, site_error: bool) -> str:
    with transaction.atomic():
        updated = Submission.objects.filter(pk=submission_id, attempts=attempt, status=Submission.Status.RUNNING).update(
            status=Submission.Status.FAILED,
            error_message=message,
            error_report=problems,
            failure_is_site_error=site_error,
            finished_at=timezone.now(),
        )
        if updated:
            transaction.on_commit(lambda: _notify(submission_id))
    return "failed" if updated else "skipped"


def submission_fail_internal(*, submission_id: int, message: str) -> None:
    """The site, not the file, failed the submission after its retries; it does not count against quota."""
    Submission.objects.filter(pk=submission_id).exclude(status=Submission.Status.SCORED).update(
        status=Submission.Status.FAILED,
        error_message=f"Scoring failed because of an error on our side: {message}. It does not count against your quota.",
        failure_is_site_error=True,
        finished_at=timezone.now(),
    )
    _notify(submission_id)


def submission_release(*, submission_id: int) -> None:
    """Put a running submission back in the queue (before a retry of the task)."""
    Submission.objects.filter(pk=submission_id, status=Submission.Status.RUNNING).update(status=Submission.Status.QUEUED)


def _finish_scored(submission: Submission, attempt: int, result: ScoringResult) -> None:
    samples_by_key = dict(Sample.objects.filter(split_id=submission.split_id).values_list("key", "id"))
    with transaction.atomic():
        # Lock the row: only the attempt that still owns the submission may publish its score.
        owned = (
            Submission.objects.select_for_update()
            .filter(pk=submission.pk, attempts=attempt, status=Submission.Status.RUNNING)
            .exists()
        )
        if not owned:
            return
        Score.objects.filter(submission_id=submission.pk).delete()
        SampleScore.objects.filter(submission_id=submission.pk).delete()
        Score.objects.create(
            submission_id=submission.pk,
            overall=result.overall,
            breakdown=dict(result.breakdown),
            intervals={k: list(v) for k, v in result.intervals.items()},
            details=dict(result.details),
            scorer_version=result.scorer_version,
        )
        SampleScore.objects.bulk_create(
            [
                SampleScore(
                    submission_id=submission.pk,
                    sample_id=samples_by_key.get(s.key),
                    index=s.index,
                    key=s.key[:300],
                    task=s.task[:100],
                    score=s.score,
                    outcome=s.outcome[:30],
                    invalid=s.invalid,
                    error=s.error,
                    components=dict(s.components),
                    details=dict(s.details),
                )
                for s in result.samples
            ],
            batch_size=2000,
        )
        total = len(result.samples)
        Submission.objects.filter(pk=submission.pk).update(
            status=Submission.Status.SCORED,
            scorer_version=result.scorer_version,
            error_message="",
            error_report=[],
            progress_done=total,
            progress_total=total,
            finished_at=timezone.now(),
        )
        transaction.on_commit(lambda: _compare(submission.pk))
        transaction.on_commit(lambda: _notify(submission.pk))


def _compare(submission_id: int) -> None:
    from leaderboard.services import board_comparisons_after_scoring

    board_comparisons_after_scoring(submission_id)


def _notify(submission_id: int) -> None:
    from scoring.events import submission_finished_event

    submission_finished_event(submission_id=submission_id)


def submission_requeue_stale(*, worker: str | None = None, include_queued: bool = False) -> list[int]:
    """Queue again what a dead worker left: running with a stale lease, or running on this very (restarted) worker.

    At worker start (`include_queued`), queued submissions older than the lease are enqueued again too: their
    message may have been lost with a broker that forgets unacknowledged messages. The claim makes a
    duplicate message harmless.
    """
    stale = timezone.now() - timedelta(seconds=settings.SCORING_LEASE_SECONDS)
    lost = Q(status=Submission.Status.RUNNING, heartbeat_at__lt=stale)
    if worker:
        lost |= Q(status=Submission.Status.RUNNING, worker=worker)
    ids = list(Submission.objects.filter(lost).values_list("pk", flat=True))
    Submission.objects.filter(pk__in=ids).update(status=Submission.Status.QUEUED)
    if include_queued:
        forgotten = Submission.objects.filter(
            status=Submission.Status.QUEUED, source=Submission.Source.UPLOAD, created_at__lt=stale
        ).exclude(pk__in=ids)
        ids += list(forgotten.values_list("pk", flat=True))
    for submission_id in ids:
        submission_enqueue(submission_id=submission_id)
    return ids


def demo_submission_ensure(
    *,
    split: Split,
    owner_username: str,
    slug: str,
    name: str,
    description: str,
    content: Callable[[], str],
    options: dict[str, Any] | None = None,
) -> tuple[Submission, str]:
    """A demo baseline's submission on a split, created once (idempotent) and scored at once by the same pipeline.

    `content` builds the prediction file only when the submission does not exist yet (or failed before)."""
    from django.contrib.auth import get_user_model
    from django.core.files.uploadedfile import SimpleUploadedFile

    owner, _ = get_user_model().objects.get_or_create(username=owner_username, defaults={"is_active": False})
    entry, _ = ModelEntry.objects.get_or_create(
        slug=slug, defaults={"name": name, "kind": ModelEntry.Kind.BASELINE, "description": description}
    )
    submission = Submission.objects.filter(model_entry=entry, split=split).order_by("-created_at").first()
    if submission is None or submission.status == Submission.Status.FAILED:
        submission = submission_create(
            user=owner, split=split, model_entry=entry, options=options or {}, note="demo baseline",
            uploaded_file=SimpleUploadedFile(f"{slug}.jsonl", content().encode("utf-8"), "application/jsonl"),
        )
    outcome = submission_score(submission_id=submission.pk, worker="make_demo")
    submission.refresh_from_db()
    return submission, outcome
