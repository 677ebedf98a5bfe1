"""Reads for submissions and boards."""
from __future__ import annotations

from django.core.cache import cache
from django.db.models import QuerySet

from scoring.core.contract import SampleRecord
from scoring.models import Sample, Split, Submission


def board_version_key(split_id: int) -> str:
    return f"board-version-{split_id}"


def board_cache_version(*, split_id: int) -> int:
    return cache.get_or_set(board_version_key(split_id), 1, timeout=None)


def board_cache_invalidate(*, split_id: int) -> None:
    """Board pages cache their rows under a per-split version; a new score bumps it."""
    key = board_version_key(split_id)
    try:
        cache.incr(key)
    except ValueError:
        cache.set(key, 2, timeout=None)


def submissions_of_user(*, user) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(submitter=user)
        .select_related("model_entry", "split__benchmark", "score")
        .order_by("-created_at")
    )


def splits_open_for_submission() -> QuerySet[Split]:
    return Split.objects.select_related("benchmark").order_by("benchmark__order", "name", "-version")


def split_samples(*, split: Split) -> list[SampleRecord]:
    """A split's samples as the scorers take them, in position order."""
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


def submission_watchable_by(*, submission_id: int, user) -> bool:
    """Whether a user may follow a submission live: its submitter and staff, as for its page and its API."""
    if user is None or not user.is_authenticated:
        return False
    submissions = Submission.objects.filter(pk=submission_id)
    if not user.is_staff:
        submissions = submissions.filter(submitter_id=user.pk)
    return submissions.exists()
