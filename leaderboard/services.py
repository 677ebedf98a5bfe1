"""Writes for boards: precompute paired-bootstrap comparisons when a submission is scored."""
from __future__ import annotations

from collections import defaultdict

from django.db import transaction

from leaderboard.models import BoardComparison
from scoring.core.stats import paired_bootstrap
from scoring.models import SampleScore, Submission


def _scores_by_key(submission_ids: list[int]) -> dict[int, dict[str, tuple[float, str]]]:
    out: dict[int, dict[str, tuple[float, str]]] = defaultdict(dict)
    rows = SampleScore.objects.filter(submission_id__in=submission_ids, score__isnull=False).values_list(
        "submission_id", "key", "score", "task"
    )
    for sid, key, score, task in rows.iterator(chunk_size=5000):
        out[sid][key] = (float(score), task)
    return out


def board_comparisons_update(*, submission_id: int) -> int:
    """Compare a scored submission with every other scored submission of its split on their shared samples
    (paired bootstrap, stratified by task, fixed seed). Returns the number of comparisons stored."""
    submission = Submission.objects.filter(pk=submission_id, status=Submission.Status.SCORED).first()
    if submission is None:
        return 0
    others = list(
        Submission.objects.filter(split_id=submission.split_id, status=Submission.Status.SCORED,
                                  source=Submission.Source.UPLOAD)
        .exclude(pk=submission_id)
        .values_list("pk", flat=True)
    )
    scores = _scores_by_key([submission_id, *others])
    mine = scores.get(submission_id, {})
    stored = 0
    with transaction.atomic():
        for other in others:
            theirs = scores.get(other, {})
            shared = sorted(set(mine) & set(theirs))
            if not shared:
                continue
            a, b = sorted((submission_id, other))
            first, second = (mine, theirs) if a == submission_id else (theirs, mine)
            result = paired_bootstrap(
                [first[k][0] for k in shared],
                [second[k][0] for k in shared],
                strata=[first[k][1] for k in shared],
            )
            BoardComparison.objects.update_or_create(
                a_id=a,
                b_id=b,
                defaults={
                    "split_id": submission.split_id,
                    "difference": result.difference,
                    "p_value": result.p_value,
                    "shared_units": result.shared_units,
                },
            )
            stored += 1
    return stored


def board_comparisons_on_score_landed(sender: object, *, submission_id: int, **kwargs: object) -> None:
    """Receiver of `scoring.events.score_landed`."""
    board_comparisons_update(submission_id=submission_id)
