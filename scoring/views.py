"""Pages for submitting and following submissions (server-rendered)."""
from __future__ import annotations

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django.views.static import serve

from accounts.roles import is_curator
from scoring import access, benchmarks, provenance, queue_health, selectors, services, services_provenance
from scoring.core.contract import report_groups
from scoring.core.provenance import KEYS
from scoring.errors import FileRefused, ServiceRefusal
from scoring.forms import ModelEntryForm, SubmissionForm, VisibilityForm
from scoring.models import ChangeRecord, ModelEntry, Submission
from scoring.paging import page_requested
from scoring.phases import phase_shown
from scoring.quota import quotas_for_user


def upload_formats() -> list[tuple[str, str]]:
    """(title, the files it takes) of each benchmark that says (`BenchmarkPlugin.upload_hint`), for the upload page."""
    return [(plugin.title, plugin.upload_hint) for plugin in benchmarks.plugins() if plugin.upload_hint]


@login_required
def submission_new(request: HttpRequest) -> HttpResponse:
    splits = selectors.splits_open_for_submission()
    status = 200
    refusal = None
    if request.method == "POST":
        try:
            services.upload_request_check(user=request.user, content_length=request.META.get("CONTENT_LENGTH"))
        except services.SubmissionError as exc:
            # The body is never read, so the form stays unbound: the refusal is shown above it.
            context = {"form": SubmissionForm(splits=splits), "upload_error": exc.message,
                       "upload_formats": upload_formats(), "site_url": request.build_absolute_uri("/").rstrip("/")}
            return render(request, "scoring/submission_new.html", context, status=exc.status)
        form = SubmissionForm(request.POST, request.FILES, splits=splits)
        if form.is_valid():
            data = form.cleaned_data
            try:
                entry = services.model_entry_for_upload(
                    user=request.user, name=data["model_name"],
                    fields={"thinking": data["thinking"], "kind": data["kind"], "organisation": data["organisation"],
                            "parameters_b": data["parameters_b"]},
                )
                submission = services.submission_create(
                    user=request.user,
                    split=data["split"],
                    model_entry=entry,
                    uploaded_file=data["file"],
                    options=form.scorer_options(),
                    note=data["note"],
                    run_set=data["run_set"],
                    visibility=data["visibility"] or Submission.Visibility.PUBLIC,
                )
            except FileRefused as exc:  # what the file holds: said above the form, its problems grouped
                refusal = exc
                status = exc.status
            except services.SubmissionError as exc:
                form.add_error("file" if exc.field == "file" else None, exc.message)
                status = exc.status
            else:
                messages.success(request, f"Submission #{submission.pk} is queued for scoring.")
                return redirect("submission-detail", pk=submission.pk)
        else:
            status = 400
    else:
        form = SubmissionForm(splits=splits, initial={"split": _split_asked(request, splits)})
    quotas = quotas_for_user(user=request.user, splits=splits)
    return render(request, "scoring/submission_new.html",
                  {"form": form, "quotas": quotas, "upload_formats": upload_formats(), "refusal": refusal,
                   "site_url": request.build_absolute_uri("/").rstrip("/")},
                  status=status)


def _split_asked(request: HttpRequest, splits) -> int | str | None:
    """The split the link to the form chose: `?split=<id>`, or `?benchmark=<slug>` (a format page's or a board's
    Submit link): that benchmark's default split, else its first open one."""
    if request.GET.get("split"):
        return request.GET["split"]
    slug = request.GET.get("benchmark")
    if not slug:
        return None
    chosen = splits.filter(benchmark__slug=slug).order_by("-is_default", "name", "-version").first()
    return chosen.pk if chosen is not None else None


SUBMISSION_LIST_PAGE = 50  # rows of "My submissions" a page


@login_required
def submission_list(request: HttpRequest) -> HttpResponse:
    """The user's submissions, newest first, a page at a time: a heavy user's page costs what anyone's does."""
    page = page_requested(request, selectors.submissions_of_user(user=request.user), SUBMISSION_LIST_PAGE)
    return render(request, "scoring/submission_list.html", {"submissions": page.object_list, "page": page})


OPTION_LABELS = {"raw": "Raw responses", "coord_mode": "Coordinate mode", "compat": "Toolkit compatibility"}
COORDINATES_DECIDED_BY = {
    "upload": "chosen on upload",
    "family": "from the model's family ({family})",
    "file": "declared by {declared_by_lines} line(s) of the file; the other samples auto-detected",
    "auto": "auto-detected per sample",
}


def options_shown(options: dict) -> list[tuple[str, str]]:
    """The upload's scorer options as (label, value) rows; none: the defaults."""
    def shown(value) -> str:
        return "yes" if value is True else "no" if value is False else str(value)
    order = list(OPTION_LABELS)
    ordered = sorted(options.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]))
    return [(OPTION_LABELS.get(k, k), shown(v)) for k, v in ordered]


def coordinates_shown(details: dict) -> dict | None:
    """The coordinate mode a score used and what decided it, from `Score.details["coordinates"]` (where a scorer
    that reads boxes and points records it)."""
    found = details.get("coordinates") if isinstance(details, dict) else None
    if not isinstance(found, dict):
        return None
    decided = COORDINATES_DECIDED_BY.get(found.get("decided_by"), str(found.get("decided_by")))
    decided = decided.format(declared_by_lines=found.get("declared_by_lines", 0), family=found.get("family", ""))
    if found.get("decided_by") == "family" and found.get("declared_by_lines"):
        decided += f"; {found['declared_by_lines']} line(s) of the file declare their own"
    return {"mode": found.get("mode"), "decided_by": found.get("decided_by"), "decided": decided,
            "resolved": sorted((found.get("resolved") or {}).items())}


def benchmark_pages(submission: Submission) -> list[tuple[str, str]]:
    """(link text, URL) of the benchmark's own pages about this submission (`BenchmarkPlugin.submission_pages`)."""
    try:
        pages = benchmarks.plugin_for(submission.split.benchmark.scorer).submission_pages
    except benchmarks.UnknownBenchmark:
        return []
    return [(text, reverse(name, args=[submission.pk])) for text, name in pages]


@login_required
def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(
        Submission.objects.select_related("model_entry", "split__benchmark", "submitter"), pk=pk
    )
    if not access.submission_own_page_visible_to(submission=submission, user=request.user):
        raise Http404("No such submission.")
    score = getattr(submission, "score", None) if submission.status == Submission.Status.SCORED else None
    visibility_form = VisibilityForm(initial={"visibility": submission.visibility})
    if submission.visibility == Submission.Visibility.WITHDRAWN and not is_curator(request.user):
        visibility_form = None
    return render(request, "scoring/submission_detail.html", {
        "submission": submission, "score": score, "options": options_shown(submission.options or {}),
        "coordinates": coordinates_shown(score.details) if score else None,
        "failure_groups": report_groups(submission.error_report or []),
        "benchmark_pages": benchmark_pages(submission),
        "queue_place": queue_health.submission_queue_place(submission=submission),
        "overdue": queue_health.submission_is_overdue(submission),
        "stale_after_minutes": settings.QUEUE_STALE_AFTER_MINUTES,
        "visibility_form": visibility_form if submission.source == Submission.Source.UPLOAD else None,
        "changes": selectors.change_records(subject=ChangeRecord.Subject.SUBMISSION, object_id=submission.pk),
        "phase": phase_shown(submission.split.phase) if submission.split.phase_id else None,
        "identical_to": selectors.identical_submissions(submission=submission),
        "provenance": provenance_rows(score=score, user=request.user),
        "score_versions": list(submission.score_versions.all()[:50]),  # scores a re-score replaced (issue 29)
        "model_editable": selectors.model_entry_editable_by(entry=submission.model_entry, user=request.user),
        "may_reproduce": is_curator(request.user) and score is not None and bool(score.provenance)
        and submission.source == Submission.Source.UPLOAD})


def provenance_rows(*, score, user) -> list[tuple[str, str]]:
    """The score's provenance keys as the submission page lists them (key, value as text), in KEYS order."""
    if score is None or not score.provenance:
        return []
    shown = provenance.shown_provenance(score=score, user=user)
    return [(key, json.dumps(shown[key], sort_keys=True, ensure_ascii=False) if isinstance(shown.get(key), dict)
             else str(shown.get(key, ""))) for key in KEYS]


@require_GET
def submission_provenance(request: HttpRequest, pk: int) -> HttpResponse:
    """The score's provenance file (docs/provenance.md), for whoever may see the score: anyone for a public one, its
    submitter and curators for a private or withdrawn one; a hidden split's ground-truth hash for curators only."""
    submission = get_object_or_404(Submission.objects.select_related("split__benchmark", "model_entry"), pk=pk)
    found = provenance.provenance_document(submission=submission, user=request.user)
    response = JsonResponse(found, json_dumps_params={"indent": 2, "sort_keys": False})
    response["Content-Disposition"] = f'attachment; filename="submission-{pk}-provenance.json"'
    return response


@login_required
@require_POST
def submission_visibility(request: HttpRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(Submission, pk=pk)
    if not access.submission_own_page_visible_to(submission=submission, user=request.user):
        raise Http404("No such submission.")
    form = VisibilityForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose public, private or withdrawn.")
        return redirect("submission-detail", pk=pk)
    withdrawing = (form.cleaned_data["visibility"] == Submission.Visibility.WITHDRAWN
                   and submission.visibility != Submission.Visibility.WITHDRAWN)
    if withdrawing and not form.withdrawal_confirmed():
        # Withdrawing is for good: a page says so and asks again (works without JavaScript)
        return render(request, "scoring/submission_withdraw.html",
                      {"submission": submission, "curator": is_curator(request.user)})
    try:
        changed = services.submission_visibility_set(user=request.user, submission=submission,
                                                     visibility=form.cleaned_data["visibility"])
    except services.SubmissionError as exc:
        messages.error(request, exc.message)
    else:
        if changed:
            messages.success(request, f"Submission #{pk} is now {submission.get_visibility_display().lower()}.")
    return redirect("submission-detail", pk=pk)


@login_required
@require_POST
def submission_reproduce(request: HttpRequest, pk: int) -> HttpResponse:
    """A curator has the hub score the stored file again; the same keys and figures mark the row reproduced."""
    submission = get_object_or_404(Submission.objects.select_related("split__benchmark", "model_entry"), pk=pk)
    if not access.submission_own_page_visible_to(submission=submission, user=request.user):
        raise Http404("No such submission.")
    try:
        services_provenance.submission_reproduce(user=request.user, submission=submission)
    except ServiceRefusal as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"Submission #{pk} is reproduced: scored again by the hub, every key and figure "
                                  "the same.")
    return redirect("submission-detail", pk=pk)


@login_required
def model_entry_edit(request: HttpRequest, slug: str) -> HttpResponse:
    entry = get_object_or_404(ModelEntry, slug=slug)
    if not selectors.model_entry_editable_by(entry=entry, user=request.user):
        raise Http404("Only the owner of this model and curators may edit it.")
    status = 200
    if request.method == "POST":
        form = ModelEntryForm(request.POST, instance=ModelEntry.objects.get(pk=entry.pk))
        if form.is_valid():
            values = {name: form.cleaned_data[name] for name in form.Meta.fields}
            try:
                changes = services.model_entry_update(user=request.user, entry=entry, values=values)
            except services.SubmissionError as exc:
                form.add_error(None, exc.message)
                status = exc.status
            else:
                messages.success(request, f"Saved: {', '.join(changes)}." if changes else "Nothing changed.")
                return redirect("model-entry-edit", slug=entry.slug)
        else:
            status = 400
    else:
        form = ModelEntryForm(instance=entry)
    changes = selectors.change_records(subject=ChangeRecord.Subject.MODEL_ENTRY, object_id=entry.pk)
    return render(request, "scoring/model_entry_edit.html", {"entry": entry, "form": form, "changes": changes},
                  status=status)


@require_GET
def media_file(request: HttpRequest, path: str) -> HttpResponse:
    """The one view serving files under MEDIA_ROOT: the path is resolved first, then judged on the folder it really
    lies in (`scoring.access`): public media to anyone, a hidden split's images to those allowed to see that split.
    Every refusal is the 404 of a file that does not exist, so it tells nothing."""
    media = access.media_file_for(path)
    if media is None or not access.media_file_visible_to(media=media, user=request.user):
        raise Http404("No such file.")
    response = serve(request, media.relative, document_root=media.folder)
    if media.benchmark:
        response["Cache-Control"] = "private, max-age=300"
        response["Vary"] = "Cookie"
    return response
