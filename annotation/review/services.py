"""Review writes: verdicts in rounds, reopening, blind second opinions and their agreement, publishing into a split.

Every state change is checked here (role, eligibility, pinned version) before anything is written, then made by
`annotation.services.transitions.item_transition` (the state machine), which records it twice: an ItemRevision (the
item's history) and an AuditEvent (who, when, what). Refusals raise issue 7's `AnnotationError` with an HTTP status and
the field.
"""
from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.roles import is_annotator, is_curator, is_reviewer
from annotation.core import review as core
from annotation.core.epic import leaf_for
from annotation.core.export import write_files
from annotation.models import (
    AuditEvent,
    Item,
    ItemRevision,
    Project,
    PublishedSample,
    Review,
    ReviewConfig,
    ReviewOpening,
    SecondOpinion,
)
from annotation.services.editing import instances_check, item_images
from annotation.services.errors import AnnotationError
from annotation.services.export import item_export_files
from annotation.services.transitions import audit_record, item_transition
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.benchmarks.epic.plugin import SLUG as EPIC_SLUG
from scoring.errors import ServiceRefusal
from scoring.models import Benchmark, Sample, Split
from scoring.rescore import rescore_split_version_start
from scoring.selectors import board_cache_invalidate
from scoring.tasks import rescore_item_enqueue

# --- reads used by the checks ----------------------------------------------------------------------------


def policy_for(project: Project) -> core.Policy:
    config = ReviewConfig.objects.filter(project=project).first()
    return core.Policy(config.rounds_required, config.distinct_reviewers) if config else core.Policy()


def thresholds_for(project: Project) -> core.AgreementThresholds:
    config = ReviewConfig.objects.filter(project=project).first()
    return core.AgreementThresholds(config.min_agreement_f1, config.min_agreement_iou) if config else \
        core.AgreementThresholds()


def item_cycle(item: Item) -> int:
    """Review cycles restart when a curator reopens an item (a correction of a published sample)."""
    return 1 + AuditEvent.objects.filter(item=item, action="reopen").count()


def item_progress(item: Item) -> core.Progress:
    reviews = Review.objects.filter(item=item, cycle=item_cycle(item)).order_by("pk")
    return core.progress([core.ReviewRecord(r.reviewer_id, core.Verdict(r.verdict), r.version) for r in reviews],
                         policy_for(item.project))


def item_annotator_ids(item: Item) -> set[int]:
    """The assignee and everyone who saved or submitted a version: none of them may review it."""
    ids = set(item.revisions.filter(kind__in=[ItemRevision.Kind.SAVE, ItemRevision.Kind.SUBMIT])
              .exclude(author=None).values_list("author_id", flat=True))
    if item.assignee_id:
        ids.add(item.assignee_id)
    return ids


def pinned_revision(item: Item) -> ItemRevision | None:
    """The submitted version under review: the latest submission, which nobody can edit while it is in review."""
    return item.revisions.filter(kind=ItemRevision.Kind.SUBMIT).order_by("-pk").first()


def previous_submission(item: Item, pinned: ItemRevision) -> ItemRevision | None:
    return item.revisions.filter(kind=ItemRevision.Kind.SUBMIT, pk__lt=pinned.pk).order_by("-pk").first()


def review_refusal(user: AbstractBaseUser, item: Item) -> str | None:
    """Why this user may not review this item now, or None."""
    if not is_reviewer(user):
        return "Only reviewers and curators review items."
    if item.state != Item.State.SUBMITTED:
        return f"The item is {item.get_state_display().lower()}, not in review."
    if item.honeypot_of_id is not None:
        return "This item is a honeypot copy: it was scored against its gold item, not reviewed."
    return core.reviewer_refusal(user.pk, annotators=item_annotator_ids(item), before=item_progress(item),
                                 policy=policy_for(item.project))


# --- reviews -----------------------------------------------------------------------------------------------


def review_open(*, user: AbstractBaseUser, item: Item) -> ReviewOpening:
    """The reviewer opens the pinned version; the time to the verdict counts from the first opening."""
    refusal = review_refusal(user, item)
    if refusal:
        raise AnnotationError(refusal, status=403)
    opening, _ = ReviewOpening.objects.get_or_create(item=item, reviewer=user, version=item.version)
    return opening


def review_submit(
    *, user: AbstractBaseUser, item_id: int, version: int, round: int, verdict: str, reasons: Sequence[str] = (),
    comment: str = "", markers: Any = None,
) -> Review:
    """Record a verdict on the version the reviewer saw, for the round they saw; refuse anything stale."""
    try:
        parsed, parsed_reasons = core.check_review(verdict, list(reasons), comment)
    except ValueError as exc:
        field = str(exc).split(":", 1)[0].split("[")[0]
        raise AnnotationError(str(exc), field=field) from None
    with transaction.atomic():
        item = Item.objects.select_for_update().select_related("project").get(pk=item_id)
        refusal = review_refusal(user, item)
        if refusal:
            raise AnnotationError(refusal, status=403 if item.state == Item.State.SUBMITTED else 409)
        if item.version != version:
            raise AnnotationError(
                f"The item changed since you opened it (you reviewed version {version}, it is now {item.version}). "
                "Reload to review the current version.", status=409, field="version",
                extra={"version": item.version},
            )
        policy = policy_for(item.project)
        before = item_progress(item)
        if round != before.current_round:
            raise AnnotationError(
                f"Round {round} was already decided by another reviewer; the item is now in round "
                f"{before.current_round}. Reload.", status=409, field="round",
            )
        try:
            checked_markers = core.check_markers(markers, [(i.height, i.width) for i in item_images(item)])
        except ValueError as exc:
            raise AnnotationError(str(exc), field="markers") from None
        pinned = pinned_revision(item)
        opening = ReviewOpening.objects.filter(item=item, reviewer=user, version=version).first()
        now = timezone.now()
        review = Review.objects.create(
            item=item, revision=pinned, version=version, cycle=item_cycle(item), round=round, reviewer=user,
            verdict=parsed.value, reasons=[r.value for r in parsed_reasons], comment=comment.strip(),
            markers=checked_markers, seconds=(now - opening.opened_at).total_seconds() if opening else None,
        )
        action = core.verdict_action(parsed, before, policy)
        item_transition(item=item, action=action, actor=user,
                        note=f"round {round}: {parsed.value}" + (f" ({comment.strip()})" if comment else ""),
                        detail={"review": review.pk, "round": round, "verdict": parsed.value,
                                "reasons": review.reasons, "reviewed_version": version})
    return review


def item_reopen(*, user: AbstractBaseUser, item_id: int, reason: str) -> Item:
    """A curator sends an accepted, published or rejected item back for a correction (a new review cycle)."""
    if not is_curator(user):
        raise AnnotationError("Only curators reopen items.", status=403)
    if not reason.strip():
        raise AnnotationError("Say why the item is reopened (it is shown to the annotator).", field="reason")
    with transaction.atomic():
        item = Item.objects.select_for_update().select_related("project").get(pk=item_id)
        item_transition(item=item, action=core.Action.REOPEN, actor=user, note=f"reopened: {reason.strip()}",
                        detail={"reason": reason.strip()})
    return item


# --- second opinions ----------------------------------------------------------------------------------------


def second_opinions_request(
    *, user: AbstractBaseUser, project: Project, share: float, seed: int, annotators: Sequence[AbstractBaseUser],
) -> list[SecondOpinion]:
    """Send a reproducible share of the project's submitted or accepted items to a blind second annotation,
    round-robin to annotators who did not annotate the item."""
    if not is_curator(user):
        raise AnnotationError("Only curators request second opinions.", status=403)
    if not annotators:
        raise AnnotationError("Choose at least one annotator for the second opinions.", field="annotators")
    for person in annotators:
        if not (is_annotator(person) or is_curator(person)):
            raise AnnotationError(f"{person} is not in the annotator group.", field="annotators")
    candidates = list(
        project.items.filter(state__in=[Item.State.SUBMITTED, Item.State.ACCEPTED], honeypot_of__isnull=True)
        .exclude(second_opinions__isnull=False).values_list("pk", flat=True)
    )
    try:
        chosen = core.choose_share(candidates, share, seed=seed)
    except ValueError as exc:
        raise AnnotationError(str(exc), field="share") from None
    leaf = leaf_for(project.leaf)
    masklet = leaf.count_masklet or leaf.scored_masklets[0]
    created = []
    with transaction.atomic():
        turn = 0
        for item in Item.objects.filter(pk__in=chosen).order_by("pk"):
            excluded = item_annotator_ids(item)
            eligible = [a for a in annotators if a.pk not in excluded]
            if not eligible:
                continue
            person = eligible[turn % len(eligible)]
            turn += 1
            opinion = SecondOpinion.objects.create(item=item, annotator=person, first_annotator=item.assignee,
                                                   masklet=masklet, requested_by=user)
            audit_record(item=item, actor=user, action="second_opinion_requested", from_state=item.state,
                         to_state=item.state, detail={"annotator": person.get_username(), "opinion": opinion.pk})
            created.append(opinion)
    return created


def _opinion_for(user: AbstractBaseUser, opinion_id: int, *, lock: bool = False) -> SecondOpinion:
    rows = SecondOpinion.objects.select_related("item__project")
    opinion = (rows.select_for_update() if lock else rows).filter(pk=opinion_id).first()
    if opinion is None or opinion.annotator_id != user.pk:
        raise AnnotationError("No such second-opinion task.", status=404)
    return opinion


def second_opinion_save(*, user: AbstractBaseUser, opinion_id: int, version: int, count: int | None,
                        instances: Mapping[str, Any]) -> SecondOpinion:
    """Save the blind annotator's masks (only the compared layer) and count, with the same version check."""
    with transaction.atomic():
        opinion = _opinion_for(user, opinion_id, lock=True)
        if opinion.status == SecondOpinion.Status.DONE:
            raise AnnotationError("This second opinion is submitted already.", status=409)
        if opinion.version != version:
            raise AnnotationError(
                f"The second opinion changed since you loaded it (your version {version}, current "
                f"{opinion.version}). Reload to see the other change.", status=409, field="version",
                extra={"version": opinion.version},
            )
        item = opinion.item
        checked = instances_check(leaf_for(item.project.leaf), item_images(item), dict(instances or {}))
        opinion.instances = {opinion.masklet: checked.get(opinion.masklet, [])}
        if count is not None and count < 0:
            raise AnnotationError("count must be 0 or more", field="count")
        opinion.count = count
        opinion.version += 1
        opinion.save()
    return opinion


def second_opinion_submit(*, user: AbstractBaseUser, opinion_id: int, version: int) -> SecondOpinion:
    """Compare with the item's submitted version: instance IoU and count agreement; low agreement flags the item."""
    with transaction.atomic():
        opinion = _opinion_for(user, opinion_id, lock=True)
        if opinion.status == SecondOpinion.Status.DONE:
            raise AnnotationError("This second opinion is submitted already.", status=409)
        if opinion.version != version:
            raise AnnotationError(f"The second opinion changed since you loaded it (your version {version}, "
                                  f"current {opinion.version}).", status=409, field="version")
        item = Item.objects.select_related("project").get(pk=opinion.item_id)
        reference = pinned_revision(item)
        snapshot = reference.snapshot if reference else {"instances": item.instances, "count": item.count}
        leaf = leaf_for(item.project.leaf)
        result = core.second_opinion_agreement(
            masklet=opinion.masklet, first=(snapshot.get("instances") or {}).get(opinion.masklet, []),
            second=(opinion.instances or {}).get(opinion.masklet, []),
            count_first=snapshot.get("count") if leaf.count_field else None,
            count_second=opinion.count if leaf.count_field else None, thresholds=thresholds_for(item.project),
        )
        opinion.mean_iou, opinion.f1, opinion.union_iou = result.mean_iou, result.f1, result.union_iou
        opinion.count_equal = result.count_equal if leaf.count_field else None
        opinion.low_agreement, opinion.why = result.low, list(result.why)
        opinion.compared_version = reference.version if reference else item.version
        opinion.status, opinion.completed_at = SecondOpinion.Status.DONE, timezone.now()
        opinion.save()
        audit_record(item=item, actor=user, action="second_opinion_low" if result.low else "second_opinion_done",
                     from_state=item.state, to_state=item.state,
                     detail={"opinion": opinion.pk, "mean_iou": result.mean_iou, "f1": result.f1,
                             "count_equal": opinion.count_equal, "why": list(result.why)})
    return opinion


def low_agreement_flags(item: Item) -> list[SecondOpinion]:
    """Second opinions that disagree: the description may be ambiguous (shown to reviewers)."""
    return list(SecondOpinion.objects.filter(item=item, status=SecondOpinion.Status.DONE, low_agreement=True))


# --- publishing ---------------------------------------------------------------------------------------------


def _gt_key(files: Sequence[Any]) -> str:
    return next(f.path for f in files if f.path.endswith("_mask_rle.json"))


def items_publish(
    *, user: AbstractBaseUser, item_ids: Sequence[int], split_name: str, benchmark_slug: str = EPIC_SLUG,
    hidden: bool = True, description: str = "",
) -> tuple[Split, list[PublishedSample]]:
    """Export accepted items to the toolkit's raw layout and import them with the EPIC importer into the split.

    A split with submissions, or a correction of a sample it already holds, is never changed in place: a new
    split version is made (the other samples copied) so every score keeps the exact samples it was computed on."""
    if not is_curator(user):
        raise AnnotationError("Only curators publish items.", status=403)
    if not item_ids:
        raise AnnotationError("Choose at least one accepted item to publish.", field="items")
    benchmark = Benchmark.objects.filter(slug=benchmark_slug).first()
    if benchmark is None:
        raise AnnotationError(f"No benchmark {benchmark_slug!r}.", field="benchmark")
    with transaction.atomic():
        items = list(Item.objects.select_for_update().select_related("project").filter(pk__in=item_ids)
                     .order_by("position", "pk"))
        missing = sorted(set(item_ids) - {i.pk for i in items})
        if missing:
            raise AnnotationError(f"No item {missing[0]}.", status=404, field="items")
        for item in items:
            if item.state == Item.State.PUBLISHED:
                link = item.published.select_related("split__benchmark").first()
                raise AnnotationError(f"Item {item.pk} ({item.name}) is published already"
                                      + (f" in {link.split}" if link else "") + "; reopen it to correct it.",
                                      status=409, field="items")
            if item.state != Item.State.ACCEPTED:
                raise AnnotationError(f"Item {item.pk} ({item.name}) is {item.get_state_display().lower()}; only "
                                      "accepted items are published.", status=409, field="items")
        exports = {item.pk: item_export_files(item=item) for item in items}
        keys = {item.pk: _gt_key(exports[item.pk]) for item in items}
        latest = Split.objects.select_for_update().filter(benchmark=benchmark, name=split_name).order_by(
            "-version").first()
        if latest is not None:
            hidden = latest.hidden_ground_truth
        corrects = latest is not None and Sample.objects.filter(split=latest, key__in=keys.values()).exists()
        new_version = latest is None or corrects or latest.submissions.exists()
        if latest is None:
            target = Split.objects.create(benchmark=benchmark, name=split_name, version=1, description=description,
                                          hidden_ground_truth=hidden)
        elif new_version:
            target = _split_new_version(latest, description=description)
        else:
            target = latest
        positions = dict(Sample.objects.filter(split=target).values_list("key", "position"))
        next_position = (max(positions.values()) + 1) if positions else 0
        with tempfile.TemporaryDirectory(prefix="publish-") as tmp:
            for item in items:
                write_files(exports[item.pk], Path(tmp))
            _, report = epic_split_import(path=Path(tmp), split_name=split_name, hidden=hidden,
                                          version=target.version, benchmark_slug=benchmark_slug)
        if report.problems:
            # Nothing is published half: the transaction rolls back the split version and the samples.
            raise AnnotationError("The importer refused the export: " + "; ".join(report.problems[:5]),
                                  field="items", extra={"problems": report.problems})
        links = []
        for item in items:
            sample = Sample.objects.get(split=target, key=keys[item.pk])
            if keys[item.pk] in positions:
                sample.position = positions[keys[item.pk]]
            else:
                sample.position, next_position = next_position, next_position + 1
            sample.inputs = {**sample.inputs, "annotation_item": {
                "item": item.pk, "project": item.project.slug, "version": item.version,
                "history": f"/annotation/review/items/{item.pk}/history/"}}
            sample.save(update_fields=["position", "inputs"])
            PublishedSample.objects.filter(split=target, sample=sample).delete()  # a copied link of the old version
            item_transition(item=item, action=core.Action.PUBLISH, actor=user,
                            note=f"published as {sample.key} in {target}",
                            detail={"split": str(target), "split_id": target.pk, "sample": sample.pk,
                                    "new_split_version": new_version and latest is not None})
            links.append(PublishedSample.objects.create(
                item=item, item_version=item.version, revision=item.revisions.order_by("-pk").first(),
                sample=sample, split=target, published_by=user, provenance=item.provenance or {},
            ))
        audit_record(item=None, project=items[0].project, actor=user, action="publish_split",
                     detail={"split": str(target), "items": [i.pk for i in items], "created_version": new_version})
        # Every board page of the benchmark lists its split tabs: a new split (or version, or sample) shows on all
        # of them at once, not only once someone opens it (issue 32). After the commit, so no reader caches the old.
        split_ids = list(Split.objects.filter(benchmark=benchmark).values_list("pk", flat=True))
        transaction.on_commit(lambda: [board_cache_invalidate(split_id=pk) for pk in split_ids])
        if new_version and latest is not None:
            # The previous version's scored submissions are scored on the new version too (issue 29), in the
            # background, each as a submission of its own there; the old version's board keeps its rows.
            transaction.on_commit(lambda: _split_version_rescore(target))
    return target, links


def _split_version_rescore(split: Split) -> None:
    try:
        rescore_split_version_start(split=split, enqueue=rescore_item_enqueue)
    except ServiceRefusal:  # a run onto this version is under way already
        pass


def _split_new_version(latest: Split, *, description: str) -> Split:
    """Split version + 1 with a copy of every sample (and its link to the annotation history)."""
    target = Split.objects.create(
        benchmark=latest.benchmark, name=latest.name, version=latest.version + 1,
        description=description or latest.description, hidden_ground_truth=latest.hidden_ground_truth,
        is_default=latest.is_default, phase=latest.phase,
    )
    if latest.is_default:
        Split.objects.filter(pk=latest.pk).update(is_default=False)
    old = list(Sample.objects.filter(split=latest).order_by("position", "key"))
    copies = Sample.objects.bulk_create([
        Sample(split=target, key=s.key, position=s.position, category=s.category, group=s.group, task=s.task,
               inputs=s.inputs, ground_truth=s.ground_truth) for s in old
    ])
    by_key = {s.key: s for s in Sample.objects.filter(split=target)}
    PublishedSample.objects.bulk_create([
        PublishedSample(item_id=link.item_id, item_version=link.item_version, revision_id=link.revision_id,
                        sample=by_key[link.sample.key], split=target, published_by=link.published_by,
                        provenance=link.provenance)
        for link in PublishedSample.objects.filter(split=latest).select_related("sample")
    ])
    assert len(copies) == len(old)
    return target


def review_config_set(*, user: AbstractBaseUser, project: Project, rounds_required: int,
                      distinct_reviewers: bool = True) -> ReviewConfig:
    if not is_curator(user):
        raise AnnotationError("Only curators change the review policy.", status=403)
    if not 2 <= rounds_required <= 10:
        # The floor: every published sample was passed by at least two different reviewers.
        raise AnnotationError(f"rounds_required must be between 2 and 10, got {rounds_required}.",
                              field="rounds_required")
    if not distinct_reviewers:
        raise AnnotationError("Each round must be reviewed by a different reviewer.", field="distinct_reviewers")
    config, _ = ReviewConfig.objects.get_or_create(project=project)
    config.rounds_required, config.distinct_reviewers = rounds_required, distinct_reviewers
    config.save()
    audit_record(item=None, project=project, actor=user, action="review_policy",
                 detail={"rounds_required": rounds_required, "distinct_reviewers": distinct_reviewers})
    return config
