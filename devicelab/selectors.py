"""Reads of the device lab: who sees which project and draft, a project's dashboard (drafts by state, the box
agreement of two annotators), a draft's editor payload."""
from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet

from accounts.roles import is_annotator, is_curator, is_reviewer
from devicelab.core import drafts as draft_core
from devicelab.core.agreement import Agreement, box_agreement
from devicelab.models import BoxMark, DeviceDraft, DeviceProject, playtest_device_id


def may_enter(user: AbstractBaseUser | None) -> bool:
    """The lab is for annotators, reviewers and curators (as the annotation tool)."""
    return is_annotator(user) or is_reviewer(user)


def drafts_visible(user: AbstractBaseUser | None) -> QuerySet[DeviceDraft]:
    """Curators and reviewers see every draft, an annotator the drafts assigned to them."""
    drafts = DeviceDraft.objects.select_related("project", "assignee")
    if is_curator(user) or is_reviewer(user):
        return drafts
    if is_annotator(user) and user is not None:
        return drafts.filter(assignee=user)
    return drafts.none()


def playtest_devices_for(user: AbstractBaseUser | None) -> frozenset[str] | None:
    """The play-test devices `user` may play, list and replay (simulator.playtests asks): every one for reviewers
    and curators (None), an annotator's own drafts' (the drafts they see), none for anyone else."""
    if is_reviewer(user):
        return None
    return frozenset(playtest_device_id(pk) for pk in drafts_visible(user).values_list("pk", flat=True))


def projects_visible(user: AbstractBaseUser | None) -> QuerySet[DeviceProject]:
    projects = DeviceProject.objects.annotate(devices=Count("drafts"))
    if is_curator(user) or is_reviewer(user):
        return projects
    if is_annotator(user) and user is not None:
        return projects.filter(drafts__assignee=user).distinct()
    return projects.none()


def project_agreement(project: DeviceProject) -> Agreement:
    """Box agreement (IoU, ours) of two annotators over the project's components, each annotator's last box."""
    marks = (BoxMark.objects.filter(draft__project=project).select_related("author", "draft").order_by("pk"))
    return box_agreement((f"{m.draft.device_id}/{m.component}", m.view, m.author.get_username(), m.box)
                         for m in marks)


def project_states(project: DeviceProject) -> dict[str, int]:
    counts = dict(project.drafts.values_list("state").annotate(n=Count("pk")))
    return {label: counts.get(value, 0) for value, label in DeviceDraft.State.choices}


def editor_payload(draft: DeviceDraft) -> dict[str, Any]:
    """What the editor page's script starts from: the definition, its version and checks, the photos' URLs, the
    category's component kinds and the graph."""
    photos = {p.view: {"url": p.image.file.url, "width": p.image.width, "height": p.image.height}
              for p in draft.photos.select_related("image").filter(state="")}
    return {
        "id": draft.pk, "version": draft.version, "state": draft.state, "definition": draft.definition,
        "checks": draft.checks, "photos": photos, "views": list(draft_core.VIEWS),
        "kinds": draft_core.component_kinds(draft.category), "graph": draft_core.graph(draft.definition),
    }
