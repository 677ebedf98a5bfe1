"""In a real Chromium against a real daphne server: an uploader gets the file's format right the first time. A raw
EPIC file sent without the raw box is refused with the hint (and scored once the box is ticked); the format check
reads the file as the scorer does and shows which lines match no sample and which samples no line answers."""
from __future__ import annotations

import json

import pytest

from scoring.models import Submission
from tests.conftest import login_page
from tests.scoring.bench_splits import good_file, split_of

pytestmark = pytest.mark.browser

EPIC_SPLIT_LABEL = "EPIC-Bench — t (v1, hidden ground truth)"


def test_a_raw_file_without_the_box_gets_the_hint_and_with_it_is_scored(asgi_server, page, tmp_path,
                                                                         django_user_model):
    split_of("epic-bench", tmp_path / "layout")
    django_user_model.objects.create_user("rhea", password="pw-rhea-123")
    raw = tmp_path / "responses.jsonl"
    raw.write_bytes(good_file("epic-bench"))
    login_page(page, asgi_server, "rhea", "pw-rhea-123")

    page.goto(f"{asgi_server}/submissions/new/")
    page.select_option("#id_split", label=EPIC_SPLIT_LABEL)
    page.fill("#id_model_name", "Rhea-VL")
    page.set_input_files("#id_file", str(raw))
    page.click("form.form button[type=submit]")
    error = page.locator(".errorlist, .errors").first.inner_text()
    assert "This looks like raw responses" in error and "raw model responses" in error
    assert not Submission.objects.exists()

    page.check("#id_raw_responses")
    page.set_input_files("#id_file", str(raw))
    page.click("form.form button[type=submit]")
    page.wait_for_selector("text=Submission #")
    assert page.locator("#status").inner_text() == "Scored"


def test_the_format_check_reports_unmatched_lines_and_unanswered_samples(asgi_server, page, tmp_path):
    split = split_of("epic-bench", tmp_path / "layout")
    lines = good_file("epic-bench").decode().splitlines()
    stranger = {"images": ["/x/EPIC_Bench/Navigation/GroundDetection/zz/zz_image.jpg"], "response": "{}"}
    body = lines[1:] + [json.dumps(stranger)]  # the first sample unanswered; the last line answers no sample
    pred = tmp_path / "pred.jsonl"
    pred.write_text("\n".join(body) + "\n")

    page.goto(f"{asgi_server}/submissions/precheck/")
    page.select_option("#id_split", value=str(split.pk))
    page.set_input_files("#id_file", str(pred))
    page.click("form.form button[type=submit]")
    assert "this looks like raw responses" in page.locator("#precheck-problems").inner_text()

    page.check("#id_raw_responses")
    page.set_input_files("#id_file", str(pred))
    page.click("form.form button[type=submit]")
    row = page.locator("#precheck-problems tbody tr")
    assert row.count() == 1
    cells = row.first.locator("td").all_inner_texts()
    assert cells[0] == "23" and cells[1] == "ground_truth.gt_json_path" and "is not a sample of this split" in cells[2]
    summary = page.locator("#precheck-summary").inner_text()
    assert "Read as raw responses." in summary and "22 of 23 lines answer a sample" in summary
    assert page.locator("#precheck-missing-count").inner_text() == "1"
    assert page.locator("#precheck-missing code").inner_text().startswith("EPIC_Bench/")
