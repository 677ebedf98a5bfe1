"""Reads for PLAN-Bench: judge-human agreement for the board, the human queue, the audit, a submission's verdicts."""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterator

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import CharField, Q, QuerySet, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Concat

from scoring.benchmarks.plan.core.types import DIMENSION_KEYS
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement
from scoring.models import Sample, SampleScore, Split, Submission


def judgement_queue_images() -> Iterator[Any]:
    """The item snapshots of the open judgements, whose queue shows their images (`PublicMedia.references`)."""
    open_judgements = PlanJudgement.objects.filter(status=PlanJudgement.Status.OPEN)
    return open_judgements.values_list("item", flat=True).iterator(chunk_size=1000)


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


def plan_random_baseline_items(split: Split) -> list[dict[str, Any]]:
    """Each item of the split as the random baseline needs it: dimension, subtask, type and its number of options.
    Read from the items' inputs (what a model is shown; the questions file has them), never their ground truth."""
    rows = Sample.objects.filter(split=split).order_by("position", "key").values_list(
        "category", "task", "group", "inputs__options")
    return [{"dimension": category, "subtask": task, "type": group, "options": len(options or {})}
            for category, task, group, options in rows]


def plan_analysis_context(split: Split) -> dict[str, Any]:
    """What the Analysis tab's figures read besides the scores: the split's audited verdicts (judge figure) and its
    items' option counts (random-baseline figure)."""
    return {"agreement": plan_judge_agreement(split), "random_baseline": {"items": plan_random_baseline_items(split)}}


def plan_own_submissions(user: AbstractBaseUser) -> QuerySet[Submission]:
    """The submissions whose answers `user` may not judge: those they uploaded and those of a model entry they own.

    Users carry no organisation on this site (`ModelEntry.organisation` is the model maker's name as typed, not who
    a reviewer works for), so ownership is the only tie known."""
    return Submission.objects.filter(Q(submitter_id=user.pk) | Q(model_entry__owner_id=user.pk))


def plan_answers_not_own(rows: QuerySet, *, user: AbstractBaseUser) -> QuerySet:
    """THE self-judging rule: `rows` (PlanJudgement or PlanAuditCheck, which both name an answer by item_fingerprint
    and output_hash) without those whose answer appears in any submission `user` owns, whatever other submissions
    share it. The queue, the audit list and the decide/record checks all ask this.

    One uncorrelated `NOT IN (own answers)`, which both databases evaluate once (a correlated EXISTS took 23 s on
    SQLite for 5,000 open answers against 20,000 of the reviewer's own)."""
    own = (
        SampleScore.objects.filter(submission__in=plan_own_submissions(user),
                                   details__has_keys=["fingerprint", "output_hash"])  # a NULL in NOT IN hides all
        .annotate(answer=Concat(KeyTextTransform("fingerprint", "details"), Value(":"),
                                KeyTextTransform("output_hash", "details"), output_field=CharField()))
        .values("answer")
    )
    return (rows.annotate(answer=Concat("item_fingerprint", Value(":"), "output_hash", output_field=CharField()))
            .exclude(answer__in=own))


def plan_judgements_open(*, user: AbstractBaseUser | None = None) -> QuerySet[PlanJudgement]:
    """The open judgements; with `user`, only those they may decide (none of their own answers)."""
    rows = PlanJudgement.objects.filter(status=PlanJudgement.Status.OPEN).order_by("created_at", "pk")
    return rows if user is None else plan_answers_not_own(rows, user=user)


def plan_judgement_waiting(judgement: PlanJudgement) -> QuerySet[SampleScore]:
    """The submissions' items that wait on this judgement."""
    return SampleScore.objects.filter(details__judgement_key=judgement.key, score__isnull=True).select_related(
        "submission__model_entry", "submission__split", "sample"
    )


def plan_audit_pending(split: Split, *, user: AbstractBaseUser | None = None) -> QuerySet[PlanAuditCheck]:
    """The split's unreviewed checks; with `user`, only those on answers that are not their own."""
    rows = PlanAuditCheck.objects.filter(split=split, human_correct__isnull=True).select_related("sample")
    return rows if user is None else plan_answers_not_own(rows, user=user)


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
