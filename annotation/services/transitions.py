"""An item's history and the one way its state changes (`item_transition`, also used by the review services):
revisions of the item and the audit trail."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from annotation.core.review import Action, TransitionError, transition
from annotation.models import AuditEvent, Item, ItemRevision, Project
from annotation.services.errors import AnnotationError


def _snapshot(item: Item) -> dict[str, Any]:
    return {
        "texts": item.texts, "count": item.count, "precise_count": item.precise_count,
        "count_in_description": item.count_in_description, "placement_feasible": item.placement_feasible,
        "instances": item.instances, "provenance": item.provenance,
    }


def item_revision_create(item: Item, kind: str, user: AbstractBaseUser | None, note: str = "") -> ItemRevision:
    """One entry of the item's history: its version, state and labels as they are now."""
    return ItemRevision.objects.create(
        item=item, version=item.version, kind=kind, author=user, state=item.state, snapshot=_snapshot(item), note=note
    )


def audit_record(*, item: Item | None, actor: AbstractBaseUser | None, action: str, from_state: str = "",
                 to_state: str = "", detail: Mapping[str, Any] | None = None,
                 project: Project | None = None) -> AuditEvent:
    """One entry of the audit trail: who did what, when (an item's event, or a project's without an item)."""
    return AuditEvent.objects.create(
        item=item, project=project or (item.project if item else None), actor=actor, action=action,
        from_state=from_state, to_state=to_state, version=item.version if item else None, detail=dict(detail or {}),
    )


def item_transition(
    *, item: Item, action: Action, actor: AbstractBaseUser | None, kind: str = ItemRevision.Kind.STATE,
    note: str = "", detail: Mapping[str, Any] | None = None, content_changed: bool = False,
) -> None:
    """The one way an item's state changes: the core state machine checks the move on the locked item; a new
    state (or `content_changed`: the caller changed other fields too) makes a new version, saved with a
    revision of `kind`; then the audit trail records the move. A save that keeps the state is no event (its
    revision is the record); a review pass that keeps the state is one."""
    before = item.state
    try:
        after = transition(before, action)
    except TransitionError as exc:
        raise AnnotationError(f"Item {item.pk}: {exc}.", status=409, field="state") from None
    changed = after != before
    if changed or content_changed:
        # A new version: a tab still holding the old one must reload (and then sees the reviewers' comments).
        item.state = after
        item.version += 1
        item.updated_by = actor
        if content_changed:
            item.save()
        else:
            item.save(update_fields=["state", "version", "updated_by", "updated_at"])
        item_revision_create(item, kind, actor, note=note)
    if changed or action is not Action.SAVE:
        audit_record(item=item, actor=actor, action=action.value, from_state=before, to_state=after, detail=detail)
