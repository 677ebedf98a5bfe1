"""Who judges PLAN-Bench answers and audits the judge: reviewers and curators, never on an answer of their own."""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied

from accounts.roles import is_reviewer
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement
from scoring.benchmarks.plan.selectors import plan_answers_not_own


def plan_reviewer_check(user: AbstractBaseUser | None) -> None:
    """Only reviewers, curators and staff judge items and audit the judge."""
    if user is None or not user.is_authenticated:
        raise PermissionDenied("Sign in as a reviewer or curator.")
    if not is_reviewer(user):
        raise PermissionDenied("Only reviewers and curators can judge PLAN-Bench answers.")


OWN_ANSWER_REFUSAL = (
    "You cannot judge this answer to '{item}': the same answer is in your own submission (one you uploaded, or one "
    "of a model entry you own). Another reviewer decides it, for every submission that shares it."
)


def plan_own_answer_check(*, user: AbstractBaseUser, row: PlanJudgement | PlanAuditCheck) -> None:
    """A reviewer judges no answer that appears in a submission they own (the rule: `plan_answers_not_own`, which
    the queue and the audit list filter by too). Every path that decides or audits calls this."""
    plan_reviewer_check(user)
    if not plan_answers_not_own(type(row).objects.filter(pk=row.pk), user=user).exists():
        raise PermissionDenied(OWN_ANSWER_REFUSAL.format(item=row.item_key))
