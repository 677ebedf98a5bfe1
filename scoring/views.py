"""Pages for submitting and following submissions (server-rendered)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from scoring import selectors, services
from scoring.forms import SubmissionForm
from scoring.models import Submission
from scoring.quota import quotas_for_user


@login_required
def submission_new(request: HttpRequest) -> HttpResponse:
    splits = selectors.splits_open_for_submission()
    status = 200
    if request.method == "POST":
        try:
            services.upload_request_check(user=request.user, content_length=request.META.get("CONTENT_LENGTH"))
        except services.SubmissionError as exc:
            # The body is never read, so the form stays unbound: the refusal is shown above it.
            context = {"form": SubmissionForm(splits=splits), "upload_error": exc.message}
            return render(request, "scoring/submission_new.html", context, status=exc.status)
        form = SubmissionForm(request.POST, request.FILES, splits=splits)
        if form.is_valid():
            data = form.cleaned_data
            try:
                entry = services.model_entry_for_upload(
                    user=request.user, name=data["model_name"], fields={"thinking": data["thinking"]}
                )
                submission = services.submission_create(
                    user=request.user,
                    split=data["split"],
                    model_entry=entry,
                    uploaded_file=data["file"],
                    options=form.scorer_options(),
                    note=data["note"],
                )
            except services.SubmissionError as exc:
                form.add_error("file" if exc.field == "file" else None, exc.message)
                status = exc.status
            else:
                messages.success(request, f"Submission #{submission.pk} is queued for scoring.")
                return redirect("submission-detail", pk=submission.pk)
        else:
            status = 400
    else:
        form = SubmissionForm(splits=splits, initial={"split": request.GET.get("split")})
    quotas = quotas_for_user(user=request.user, splits=splits)
    return render(request, "scoring/submission_new.html", {"form": form, "quotas": quotas}, status=status)


@login_required
def submission_list(request: HttpRequest) -> HttpResponse:
    rows = selectors.submissions_of_user(user=request.user)
    return render(request, "scoring/submission_list.html", {"submissions": rows})


OPTION_LABELS = {"raw": "Raw responses", "coord_mode": "Coordinate mode", "compat": "Toolkit compatibility"}
COORDINATES_DECIDED_BY = {
    "upload": "chosen on upload",
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
    """EPIC-Bench: the coordinate mode a score used and what decided it, from `Score.details["coordinates"]`."""
    found = details.get("coordinates") if isinstance(details, dict) else None
    if not isinstance(found, dict):
        return None
    decided = COORDINATES_DECIDED_BY.get(found.get("decided_by"), str(found.get("decided_by")))
    return {"mode": found.get("mode"), "decided_by": found.get("decided_by"),
            "decided": decided.format(declared_by_lines=found.get("declared_by_lines", 0)),
            "resolved": sorted((found.get("resolved") or {}).items())}


@login_required
def submission_detail(request: HttpRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(
        Submission.objects.select_related("model_entry", "split__benchmark", "submitter"), pk=pk
    )
    if submission.submitter_id != request.user.pk and not request.user.is_staff:
        raise Http404("No such submission.")
    score = getattr(submission, "score", None) if submission.status == Submission.Status.SCORED else None
    return render(request, "scoring/submission_detail.html", {
        "submission": submission, "score": score, "options": options_shown(submission.options or {}),
        "coordinates": coordinates_shown(score.details) if score else None})
