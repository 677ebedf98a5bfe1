"""Device lab pages: projects (a dashboard with the box agreement), the device editor (photos, components, live
checks, the state machine as an SVG graph, tasks, play-test, submit), review, publish, export; and the editor's
JSON endpoints (autosave, a click's proposed box). Every change goes through devicelab.services."""
from __future__ import annotations

import csv
import io
import json
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts.roles import is_curator, is_reviewer
from devicelab import selectors
from devicelab.core import drafts as draft_core
from devicelab.core.authoring import IDLE_GAP_S
from devicelab.models import DeviceDraft
from devicelab.services import drafts as draft_services
from devicelab.services import photos as photo_services
from devicelab.services import review as review_services
from devicelab.services.errors import DeviceLabError
from scoring.benchmarks.vge.core.device import PHYSICAL_ACTIONS
from scoring.error_pages import ErrorPage, refusals_shown

PAGE = ErrorPage(None, "devicelab-projects", "Back to the device lab")


def _lab_user(request: HttpRequest) -> None:
    if not selectors.may_enter(request.user):
        raise DeviceLabError("The device lab is for annotators, reviewers and curators.", status=403)


def _draft_for(request: HttpRequest, pk: int) -> DeviceDraft:
    draft = selectors.drafts_visible(request.user).filter(pk=pk).first()
    if draft is None:
        raise Http404("No such device draft.")
    return draft


@login_required
@refusals_shown(PAGE)
def project_list(request: HttpRequest) -> HttpResponse:
    _lab_user(request)
    error = None
    if request.method == "POST":
        try:
            project = draft_services.project_create(
                user=request.user, name=request.POST.get("name", ""), slug=request.POST.get("slug", "").strip(),
                description=request.POST.get("description", ""))
        except DeviceLabError as exc:
            error = exc
        else:
            return redirect("devicelab-project", slug=project.slug)
    return render(request, "devicelab/project_list.html", {
        "projects": selectors.projects_visible(request.user), "is_curator": is_curator(request.user),
        "error": error}, status=error.status if error else 200)


@login_required
@refusals_shown(PAGE)
def project_detail(request: HttpRequest, slug: str) -> HttpResponse:
    _lab_user(request)
    project = get_object_or_404(selectors.projects_visible(request.user), slug=slug)
    error = None
    if request.method == "POST":
        assignee = get_user_model().objects.filter(username=request.POST.get("assignee", "").strip()).first()
        try:
            if request.POST.get("assignee", "").strip() and assignee is None:
                raise DeviceLabError(f"No user {request.POST['assignee'].strip()!r}.", field="assignee")
            draft = draft_services.draft_create(user=request.user, project=project,
                                                category=request.POST.get("category", ""),
                                                device_id=request.POST.get("device_id", ""), assignee=assignee)
        except DeviceLabError as exc:
            error = exc
        else:
            return redirect("devicelab-draft", pk=draft.pk)
    agreement = selectors.project_agreement(project)
    visible = selectors.drafts_visible(request.user).filter(project=project)
    authoring = selectors.project_authoring(visible)
    drafts = list(visible)
    for draft in drafts:
        draft.authoring = authoring["drafts"].get(draft.pk)
    return render(request, "devicelab/project_detail.html", {
        "project": project, "drafts": drafts, "authoring_total": authoring["total"],
        "states": selectors.project_states(project), "agreement": agreement,
        "categories": draft_core.categories(), "is_curator": is_curator(request.user), "error": error,
    }, status=error.status if error else 200)


@login_required
@refusals_shown(PAGE)
def project_authoring_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """Each draft's authoring time per person (active seconds, edits, sessions) as CSV, for the drafts one sees."""
    _lab_user(request)
    project = get_object_or_404(selectors.projects_visible(request.user), slug=slug)
    drafts = selectors.drafts_visible(request.user).filter(project=project)
    times = selectors.authoring_times(drafts)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["device_id", "category", "state", "person", "active_seconds", "edits", "sessions",
                     "idle_gap_seconds"])
    for draft in drafts:
        for person, time in sorted(times.get(draft.pk, {}).items()):
            writer.writerow([draft.device_id, draft.category, draft.state, person, f"{time.seconds:.0f}",
                             time.edits, time.sessions, f"{IDLE_GAP_S:.0f}"])
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{project.slug}-authoring.csv"'
    return response


def _edit(request: HttpRequest, draft: DeviceDraft) -> str:
    """One editor form's change; returns what to tell the author."""
    post = request.POST
    op = post.get("op", "")
    version = int(post["version"]) if post.get("version", "").isdigit() else None
    common: dict[str, Any] = {"user": request.user, "draft_id": draft.pk, "version": version}
    if op == "photo":
        upload = request.FILES.get("photo")
        if upload is None:
            raise DeviceLabError(f"photos.{post.get('view')}: choose a photo", field=f"photos.{post.get('view')}")
        unlock = None
        if post.get("view") == draft_core.DASHBOARD:
            unlock = (post.get("parent", ""), [_int(post, k) for k in ("ux1", "uy1", "ux2", "uy2")])
        photo_services.view_photo_set(**common, view=post.get("view", ""), name=upload.name, data=upload.read(),
                                      unlock=unlock)
        return f"Photo of the {post.get('view')} view saved."
    if op == "state_photo":
        upload = request.FILES.get("photo")
        state, view = post.get("state", ""), post.get("view", "")
        if upload is None:
            raise DeviceLabError(f"states.{state}.look.photos.{view}: choose a photo",
                                 field=f"states.{state}.look.photos.{view}")
        photo_services.state_photo_set(**common, state=state, view=view, name=upload.name, data=upload.read())
        return f"Photo of the {view} view in state {state} saved."
    if op == "overlays":
        state, view = post.get("state", ""), post.get("view", "")
        draft_services.draft_edit(**common, note=f"overlays of {view} in state {state}",
                                  change=lambda d: draft_core.overlays_set(d, state=state, view=view,
                                                                           components=post.getlist("components")))
        return f"Overlays of the {view} view in state {state} saved."
    if op == "component_look":
        state, component = post.get("state", ""), post.get("component", "")
        draft_services.draft_edit(**common, note=f"look of {component} in state {state}",
                                  change=lambda d: draft_core.component_look_set(
                                      d, state=state, component=component, values=draft_core.look_values_parse(
                                          post.get("values", ""), path=f"states.{state}.look.components.{component}")))
        return f"Look of {component} in state {state} saved."
    if op == "box":
        box = None if post.get("remove") else [_int(post, k) for k in ("x1", "y1", "x2", "y2")]
        draft_services.box_set(**common, component=post.get("component", ""), view=post.get("view", ""), box=box,
                               proposed_by=post.get("proposed_by", ""))
        return f"Box of {post.get('component')} on {post.get('view')} saved."
    if op == "prune":
        draft_services.machine_prune(**common)
        return "The machine is pruned to the components on the photos."
    if op == "state":
        draft_services.draft_edit(**common, note=f"state {post.get('name')}", change=lambda d: draft_core.state_set(
            d, name=post.get("name", "").strip(), description=post.get("description", ""),
            error=bool(post.get("error"))))
        return f"State {post.get('name')} saved."
    if op == "transition":
        params = [p for p in post.get("parameter", "").split(",") if p.strip()]
        draft_services.draft_edit(**common, note="transition added", change=lambda d: draft_core.transition_add(
            d, state=post.get("state", ""), trigger=post.get("trigger", ""), next_state=post.get("next_state", "").strip(),
            action=post.get("action", ""), parameter=params, description=post.get("description", "")))
        return "Transition added."
    if op == "transition_remove":
        draft_services.draft_edit(**common, note="transition removed", change=lambda d: draft_core.transition_remove(
            d, state=post.get("state", ""), trigger=post.get("trigger", ""), index=_int(post, "index")))
        return "Transition removed."
    if op == "revert":
        draft_services.draft_revert(user=request.user, draft_id=draft.pk, version=version or draft.version,
                                    to_version=_int(post, "to_version"))
        return f"Back to version {post.get('to_version')} (as a new version)."
    if op == "submit":
        review_services.draft_submit(user=request.user, draft_id=draft.pk, version=version or draft.version)
        return "Submitted for review."
    raise DeviceLabError(f"Unknown change {op!r}.", field="op")


def _int(post: Any, key: str) -> int:
    value = post.get(key, "").strip()
    try:
        return int(value)
    except ValueError:
        raise DeviceLabError(f"{key} must be a whole number, got {value!r}", field=key) from None


@login_required
@refusals_shown(PAGE)
def draft_editor(request: HttpRequest, pk: int) -> HttpResponse:
    _lab_user(request)
    draft = _draft_for(request, pk)
    error = None
    if request.method == "POST":
        try:
            note = _edit(request, draft)
        except DeviceLabError as exc:
            error = exc
        else:
            messages.success(request, note)
            return redirect("devicelab-draft", pk=draft.pk)
        draft.refresh_from_db()
    return render(request, "devicelab/editor.html", _editor_context(request, draft, error),
                  status=error.status if error else 200)


def _editor_context(request: HttpRequest, draft: DeviceDraft, error: DeviceLabError | None) -> dict[str, Any]:
    payload = selectors.editor_payload(draft)
    for view, photo in payload["photos"].items():
        photo["url"] = f"/devicelab/drafts/{draft.pk}/photos/{view}/"
    try:
        previews = review_services.tasks_preview(draft)
        tasks_error = ""
    except DeviceLabError as exc:
        previews, tasks_error = [], exc.message
    definition = draft.definition
    cards = []
    for view in draft_core.VIEWS:
        boxes = [{"component": name, "x": b[0], "y": b[1], "w": b[2] - b[0], "h": b[3] - b[1],
                  "text": ",".join(str(v) for v in b)}
                 for name, spec in definition.get("components", {}).items()
                 for bview, b in spec.get("boxes", {}).items()
                 if bview == view and isinstance(b, list) and len(b) == 4]
        cards.append({"view": view, "photo": payload["photos"].get(view), "boxes": boxes})
    return {
        "cards": cards, "transitions": payload["graph"]["edges"],
        "draft": draft, "payload": payload, "error": error,
        "can_edit": draft_services.can_edit_draft(request.user, draft)
        and draft.state in draft_services.EDITABLE_STATES,
        "views": draft_core.VIEWS, "kinds": payload["kinds"], "checks": draft.checks,
        "errors": [c for c in draft.checks if c["level"] == "error"],
        "components": [(name, payload["kinds"].get(name, "control"), spec.get("boxes", {}))
                       for name, spec in definition.get("components", {}).items()],
        "states": list(definition.get("states", {}).items()),
        "actions": PHYSICAL_ACTIONS, "previews": previews, "tasks_error": tasks_error,
        "revisions": draft.revisions.order_by("-pk")[:15], "reviews": selectors.reviews_with_issues(draft),
        "authoring": selectors.draft_authoring(draft),
        "publications": draft.publications.select_related("split"),
        "is_reviewer": is_reviewer(request.user), "is_curator": is_curator(request.user),
        "may_review": is_reviewer(request.user) and draft.state == DeviceDraft.State.SUBMITTED
        and draft.assignee_id != request.user.pk,
    }


@login_required
def draft_photo(request: HttpRequest, pk: int, view: str) -> FileResponse:
    if not selectors.may_enter(request.user):
        raise Http404("No such photo.")
    draft = _draft_for(request, pk)
    photo = draft.photos.select_related("image").filter(view=view, state=request.GET.get("state", "")).first()
    if photo is None:
        raise Http404("No such photo.")
    return FileResponse(photo.image.file.open("rb"))


@login_required
def draft_look(request: HttpRequest, pk: int, view: str) -> FileResponse:
    """The image of `view` in `?state=` as the player will show it (the renderer's `view_image`: the state's photo,
    the view's photo with the state's overlays, or the photo)."""
    if not selectors.may_enter(request.user):
        raise Http404("No such view.")
    path = selectors.draft_view_image(_draft_for(request, pk), view=view, state=request.GET.get("state", ""))
    if path is None:
        raise Http404("No such view or state, or the draft does not load yet (see its checks).")
    return FileResponse(path.open("rb"), content_type="image/png" if path.suffix == ".png" else None)


@login_required
@require_POST
@refusals_shown(PAGE)
def draft_playtest(request: HttpRequest, pk: int) -> HttpResponse:
    _lab_user(request)
    draft = _draft_for(request, pk)
    task = review_services.playtest_install(user=request.user, draft_id=draft.pk)
    return redirect("simulator-play-task", task_id=task.task_id)


def _issues_posted(post: Any) -> list[Any]:
    """The issues a review form sends: `issues`, the JSON list the page's drawing builds ([{view, box? or point?,
    text}]), and the form's own fields for one more (a view, a box typed as [x1, y1, x2, y2], the text)."""
    issues: list[Any] = []
    if post.get("issues", "").strip():
        try:
            issues = json.loads(post["issues"])
        except json.JSONDecodeError:
            raise DeviceLabError("issues: not JSON", field="issues") from None
        if not isinstance(issues, list):
            raise DeviceLabError("issues must be a list of {view, box? or point?, text}", field="issues")
    if post.get("issue_text", "").strip():
        issue: dict[str, Any] = {"view": post.get("issue_view"), "text": post["issue_text"]}
        if post.get("issue_box", "").strip():
            try:
                issue["box"] = json.loads(post["issue_box"])
            except json.JSONDecodeError:
                field = f"issues[{len(issues)}].box"
                raise DeviceLabError(f"{field}: a box is [x1, y1, x2, y2]", field=field) from None
        issues.append(issue)
    return issues


@login_required
@require_http_methods(["GET", "POST"])
@refusals_shown(PAGE)
def draft_review(request: HttpRequest, pk: int) -> HttpResponse:
    """The reviewer's page (the boxes over each view, the graph, the tasks to play, issues drawn on a view) and the
    review it sends; the author reads the same page's rounds and issues."""
    _lab_user(request)
    draft = _draft_for(request, pk)
    error = None
    if request.method == "POST":
        try:
            review = review_services.draft_review(
                user=request.user, draft_id=draft.pk, verdict=request.POST.get("verdict", ""),
                note=request.POST.get("note", ""), issues=_issues_posted(request.POST))
        except DeviceLabError as exc:
            error = exc
        else:
            messages.success(request, f"Review round {review.round}: {review.get_verdict_display().lower()}.")
            return redirect("devicelab-draft-review", pk=draft.pk)
    try:
        previews = review_services.tasks_preview(draft)
    except DeviceLabError:
        previews = []
    return render(request, "devicelab/review.html", {
        "draft": draft, "cards": selectors.views_with_boxes(draft), "graph": draft_core.graph(draft.definition),
        "previews": previews, "reviews": selectors.reviews_with_issues(draft),
        "authoring": selectors.draft_authoring(draft), "error": error,
        "may_review": review_services.may_review(request.user, draft),
        "round": draft.review_round + 1, "rounds": review_services.REVIEW_ROUNDS,
    }, status=error.status if error else 200)


@login_required
@require_POST
@refusals_shown(PAGE)
def draft_publish(request: HttpRequest, pk: int) -> HttpResponse:
    _lab_user(request)
    draft = _draft_for(request, pk)
    publication = review_services.draft_publish(user=request.user, draft_id=draft.pk,
                                                split_name=request.POST.get("split", ""),
                                                public=request.POST.get("public") == "on")
    messages.success(request, f"Published as version {publication.version} into {publication.split} "
                              f"({publication.tasks} tasks).")
    return redirect("devicelab-draft", pk=draft.pk)


@login_required
@refusals_shown(PAGE)
def draft_export(request: HttpRequest, pk: int) -> HttpResponse:
    _lab_user(request)
    draft = _draft_for(request, pk)
    response = HttpResponse(review_services.draft_export(draft), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{draft.device_id}.zip"'
    return response


# -- the editor's JSON endpoints (a refusal under /api/ is answered as the API's error body) ---------------------


def _json_body(request: HttpRequest) -> dict[str, Any]:
    try:
        body = json.loads(request.body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise DeviceLabError("The request body is not JSON.", field="body") from None
    if not isinstance(body, dict):
        raise DeviceLabError("The request body must be a JSON object.", field="body")
    return body


def _api_user(request: HttpRequest) -> None:
    if not request.user.is_authenticated:
        raise DeviceLabError("Sign in first.", status=401)
    _lab_user(request)


def draft_api(request: HttpRequest, pk: int) -> JsonResponse:
    """GET: the editor's payload; POST {version, definition}: the autosave."""
    _api_user(request)
    draft = _draft_for(request, pk)
    if request.method == "POST":
        body = _json_body(request)
        version = body.get("version")
        if not isinstance(version, int):
            raise DeviceLabError("version must be the version you loaded", field="version")
        draft = draft_services.draft_save(user=request.user, draft_id=draft.pk, version=version,
                                          definition=body.get("definition"))
    elif request.method != "GET":
        raise DeviceLabError("GET or POST.", status=405)
    return JsonResponse(selectors.editor_payload(draft))


@require_POST
def propose_api(request: HttpRequest, pk: int) -> JsonResponse:
    """POST {view, x, y}: the box a click proposes (202 while the photo's embedding is being computed)."""
    _api_user(request)
    draft = _draft_for(request, pk)
    body = _json_body(request)
    proposal = photo_services.component_propose(user=request.user, draft_id=draft.pk, view=str(body.get("view", "")),
                                                x=body.get("x"), y=body.get("y"))
    if proposal.pending is not None:
        return JsonResponse({"status": proposal.pending.status, "progress": proposal.pending.progress}, status=202)
    return JsonResponse({"box": proposal.box, "score": proposal.score, "backend": proposal.backend})


@require_POST
def checks_api(request: HttpRequest, pk: int) -> JsonResponse:
    """POST {definition}: the live checks of an unsaved definition (nothing is saved), as the saved version's."""
    _api_user(request)
    draft = _draft_for(request, pk)
    return JsonResponse({"version": draft.version,
                         "checks": selectors.checks_of(draft, definition=_json_body(request).get("definition"))})
