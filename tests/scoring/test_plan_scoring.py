"""PLAN-Bench on the site: scorer through the real submission pipeline, DB verdict cache, judge over a real local
HTTP server, human queue, recompute on the last decision, judge audit and agreement."""
from __future__ import annotations

import json
from functools import lru_cache

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import pipeline, services
from scoring.benchmarks.plan.core.demo import demo_items, oracle_predictions, random_predictions
from scoring.benchmarks.plan.core.local_judge import LocalJudgeServer, Reply
from scoring.benchmarks.plan.models import PlanAuditCheck, PlanJudgement, PlanVerdict
from scoring.benchmarks.plan.selectors import plan_judge_agreement, plan_submission_state
from scoring.benchmarks.plan.services.audit import plan_audit_draw, plan_audit_record
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.benchmarks.plan.services.judge import (
    judge_client_from_settings,
    judge_prompts_from_settings,
    model_prompts_from_settings,
)
from scoring.benchmarks.plan.services.judgements import plan_judgement_decide, plan_judgements_reconcile
from scoring.models import Benchmark, ModelEntry, Score, Split, Submission
from tests.scoring.bench_splits import past_the_intake

pytestmark = pytest.mark.django_db


@pytest.fixture
def split() -> Split:
    benchmark = Benchmark.objects.get(slug="plan-bench")
    split = Split.objects.create(benchmark=benchmark, name="demo-test", hidden_ground_truth=False)
    demo = _demo()
    images = {name: png for d in demo for name, png in d.images.items()}
    plan_items_import(split=split, items=[d.item for d in demo], read_image=images.get)
    return split


@pytest.fixture
def reviewer(django_user_model):
    person = django_user_model.objects.create_user("rita", password="pw-rita-123")
    person.groups.add(Group.objects.get(name="reviewer"))
    return person


def submit(user, split: Split, lines: list[dict], name: str = "Model-X") -> Submission:
    entry, _ = ModelEntry.objects.get_or_create(name=name, defaults={"slug": name.lower()})
    body = "".join(json.dumps(line) + "\n" for line in lines).encode()
    with past_the_intake():  # what the scorer says of files the intake would refuse
        submission = services.submission_create(
            user=user, split=split, model_entry=entry, uploaded_file=SimpleUploadedFile("pred.jsonl", body)
        )
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") in ("scored", "failed")
    submission.refresh_from_db()
    return submission


@lru_cache(maxsize=1)
def _demo():
    return demo_items()


def predictions(kind) -> list[dict]:
    items = [d.item for d in _demo()]
    return [{"id": p.id, "prediction": p.text} for p in kind(items)]


def test_oracle_is_final_with_board_keys_and_intervals(user, split) -> None:
    submission = submit(user, split, predictions(oracle_predictions))
    score = submission.score
    assert submission.status == "scored" and score.overall == 100.0 and score.details["final"] is True
    for key in ("overall", "spatial_cognition", "temporal_reasoning", "multi_step_planning", "Route", "SpR", "single_choice", "open"):
        assert score.breakdown[key] == 100.0
    assert score.intervals["overall"] == [100.0, 100.0]
    row = submission.sample_scores.get(key="demo-pc-00")
    assert row.details["decided_by"] == "rule" and row.details["prompt_version"] == "rule/1"


def test_undecided_items_make_the_submission_await_judgement_with_a_range(user, split) -> None:
    submission = submit(user, split, predictions(random_predictions))
    score = submission.score
    undecided = submission.sample_scores.filter(score__isnull=True).count()
    assert undecided > 0 and score.overall is None and score.details["undecided"] == undecided
    low, high = score.details["range"]["overall"]
    assert low < high and high - low == pytest.approx(100 * undecided / 48, abs=1e-3)
    assert plan_submission_state(submission)["status_text"] == f"awaiting judgement ({undecided} items)"
    assert PlanJudgement.objects.filter(status="open").count() == undecided


def test_unknown_id_fails_the_submission_with_its_line(user, split) -> None:
    submission = submit(user, split, [{"id": "demo-oo-00", "prediction": "A"}, {"id": "nope", "prediction": "B"}])
    assert submission.status == "failed" and submission.error_report[0]["line"] == 2 and "nope" in submission.error_message


def test_llm_judge_decides_and_a_rescore_never_calls_it_again(user, split, settings) -> None:
    with LocalJudgeServer() as server:
        settings.JUDGE_BASE_URL, settings.JUDGE_MODEL = server.base_url, "local-judge"
        first = submit(user, split, predictions(random_predictions), name="A")
        calls = len(server.requests)
        second = submit(user, split, predictions(random_predictions), name="B")
        assert calls > 0 and len(server.requests) == calls
    for submission in (first, second):
        assert submission.score.details["final"] and submission.score.overall is not None
        assert submission.score.details["judge"] == "local-judge"
    decided = first.sample_scores.filter(details__decided_by="model")
    assert decided.count() == calls
    row = decided.first()
    assert row.details["raw_judge_output"] in ("True", "False", "None") or len(row.details["raw_judge_output"]) == 1
    assert PlanVerdict.objects.filter(judge="local-judge").count() == calls


def test_judge_outage_leaves_items_undecided_never_wrong(user, split, settings) -> None:
    rule_only = submit(user, split, predictions(random_predictions), name="rules")
    with LocalJudgeServer(script=lambda n, _: Reply(status=503)) as server:
        settings.JUDGE_BASE_URL, settings.JUDGE_MODEL = server.base_url, "down-judge"
        settings.JUDGE_BACKOFF, settings.JUDGE_MAX_RETRIES = 0.01, 2
        plan_services_settings = judge_client_from_settings()
        assert plan_services_settings is not None
        plan_services_settings.close()
        outage = submit(user, split, predictions(random_predictions), name="outage")
    wrong_rules = rule_only.sample_scores.filter(outcome="wrong").count()
    # Unresolved single-choice outputs go to the judge when one is configured, so never more wrongs than rules alone.
    assert outage.sample_scores.filter(outcome="wrong").count() <= wrong_rules
    assert outage.score.overall is None and outage.score.details["undecided"] >= rule_only.score.details["undecided"]
    assert "503" in outage.sample_scores.filter(score__isnull=True).first().details["note"]
    assert PlanVerdict.objects.count() == 0


def test_last_human_decision_makes_the_score_final(user, split, reviewer) -> None:
    a = submit(user, split, predictions(random_predictions), name="A")
    b = submit(user, split, predictions(random_predictions), name="B")
    open_ = list(PlanJudgement.objects.filter(status="open"))
    for i, judgement in enumerate(open_):
        updated = plan_judgement_decide(judgement_id=judgement.pk, user=reviewer, correct=i % 2 == 0)
        assert updated == sorted([a.pk, b.pk])  # one decision settles both submissions
    for submission in (a, b):
        score = Score.objects.get(submission=submission)
        rows = list(submission.sample_scores.all())
        assert score.details["final"] and score.details["undecided"] == 0
        assert score.overall == pytest.approx(100 * sum(r.score for r in rows) / len(rows), abs=1e-3)
        assert score.intervals["overall"][0] <= score.overall <= score.intervals["overall"][1]
        person = submission.sample_scores.filter(details__decided_by="person").first()
        assert person.details["judge"] == "rita" and person.details["prompt_version"] == "person"
    # A later submission with the same outputs reuses the people's verdicts.
    c = submit(user, split, predictions(random_predictions), name="C")
    assert c.score.details["final"] and c.score.overall == Score.objects.get(submission=a).overall


def test_only_reviewers_decide(user, split) -> None:
    submit(user, split, predictions(random_predictions))
    judgement = PlanJudgement.objects.first()
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        plan_judgement_decide(judgement_id=judgement.pk, user=user, correct=True)


def test_audit_draw_is_stratified_and_agreement_counts_reviewed_checks(user, split, reviewer) -> None:
    submit(user, split, predictions(oracle_predictions), name="oracle")
    submit(user, split, predictions(random_predictions), name="random")
    created = plan_audit_draw(split=split, per_subtask=2, seed=1, user=reviewer)
    checks = list(PlanAuditCheck.objects.filter(split=split))
    assert created == len(checks) == 32  # 16 subtasks x 2
    assert {c.subtask for c in checks} == {d.item.subtask for d in demo_items()}
    again = plan_audit_draw(split=split, per_subtask=2, seed=1, user=reviewer)  # only undrawn ones
    all_checks = PlanAuditCheck.objects.filter(split=split)
    assert 0 < again <= 32 and all_checks.count() == 32 + again
    assert len({(c.item_fingerprint, c.output_hash, c.judge) for c in all_checks}) == 32 + again
    for i, check in enumerate(checks[:10]):
        plan_audit_record(check_id=check.pk, user=reviewer, correct=check.judge_correct if i else not check.judge_correct)
    agreement = plan_judge_agreement(split)
    assert agreement["overall"] == {"agree": 9, "n": 10, "rate": 90.0}
    assert sum(v["n"] for v in agreement["by_subtask"].values()) == 10
    assert sum(v["n"] for v in agreement["by_dimension"].values()) == 10


def test_a_decision_made_while_a_submission_was_scoring_is_applied_later(user, split, reviewer) -> None:
    first = submit(user, split, predictions(random_predictions), name="A")
    judgement = PlanJudgement.objects.filter(status="open").first()
    # Given: a second submission saved its pending items after the person decided (simulated by resetting one row).
    plan_judgement_decide(judgement_id=judgement.pk, user=reviewer, correct=True)
    row = first.sample_scores.get(details__judgement_key=judgement.key)
    row.score, row.outcome = None, "undecided"
    row.save()
    # When the queue is reconciled, then the row takes the person's verdict.
    assert plan_judgements_reconcile() == [first.pk]
    row.refresh_from_db()
    assert row.score == 1.0 and row.details["decided_by"] == "person"


def test_xlsx_without_prediction_column_fails_with_the_header_row(user, split) -> None:
    import io

    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["index", "question", "answer"])
    book.active.append(["demo-oo-00", "q", "A"])
    buffer = io.BytesIO()
    book.save(buffer)
    entry = ModelEntry.objects.create(name="Sheet", slug="sheet")
    with past_the_intake():
        submission = services.submission_create(
            user=user, split=split, model_entry=entry,
            uploaded_file=SimpleUploadedFile("result.xlsx", buffer.getvalue()))
    pipeline.submission_score(submission_id=submission.pk, worker="test")
    submission.refresh_from_db()
    assert submission.status == "failed" and submission.error_report[0]["line"] == 1
    assert submission.error_report[0]["field"] == "prediction" and "index, question, answer" in submission.error_message


def _prompt_file(tmp_path, **changes) -> str:
    from scoring.benchmarks.plan.core import protocol

    data = {"open_system": "SITE-EXACT open judge. Reply True or False.", "open_user": protocol.OPEN_USER_TEMPLATE,
            "choice_system": "SITE-EXACT choice judge.", "choice_user": protocol.CHOICE_USER_TEMPLATE,
            "model_prompts": {"base": "Answer now.", "single_choice_suffix": "One letter.", "open_suffix": "Short."}}
    data.update(changes)
    path = tmp_path / "judge-prompts.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_site_prompt_file_is_what_the_judge_gets_and_its_hash_is_on_every_verdict(user, split, settings,
                                                                                    tmp_path) -> None:
    from scoring.benchmarks.plan.core.protocol import PROMPT_VERSION

    with LocalJudgeServer() as server:
        settings.JUDGE_BASE_URL, settings.JUDGE_MODEL = server.base_url, "local-judge"
        built_in = submit(user, split, predictions(random_predictions), name="A")
        calls = len(server.requests)
        settings.PLAN_JUDGE_PROMPT_FILE = _prompt_file(tmp_path)
        site = judge_prompts_from_settings()
        assert site.version.startswith("site#") and site.version != PROMPT_VERSION and len(site.version) <= 40
        sited = submit(user, split, predictions(random_predictions), name="B")
        # Verdicts given under the built-in paraphrase are not reused under other words: the judge is asked again.
        assert len(server.requests) == 2 * calls
        assert all("SITE-EXACT" in json.dumps(r) for r in server.requests[calls:])
        assert not any("SITE-EXACT" in json.dumps(r) for r in server.requests[:calls])
    model_rows = sited.sample_scores.filter(details__decided_by="model")
    assert model_rows.count() == calls
    assert {r.details["prompt_version"] for r in model_rows} == {site.version}
    assert set(PlanVerdict.objects.filter(judge="local-judge").values_list("prompt_version", flat=True)) == {
        PROMPT_VERSION, site.version}
    assert sited.score.details["prompt_version"] == site.version and site.version in sited.score.scorer_version
    assert built_in.score.details["prompt_version"] == PROMPT_VERSION
    assert model_prompts_from_settings().single_choice_suffix == "One letter."


def test_a_broken_prompt_file_stops_the_site_check_with_the_file_and_field_named(settings, tmp_path) -> None:
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    from scoring.benchmarks.plan.core.protocol import PromptFileError

    settings.PLAN_JUDGE_PROMPT_FILE = _prompt_file(tmp_path, open_user="Answer: {answer} Output: {output}")
    with pytest.raises(PromptFileError, match=r"judge-prompts.json: 'open_user' must contain \{hint\}"):
        judge_prompts_from_settings()
    with pytest.raises(SystemCheckError, match=r"plan.E001.*'open_user' must contain \{hint\}"):
        call_command("check")
    settings.PLAN_JUDGE_PROMPT_FILE = str(tmp_path / "absent.json")
    with pytest.raises(SystemCheckError, match=r"absent.json: cannot read it"):
        call_command("check")
    settings.PLAN_JUDGE_PROMPT_FILE = _prompt_file(tmp_path)
    call_command("check")  # a good file passes


def test_people_judge_the_answer_part_of_a_thinking_models_output(user, split) -> None:
    lines = predictions(oracle_predictions)
    open_line = next(line for line in lines if line["id"].startswith("demo-dp"))
    open_line["prediction"] = "<think>long deliberation about the fridge</think>\nFinal answer: something else entirely"
    submission = submit(user, split, lines)
    row = submission.sample_scores.get(key=open_line["id"])
    assert row.details["reasoning_stripped"] == '<think>…</think> removed; read after "Final answer:"'
    assert row.details["output"].startswith("<think>")  # the output as submitted stays on the sample
    assert row.score is None  # the rules cannot settle it and no judge is configured: people decide
    queued = PlanJudgement.objects.get(output_hash=row.details["output_hash"])
    assert queued.output_text == "something else entirely"  # they see the answer part only
