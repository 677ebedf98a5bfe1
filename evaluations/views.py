"""The evaluation runs' pages: the list, the start form, a run's page (live progress, cost, the run card, the
files), its progress as JSON, and pause / resume / cancel. Thin: services decide."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from evaluations import selectors, services
from evaluations.execution import repeat_texts, run_card
from evaluations.forms import RunForm
from evaluations.models import EvaluationRun
from scoring.errors import ServiceRefusal


def _run(request: HttpRequest, pk: int) -> EvaluationRun:
    run = selectors.runs_visible(user=request.user).filter(pk=pk).first()
    if run is None:
        raise Http404("No such run of yours.")
    return run


@login_required
def run_list(request: HttpRequest) -> HttpResponse:
    return render(request, "evaluations/run_list.html", {"runs": selectors.runs_visible(user=request.user)[:200]})


@login_required
def run_new(request: HttpRequest) -> HttpResponse:
    form = RunForm(request.POST or None, splits=selectors.runnable_splits())
    status = 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            run = services.run_create(
                user=request.user, split=data["split"], model_name=data["model_name"], base_url=data["base_url"],
                api_key=data["api_key"], entry_name=data["entry_name"], options=data["options"], k=data["k"],
                seed=data["seed"] or 0, temperature=data["temperature"] or 0.0, max_tokens=data["max_tokens"],
                concurrency=data["concurrency"], rate_per_minute=data["rate_per_minute"])
        except ServiceRefusal as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
            status = exc.status
        else:
            return redirect("evaluation-run", pk=run.pk)
    elif request.method == "POST":
        status = 400
    return render(request, "evaluations/run_new.html", {"form": form}, status=status)


@login_required
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    return render(request, "evaluations/run_detail.html", {
        "run": run, "card": run_card(run), "progress": selectors.run_progress(run),
        "endpoint_host": run.base_url.split("//", 1)[-1].split("/", 1)[0], "repeats": range(1, run.k + 1)})


@login_required
def run_progress(request: HttpRequest, pk: int) -> JsonResponse:
    return JsonResponse(selectors.run_progress(_run(request, pk)))


@login_required
def run_partial(request: HttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    if run.status != EvaluationRun.Status.CANCELLED:
        raise Http404("Only a cancelled run has a partial file.")
    response = HttpResponse(run.partial_file, content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="hub-run-{run.pk}-partial.jsonl"'
    return response


@login_required
def run_file(request: HttpRequest, pk: int, repeat: int) -> HttpResponse:
    """The upload file of one repeat, as submitted (or as far as it got)."""
    run = _run(request, pk)
    texts = repeat_texts(run)
    if not 1 <= repeat <= len(texts):
        raise Http404("No such repeat.")
    response = HttpResponse(texts[repeat - 1], content_type="application/jsonl")
    response["Content-Disposition"] = f'attachment; filename="hub-run-{run.pk}-r{repeat}.jsonl"'
    return response


@require_POST
@login_required
def run_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    run = _run(request, pk)
    do = {"pause": services.run_pause, "resume": services.run_resume, "cancel": services.run_cancel}.get(action)
    if do is None:
        raise Http404("No such action.")
    do(user=request.user, run=run)
    messages.success(request, {"pause": "Paused.", "resume": "Resumed.", "cancel": "Cancelled."}[action])
    return redirect("evaluation-run", pk=run.pk)
