"""Reviewer pages: the human queue, the judge audit and a submission's verdict drill-down, through the test client."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from scoring.benchmarks.plan.core.demo import oracle_predictions, random_predictions
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement

from .test_plan_scoring import predictions, split, submit  # noqa: F401 - the split fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer_client(client, django_user_model):
    person = django_user_model.objects.create_user("rita", password="pw-rita-123")
    person.groups.add(Group.objects.get(name="reviewer"))
    client.force_login(person)
    return client


def test_queue_is_for_reviewers_only(client, user, split) -> None:  # noqa: F811
    client.force_login(user)
    assert client.get(reverse("plan-queue")).status_code == 403
    assert client.get(reverse("plan-audit", args=[split.pk])).status_code == 403
    assert client.post(reverse("plan-audit-record", args=[999]), {"correct": "true"}).status_code == 404


def test_reviewer_judges_from_the_queue_and_the_last_decision_finalises(reviewer_client, user, split) -> None:  # noqa: F811
    submission = submit(user, split, predictions(random_predictions))
    page = reviewer_client.get(reverse("plan-queue"))
    open_ = list(PlanJudgement.objects.filter(status="open"))
    assert page.status_code == 200 and open_[0].item["answer"] in page.content.decode()
    for judgement in open_:
        response = reviewer_client.post(reverse("plan-judgement-decide", args=[judgement.pk]), {"correct": "false"})
        assert response.status_code == 302
    submission.score.refresh_from_db()
    assert submission.score.details["final"] and submission.score.overall is not None
    assert reviewer_client.post(reverse("plan-judgement-decide", args=[open_[0].pk]), {"correct": "true"}).status_code == 302
    assert PlanJudgement.objects.get(pk=open_[0].pk).verdict.correct is False  # a decided answer is not re-decided


def test_verdict_drill_down_shows_who_decided_and_the_state(client, user, split) -> None:  # noqa: F811
    submission = submit(user, split, predictions(random_predictions))
    client.force_login(user)
    html = client.get(reverse("plan-verdicts", args=[submission.pk])).content.decode()
    undecided = submission.score.details["undecided"]
    assert f"awaiting judgement ({undecided} items)" in html and "provisional overall between" in html
    assert "rule/1" in html and "extracted by option letter" in html


def test_audit_page_draws_and_records(reviewer_client, user, split) -> None:  # noqa: F811
    submit(user, split, predictions(oracle_predictions))
    url = reverse("plan-audit", args=[split.pk])
    assert reviewer_client.post(url, {"per_subtask": "1", "seed": "3"}).status_code == 302
    check = PlanAuditCheck.objects.filter(split=split).first()
    assert check is not None and reviewer_client.get(url).status_code == 200
    reviewer_client.post(reverse("plan-audit-record", args=[check.pk]), {"correct": "true"})
    page = reviewer_client.get(reverse("plan-audit-index")).content.decode()
    assert "1 / 1 (100.0%)" in page
