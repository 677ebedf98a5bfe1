"""Review reads: queues by role, the review page's data (pinned version, findings, diff), history, dashboard."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from accounts.roles import is_curator
from annotation.core import quality
from annotation.core import review as core
from annotation.core.epic import leaf_for
from annotation.models import (
    AuditEvent,
    ConsensusCheck,
    GoldCheck,
    GoldStandard,
    Item,
    ItemRevision,
    Project,
    PublishedSample,
    Review,
    SecondOpinion,
)
from annotation.review import services as rs
from scoring.models import Split


@dataclass(frozen=True)
class QueueRow:
    item: Item
    round: int
    rounds_required: int
    flagged: bool  # a second opinion disagreed
    model_disagrees: bool = False  # a consensus check flagged a mask of the current version


def review_queue(*, user: AbstractBaseUser) -> list[QueueRow]:
    """Items in review the user may review now (curators: every item in review)."""
    rows = []
    # Honeypot copies are scored against their gold on submission, never reviewed.
    items = Item.objects.filter(state=Item.State.SUBMITTED, honeypot_of__isnull=True).select_related(
        "project", "assignee").order_by("submitted_at", "pk")
    curator = is_curator(user)
    for item in items:
        refusal = rs.review_refusal(user, item)
        if refusal and not curator:
            continue
        progress = rs.item_progress(item)
        rows.append(QueueRow(item, progress.current_round, rs.policy_for(item.project).rounds_required,
                             bool(rs.low_agreement_flags(item)), consensus_flags(item=item).exists()))
    return rows


def my_revisions(*, user: AbstractBaseUser) -> QuerySet[Item]:
    """The annotator's items sent back by a reviewer."""
    return Item.objects.filter(assignee=user, state=Item.State.NEEDS_REVISION).select_related("project")


def my_second_opinions(*, user: AbstractBaseUser) -> QuerySet[SecondOpinion]:
    return SecondOpinion.objects.filter(annotator=user, status=SecondOpinion.Status.ASSIGNED).select_related(
        "item__project")


def consensus_flags(*, item: Item) -> QuerySet[ConsensusCheck]:
    """Masks of the item's current version that a fresh model proposal from their own prompts disagrees with."""
    return ConsensusCheck.objects.filter(item=item, version=item.version, flagged=True)


@dataclass(frozen=True)
class ProvenanceRow:
    masklet: str
    number: int  # 1-based, as the review page's swatches
    entry: dict[str, Any] | None
    positives: int
    negatives: int
    box: bool
    consensus: ConsensusCheck | None


def provenance_rows(*, item: Item, revision: ItemRevision | None) -> list[ProvenanceRow]:
    """How each pinned mask was made, with its consensus check (for the review page's provenance table)."""
    snapshot = revision.snapshot if revision else {}
    checks = {(c.masklet, c.index): c for c in ConsensusCheck.objects.filter(
        item=item, version=revision.version if revision else -1)}
    rows = []
    for name, masks in sorted((snapshot.get("instances") or {}).items()):
        entries = (snapshot.get("provenance") or {}).get(name) or []
        for index in range(len(masks)):
            entry = entries[index] if index < len(entries) else None
            last = (entry or {}).get("prompts", [])[-1:] or [{}]
            points = last[0].get("points") or []
            rows.append(ProvenanceRow(name, index + 1, entry, sum(1 for p in points if p[2] == 1),
                                      sum(1 for p in points if p[2] == 0), bool(last[0].get("box")),
                                      checks.get((name, index))))
    return rows


def gold_summary_for(*, user_id: int | None) -> quality.GoldSummary | None:
    """The annotator's agreement with gold over every honeypot they answered (shown beside their items)."""
    if user_id is None:
        return None
    checks = list(GoldCheck.objects.filter(annotator_id=user_id).select_related("annotator"))
    rows = [quality.GoldRow(c.annotator.get_username(), c.mean_iou, c.f1, c.labels_match) for c in checks]
    return next(iter(quality.gold_summaries(rows).values()), None)


def gold_board(*, project: Project) -> dict[str, Any]:
    """The project dashboard's honeypot card: gold items, per-annotator agreement with gold, copies out."""
    checks = GoldCheck.objects.filter(gold__item__project=project).select_related("annotator")
    return {
        "gold": GoldStandard.objects.filter(item__project=project).select_related("item").order_by("item__pk"),
        "by_annotator": quality.gold_summaries(
            quality.GoldRow(c.annotator.get_username(), c.mean_iou, c.f1, c.labels_match) for c in checks),
        "checks": checks.select_related("copy", "gold__item").order_by("-created_at")[:50],
        "out": Item.objects.filter(project=project, honeypot_of__isnull=False, gold_check__isnull=True).count(),
        "candidates": project.items.filter(state__in=[Item.State.ACCEPTED, Item.State.PUBLISHED],
                                           honeypot_of__isnull=True, gold__isnull=True).order_by("position", "pk"),
    }


def snapshot_payload(item: Item, revision: ItemRevision | None) -> dict[str, Any]:
    """What review.js draws: the images, the pinned labels and masks, and the model's proposals where a consensus
    check disagreed with a mask (drawn over it)."""
    leaf = leaf_for(item.project.leaf)
    snapshot = revision.snapshot if revision else {}
    flagged = ConsensusCheck.objects.filter(item=item, version=revision.version, flagged=True) if revision else []
    return {
        "proposals": [{"masklet": c.masklet, "index": c.index, "rle": c.proposal, "iou": round(c.iou or 0.0, 4),
                       "backend": c.backend} for c in flagged],
        "images": [{"id": link.image_id, "url": f"/api/annotation/images/{link.image_id}/file/",
                    "width": link.image.width, "height": link.image.height}
                   for link in item.item_images.select_related("image").order_by("index")],
        "masklets": [{"name": m.name, "image": m.image_index, "scored": m.scored} for m in leaf.masklets],
        "instances": snapshot.get("instances") or {},
    }


def review_context(*, item: Item) -> dict[str, Any]:
    pinned = rs.pinned_revision(item)
    previous = rs.previous_submission(item, pinned) if pinned else None
    diff = core.diff_snapshots(previous.snapshot, pinned.snapshot) if (pinned and previous) else None
    return {
        "pinned": pinned,
        "previous": previous,
        "diff": diff,
        "progress": rs.item_progress(item),
        "policy": rs.policy_for(item.project),
        "cycle_reviews": Review.objects.filter(item=item, cycle=rs.item_cycle(item)).select_related("reviewer")
        .order_by("pk"),
        "flags": rs.low_agreement_flags(item),
        "reasons": [(r.value, core.REASON_LABELS[r]) for r in core.Reason],
        "payload": snapshot_payload(item, pinned),
        "provenance": provenance_rows(item=item, revision=pinned),
        "consensus_flags": list(ConsensusCheck.objects.filter(item=item, version=pinned.version, flagged=True))
        if pinned else [],
        "gold_summary": gold_summary_for(user_id=item.assignee_id),
        "is_honeypot": item.honeypot_of_id is not None,
    }


def review_comments_for_editor(item: Item) -> list[Review]:
    """What the annotator should read before revising: the reviews of the current cycle that asked for changes."""
    return list(Review.objects.filter(item=item, cycle=rs.item_cycle(item)).exclude(verdict=core.Verdict.ACCEPT.value)
                .select_related("reviewer").order_by("-pk"))


def can_see_history(*, user: AbstractBaseUser, item: Item) -> bool:
    return (is_curator(user) or item.assignee_id == user.pk
            or Review.objects.filter(item=item, reviewer=user).exists())


def item_history(*, item: Item) -> dict[str, Any]:
    return {
        "revisions": item.revisions.select_related("author").order_by("pk"),
        "reviews": Review.objects.filter(item=item).select_related("reviewer").order_by("pk"),
        "events": AuditEvent.objects.filter(item=item).select_related("actor").order_by("pk"),
        "published": PublishedSample.objects.filter(item=item).select_related("split__benchmark", "sample")
        .order_by("split__version"),
        "opinions": SecondOpinion.objects.filter(item=item).select_related("annotator"),
    }


def project_dashboard(*, project: Project) -> core.Dashboard:
    """Items by state (review round k), throughput and time per annotator and reviewer, reasons, agreement."""
    items = list(project.items.filter(honeypot_of__isnull=True))  # honeypot copies: the gold card
    rows = []
    for item in items:
        round_ = rs.item_progress(item).current_round if item.state == Item.State.SUBMITTED else None
        rows.append(core.ItemRow(item.state, round_))
    revisions = ItemRevision.objects.filter(item__project=project).select_related("author").order_by("pk")
    submissions: dict[str, int] = defaultdict(int)
    times: dict[tuple[str, int], list] = defaultdict(list)
    for revision in revisions:
        if revision.author is None or revision.kind not in (ItemRevision.Kind.SAVE, ItemRevision.Kind.SUBMIT):
            continue
        name = revision.author.get_username()
        times[(name, revision.item_id)].append(revision.created_at)
        if revision.kind == ItemRevision.Kind.SUBMIT:
            submissions[name] += 1
    seconds: dict[str, float] = defaultdict(float)
    for (name, _), stamps in times.items():
        seconds[name] += core.active_seconds(stamps)
    accepted: dict[str, int] = defaultdict(int)
    for item in items:
        if item.state in (Item.State.ACCEPTED, Item.State.PUBLISHED) and item.assignee_id:
            accepted[item.assignee.get_username()] += 1
    reviews = [core.ReviewRow(r.reviewer.get_username(), r.verdict, tuple(r.reasons), r.seconds)
               for r in Review.objects.filter(item__project=project).select_related("reviewer")]
    agreements = [
        core.AgreementRow(o.first_annotator.get_username() if o.first_annotator else "?", o.annotator.get_username(),
                          o.mean_iou or 0.0, o.f1 or 0.0, bool(o.count_equal), o.low_agreement)
        for o in SecondOpinion.objects.filter(item__project=project, status=SecondOpinion.Status.DONE)
        .select_related("annotator", "first_annotator")
    ]
    return core.dashboard(items=rows, rounds_required=rs.policy_for(project).rounds_required,
                          submissions=submissions, accepted_by_annotator=accepted, annotator_seconds=seconds,
                          reviews=reviews, agreements=agreements)


def accepted_items(*, project: Project) -> QuerySet[Item]:
    return project.items.filter(state=Item.State.ACCEPTED).order_by("position", "pk")


@dataclass(frozen=True)
class SampleRow:
    sample: Any
    link: PublishedSample | None


def split_samples(*, split: Any) -> list[SampleRow]:
    links = {link.sample_id: link for link in PublishedSample.objects.filter(split=split).select_related("item")}
    return [SampleRow(sample, links.get(sample.pk)) for sample in split.samples.order_by("position", "key")]


def published_splits(*, project: Project) -> QuerySet[Split]:
    return Split.objects.filter(annotation_links__item__project=project).select_related("benchmark").distinct()\
        .order_by("name", "-version")
