"""In a real Chromium against a real daphne server (issue 30, "Done when"): a new user finds Submit from the home
page, signs up on the way, downloads the test phase's example file from the format page, uploads it and sees it
scored on the board. The demo's EPIC-Bench test phase (`make_demo_epic`) is the data; uploads are scored by the
server itself (Celery eager, the `asgi_server` fixture)."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from scoring.models import Submission

pytestmark = pytest.mark.browser

TEST_SPLIT_LABEL = "EPIC-Bench — demo-test (v1, hidden ground truth, phase Test)"


def test_a_new_user_uploads_the_test_phase_example_and_sees_it_on_the_board(asgi_server, page, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    call_command("make_demo_epic")

    # Given a visitor on the home page: Submit leads to signing in, then signing up, then back to the form
    page.goto(f"{asgi_server}/")
    page.click("#submit-epic-bench")
    page.wait_for_url(lambda url: "/accounts/login/" in url)
    page.click("#login-signup")
    page.fill("#id_username", "tester")
    page.fill("#id_password1", "a-long-pass-9876")
    page.fill("#id_password2", "a-long-pass-9876")
    page.click("form.form button[type=submit]")
    page.wait_for_url(lambda url: "/submissions/new/" in url)
    # the empty paper test split is not offered; the demo's two phases are
    offered = page.locator("#id_split option").all_inner_texts()
    assert TEST_SPLIT_LABEL in offered and not any("— test (" in label for label in offered)

    # When they fetch the test phase's example from the format page (its row states the phase and its quota)
    page.goto(f"{asgi_server}/leaderboard/epic-bench/format/")
    row = page.locator('#format-splits tr[data-split="demo-test"]')
    assert "Test" in row.inner_text() and "5 a day, 20 in all" in row.inner_text()
    with page.expect_download() as download:
        row.locator("text=example (.jsonl)").click()
    example = tmp_path / "example.jsonl"
    download.value.save_as(example)
    assert len(example.read_text().splitlines()) == 23

    # And upload it with the options the format page names (raw responses) through the row's Submit link
    row.locator("a.format-split-submit").click()
    page.wait_for_url(lambda url: "/submissions/new/" in url)
    assert page.locator("#id_split option:checked").inner_text() == TEST_SPLIT_LABEL
    page.fill("#id_model_name", "Tester-VLM")
    page.check("#id_raw_responses")
    page.set_input_files("#id_file", str(example))
    page.click("form.form button[type=submit]")
    page.wait_for_selector("text=Submission #")
    page.wait_for_function("document.querySelector('#status').innerText === 'Scored'", timeout=60000)

    # Then it is on the test phase's board, which names the phase and its dates
    page.goto(f"{asgi_server}/leaderboard/epic-bench/?split=demo-test")
    assert "Phase Test" in page.locator("#board-phase").inner_text()
    assert "no close date" in page.locator("#board-phase").inner_text()
    assert page.locator("table >> text=Tester-VLM").count() >= 1
    assert Submission.objects.get(model_entry__name="Tester-VLM").split.name == "demo-test"
