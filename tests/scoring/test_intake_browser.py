"""In a real Chromium against a real daphne server (issue 30): a new user finds Submit from the home page, signs up on
the way and comes back to the form, and a file of another benchmark's format is refused by the web form with that
benchmark named and nothing stored."""
from __future__ import annotations

import pytest

from scoring.models import ModelEntry, Submission, UploadQuotaDay
from tests.scoring.bench_splits import good_file, split_of

pytestmark = pytest.mark.browser

EPIC_SPLIT_LABEL = "EPIC-Bench — t (v1, hidden ground truth)"


def test_a_new_user_finds_submit_and_a_wrong_benchmark_file_is_refused_naming_it(asgi_server, page, tmp_path):
    """"Chromium tests: a new user finds Submit from the home page, ... a wrong-benchmark file is refused by the web
    form with the benchmark named and nothing stored.\""""
    split_of("epic-bench", tmp_path / "layout")
    plan_file = tmp_path / "plan-predictions.jsonl"
    plan_file.write_bytes(good_file("plan-bench"))

    # Given a visitor, not signed in, on the home page: Submit is there, and leads to signing in, then back
    page.goto(f"{asgi_server}/")
    assert page.locator("#nav-submit").is_visible()
    page.click("#submit-epic-bench")
    page.wait_for_url(lambda url: "/accounts/login/" in url)
    page.click("#login-signup")
    page.fill("#id_username", "newcomer")
    page.fill("#id_password1", "a-long-pass-9876")
    page.fill("#id_password2", "a-long-pass-9876")
    page.click("form.form button[type=submit]")
    page.wait_for_url(lambda url: "/submissions/new/" in url)
    assert "benchmark=epic-bench" in page.url
    assert page.locator("#id_split option:checked").inner_text().startswith("EPIC-Bench")

    # When the new user uploads a PLAN-Bench predictions file to an EPIC-Bench split
    page.select_option("#id_split", label=EPIC_SPLIT_LABEL)
    page.fill("#id_model_name", "badjson-model")
    page.check("#id_raw_responses")
    page.set_input_files("#id_file", str(plan_file))
    page.click("form.form button[type=submit]")

    # Then the form says which benchmark's file it is, groups the problems, and nothing was stored
    refusal = page.locator("#upload-refusal").inner_text()
    assert "This looks like a PLAN-Bench predictions file" in refusal
    assert "Nothing was stored and no quota was used." in refusal and "48 lines" in refusal
    assert not Submission.objects.exists() and not UploadQuotaDay.objects.exists()
    assert not ModelEntry.objects.filter(name="badjson-model").exists()
    assert page.goto(f"{asgi_server}/models/badjson-model/").status == 404
