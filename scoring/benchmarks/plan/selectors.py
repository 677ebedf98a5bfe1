"""Reads for PLAN-Bench: judge-human agreement for the board, the human queue, the audit, a submission's verdicts."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import QuerySet

from scoring.benchmarks.plan.core.types import DIMENSION_KEYS
from scoring.models import SampleScore, Split, Submission
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement


def _rate(agree: int, n: int) -> dict[str, Any]:
    return {"agree": agree, "n": n, "rate": round(100.0 * agree / n, 2) if n else None}


def plan_judge_agreement(split: Split) -> dict[str, Any]:
    """Judge-human agreement on the reviewed audit checks of a split, with sample sizes.

    {"overall": {"agree", "n", "rate" (percent or None)}, "by_decider": {"rule": ..., "model": ...},
    "by_dimension": {"spatial_cognition": ...}, "by_subtask": {"OO": ...}, "judges": [model names]}
    """
    checks = PlanAuditCheck.objects.filter(split=split, human_correct__isnull=False).values_list(
        "judge_decided_by", "judge", "dimension", "subtask", "judge_correct", "human_correct"
    )
    groups: dict[str, dict[str, list[int]]] = {"by_decider": defaultdict(lambda: [0, 0]), "by_dimension": defaultdict(lambda: [0, 0]), "by_subtask": defaultdict(lambda: [0, 0])}
    total = [0, 0]
    judges = set()
    for decider, judge, dimension, subtask, judge_correct, human_correct in checks:
        agree = int(judge_correct == human_correct)
        for name, key in (("by_decider", decider), ("by_dimension", DIMENSION_KEYS.get(dimension, dimension)), ("by_subtask", subtask)):
            groups[name][key][0] += agree
            groups[name][key][1] += 1
        total[0] += agree
        total[1] += 1
        if decider == "model":
            judges.add(judge)
    out: dict[str, Any] = {"overall": _rate(*total), "judges": sorted(judges)}
    for name, counts in groups.items():
        out[name] = {key: _rate(*value) for key, value in sorted(counts.items())}
    return out


def plan_analysis_context(split: Split) -> dict[str, Any]:
    """What the Analysis tab's judge figure reads besides the scores: the split's audited verdicts."""
    return {"agreement": plan_judge_agreement(split)}


def plan_judgements_open() -> QuerySet[PlanJudgement]:
    return PlanJudgement.objects.filter(status=PlanJudgement.Status.OPEN).order_by("created_at", "pk")


def plan_judgement_waiting(judgement: PlanJudgement) -> QuerySet[SampleScore]:
    """The submissions' items that wait on this judgement."""
    return SampleScore.objects.filter(details__judgement_key=judgement.key, score__isnull=True).select_related(
        "submission__model_entry", "submission__split", "sample"
    )


def plan_audit_pending(split: Split) -> QuerySet[PlanAuditCheck]:
    return PlanAuditCheck.objects.filter(split=split, human_correct__isnull=True).select_related("sample")


def plan_submission_verdicts(submission: Submission) -> QuerySet[SampleScore]:
    return SampleScore.objects.filter(submission=submission).select_related("sample").order_by("index")


def plan_submission_state(submission: Submission) -> dict[str, Any]:
    """"final" or "awaiting judgement (N items)", with the provisional range while it is not final."""
    score = getattr(submission, "score", None)
    if score is None:
        return {"final": False, "status_text": submission.get_status_display(), "undecided": None, "range": None}
    details = score.details or {}
    return {
        "final": bool(details.get("final", True)),
        "status_text": details.get("status_text", "final"),
        "undecided": details.get("undecided", 0),
        "range": (details.get("range") or {}).get("overall"),
    }
