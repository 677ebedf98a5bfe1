"""Live updates over the channel layer: a submission's page and its board listen to these groups."""
from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def submission_group(submission_id: int) -> str:
    return f"submission-{submission_id}"


def board_group(split_id: int) -> str:
    return f"board-{split_id}"


def _send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # noqa: BLE001 - a live update must never fail the scoring it reports on
        log.exception("could not send %s to %s", message.get("type"), group)


def submission_progress_event(*, submission_id: int, done: int, total: int) -> None:
    _send(submission_group(submission_id), {"type": "submission.progress", "done": done, "total": total})


def submission_finished_event(*, submission_id: int) -> None:
    from scoring.models import Submission

    row = Submission.objects.filter(pk=submission_id).values("status", "split_id", "error_message").first()
    if row is None:
        return
    message = {"type": "submission.finished", "submission": submission_id, "status": row["status"]}
    _send(submission_group(submission_id), message)
    if row["status"] == Submission.Status.SCORED:
        from scoring.selectors import board_cache_invalidate

        board_cache_invalidate(split_id=row["split_id"])
        _send(board_group(row["split_id"]), {"type": "board.updated", "submission": submission_id})
