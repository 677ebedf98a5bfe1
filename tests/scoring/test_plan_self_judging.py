"""Nobody judges their own PLAN answers (issue 26, finding 8): a reviewer may not decide a queued (item, output) that
appears in any submission they own, even when the same answer also waits in another user's submission; the queue
does not offer such items; a verdict never settles its decider's own answers; every decision is kept (who, when,
what, and each score it changed)."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from scoring.benchmarks.plan import selectors as plan_selectors
from scoring.benchmarks.plan.core.demo import demo_items, oracle_predictions, random_predictions
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement, PlanVerdict
from scoring.benchmarks.plan.services.audit import plan_audit_draw, plan_audit_record
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.benchmarks.plan.services.judgements import plan_judgement_decide, plan_judgements_reconcile
from scoring.models import Benchmark, ChangeRecord, ModelEntry, SampleScore, Score, Split, Submission

from .test_plan_scoring import predictions, split, submit  # noqa: F401 - the split fixture

pytestmark = pytest.mark.django_db


def _reviewer(django_user_model, name: str):
    person = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
    person.groups.add(Group.objects.get(name="reviewer"))
    return person


@pytest.fixture
def rita(django_user_model):
    """A reviewer who also uploads."""
    return _reviewer(django_user_model, "rita")


@pytest.fixture
def ruth(django_user_model):
    """Another reviewer, who owns nothing."""
    return _reviewer(django_user_model, "ruth")


@pytest.fixture
def hidden_split() -> Split:
    hidden = Split.objects.create(benchmark=Benchmark.objects.get(slug="plan-bench"), name="hidden-plan",
                                  hidden_ground_truth=True)
    demo = demo_items()
    images = {name: png for d in demo for name, png in d.images.items()}
    plan_items_import(split=hidden, items=[d.item for d in demo], read_image=images.get)
    return hidden


def test_a_reviewer_cannot_decide_the_open_items_of_their_own_submission(rita, hidden_split) -> None:
    own = submit(rita, hidden_split, predictions(random_predictions), name="Rita-Model")
    open_ = list(PlanJudgement.objects.filter(status="open"))
    assert open_ and own.score.details["final"] is False
    for judgement in open_:
        with pytest.raises(PermissionDenied, match="your own submission"):
            plan_judgement_decide(judgement_id=judgement.pk, user=rita, correct=True)
    own.score.refresh_from_db()
    assert own.score.overall is None and own.score.details["undecided"] == len(open_)
    assert PlanJudgement.objects.filter(status="open").count() == len(open_)
    assert not PlanVerdict.objects.filter(decided_by="person").exists()


def test_an_answer_shared_with_another_users_submission_is_refused_and_left_for_another_reviewer(
        user, rita, ruth, hidden_split) -> None:
    # Given: alice and the reviewer rita sent the same answers, so each judgement is shared by both submissions.
    alices = submit(user, hidden_split, predictions(random_predictions), name="Alice-Model")
    ritas = submit(rita, hidden_split, predictions(random_predictions), name="Rita-Model")
    judgement = PlanJudgement.objects.filter(status="open").first()
    # When rita decides, then nothing changes for either submission.
    with pytest.raises(PermissionDenied, match="your own submission"):
        plan_judgement_decide(judgement_id=judgement.pk, user=rita, correct=True)
    assert alices.sample_scores.get(details__judgement_key=judgement.key).score is None
    assert ritas.sample_scores.get(details__judgement_key=judgement.key).score is None
    # When ruth, who owns neither, decides, then both are settled.
    assert plan_judgement_decide(judgement_id=judgement.pk, user=ruth, correct=True) == sorted(
        [alices.pk, ritas.pk])


def test_the_submissions_of_a_model_entry_the_reviewer_owns_are_their_own(user, rita, split) -> None:
    entry = ModelEntry.objects.create(name="Rita-Owned", slug="rita-owned", owner=rita)
    submit(user, split, predictions(random_predictions), name=entry.name)  # uploaded by alice, to rita's entry
    judgement = PlanJudgement.objects.filter(status="open").first()
    with pytest.raises(PermissionDenied, match="your own submission"):
        plan_judgement_decide(judgement_id=judgement.pk, user=rita, correct=True)


def test_the_queue_does_not_offer_a_reviewer_their_own_answers(
        client, user, rita, ruth, hidden_split, split) -> None:
    submit(rita, hidden_split, predictions(random_predictions), name="Rita-Model")
    open_ = list(PlanJudgement.objects.filter(status="open"))
    assert plan_selectors.plan_judgements_open(user=rita).count() == 0
    assert plan_selectors.plan_judgements_open(user=ruth).count() == len(open_)
    # ruth's own scores of another benchmark (no PLAN answer in them) hide nothing from her
    entry = ModelEntry.objects.create(name="Ruth-Model", slug="ruth-model", owner=ruth)
    other = Submission.objects.create(model_entry=entry, split=split, submitter=ruth, status="scored")
    SampleScore.objects.create(submission=other, index=0, key="epic-1", details={"iou": 0.5})
    assert plan_selectors.plan_judgements_open(user=ruth).count() == len(open_)
    client.force_login(rita)
    html = client.get(reverse("plan-queue")).content.decode()
    assert "Nothing is waiting" in html and not any(f'id="judgement-{j.pk}"' in html for j in open_)
    assert "your own" in html  # the page says why some are not shown
    client.force_login(ruth)
    html = client.get(reverse("plan-queue")).content.decode()
    assert all(f'id="judgement-{j.pk}"' in html for j in open_[:50])


def test_deciding_an_own_answer_through_the_page_answers_403_with_the_reason(client, user, rita, hidden_split) -> None:
    submit(user, hidden_split, predictions(random_predictions), name="Alice-Model")
    ritas = submit(rita, hidden_split, predictions(random_predictions), name="Rita-Model")
    judgement = PlanJudgement.objects.filter(status="open").first()
    client.force_login(rita)
    response = client.post(reverse("plan-judgement-decide", args=[judgement.pk]), {"correct": "true"})
    assert response.status_code == 403
    assert "your own submission" in response.content.decode()
    judgement.refresh_from_db()
    assert judgement.status == "open" and Score.objects.get(submission=ritas).overall is None


def test_a_verdict_never_settles_its_deciders_own_answer_saved_meanwhile(user, rita, ruth, split) -> None:
    # Given: rita decides an answer that only alice's submission has...
    submit(user, split, predictions(random_predictions), name="Alice-Model")
    judgement = PlanJudgement.objects.filter(status="open").first()
    plan_judgement_decide(judgement_id=judgement.pk, user=rita, correct=True)
    # ...while her own submission with the same answer was being scored (it read the verdicts before the decision
    # and saved the item as waiting after it: simulated by resetting the row).
    ritas = submit(rita, split, predictions(random_predictions), name="Rita-Model")
    row = ritas.sample_scores.get(details__fingerprint=judgement.item_fingerprint,
                                  details__output_hash=judgement.output_hash)
    row.score, row.outcome = None, "undecided"
    row.details = {**row.details, "judgement_key": judgement.key, "decided_by": None}
    row.save()
    # When the queue is reconciled, then rita's verdict does not settle her own item: it waits for someone else.
    assert ritas.pk not in plan_judgements_reconcile()
    row.refresh_from_db()
    judgement.refresh_from_db()
    assert row.score is None and judgement.status == "open"
    assert plan_selectors.plan_judgements_open(user=rita).filter(pk=judgement.pk).count() == 0
    assert plan_judgement_decide(judgement_id=judgement.pk, user=ruth, correct=False) == [ritas.pk]
    row.refresh_from_db()
    assert row.score == 0.0 and row.details["judge"] == "ruth"


def test_every_decision_keeps_who_when_what_and_the_scores_it_changed(
        user, other_user, ruth, split) -> None:
    a = submit(user, split, predictions(random_predictions), name="A")
    b = submit(other_user, split, predictions(random_predictions), name="B")
    judgement = PlanJudgement.objects.filter(status="open").first()
    before = Score.objects.get(submission=a).details["undecided"]
    plan_judgement_decide(judgement_id=judgement.pk, user=ruth, correct=False, note="a wrong step")
    judgement.refresh_from_db()
    verdict = judgement.verdict
    assert verdict.decided_by_user == ruth and verdict.judge == "ruth" and verdict.correct is False
    assert verdict.note == "a wrong step" and verdict.created_at is not None and judgement.decided_at is not None
    for submission in (a, b):
        record = ChangeRecord.objects.get(subject="submission", object_id=submission.pk)
        assert record.user == ruth
        decision = record.changes["plan_judgement"][1]
        assert decision == {"judgement": judgement.pk, "item": judgement.item_key, "correct": False,
                            "verdict": verdict.pk}
        assert record.changes["undecided"] == [before, before - 1]


def test_a_reviewer_does_not_audit_verdicts_on_their_own_answers(rita, ruth, split) -> None:
    submit(rita, split, predictions(oracle_predictions), name="Rita-Model")
    plan_audit_draw(split=split, per_subtask=1, seed=0, user=ruth)
    check = PlanAuditCheck.objects.filter(split=split).first()
    assert check is not None
    assert plan_selectors.plan_audit_pending(split, user=rita).count() == 0
    assert plan_selectors.plan_audit_pending(split, user=ruth).count() == PlanAuditCheck.objects.count()
    with pytest.raises(PermissionDenied, match="your own submission"):
        plan_audit_record(check_id=check.pk, user=rita, correct=True)
    plan_audit_record(check_id=check.pk, user=ruth, correct=True)


def test_the_admin_shows_judge_records_but_changes_none(client, user, split, django_user_model) -> None:
    """Decisions go through the service (the rule and the audit); the admin cannot re-open or flip one."""
    submit(user, split, predictions(random_predictions))
    judgement = PlanJudgement.objects.filter(status="open").first()
    staff = django_user_model.objects.create_user("sam", password="pw-sam-123", is_staff=True, is_superuser=True)
    client.force_login(staff)
    url = reverse("admin:scoring_planjudgement_change", args=[judgement.pk])
    assert client.get(url).status_code == 200
    assert client.post(url, {"status": "decided", "item_key": judgement.item_key}).status_code == 403
    judgement.refresh_from_db()
    assert judgement.status == "open"
    assert client.get(reverse("admin:scoring_planverdict_add")).status_code == 403
    assert client.post(reverse("admin:scoring_planjudgement_delete", args=[judgement.pk]), {"post": "yes"}
                       ).status_code == 403
    assert PlanJudgement.objects.filter(pk=judgement.pk).exists()
