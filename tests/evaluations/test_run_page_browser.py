"""The run's page in a real Chromium while the run goes: done / total and the cost figures move without a reload,
then the page shows the run submitted and links to its hub-run row once that is scored."""
from __future__ import annotations

import threading

import pytest
from django.db import connections

from evaluations import execution, services
from evaluations.models import EvaluationRun
from scoring.pipeline import submission_score
from scoring.standin import StandInModel
from tests.conftest import login_page
from tests.scoring.bench_splits import plan_split

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_run_page_follows_the_run_live_to_its_scored_row(live_server, page, django_user_model, settings):
    settings.EVALUATIONS_ENDPOINT_ALLOW = ["127.0.0.1"]
    settings.EVALUATIONS_CHUNK_UNITS = 8
    django_user_model.objects.create_user("bea", password="pw-bea-123")
    owner = django_user_model.objects.get(username="bea")
    split = plan_split()
    total = split.samples.count()
    with StandInModel(api_key="sk-browser", delay=0.15) as server:
        run = services.run_create(user=owner, split=split, model_name="m", base_url=server.base_url,
                                  api_key="sk-browser", concurrency=1)
        login_page(page, live_server.url, "bea", "pw-bea-123")
        page.goto(f"{live_server.url}/evaluations/{run.pk}/")
        assert page.text_content("#run-done") == "0" and page.text_content("#run-total") == str(total)
        page.evaluate("window.stillThisPage = true")  # gone if the page reloads

        def play() -> None:
            try:
                execution.run_execute(run_id=run.pk)
            finally:
                connections.close_all()

        player = threading.Thread(target=play)
        player.start()
        try:
            # Given the run going, when the page polls, then done / total and the cost figures move.
            page.wait_for_function("() => +document.getElementById('run-done').textContent > 0", timeout=30000)
            seen_done = int(page.text_content("#run-done"))
            assert seen_done < total and int(page.text_content("#run-requests")) > 0
            assert int(page.text_content("#run-prompt")) > 0 and float(page.text_content("#run-seconds")) > 0
            page.wait_for_function(f"() => +document.getElementById('run-done').textContent > {seen_done}",
                                   timeout=30000)
        finally:
            player.join()
    run.refresh_from_db()
    assert run.status == EvaluationRun.Status.SUBMITTED
    [submission] = run.submissions.all()
    page.wait_for_function("() => document.getElementById('run-status').textContent === 'Submitted for scoring'",
                           timeout=30000)
    assert page.text_content("#run-done") == str(total)
    submission_score(submission_id=submission.pk, worker="test")
    # Then the row is scored, and the page links to it, still without a reload.
    page.wait_for_function("() => [...document.querySelectorAll('#run-submissions .submission-status')]"
                           ".some((s) => s.textContent === 'Scored')", timeout=30000)
    assert page.evaluate("window.stillThisPage") is True
    page.click(f"#run-submissions a[href='/submissions/{submission.pk}/']")
    page.wait_for_url(f"**/submissions/{submission.pk}/")
    assert "Run by the hub" in page.content()
