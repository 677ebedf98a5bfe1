"""Annotation pages: projects, a project's items (upload, assign, export), the editor."""
from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.views.decorators.http import require_GET

from accounts.roles import is_annotator, is_curator, is_reviewer
from annotation import selectors
from annotation.core.epic import leaf_for
from annotation.forms import AssignForm, ProjectForm, UploadForm
from annotation.models import Item, Project
from annotation.serializers import EmbeddingOutput, ItemOutput
from annotation.services import export
from annotation.services.editing import EDITABLE_STATES, findings_json, item_images, item_lint
from annotation.services.errors import AnnotationError
from annotation.services.permissions import can_edit_item
from annotation.services.projects import images_upload, items_assign, project_create, role_set
from annotation.services.segmentation import browser_decoder_info, browser_decoder_url, item_open, segmenter_identity
from scoring.isolation import cross_origin_isolated


@login_required
def project_list(request: HttpRequest) -> HttpResponse:
    form = None
    if is_curator(request.user):
        form = ProjectForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                project = project_create(user=request.user, **form.cleaned_data)
            except AnnotationError as exc:
                form.add_error(exc.field or None, exc.message)
            else:
                return redirect("annotation-project", slug=project.slug)
    projects = selectors.projects_for_user(user=request.user)
    return render(request, "annotation/project_list.html", {"projects": projects, "form": form,
                                                            "is_curator": is_curator(request.user)})


@login_required
def project_detail(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    curator = is_curator(request.user)
    items = selectors.items_for_user(user=request.user, project=project)
    if not curator and not items.exists():
        raise Http404("No such project.")
    upload_form = UploadForm()
    assign_form = AssignForm(project=project)
    states = dict(Item.State.choices)
    shown_state = request.GET.get("state", "")
    if shown_state in states:
        items = items.filter(state=shown_state)
    status = 200
    if request.method == "POST" and curator:
        if "upload" in request.POST:
            upload_form = UploadForm(request.POST, request.FILES)
            if upload_form.is_valid():
                upload = upload_form.cleaned_data["file"]
                try:
                    result = images_upload(user=request.user, name=upload.name, data=upload,
                                           project=project)
                except AnnotationError as exc:
                    upload_form.add_error("file", exc.message)
                    status = exc.status
                else:
                    messages.success(request, f"Added {len(result.items)} item(s) from {len(result.images)} image(s).")
                    return redirect("annotation-project", slug=slug)
        elif "role" in request.POST:
            try:
                person = role_set(user=request.user, project=project,
                                  username=request.POST.get("username", ""), role=request.POST["role"],
                                  give=request.POST.get("give") == "1")
            except AnnotationError as exc:
                messages.error(request, exc.message)
                status = exc.status
            else:
                verb = "is now" if request.POST.get("give") == "1" else "is no longer"
                messages.success(request, f"{person.get_username()} {verb} {request.POST['role']}.")
                return redirect("annotation-project", slug=slug)
        elif "assign" in request.POST:
            assign_form = AssignForm(request.POST, project=project)
            if assign_form.is_valid():
                ticked = assign_form.cleaned_data["items"]
                chosen = project.items.filter(assignee__isnull=True) if "unassigned" in ticked else project.items.filter(
                    pk__in=[int(p) for p in ticked])
                try:
                    count = items_assign(user=request.user, items=list(chosen),
                                         assignee=assign_form.cleaned_data["assignee"])
                except AnnotationError as exc:
                    assign_form.add_error("assignee", exc.message)
                else:
                    messages.success(request, f"Assigned {count} item(s).")
                    return redirect("annotation-project", slug=slug)
    return render(request, "annotation/project_detail.html", {
        "project": project, "items": items, "curator": curator, "upload_form": upload_form,
        "assign_form": assign_form, "leaf": leaf_for(project.leaf),
        "states": states, "shown_state": shown_state if shown_state in states else "",
        "ticked": set(request.POST.getlist("items")) if request.method == "POST" else set(),
        "people": selectors.people_with_roles() if curator else [],
    }, status=status)


@login_required
def project_export(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    if not is_curator(request.user):
        raise Http404("No such project.")
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = export.project_export(project=project, root=root, states=request.GET.getlist("state") or None)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in paths:
                archive.write(path, path.relative_to(root).as_posix())
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{project.slug}-epic-raw.zip"'
    return response


def _ort_static() -> dict[str, str] | None:
    module, wasm = "vendor/onnxruntime-web/ort.wasm.bundle.min.mjs", "vendor/onnxruntime-web/ort-wasm-simd-threaded.wasm"
    if not (finders.find(module) or (Path(settings.STATIC_ROOT) / module).exists()):
        return None
    return {"module": static(module), "wasm": static(wasm)}


def _not_yours(request: HttpRequest, item: Item) -> HttpResponse:
    # Issue 32: not a bare "Not Found": say whose item it is (to the project's annotators and reviewers) and who can
    # hand it over.
    team = is_annotator(request.user) or is_reviewer(request.user)
    return render(request, "annotation/item_not_yours.html", {
        "item": item, "show_assignee": team, "curators": selectors.curator_names(),
    }, status=403)


def _editor_config(request: HttpRequest, item: Item) -> dict:
    """What the editor's script starts from (the page's editor-config, and the in-place Next's JSON). Opening the item
    starts its embedding (and the next items') on the worker; idempotent."""
    opened = item_open(user=request.user, item=item)
    leaf = leaf_for(item.project.leaf)
    following = selectors.next_item(item=item)
    item_data = dict(ItemOutput(item).data)
    if item.state in EDITABLE_STATES:  # items stored before upload-time linting said "No findings." when empty
        item_data["findings"] = findings_json(item_lint(item))
    return {
        "item": item_data,
        "leaf": {
            "path": leaf.path, "family": leaf.family.value, "images": leaf.images,
            "masklets": [{"name": m.name, "image": m.image_index, "scored": m.scored, "label": m.label}
                         for m in leaf.masklets],
            "text_fields": list(leaf.text_fields), "count_field": leaf.count_field,
            "field_labels": {name: leaf.field_label(name) for name in (*leaf.text_fields, leaf.count_field) if name},
            "has_feasibility": leaf.has_feasibility,
        },
        "api": {"item": f"/api/annotation/items/{item.pk}/", "submit": f"/api/annotation/items/{item.pk}/submit/"},
        # The Next button opens it in place (issue 34: static/annotation/editor/switch.js, through item_editor_data).
        "next_item": following.pk if following else None,
        # The page makes their features ready once computed (prefetch.js): the Next button finds them loaded.
        "next_images": [image.pk for image in item_images(following)] if following else [],
        # onnxruntime-web (npm, copied by `make setup`): SAM's decoder runs in the browser when it is there.
        "ort": _ort_static(),
        "decoder_url": browser_decoder_url(),  # downloaded at once, while the embedding status is polled
        # The status API's answer for each image as the page opens: a cached (e.g. prefetched) embedding needs no
        # request before the first click.
        "embeddings": {str(row.image_id): {**EmbeddingOutput(row).data,
                                           "browser": browser_decoder_info(image=row.image, row=row)}
                       for row in opened},
        "segmenter": segmenter_identity(),  # named in each mask's provenance
    }


@login_required
@cross_origin_isolated  # SAM's decoder runs on several WebAssembly threads
def item_editor(request: HttpRequest, pk: int) -> HttpResponse:
    item = get_object_or_404(Item.objects.select_related("project", "assignee"), pk=pk)
    if not can_edit_item(request.user, item):
        return _not_yours(request, item)
    config = _editor_config(request, item)
    return render(request, "annotation/editor.html", {"item": item, "config": config,
                                                      "leaf": leaf_for(item.project.leaf)})


@login_required
@require_GET
def item_editor_data(request: HttpRequest, pk: int) -> JsonResponse:
    """The editor page's content for another item as JSON, under the page's own access rules: the Next button (and
    the browser's back and forward) switch items in place, keeping the page's warm SAM decoder (issue 34)."""
    item = get_object_or_404(Item.objects.select_related("project", "assignee"), pk=pk)
    if not can_edit_item(request.user, item):
        return JsonResponse({"detail": "This item is not yours to edit.",
                             "page": f"/annotation/items/{item.pk}/"}, status=403)
    leaf = leaf_for(item.project.leaf)
    return JsonResponse({
        "config": _editor_config(request, item),
        # The parts of the page that are the item's: its name, its state, the reviewers' notes.
        "page": {"title": f"Edit {item.name}", "name": item.name, "state": item.get_state_display(),
                 "panel": render_to_string("annotation/review_editor_panel.html",
                                           {"item": item, "leaf": leaf}, request=request)},
    })
