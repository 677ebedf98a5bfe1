from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.urls import reverse

from accounts.roles import is_curator
from evaluations.models import EvaluationRun
from scoring.benchmarks import plugin_for
from scoring.models import Split
from scoring.selectors import splits_open_for_submission


def runs_visible(*, user: AbstractBaseUser) -> QuerySet[EvaluationRun]:
    runs = EvaluationRun.objects.select_related("split__benchmark", "owner")
    return runs if is_curator(user) else runs.filter(owner=user)


def runnable_splits() -> QuerySet[Split]:
    splits = splits_open_for_submission()
    return splits.filter(pk__in=[s.pk for s in splits if plugin_for(s.benchmark.scorer).runner])


def run_progress(run: EvaluationRun) -> dict:
    """What the run's page shows live: done / total and the cost so far (never the key or the endpoint)."""
    return {"id": run.pk, "status": run.status, "status_label": run.get_status_display(), "done": run.units_done,
            "total": run.units_total, "requests": run.requests, "attempts": run.attempts,
            "prompt_tokens": run.prompt_tokens, "completion_tokens": run.completion_tokens,
            "model_seconds": round(run.model_seconds, 2), "error": run.error_message,
            "submissions": [{"id": s.pk, "url": reverse("submission-detail", args=[s.pk]), "status": s.status,
                             "status_label": s.get_status_display()} for s in run.submissions.order_by("pk")]}
