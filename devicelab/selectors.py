"""Reads of the device lab: who sees which project and draft, a project's dashboard (drafts by state, the box
agreement of two annotators), a draft's editor payload."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet

from accounts.roles import is_annotator, is_curator, is_reviewer
from devicelab.core import drafts as draft_core
from devicelab.core.agreement import Agreement, box_agreement
from devicelab.core.checks import draft_checks
from devicelab.models import BoxMark, DeviceDraft, DeviceProject
from scoring.benchmarks.vge.core.device import DeviceInvalid, load_device
from scoring.benchmarks.vge.core.render import view_image
from simulator.services.view_images import render_cache_dir


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


def checks_of(draft: DeviceDraft, definition: Any) -> list[dict[str, str]]:
    """The live checks of `definition` (the draft's saved one, or an author's unsaved change) against the draft's
    photos; each names its JSON path and view."""
    photos = frozenset(draft.photos.filter(state="").values_list("view", flat=True))
    return [c.as_dict() for c in draft_checks(definition, photos=photos)]


def draft_view_image(draft: DeviceDraft, *, view: str, state: str) -> Path | None:
    """The file the player will show of `view` in `state` (the initial state when ""), drawn by the same renderer
    function as the simulator's; None when the view or state is unknown or the draft does not load yet."""
    try:
        device = load_device(draft.definition, allow_boxless=True)
    except DeviceInvalid:
        return None
    state = state or device.initial_state
    if view not in device.views or state not in device.states:
        return None
    files = {draft_core.photo_file(draft.definition, view=photo.view, state=photo.state): Path(photo.image.file.path)
             for photo in draft.photos.select_related("image")}
    return view_image(device, view, state, photo_path=lambda name: files.get(name), cache_dir=render_cache_dir())
