"""What scoring announces. "A score landed" is a Django signal other apps subscribe to in their `AppConfig.ready()`
(the boards precompute comparisons); live pages listen to channel-layer groups (a submission's page, its board)."""
from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.dispatch import Signal

from scoring.models import Submission
from scoring.selectors import board_cache_invalidate, on_boards

log = logging.getLogger(__name__)

# Sent once a submission's score is committed, with `submission_id`. Receivers must not fail the scoring: errors
# are logged, never raised (`send_robust`).
score_landed = Signal()
score_rescored = Signal()  # a submission's score replaced by a newer scorer or split version (issue 29)
# A scored submission's per-sample verdicts changed while its score stays provisional (PLAN: a person decided items
# the rules and the judge left open), with `submission_id`: who keeps something made from its samples (the
# Analysis tab's summaries) makes it again. Robust as above.
score_updated = Signal()
# Sent once a submission has failed (the file's fault or the site's), with `submission_id`; robust as above.
submission_failed = Signal()


def submission_group(submission_id: int) -> str:
    return f"submission-{submission_id}"


def board_group(split_id: int) -> str:
    return f"board-{split_id}"


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        if _loop_running():
            # called from a thread that runs an event loop (async_to_sync refuses that): send from a thread of its own
            with ThreadPoolExecutor(max_workers=1) as pool:
                pool.submit(async_to_sync(layer.group_send), group, message).result()
        else:
            async_to_sync(layer.group_send)(group, message)
    except Exception:  # a live update must never fail the scoring it reports on
        log.exception("could not send %s to %s", message.get("type"), group)


def submission_progress_event(*, submission_id: int, done: int, total: int) -> None:
    _send(submission_group(submission_id), {"type": "submission.progress", "done": done, "total": total})


def score_landed_event(*, submission_id: int) -> None:
    """After the commit of a new score: subscribers first (so the board is complete), then the live pages."""
    for receiver, outcome in score_landed.send_robust(sender=Submission, submission_id=submission_id):
        if isinstance(outcome, Exception):
            log.error("score_landed receiver %s failed for submission %s: %r", receiver, submission_id, outcome)
    submission_finished_event(submission_id=submission_id)


def score_rescored_event(*, submission_id: int, run_id: int) -> None:
    """After the commit of a re-score (score_landed_event has run for the new score): who wants to know that the
    figure replaced an older version's (with `submission_id` and `run_id`)."""
    for receiver, outcome in score_rescored.send_robust(sender=Submission, submission_id=submission_id, run_id=run_id):
        if isinstance(outcome, Exception):
            log.error("score_rescored receiver %s failed for submission %s: %r", receiver, submission_id, outcome)


def score_updated_event(*, submission_id: int) -> None:
    """After the commit of changed per-sample verdicts of a scored submission whose score did not land anew."""
    for receiver, outcome in score_updated.send_robust(sender=Submission, submission_id=submission_id):
        if isinstance(outcome, Exception):
            log.error("score_updated receiver %s failed for submission %s: %r", receiver, submission_id, outcome)


def submission_failed_event(*, submission_id: int) -> None:
    """After the commit of a failure: subscribers (notifications), then the live pages."""
    for receiver, outcome in submission_failed.send_robust(sender=Submission, submission_id=submission_id):
        if isinstance(outcome, Exception):
            log.error("submission_failed receiver %s failed for submission %s: %r", receiver, submission_id, outcome)
    submission_finished_event(submission_id=submission_id)


def submission_finished_event(*, submission_id: int) -> None:
    row = Submission.objects.filter(pk=submission_id).values("status", "split_id").first()
    if row is None:
        return
    message = {"type": "submission.finished", "submission": submission_id, "status": row["status"]}
    _send(submission_group(submission_id), message)
    if row["status"] != Submission.Status.SCORED:
        return
    board_cache_invalidate(split_id=row["split_id"])
    # Only a row the board shows now is announced: a private upload, or one held back until its phase closes, would
    # otherwise tell every watcher of the board that (and which) submission was scored.
    if on_boards(Submission.objects.filter(pk=submission_id)).exists():
        _send(board_group(row["split_id"]), {"type": "board.updated", "submission": submission_id})
