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
from devicelab.core.authoring import AuthoringTime, authoring_time, total
from devicelab.core.checks import draft_checks
from devicelab.models import BoxMark, DeviceDraft, DeviceProject, DraftRevision, playtest_device_id
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


def _photo_url(draft: DeviceDraft, view: str) -> str:
    return f"/devicelab/drafts/{draft.pk}/photos/{view}/"


def views_with_boxes(draft: DeviceDraft) -> list[dict[str, Any]]:
    """Each view that has a photo, with the components' boxes on it (0..1000 of the photo), as a reviewer sees it."""
    photos = set(draft.photos.filter(state="").values_list("view", flat=True))
    components = draft.definition.get("components", {})
    out = []
    for view in draft_core.VIEWS:
        if view not in photos:
            continue
        boxes = [{"component": name, "x": b[0], "y": b[1], "w": b[2] - b[0], "h": b[3] - b[1]}
                 for name, spec in components.items() if isinstance(spec, dict)
                 for bview, b in spec.get("boxes", {}).items()
                 if bview == view and isinstance(b, list) and len(b) == 4]
        out.append({"view": view, "url": _photo_url(draft, view), "boxes": boxes})
    return out


def _issue_shape(issue: dict[str, Any], number: int) -> dict[str, Any]:
    shape: dict[str, Any] = {"number": number, "text": issue.get("text", "")}
    if issue.get("box"):
        x1, y1, x2, y2 = issue["box"]
        shape.update(kind="box", x=x1, y=y1, w=x2 - x1, h=y2 - y1, label_x=x1, label_y=max(y1 - 12, 30),
                     where=", ".join(str(v) for v in issue["box"]))
    elif issue.get("point"):
        x, y = issue["point"]
        shape.update(kind="point", x=x, y=y, label_x=x + 18, label_y=max(y - 18, 30), where=f"{x}, {y}")
    else:
        shape.update(kind="view", where="")
    return shape


def reviews_with_issues(draft: DeviceDraft) -> list[dict[str, Any]]:
    """The draft's review rounds, newest first, each with its issues grouped by view and numbered as drawn over
    that view's photo (a box or a point; an issue on the whole view is listed only)."""
    photos = set(draft.photos.filter(state="").values_list("view", flat=True))
    out = []
    for review in draft.reviews.select_related("reviewer").order_by("-pk"):
        views: dict[str, list[dict[str, Any]]] = {}
        for number, issue in enumerate(review.issues or [], start=1):
            views.setdefault(issue.get("view", ""), []).append(_issue_shape(issue, number))
        out.append({"review": review, "views": [
            {"view": view, "url": _photo_url(draft, view) if view in photos else "", "issues": shapes}
            for view, shapes in views.items()]})
    return out


# The revisions a person's authoring makes: every saved change and the submission (not its creation by a curator,
# a review or the publication).
AUTHORING_KINDS = (DraftRevision.Kind.SAVE, DraftRevision.Kind.SUBMIT)


def authoring_times(drafts: QuerySet[DeviceDraft]) -> dict[int, dict[str, AuthoringTime]]:
    """Each draft's authoring time per person (devicelab.core.authoring), from the times their changes were saved."""
    stamps: dict[tuple[int, str], list[float]] = {}
    rows = (DraftRevision.objects.filter(draft__in=drafts, kind__in=AUTHORING_KINDS, author__isnull=False)
            .values_list("draft_id", "author__username", "created_at"))
    for draft_id, username, created_at in rows:
        stamps.setdefault((draft_id, username), []).append(created_at.timestamp())
    out: dict[int, dict[str, AuthoringTime]] = {}
    for (draft_id, username), times in sorted(stamps.items()):
        out.setdefault(draft_id, {})[username] = authoring_time(times)
    return out


def draft_authoring(draft: DeviceDraft) -> dict[str, Any]:
    """One draft's authoring time: per person and in all."""
    people = authoring_times(DeviceDraft.objects.filter(pk=draft.pk)).get(draft.pk, {})
    return {"people": sorted(people.items()), "total": total(people.values())}


def project_authoring(drafts: QuerySet[DeviceDraft]) -> dict[str, Any]:
    """A project's drafts' authoring times (the drafts the viewer sees): per draft (all its people) and in all."""
    times = authoring_times(drafts)
    per_draft = {draft_id: total(people.values()) for draft_id, people in times.items()}
    return {"drafts": per_draft, "people": times, "total": total(per_draft.values())}
