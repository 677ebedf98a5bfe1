"""Device projects and drafts: create (from a category's UCSM), autosave with versions (a stale save is refused and
the last saved version kept), one-change edits (boxes, states, transitions, pruning) that save a new version, and
the live checks stored with each version. Roles as annotation projects (accounts.roles): curators create projects
and drafts; the draft's assignee (an annotator) or a curator edits it."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from accounts.roles import is_annotator, is_curator
from devicelab.core import drafts as draft_core
from devicelab.core.boxes import BoxError, box_check
from devicelab.models import BoxMark, DeviceDraft, DeviceProject, DraftRevision
from devicelab.selectors import checks_of
from devicelab.services.errors import DeviceLabError
from simulator.models import Device

EDITABLE_STATES = (DeviceDraft.State.IN_PROGRESS, DeviceDraft.State.NEEDS_REVISION)


def project_create(*, user: AbstractBaseUser, name: str, slug: str, description: str = "",
                   instructions: str = "") -> DeviceProject:
    if not is_curator(user):
        raise DeviceLabError("Only curators create device projects.", status=403)
    if not name.strip():
        raise DeviceLabError("A project needs a name.", field="name")
    if DeviceProject.objects.filter(slug=slug).exists():
        raise DeviceLabError(f"A device project with slug {slug!r} exists already.", field="slug", status=409)
    return DeviceProject.objects.create(name=name.strip(), slug=slug, description=description,
                                        instructions=instructions, created_by=user)


def can_edit_draft(user: AbstractBaseUser | None, draft: DeviceDraft) -> bool:
    return is_curator(user) or bool(is_annotator(user) and user is not None and draft.assignee_id == user.pk)


def draft_checks_json(draft: DeviceDraft) -> list[dict[str, str]]:
    return checks_of(draft, draft.definition)


def revision_create(draft: DeviceDraft, kind: str, user: AbstractBaseUser | None, note: str = "") -> DraftRevision:
    return DraftRevision.objects.create(draft=draft, version=draft.version, kind=kind, author=user,
                                        snapshot=draft.definition, note=note)


def draft_create(*, user: AbstractBaseUser, project: DeviceProject, category: str, device_id: str,
                 assignee: AbstractBaseUser | None = None) -> DeviceDraft:
    """A device of `category`, its UCSM offered as the starting state machine (every component, no photo yet)."""
    if not is_curator(user):
        raise DeviceLabError("Only curators add devices to a project.", status=403)
    if assignee is not None and not (is_annotator(assignee) or is_curator(assignee)):
        raise DeviceLabError(f"{assignee} is not in the annotator group.", field="assignee")
    device_id = device_id.strip()
    if not device_id or not set(device_id) <= set("abcdefghijklmnopqrstuvwxyz0123456789-_"):
        raise DeviceLabError(f"device id {device_id!r}: use lower-case letters, digits, - and _", field="device_id")
    if DeviceDraft.objects.filter(device_id=device_id).exists() or Device.objects.filter(device_id=device_id).exists():
        raise DeviceLabError(f"A device {device_id!r} exists already.", field="device_id", status=409)
    try:
        definition = draft_core.draft_start(category, device_id)
    except draft_core.DraftError as exc:
        raise DeviceLabError(str(exc), field="category") from None
    with transaction.atomic():
        draft = DeviceDraft.objects.create(project=project, device_id=device_id, category=category,
                                           definition=definition, assignee=assignee, updated_by=user)
        draft.checks = draft_checks_json(draft)
        draft.save(update_fields=["checks"])
        revision_create(draft, DraftRevision.Kind.CREATE, user, note=f"from the {category} UCSM")
    return draft


def draft_to_edit(user: AbstractBaseUser, draft_id: int, version: int | None) -> DeviceDraft:
    """The draft, locked for this transaction, if `user` may edit it now and `version` is the current one."""
    draft = DeviceDraft.objects.select_for_update().filter(pk=draft_id).first()
    if draft is None:
        raise DeviceLabError("No such device draft.", status=404)
    if not can_edit_draft(user, draft):
        raise DeviceLabError("You are not assigned to this device.", status=403)
    if version is not None and draft.version != version:
        raise DeviceLabError(
            f"The device changed since you loaded it (your version {version}, current {draft.version}). Reload to "
            "see the other change; your last saved version is kept.", status=409, field="version",
            extra={"version": draft.version})
    if draft.state not in EDITABLE_STATES:
        raise DeviceLabError(f"The device is {draft.get_state_display().lower()} and cannot be edited.", status=409)
    return draft


def _store(draft: DeviceDraft, definition: dict[str, Any], user: AbstractBaseUser, note: str) -> DeviceDraft:
    draft.definition = definition
    draft.version += 1
    draft.updated_by = user
    if draft.state == DeviceDraft.State.NEEDS_REVISION:
        draft.state = DeviceDraft.State.IN_PROGRESS
    draft.checks = draft_checks_json(draft)
    draft.save()
    revision_create(draft, DraftRevision.Kind.SAVE, user, note=note)
    return draft


def draft_save(*, user: AbstractBaseUser, draft_id: int, version: int, definition: Any) -> DeviceDraft:
    """The editor's autosave: the whole definition if `version` is current (else 409, nothing lost: every saved
    version is a revision). Its id and category are the draft's; anything else may be unfinished (the live checks
    say what), but it must be a JSON object."""
    if not isinstance(definition, Mapping):
        raise DeviceLabError("definition: a device definition must be a JSON object", field="definition")
    with transaction.atomic():
        draft = draft_to_edit(user, draft_id, version)
        data = dict(definition)
        for fixed in ("id", "category"):
            if data.get(fixed) != draft.definition.get(fixed):
                raise DeviceLabError(f"definition.{fixed}: the draft's {fixed} is {draft.definition.get(fixed)!r}",
                                     field=f"definition.{fixed}")
        return _store(draft, data, user, "autosave")


def draft_edit(*, user: AbstractBaseUser, draft_id: int, version: int | None, note: str,
               change: Callable[[dict[str, Any]], dict[str, Any]]) -> DeviceDraft:
    """One edit through the pure draft functions, saved as a new version; their refusals name the JSON path."""
    with transaction.atomic():
        draft = draft_to_edit(user, draft_id, version)
        try:
            definition = change(draft.definition)
        except draft_core.DraftError as exc:
            raise DeviceLabError(str(exc), field=exc.path) from None
        return _store(draft, definition, user, note)


def box_set(*, user: AbstractBaseUser, draft_id: int, version: int | None, component: str, view: str,
            box: Sequence[int] | None, proposed_by: str = "") -> DeviceDraft:
    """A component's box on a view (None: removed); checked first, then saved, and kept as this annotator's mark."""
    field = f"components.{component}.boxes.{view}"
    try:
        checked = None if box is None else box_check(list(box), field=field)
    except BoxError as exc:
        raise DeviceLabError(f"{exc.field} (view {view}): {exc}", field=exc.field) from None
    draft = draft_edit(user=user, draft_id=draft_id, version=version, note=f"box {component} on {view}",
                       change=lambda d: draft_core.box_set(d, component=component, view=view, box=checked))
    if checked is not None:
        BoxMark.objects.create(draft=draft, component=component, view=view, box=list(checked), author=user,
                               proposed_by=proposed_by)
    return draft


def machine_prune(*, user: AbstractBaseUser, draft_id: int, version: int | None) -> DeviceDraft:
    """Prune the UCSM to the components the photos show, in one action."""
    return draft_edit(user=user, draft_id=draft_id, version=version, note="pruned to the components on the photos",
                      change=draft_core.machine_prune)


def draft_revert(*, user: AbstractBaseUser, draft_id: int, version: int, to_version: int) -> DeviceDraft:
    """Bring back an earlier saved version (as a new version: nothing is lost)."""
    revision = DraftRevision.objects.filter(draft_id=draft_id, version=to_version).order_by("-pk").first()
    if revision is None:
        raise DeviceLabError(f"The device has no version {to_version}.", field="to_version", status=404)
    return draft_edit(user=user, draft_id=draft_id, version=version, note=f"back to version {to_version}",
                      change=lambda d: dict(revision.snapshot))
