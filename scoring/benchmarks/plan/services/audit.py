"""The judge audit: a seeded draw of rule and model verdicts per subtask, and people's verdicts on them."""
from __future__ import annotations

import random
from collections import defaultdict

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from scoring.benchmarks.plan.models import PlanAuditCheck, PlanDecider
from scoring.benchmarks.plan.services.roles import plan_own_answer_check, plan_reviewer_check
from scoring.models import SampleScore, Split, Submission
from scoring.selectors import board_cache_invalidate


def plan_audit_draw(*, split: Split, per_subtask: int = 5, seed: int = 0, user: AbstractBaseUser | None = None) -> int:
    """Draw up to `per_subtask` rule/model verdicts of each subtask (hence each dimension) for people to verify.

    Candidates are the distinct (item, output, judge) verdicts in the split's scored submissions; the draw is
    seeded, and verdicts already drawn are not drawn again. Returns how many checks were created.
    """
    plan_reviewer_check(user)
    drawn = set(
        PlanAuditCheck.objects.filter(split=split).values_list("item_fingerprint", "output_hash", "judge", "prompt_version")
    )
    strata: dict[str, dict[tuple, SampleScore]] = defaultdict(dict)
    scores = (
        SampleScore.objects.filter(submission__split=split, submission__status=Submission.Status.SCORED)
        .filter(details__decided_by__in=[PlanDecider.RULE.value, PlanDecider.MODEL.value])
        .exclude(outcome="missing")
        .only("sample_id", "key", "task", "score", "details")
        .order_by("submission_id", "index")
    )
    for s in scores.iterator(chunk_size=2000):
        d = s.details
        key = (d.get("fingerprint"), d.get("output_hash"), d.get("judge", ""), d.get("prompt_version", ""))
        if key not in drawn and None not in key:
            strata[s.task].setdefault(key, s)
    rng = random.Random(f"plan-audit/{split.pk}/{seed}")
    new: list[PlanAuditCheck] = []
    for subtask in sorted(strata):
        candidates = list(strata[subtask].items())
        for key, s in rng.sample(candidates, min(per_subtask, len(candidates))):
            d = s.details
            new.append(
                PlanAuditCheck(
                    split=split,
                    sample_id=s.sample_id,
                    item_key=s.key,
                    item_fingerprint=key[0],
                    output_hash=key[1],
                    output_text=d.get("output", ""),
                    dimension=d.get("dimension", ""),
                    subtask=subtask,
                    judge_decided_by=d["decided_by"],
                    judge=key[2],
                    prompt_version=key[3],
                    judge_correct=bool(s.score),
                    raw_judge_output=d.get("raw_judge_output", ""),
                    draw=f"seed {seed}",
                )
            )
    PlanAuditCheck.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def plan_audit_record(*, check_id: int, user: AbstractBaseUser, correct: bool, note: str = "") -> PlanAuditCheck:
    """A person's own verdict on a drawn check; agreement compares it with the judge's. Nobody audits a verdict on
    their own answer (it shapes the board's judge agreement)."""
    plan_reviewer_check(user)
    check = PlanAuditCheck.objects.get(pk=check_id)
    plan_own_answer_check(user=user, row=check)
    check.human_correct = correct
    check.reviewer = user
    check.reviewer_note = note
    check.reviewed_at = timezone.now()
    check.save(update_fields=["human_correct", "reviewer", "reviewer_note", "reviewed_at"])
    board_cache_invalidate(split_id=check.split_id)  # the board shows the agreement
    return check
