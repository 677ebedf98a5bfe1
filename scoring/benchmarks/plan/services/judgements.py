"""The human queue: undecided (item, output) pairs queued once each, a person's decision settling every submission
waiting on it (with a ChangeRecord each), scores recomputed through the scorer's aggregation."""
from __future__ import annotations

from typing import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from scoring.benchmarks.plan.core.aggregate import Row, score_fields, summarise
from scoring.benchmarks.plan.core.protocol import PROMPT_VERSION
from scoring.benchmarks.plan.core.types import Item, ItemType, Outcome
from scoring.benchmarks.plan.models import PlanDecider, PlanJudgement, PlanVerdict
from scoring.benchmarks.plan.selectors import plan_own_submissions
from scoring.benchmarks.plan.services.roles import plan_own_answer_check, plan_reviewer_check
from scoring.events import score_landed_event, score_updated_event
from scoring.models import ChangeRecord, SampleScore, Score

PERSON_PROMPT_VERSION = "person"


def _item_snapshot(item: Item) -> dict:
    return {
        "question": item.question,
        "type": item.type.value,
        "options": dict(item.options or {}),
        "answer": item.answer,
        "answer_hint": item.answer_hint,
        "images": list(item.images),
    }


def plan_judgements_enqueue(*, outcomes: Iterable[Outcome]) -> int:
    """Put undecided (item, output) pairs in the human queue, once each; returns how many are new."""
    created = 0
    for o in outcomes:
        if o.verdict.decided:
            continue
        _, new = PlanJudgement.objects.update_or_create(
            item_fingerprint=o.item.fingerprint,
            output_hash=o.output_hash,
            create_defaults={
                "item_key": o.item.id[:300],
                "output_text": o.judged_text or "",  # the answer part: what the verdict is on
                "dimension": o.item.dimension,
                "subtask": o.item.subtask,
                "item": _item_snapshot(o.item),
                "reason": o.verdict.note,
                "raw_judge_output": o.verdict.raw_output,
            },
            defaults={"reason": o.verdict.note, "raw_judge_output": o.verdict.raw_output},
        )
        created += int(new)
    return created


def _rows_of_submission(submission_id: int) -> list[Row]:
    rows = []
    for s in SampleScore.objects.filter(submission_id=submission_id).only("task", "score", "details").order_by("index"):
        correct = None if s.score is None else s.score >= 0.5
        rows.append(Row(s.details.get("dimension", ""), s.task, ItemType(s.details.get("type", "open")), correct))
    return rows


def plan_score_recompute(*, submission_id: int) -> Score:
    """Recompute a submission's Score from its per-item verdicts through the same aggregation as the scorer."""
    score = Score.objects.get(submission_id=submission_id)
    was_final = bool(score.details.get("final"))
    fields = score_fields(summarise(_rows_of_submission(submission_id)), judge=score.details.get("judge", ""),
                          prompt_version=score.details.get("prompt_version") or PROMPT_VERSION)
    for name, value in fields.items():
        setattr(score, name, value)
    score.save(update_fields=[*fields, "updated_at"])  # updated_at: the board builds this row again
    if fields["details"]["final"] and not was_final:
        # The same announcement as the scoring pipeline's: the boards compare, then the submitter hears.
        transaction.on_commit(lambda: score_landed_event(submission_id=submission_id))
    else:  # its verdicts changed all the same: what is made from them (the Analysis tab's summary) follows
        transaction.on_commit(lambda: score_updated_event(submission_id=submission_id))
    return score


def plan_judgement_decide(
    *, judgement_id: int, user: AbstractBaseUser, correct: bool, note: str = ""
) -> list[int]:
    """A person decides one queued (item, output): every submission waiting on it is updated and re-aggregated.

    Refused (PermissionDenied) to anyone but a reviewer, and to a reviewer whose own submission has this answer.
    Returns the ids of the submissions whose scores were recomputed.
    """
    plan_reviewer_check(user)
    with transaction.atomic():
        judgement = PlanJudgement.objects.select_for_update().get(pk=judgement_id)
        plan_own_answer_check(user=user, row=judgement)
        if judgement.status == PlanJudgement.Status.DECIDED:
            raise ValidationError("This answer has already been judged.")
        verdict, _ = PlanVerdict.objects.update_or_create(
            item_fingerprint=judgement.item_fingerprint,
            output_hash=judgement.output_hash,
            judge=user.get_username()[:200],
            prompt_version=PERSON_PROMPT_VERSION,
            defaults={
                "item_key": judgement.item_key,
                "output_text": judgement.output_text,
                "decided_by": PlanDecider.PERSON,
                "decided_by_user": user,
                "correct": correct,
                "note": note,
            },
        )
        judgement.status = PlanJudgement.Status.DECIDED
        judgement.verdict = verdict
        judgement.decided_at = timezone.now()
        judgement.save(update_fields=["status", "verdict", "decided_at"])
        return _apply_verdict(judgement, verdict)


def plan_judgements_reconcile() -> list[int]:
    """Apply people's verdicts to items still waiting on an already decided judgement.

    This happens when a person decides while a submission with the same output is being scored (the scorer read
    the cache before the decision and saved after it). Returns the ids of the submissions recomputed.
    """
    decided = {
        j.key: j
        for j in PlanJudgement.objects.filter(status=PlanJudgement.Status.DECIDED, verdict__isnull=False)
        .select_related("verdict", "verdict__decided_by_user")
    }
    waiting_keys = set(
        SampleScore.objects.filter(score__isnull=True, details__has_key="judgement_key")
        .values_list("details__judgement_key", flat=True)
        .distinct()
    )
    updated: set[int] = set()
    for key in sorted(waiting_keys & set(decided)):
        with transaction.atomic():
            updated.update(_apply_verdict(decided[key], decided[key].verdict))
    return sorted(updated)


def _apply_verdict(judgement: PlanJudgement, verdict: PlanVerdict) -> list[int]:
    """Settle the items waiting on `judgement` with `verdict`, except those of submissions its decider owns.

    The decide check refuses a reviewer whose submission has the answer, but their submission may save the answer
    as waiting after the check (it was being scored meanwhile): such an item stays waiting and the judgement is
    open again, for another reviewer. Each submission changed gets a ChangeRecord: who decided, what, and the score
    before and after."""
    waiting = SampleScore.objects.filter(details__judgement_key=judgement.key, score__isnull=True)
    decider = verdict.decided_by_user
    if decider is not None:
        own = waiting.filter(submission__in=plan_own_submissions(decider))
        if own.exists():
            judgement.status = PlanJudgement.Status.OPEN
            judgement.reason = (f"{decider.get_username()} decided it, and their own submission #"
                                f"{own.values_list('submission_id', flat=True).first()} has the same answer: "
                                "another reviewer decides it for that one.")
            judgement.save(update_fields=["status", "reason"])
        waiting = waiting.exclude(submission__in=plan_own_submissions(decider))
    waiting = waiting.select_for_update()
    submissions: set[int] = set()
    for sample_score in waiting:
        details = dict(sample_score.details)
        details.update(
            decided_by=PlanDecider.PERSON.value,
            judge=verdict.judge,
            prompt_version=verdict.prompt_version,
            note=verdict.note or details.get("note", ""),
            decided_at=timezone.now().isoformat(),
        )
        # The judge's last raw reply stays in details["raw_judge_output"] for the audit trail.
        sample_score.details = details
        sample_score.score = float(verdict.correct)
        sample_score.outcome = "correct" if verdict.correct else "wrong"
        sample_score.components = {"correct": verdict.correct}
        sample_score.save(update_fields=["details", "score", "outcome", "components"])
        submissions.add(sample_score.submission_id)
    decision = {"judgement": judgement.pk, "item": judgement.item_key, "correct": verdict.correct,
                "verdict": verdict.pk}
    for submission_id in sorted(submissions):
        before = Score.objects.only("overall", "details").get(submission_id=submission_id)
        after = plan_score_recompute(submission_id=submission_id)
        ChangeRecord.objects.create(
            subject=ChangeRecord.Subject.SUBMISSION, object_id=submission_id, user=decider,
            changes={"plan_judgement": [None, decision], "overall": [before.overall, after.overall],
                     "undecided": [before.details.get("undecided"), after.details.get("undecided")]},
        )
    return sorted(submissions)
