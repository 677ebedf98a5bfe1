"""Honeypots (issue 32, after CVAT's ground-truth jobs): curators mark adjudicated items as gold; blank copies of
gold items go into annotators' queues unannounced, and an answer submitted on a copy is scored against the gold.

Unannounced means the copy is an item like any other to its annotator: the same editor page and URL shape, a
creation and an assignment in its history like an upload's, nothing in its API answers or pages that names the
gold (`Item.honeypot_of` is read only by curators' and reviewers' pages). The honeypot's own events are recorded on
the project, never on the copy. Copies are never reviewed, exported or published.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F

from accounts.roles import is_annotator, is_curator
from annotation.core import quality
from annotation.core.epic import leaf_for
from annotation.models import GoldCheck, GoldStandard, Item, ItemImage, ItemRevision, Project
from annotation.services.errors import AnnotationError
from annotation.services.transitions import audit_record, item_revision_create

GOLD_STATES = (Item.State.ACCEPTED, Item.State.PUBLISHED)  # adjudicated: passed every review round
OPEN_STATES = (Item.State.TODO, Item.State.IN_PROGRESS, Item.State.NEEDS_REVISION)
MAX_PER_ANNOTATOR = 50


def gold_mark(*, user: AbstractBaseUser, item_id: int, active: bool = True) -> GoldStandard:
    """Adopt an accepted or published item's current version as gold (or stop sending it out: active=False)."""
    if not is_curator(user):
        raise AnnotationError("Only curators mark gold items.", status=403)
    with transaction.atomic():
        item = Item.objects.select_for_update().select_related("project").filter(pk=item_id).first()
        if item is None:
            raise AnnotationError(f"No item {item_id}.", status=404, field="item")
        if item.honeypot_of_id is not None:
            raise AnnotationError(f"Item {item.pk} is a honeypot copy; mark the original instead.", field="item")
        existing = GoldStandard.objects.filter(item=item).first()
        if not active:
            if existing is None:
                raise AnnotationError(f"Item {item.pk} is not gold.", field="item")
            existing.active = False
            existing.save(update_fields=["active"])
            audit_record(item=item, actor=user, action="gold_retired", from_state=item.state, to_state=item.state)
            return existing
        if item.state not in GOLD_STATES:
            raise AnnotationError(f"Item {item.pk} ({item.name}) is {item.get_state_display().lower()}; only "
                                  "adjudicated (accepted or published) items become gold.", status=409, field="item")
        revision = item.revisions.order_by("-pk").first()
        gold, _ = GoldStandard.objects.update_or_create(
            item=item, defaults={"revision": revision, "version": item.version, "active": True, "marked_by": user})
        audit_record(item=item, actor=user, action="gold_marked", from_state=item.state, to_state=item.state,
                     detail={"version": item.version})
    return gold


def honeypots_send(
    *, user: AbstractBaseUser, project: Project, annotators: Sequence[AbstractBaseUser], per_annotator: int,
    seed: int,
) -> list[Item]:
    """Give each annotator up to `per_annotator` blank copies of the project's active gold items they did not
    annotate and have not had yet, each at a reproducible (seeded) place among their open items."""
    if not is_curator(user):
        raise AnnotationError("Only curators send honeypots.", status=403)
    if not 1 <= per_annotator <= MAX_PER_ANNOTATOR:
        raise AnnotationError(f"per_annotator must be between 1 and {MAX_PER_ANNOTATOR}, got {per_annotator}.",
                              field="per_annotator")
    if not annotators:
        raise AnnotationError("Choose at least one annotator for the honeypots.", field="annotators")
    for person in annotators:
        if not is_annotator(person):
            raise AnnotationError(f"{person} is not in the annotator group.", field="annotators")
    golds = list(GoldStandard.objects.filter(item__project=project, active=True).select_related("item")
                 .order_by("item__pk"))
    if not golds:
        raise AnnotationError("The project has no gold item: mark adjudicated items as gold first.", field="gold")
    rng = random.Random(seed)
    copies: list[Item] = []
    with transaction.atomic():
        Project.objects.select_for_update().filter(pk=project.pk).first()  # one sender at a time per project
        for person in sorted(annotators, key=lambda p: p.pk):
            had = set(Item.objects.filter(assignee=person, honeypot_of__isnull=False)
                      .values_list("honeypot_of_id", flat=True))
            annotated = set(ItemRevision.objects.filter(author=person, kind__in=[ItemRevision.Kind.SAVE,
                                                                                  ItemRevision.Kind.SUBMIT])
                            .values_list("item_id", flat=True))
            eligible = [g for g in golds if g.item_id not in had and g.item_id not in annotated
                        and g.item.assignee_id != person.pk]
            for gold in rng.sample(eligible, min(per_annotator, len(eligible))):
                copies.append(_copy_into_queue(gold, person, user, rng))
        audit_record(item=None, project=project, actor=user, action="honeypots_sent",
                     detail={"copies": [[c.pk, c.honeypot_of_id, c.assignee.get_username()] for c in copies],
                             "seed": seed})
    return copies


def _copy_into_queue(gold: GoldStandard, person: AbstractBaseUser, user: AbstractBaseUser, rng: random.Random) -> Item:
    """A blank item of the gold's images, assigned to `person` at a random place among their open items (the later
    items move down one place, so the queue order stays a strict order)."""
    source = gold.item
    places = sorted(Item.objects.filter(project=source.project, assignee=person, state__in=OPEN_STATES)
                    .values_list("position", flat=True))
    if places:
        position = rng.choice(places + [places[-1] + 1])
        Item.objects.filter(project=source.project, position__gte=position).update(position=F("position") + 1)
    else:
        position = (max(Item.objects.filter(project=source.project).values_list("position", flat=True), default=0)
                    + 1)
    copy = Item.objects.create(project=source.project, name=source.name, position=position, honeypot_of=source,
                               updated_by=user)
    for link in source.item_images.order_by("index"):
        ItemImage.objects.create(item=copy, image_id=link.image_id, index=link.index)
    created = source.revisions.filter(kind=ItemRevision.Kind.CREATE).order_by("pk").first()
    item_revision_create(copy, ItemRevision.Kind.CREATE, user, note=created.note if created else "")
    # As items_assign does for any item: the assignment is the item's own history.
    copy.assignee = person
    copy.save(update_fields=["assignee", "updated_at"])
    item_revision_create(copy, ItemRevision.Kind.ASSIGN, user, note=f"assigned to {person}")
    return copy


def gold_check_record(*, copy: Item, annotator: AbstractBaseUser) -> GoldCheck | None:
    """Score a honeypot copy's submitted version against its gold (called by the submit, in its transaction)."""
    gold = GoldStandard.objects.filter(item_id=copy.honeypot_of_id).select_related("revision").first()
    if gold is None:
        return None
    leaf = leaf_for(copy.project.leaf)
    answer = {"texts": copy.texts, "count": copy.count, "placement_feasible": copy.placement_feasible,
              "instances": copy.instances}
    result = quality.gold_agreement(
        gold.revision.snapshot, answer, scored_masklets=list(leaf.scored_masklets),
        text_fields=list(leaf.text_fields), count_field=leaf.count_field, has_feasibility=leaf.has_feasibility)
    check, _ = GoldCheck.objects.update_or_create(copy=copy, defaults={
        "gold": gold, "annotator": annotator, "version": copy.version, "mean_iou": result.mean_iou,
        "f1": result.f1, "union_iou": result.union_iou, "labels_match": result.labels_match,
        "mismatches": list(result.mismatches)})
    audit_record(item=None, project=copy.project, actor=annotator, action="honeypot_answered",
                 detail={"copy": copy.pk, "gold": gold.item_id, "mean_iou": result.mean_iou,
                         "labels_match": result.labels_match})
    return check
