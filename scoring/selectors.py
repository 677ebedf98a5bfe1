"""Reads for submissions and boards."""
from __future__ import annotations

from django.core.cache import cache
from django.db.models import QuerySet

from scoring.models import Split, Submission


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
