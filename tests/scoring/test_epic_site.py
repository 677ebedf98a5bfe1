"""EPIC-Bench on the site: import from the raw layout, scoring uploads through the submission service,
bad uploads, and the demo command."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from scoring import pipeline, services
from scoring.benchmarks.epic.core import demo
from scoring.benchmarks.epic.core.raw import to_std_record
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.models import ModelEntry, Sample, SampleScore, Split, Submission
from tests.scoring.bench_splits import past_the_intake

pytestmark = pytest.mark.django_db


@lru_cache(maxsize=1)
def _samples() -> tuple[demo.DemoSample, ...]:
    return tuple(demo.make_split(17, per_leaf=1))


@pytest.fixture
def layout(tmp_path) -> Path:
    demo.write_layout(tmp_path, _samples())
    return tmp_path


@pytest.fixture
def split(layout) -> Split:
    split, report = epic_split_import(path=layout, split_name="t", hidden=True)
    assert report.problems == []
    return split


def submit(user, split: Split, lines: list, *, options=None, name="Model-E") -> Submission:
    entry, _ = ModelEntry.objects.get_or_create(name=name, defaults={"slug": name.lower()})
    body = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines).encode()
    with past_the_intake():  # what the scorer says of files the intake would refuse
        submission = services.submission_create(user=user, split=split, model_entry=entry, options=options or {},
                                                uploaded_file=SimpleUploadedFile("pred.jsonl", body))
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") in ("scored", "failed")
    submission.refresh_from_db()
    return submission


def raw_lines(kind="oracle", prefix="/anywhere/"):
    rng = np.random.default_rng(0)
    make = {"oracle": demo.oracle_response, "noisy": lambda s: demo.noisy_response(s, rng)}[kind]
    return [demo.raw_line(s, make(s), prefix=prefix) for s in _samples()]


# Import ------------------------------------------------------------------------------------------------------

def test_import_creates_one_sample_per_gt_with_images_stored_once(layout, settings):
    split, report = epic_split_import(path=layout / "EPIC_Bench", split_name="t", hidden=True)
    assert report.created == 23 and split.hidden_ground_truth
    sample = Sample.objects.get(split=split, task="VisualMatching")
    assert sample.key.startswith("EPIC_Bench/Navigation/VisualMatching/") and sample.key.endswith("b_mask_rle.json")
    assert [Path(i["name"]).name.split("_", 1)[1] for i in sample.inputs["images"]] == [
        "0000_image.jpg", "0000_reference_area_overlay.png", "0000b_image.jpg"]
    assert sample.ground_truth["mask_annotation"]["masklet_matching_area"]
    stored = list(Path(settings.MEDIA_ROOT).rglob("*.*"))
    assert len(stored) == report.images_stored > 23
    assert all(f.stem == __import__("hashlib").sha256(f.read_bytes()).hexdigest() for f in stored)
    tl = Sample.objects.get(split=split, task="Color")
    assert tl.category == "TargetLocalization" and tl.group == "BasicAttributes"
    assert tl.inputs["prompt"][0].startswith("Target Object Description: ")


def test_reimport_changes_nothing(layout):
    epic_split_import(path=layout, split_name="t", hidden=True)
    _, again = epic_split_import(path=layout, split_name="t", hidden=True)
    assert (again.created, again.updated, again.unchanged, again.images_stored) == (0, 0, 23, 0)


def test_broken_gt_is_reported_with_file_and_field_and_skipped(layout):
    gt_file = next((layout / "EPIC_Bench" / "Navigation" / "GroundDetection").rglob("*_mask_rle.json"))
    gt = json.loads(gt_file.read_text())
    gt["mask_annotation"]["masklet_ground"] = [{"size": [480, 640], "counts": "0P9"}]
    gt_file.write_text(json.dumps(gt))
    split, report = epic_split_import(path=layout, split_name="t", hidden=False)
    assert report.created == 22
    assert any("GroundDetection" in p and "masklet_ground" in p and "does not decode" in p for p in report.problems)


def test_import_command_prints_the_counts(layout, capsys):
    call_command("import_epic", str(layout), "--split", "cmd", "--public")
    assert "23 created" in capsys.readouterr().out
    assert not Split.objects.get(name="cmd").hidden_ground_truth


# Scoring --------------------------------------------------------------------------------------------------

def test_raw_oracle_upload_is_scored_with_board_columns(user, split):
    submission = submit(user, split, raw_lines(), options={"raw": True})
    assert submission.status == "scored", submission.error_message
    score = submission.score
    keys = set(score.breakdown)
    assert {"overall", "TL", "Nav", "Manip", "BA", "SRA", "ECA", "GD", "FP", "VM", "AR", "CR", "PR"} <= keys
    assert "Navigation/FeasiblePath/FeasiblePath_Exo" in keys and len([k for k in keys if "/" in k]) == 23
    assert 50 < score.overall <= 100 and score.overall == pytest.approx(score.breakdown["overall"])
    low, high = score.intervals["overall"]
    assert low <= score.overall <= high
    assert score.scorer_version == "epic-1.1" and score.details["parser"] == "reference"
    rows = SampleScore.objects.filter(submission=submission)
    assert rows.count() == 23 and not rows.filter(invalid=True).exists()
    assert set(rows.values_list("outcome", flat=True)) <= {"ok", "low_iou", "wrong_count"}
    assert rows.filter(sample__isnull=True).count() == 0


def test_std_format_upload_scores_like_the_cli(user, split, layout, tmp_path):
    lines = [to_std_record(x) for x in raw_lines("noisy", prefix=str(layout) + "/")]
    submission = submit(user, split, lines)
    assert submission.status == "scored"
    pred = tmp_path / "p.jsonl"
    pred.write_text("\n".join(json.dumps(x) for x in lines))
    out = tmp_path / "o.json"
    from scoring.benchmarks.epic.core.cli import main
    assert main([str(pred), "--output", str(out)]) == 0
    cli = json.loads(out.read_text())["summary"]["overall"]["average_score"]
    assert submission.score.overall == pytest.approx(100 * cli, abs=1e-9)


def test_missing_predictions_are_invalid_and_the_retired_compat_option_is_noted(user, split):
    lines = raw_lines()[:20]
    submission = submit(user, split, lines, options={"raw": True, "compat": True})
    assert submission.status == "scored"
    missing = SampleScore.objects.filter(submission=submission, outcome="missing")
    assert missing.count() == 3 and all(m.invalid and m.score == 0 for m in missing)
    assert submission.score.scorer_version == "epic-1.1" and submission.score.details["missing"] == 3
    assert "compat option is retired" in submission.score.details["notes"][0]["message"]


@pytest.mark.parametrize("mutate, message", [
    (lambda lines: lines + [lines[0]], "second prediction"),
    (lambda lines: lines[:3] + ["{oops"] + lines[3:], "not valid JSON"),
    (lambda lines: lines + [{"images": ["/x/EPIC_Bench/Navigation/GroundDetection/zz/zz_image.jpg"], "response": "{}"}],
     "not a sample of this split"),
    (lambda lines: lines + [{"images": ["/x/y.jpg"], "response": "{}"}], "cannot tell which sample"),
])
def test_bad_uploads_fail_with_line_numbers_and_publish_nothing(user, split, mutate, message):
    submission = submit(user, split, mutate(raw_lines()), options={"raw": True})
    assert submission.status == "failed" and not submission.failure_is_site_error
    assert any(message in p["message"] and p["line"] for p in submission.error_report), submission.error_report
    assert not SampleScore.objects.filter(submission=submission).exists()
    assert not hasattr(submission, "score") or submission.score is None


def test_raw_responses_uploaded_without_the_raw_option_are_refused_before_they_are_stored(user, split):
    # Before: read as std_format, 20 lines matched by their images and scored 0 (no formatted_response_*), the 3
    # VisualMatching lines failed with "cannot tell which sample this is", and nothing named the raw option.
    with pytest.raises(services.SubmissionError) as refused:
        submit(user, split, raw_lines())
    assert refused.value.field == "file" and refused.value.status == 400
    assert refused.value.message.startswith("This looks like raw responses: the first 23 line(s) have a 'response'")
    assert "raw model responses" in refused.value.message and "no quota was used" in refused.value.message
    assert not Submission.objects.exists()
    with pytest.raises(services.SubmissionError, match="looks like std_format"):
        submit(user, split, [to_std_record(x) for x in raw_lines()], options={"raw": True})


def test_a_mostly_raw_file_the_intake_lets_through_fails_in_the_scorer_with_the_hint(user, split):
    lines = raw_lines()
    lines[0] = to_std_record(lines[0])  # the start of the file is not all raw: the scorer reads every line
    submission = submit(user, split, lines)
    assert submission.status == "failed" and not submission.failure_is_site_error
    first = submission.error_report[0]
    assert first["line"] == 2 and first["field"] == "response"
    assert "this looks like raw responses: 22 of the 23 lines read" in first["message"]
    assert "raw model responses" in first["message"] and "raw=true" in first["message"]
    assert submission.error_message.startswith("This looks like raw responses")
    # The matching problems that follow from the format are left out: the hint is the one thing to fix.
    assert not any("cannot tell which sample" in p["message"] for p in submission.error_report)
    assert not SampleScore.objects.filter(submission=submission).exists()


def test_std_format_uploaded_with_the_raw_option_fails_with_the_hint(user, split):
    lines = [to_std_record(x) for x in raw_lines()]
    lines[0] = raw_lines()[0]
    submission = submit(user, split, lines, options={"raw": True})
    assert submission.status == "failed"
    first = submission.error_report[0]
    assert first["line"] == 2 and first["field"] == "formatted_response_*"
    assert "this looks like std_format, not raw responses" in first["message"]


def test_one_raw_line_among_std_lines_is_named_with_its_line(user, split):
    lines = [to_std_record(x) for x in raw_lines()]
    lines[5] = raw_lines()[5]
    submission = submit(user, split, lines)
    assert submission.status == "failed"
    assert submission.error_report[0]["line"] == 6
    assert "1 of the 23 lines read" in submission.error_report[0]["message"]


def test_the_cli_warns_when_a_raw_file_is_read_without_raw(tmp_path, capsys, layout):
    from scoring.benchmarks.epic.core.cli import main
    pred = tmp_path / "raw.jsonl"
    pred.write_text("\n".join(json.dumps(x) for x in raw_lines(prefix=str(layout) + "/")))
    assert main([str(pred)]) == 0
    err = capsys.readouterr().err
    assert "this looks like raw responses" in err and "; pass --raw" in err
    assert main([str(pred), "--raw"]) == 0
    assert "looks like" not in capsys.readouterr().err


def test_string_options_from_forms_are_read_as_flags():
    from scoring.benchmarks.epic.scorer import options_from
    assert options_from({"raw": "true", "compat": "false"}) == (options_from({"raw": True})[0], True)
    assert options_from({"compat": "1"}) == options_from({}) and not options_from({"raw": "0"})[1]


def test_upload_for_another_split_fails(user, split):
    submission = submit(user, split, [{"key": "EPIC_Bench/elsewhere_mask_rle.json", "task_type": ["Color"]}])
    assert submission.status == "failed" and "not a sample" in submission.error_message


# Demo -----------------------------------------------------------------------------------------------------

def test_make_demo_epic_is_idempotent(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("make_demo_epic")
    split = Split.objects.get(benchmark__slug="epic-bench", name="demo")
    first = {s.model_entry.slug: s.score.overall for s in Submission.objects.filter(split=split)}
    assert set(first) == {"epic-demo-oracle", "epic-demo-noisy", "epic-demo-random"}
    assert first["epic-demo-oracle"] > first["epic-demo-noisy"] > first["epic-demo-random"]
    assert {s.task for s in Sample.objects.filter(split=split)} >= {"Color", "FeasiblePath_Exo", "PlacementRegion"}
    assert len({s.task for s in Sample.objects.filter(split=split)}) == 23
    call_command("make_demo_epic")
    again = {s.model_entry.slug: s.score.overall for s in Submission.objects.filter(split=split)}
    assert again == first and Submission.objects.filter(split=split).count() == 3
    assert ModelEntry.objects.get(slug="epic-demo-random").kind == "baseline"


def test_the_api_refuses_a_raw_file_without_raw_before_storing_it(token_client, split):
    body = "\n".join(json.dumps(x) for x in raw_lines()).encode()
    response = token_client.post("/api/submissions/", {"benchmark": "epic-bench", "split": split.name, "model": "Api-E",
                                                       "file": SimpleUploadedFile("raw.jsonl", body)},
                                 format="multipart")
    assert response.status_code == 400 and response.json()["field"] == "file"
    assert response.json()["detail"].startswith("This looks like raw responses")
    assert not Submission.objects.exists()
    ok = token_client.post("/api/submissions/", {"benchmark": "epic-bench", "split": split.name, "model": "Api-E",
                                                 "raw": "true", "file": SimpleUploadedFile("raw.jsonl", body)},
                           format="multipart")
    assert ok.status_code == 201
