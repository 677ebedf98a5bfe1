"""PLAN-Bench pages for reviewers and curators: the human judgement queue, the judge audit, and a submission's
verdict drill-down (who decided each item, prompt version, raw judge output). Thin: services do the work."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.roles import is_reviewer
from scoring.benchmarks.plan import selectors as plan_selectors
from scoring.benchmarks.plan.core.types import SUBTASK_NAMES
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement
from scoring.benchmarks.plan.plugin import PLUGIN as PLAN
from scoring.benchmarks.plan.plugin import SLUG as PLAN_SLUG
from scoring.benchmarks.plan.services import audit as audit_services
from scoring.benchmarks.plan.services import judgements as judgement_services
from scoring.benchmarks.plan.services.audit import plan_audit_draw
from scoring.benchmarks.plan.services.judgements import plan_judgements_reconcile
from scoring.benchmarks.plan.services.roles import plan_reviewer_check
from scoring.core.disclosure import detail_keys, sample_disclosed
from scoring.models import Split, Submission


def _verdict_value(request: HttpRequest) -> bool:
    value = request.POST.get("correct")
    if value not in ("true", "false"):
        raise ValidationError("Choose correct or wrong.")
    return value == "true"


@login_required
def plan_queue(request: HttpRequest) -> HttpResponse:
    plan_reviewer_check(request.user)
    plan_judgements_reconcile()
    mine = plan_selectors.plan_judgements_open(user=request.user)  # never a reviewer's own answers
    judgements = list(mine[:50])
    for j in judgements:
        j.waiting = list(plan_selectors.plan_judgement_waiting(j)[:10])
    total = mine.count()
    return render(
        request,
        "benchmarks/plan/queue.html",
        {"judgements": judgements, "total": total, "subtask_names": SUBTASK_NAMES,
         "own": plan_selectors.plan_judgements_open().count() - total},
    )


def _refused(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
    return render(request, "benchmarks/plan/refused.html", {"message": str(exc)}, status=403)


@login_required
@require_POST
def plan_judgement_decide(request: HttpRequest, pk: int) -> HttpResponse:
    get_object_or_404(PlanJudgement, pk=pk)
    try:
        updated = judgement_services.plan_judgement_decide(
            judgement_id=pk, user=request.user, correct=_verdict_value(request), note=request.POST.get("note", "")[:2000]
        )
    except PermissionDenied as exc:
        return _refused(request, exc)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"Judged; {len(updated)} submission score(s) updated.")
    return redirect("plan-queue")


@login_required
def plan_audit_index(request: HttpRequest) -> HttpResponse:
    plan_reviewer_check(request.user)
    splits = Split.objects.filter(benchmark__slug=PLAN_SLUG).select_related("benchmark")
    rows = [(split, plan_selectors.plan_judge_agreement(split)) for split in splits]
    return render(request, "benchmarks/plan/audit_index.html", {"rows": rows})


@login_required
def plan_audit(request: HttpRequest, split_id: int) -> HttpResponse:
    plan_reviewer_check(request.user)
    split = get_object_or_404(Split, pk=split_id, benchmark__slug=PLAN_SLUG)
    if request.method == "POST":
        try:
            per_subtask = max(1, min(100, int(request.POST.get("per_subtask", "5"))))
            seed = int(request.POST.get("seed", "0"))
        except ValueError:
            messages.error(request, "Per subtask and seed must be whole numbers.")
        else:
            created = plan_audit_draw(split=split, per_subtask=per_subtask, seed=seed, user=request.user)
            messages.success(request, f"Drew {created} verdicts to verify.")
        return redirect("plan-audit", split_id=split.pk)
    return render(
        request,
        "benchmarks/plan/audit.html",
        {
            "split": split,
            "checks": plan_selectors.plan_audit_pending(split, user=request.user)[:100],
            "agreement": plan_selectors.plan_judge_agreement(split),
        },
    )


@login_required
@require_POST
def plan_audit_record(request: HttpRequest, pk: int) -> HttpResponse:
    get_object_or_404(PlanAuditCheck, pk=pk)
    try:
        check = audit_services.plan_audit_record(
            check_id=pk, user=request.user, correct=_verdict_value(request), note=request.POST.get("note", "")[:2000]
        )
    except PermissionDenied as exc:
        return _refused(request, exc)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
        return redirect("plan-audit-index")
    return redirect("plan-audit", split_id=check.split_id)


@login_required
def plan_submission_verdicts(request: HttpRequest, pk: int) -> HttpResponse:
    submission = get_object_or_404(
        Submission.objects.select_related("model_entry", "split__benchmark"), pk=pk, split__benchmark__slug=PLAN_SLUG
    )
    reviewer = is_reviewer(request.user)
    if submission.submitter_id != request.user.pk and not reviewer:
        raise Http404("No such submission.")
    # On a hidden split the submitter sees only what the plugin allows: the judge's reply and note may quote the
    # answer. Reviewers (and curators) judge and audit these items, so they see everything.
    hidden = submission.split.hidden_ground_truth
    keys = detail_keys(PLAN, hidden=hidden, curator=reviewer)
    rows = list(plan_selectors.plan_submission_verdicts(submission))
    for row in rows:  # shown, never saved
        row.details, row.components = sample_disclosed(row.details, row.components, outcome=row.outcome, keys=keys,
                                                       hidden=hidden)
    return render(
        request,
        "benchmarks/plan/verdicts.html",
        {
            "submission": submission,
            "state": plan_selectors.plan_submission_state(submission),
            "rows": rows,
            "show_answers": reviewer or not hidden,
            "show_judge_reply": keys is None or "raw_judge_output" in keys,
        },
    )


