"""Reads for submissions and boards."""
from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from django.core.cache import cache
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from accounts.roles import is_curator
from scoring.core.contract import SampleRecord
from scoring.core.states import provisional_of
from scoring.models import ChangeRecord, ModelEntry, Sample, Split, Submission
from scoring.phases import results_waiting_q


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


def on_boards(submissions: QuerySet[Submission], *, now: datetime | None = None) -> QuerySet[Submission]:
    """The submissions a board, a model page or a board figure may show now: public ones, less the uploads whose
    phase shows results only at its close and has not closed (scoring.phases)."""
    return submissions.filter(visibility=Submission.Visibility.PUBLIC).exclude(results_waiting_q(now=now))


def submissions_of_user(*, user) -> QuerySet[Submission]:
    return (
        Submission.objects.filter(submitter=user)
        .select_related("model_entry", "split__benchmark", "score")
        .order_by("-created_at", "-pk")  # the id breaks ties: pages neither repeat nor skip a row
    )


def split_phase_open_q(*, now: datetime | None = None, to_split: str = "") -> Q:
    """Splits in no phase or in a phase open now (between its dates); `to_split`: the lookup path from the queried
    model to its split, e.g. "sample__split__"."""
    now = now or timezone.now()
    p = f"{to_split}phase__"
    return Q(**{f"{p}isnull": True}) | (Q(**{f"{p}opens_at__lte": now})
                                       & (Q(**{f"{p}closes_at__isnull": True}) | Q(**{f"{p}closes_at__gt": now})))


def splits_open_for_submission(*, now: datetime | None = None) -> QuerySet[Split]:
    """The splits the upload form offers: those with samples, in no phase or in a phase open now (between its
    dates); the service refuses the others with the reason (scoring.precheck.submission_check)."""
    return (Split.objects.filter(split_phase_open_q(now=now), Exists(Sample.objects.filter(split=OuterRef("pk"))))
            .select_related("benchmark", "phase").order_by("benchmark__order", "name", "-version"))


def split_samples(*, split: Split, labels_only: bool = False) -> list[SampleRecord]:
    """A split's samples as the scorers take them, in position order. `labels_only`: keys and labels, without
    inputs or ground truth (what a format pre-check may see, on any split)."""
    rows = Sample.objects.filter(split=split).order_by("position", "key")
    if labels_only:
        return [
            SampleRecord(key=key, position=position, category=category, group=group, task=task)
            for key, position, category, group, task in rows.values_list(
                "key", "position", "category", "group", "task").iterator(chunk_size=2000)
        ]
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
        for s in rows.iterator(chunk_size=2000)
    ]


def split_inputs(*, split: Split, limit: int | None = None, keys: Collection[str] | None = None) -> list[SampleRecord]:
    """A split's samples with their keys, labels and inputs (what a model is shown), never their ground truth, in
    position order; the first `limit` only when given, those of `keys` only when given. What a format page may hand
    out for any split."""
    samples = Sample.objects.filter(split=split) if keys is None else Sample.objects.filter(split=split, key__in=keys)
    rows = samples.order_by("position", "key").values_list("key", "position", "category", "group", "task", "inputs")
    if limit is not None:
        rows = rows[:limit]
    return [SampleRecord(key=key, position=position, category=category, group=group, task=task, inputs=inputs or {})
            for key, position, category, group, task, inputs in rows.iterator(chunk_size=2000)]
def submission_live_state(*, submission_id: int) -> dict | None:
    """What a submission's page shows live, read from its row (the worker writes progress there, so this works
    across processes with any channel layer); None when there is no such submission."""
    row = Submission.objects.filter(pk=submission_id).values(
        "status", "progress_done", "progress_total", "score__details").first()
    if row is None:
        return None
    status = Submission.Status(row["status"])
    final = status in (Submission.Status.SCORED, Submission.Status.FAILED)
    if status == Submission.Status.SCORED and provisional_of(row["score__details"]) is not None:
        status = Submission.State.AWAITING_JUDGEMENT  # scored, the score not final: as the page and the API say
    return {
        "type": "state",
        "status": status.value,
        "label": status.label,
        "done": row["progress_done"],
        "total": row["progress_total"],
        "final": final,
    }


def submission_watchable_by(*, submission_id: int, user) -> bool:
    """Whether a user may follow a submission live: its submitter and staff, as for its page and its API."""
    if user is None or not user.is_authenticated:
        return False
    submissions = Submission.objects.filter(pk=submission_id)
    if not user.is_staff:
        submissions = submissions.filter(submitter_id=user.pk)
    return submissions.exists()


def model_entry_editable_by(*, entry: ModelEntry, user) -> bool:
    """Owners edit their own model entries; curators edit every entry (the papers' models have no owner)."""
    if user is None or not user.is_authenticated:
        return False
    return (entry.owner_id is not None and entry.owner_id == user.pk) or is_curator(user)


def change_records(*, subject: str, object_id: int, limit: int = 100) -> QuerySet[ChangeRecord]:
    """The newest changes to one model entry or submission, with who made them."""
    return ChangeRecord.objects.filter(subject=subject, object_id=object_id).select_related("user")[:limit]


def identical_submissions(*, submission: Submission) -> list[int]:
    """The ids of the submitter's other submissions of the very same file (same sha256), oldest first: what the
    submission's page, the upload's answer and the API say it is identical to. An identical re-upload is entered
    (another run label, visibility or split may be meant) but its file is stored once (`_file_store`); another
    user's identical file is shared on disk and never named to this one."""
    if not submission.sha256 or submission.submitter_id is None:
        return []
    return list(Submission.objects.filter(submitter_id=submission.submitter_id, sha256=submission.sha256)
                .exclude(pk=submission.pk).order_by("pk").values_list("pk", flat=True)[:20])


def identical_submissions_of_user(*, user, sha256s: set[str]) -> dict[str, list[int]]:
    """For a list of the user's submissions: sha256 -> the ids of all their submissions of that file, oldest first,
    in one query."""
    found: dict[str, list[int]] = {}
    rows = (Submission.objects.filter(submitter=user, sha256__in=[s for s in sha256s if s])
            .order_by("pk").values_list("sha256", "pk"))
    for sha, pk in rows:
        found.setdefault(sha, []).append(pk)
    return found

