"""Reviewer pages: the human queue, the judge audit and a submission's verdict drill-down, through the test client."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from scoring.benchmarks.plan.core.demo import demo_items, oracle_predictions, random_predictions
from scoring.benchmarks.plan.core.local_judge import LocalJudgeServer
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.models import Benchmark, SampleScore, Split
from tests.leaderboard.test_hidden_ground_truth import echoing_judge

from .test_plan_scoring import predictions, split, submit  # noqa: F401 - the split fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer_client(client, django_user_model):
    person = django_user_model.objects.create_user("rita", password="pw-rita-123")
    person.groups.add(Group.objects.get(name="reviewer"))
    client.force_login(person)
    return client


def test_queue_is_for_reviewers_only(client, user, split) -> None:
    client.force_login(user)
    assert client.get(reverse("plan-queue")).status_code == 403
    assert client.get(reverse("plan-audit", args=[split.pk])).status_code == 403
    assert client.post(reverse("plan-audit-record", args=[999]), {"correct": "true"}).status_code == 404


def test_reviewer_judges_from_the_queue_and_the_last_decision_finalises(reviewer_client, user, split) -> None:
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


def test_verdict_drill_down_shows_who_decided_and_the_state(client, user, split) -> None:
    submission = submit(user, split, predictions(random_predictions))
    client.force_login(user)
    html = client.get(reverse("plan-verdicts", args=[submission.pk])).content.decode()
    undecided = submission.score.details["undecided"]
    assert f"awaiting judgement ({undecided} items)" in html and "provisional overall between" in html
    assert "rule/1" in html and "extracted by option letter" in html


def test_audit_page_draws_and_records(reviewer_client, user, split) -> None:
    submit(user, split, predictions(oracle_predictions))
    url = reverse("plan-audit", args=[split.pk])
    assert reviewer_client.post(url, {"per_subtask": "1", "seed": "3"}).status_code == 302
    check = PlanAuditCheck.objects.filter(split=split).first()
    assert check is not None and reviewer_client.get(url).status_code == 200
    reviewer_client.post(reverse("plan-audit-record", args=[check.pk]), {"correct": "true"})
    page = reviewer_client.get(reverse("plan-audit-index")).content.decode()
    assert "1 / 1 (100.0%)" in page


def test_verdicts_of_a_hidden_split_show_the_submitter_no_judge_reply_or_note(
        client, user, reviewer_client, settings) -> None:
    """A judge may quote the ground truth in its reply or note: on a hidden split only reviewers see them."""
    hidden = Split.objects.create(benchmark=Benchmark.objects.get(slug="plan-bench"), name="hidden-plan",
                                  hidden_ground_truth=True)
    demo = demo_items()
    images = {name: png for d in demo for name, png in d.images.items()}
    plan_items_import(split=hidden, items=[d.item for d in demo], read_image=images.get)
    with LocalJudgeServer(script=echoing_judge) as server:
        settings.JUDGE_BASE_URL, settings.JUDGE_MODEL = server.base_url, "echo-judge"
        submission = submit(user, hidden, predictions(random_predictions), name="Model-P")
    url = reverse("plan-verdicts", args=[submission.pk])
    rows = list(SampleScore.objects.filter(submission=submission))
    notes = [r.details["note"] for r in rows if len(r.details.get("note") or "") > 12]
    # the reviewer's page: the judge did quote what it saw
    as_reviewer = reviewer_client.get(url).content.decode()
    assert "JUDGE-SAW" in as_reviewer and ">Answer<" in as_reviewer
    client.force_login(user)  # the same test client, now the submitter's
    html = client.get(url).content.decode()
    assert "JUDGE-SAW" not in html and ">Answer<" not in html and "Raw judge output" not in html
    assert notes and not any(n[:40] in html for n in notes)
    # what the submitter sent, the answer read from it and who decided stay
    assert "rule/1" in html and "echo-judge" in html
