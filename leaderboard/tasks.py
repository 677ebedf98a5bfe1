"""Board work for the worker: comparisons a view needed beyond what its page computes at once, and the Analysis
tab's span after scores landed."""
from __future__ import annotations

from celery import shared_task
from django.db import transaction

from leaderboard import services_analysis
from leaderboard.services import board_changes_prune, board_comparisons_compute
from scoring.selectors import board_cache_invalidate


@shared_task(acks_late=True)
def board_comparisons_fill(split_id: int, pairs: list[list[int]]) -> int:
    """Store the comparisons of `pairs`, then invalidate the split's board cache, so that pages cached while their
    marks were incomplete are built again with them."""
    stored = board_comparisons_compute(split_id=split_id, pairs=[(a, b) for a, b in pairs])
    board_cache_invalidate(split_id=split_id)
    return stored


@shared_task(acks_late=True)
def prune_board_changes() -> int:
    """Beat: the board-change log's entries older than an hour deleted (`services.board_changes_prune`)."""
    return board_changes_prune()


@shared_task(acks_late=True)
def analysis_span_fill(split_id: int) -> bool:
    """Store the span of the split's Analysis tab as its board opens (`services_analysis.analysis_span_fill`): one
    refresh for the scores that landed while it waited."""
    return services_analysis.analysis_span_fill(split_id=split_id)


def analysis_summary_on_score(sender: object, *, submission_id: int, **kwargs: object) -> None:
    """Receiver of `scoring.events.score_landed` and `score_rescored` (in the worker): the submission's Analysis
    summary now; the span of its board by `analysis_span_fill` in SPAN_REFRESH_DELAY seconds, once for the scores that
    land meanwhile (it reads every entry's summary, which a score's own work does not)."""
    split_id = services_analysis.analysis_summary_update(submission_id=submission_id)
    if split_id is not None and services_analysis.analysis_span_refresh_wanted(split_id=split_id):
        transaction.on_commit(lambda: analysis_span_fill.apply_async(
            (split_id,), countdown=services_analysis.SPAN_REFRESH_DELAY))
