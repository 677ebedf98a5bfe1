"""In a real Chromium: the submission page goes live from "Queued" to "Scored" with its score, without a reload, on
the embedded default — daphne and a Celery worker in separate processes, the filesystem broker and the in-memory
channel layer (which cannot carry the worker's messages to the server: the page's socket follows the row)."""
import uuid

import pytest

from tests.conftest import login_page
from tests.faults.processes import Worker, site_env
from tests.scoring.factories import SampleFactory, SplitFactory

pytestmark = [pytest.mark.browser, pytest.mark.worker]


def test_uploaded_submission_page_turns_scored_live_without_reload(
    asgi_server_queueing, page, tmp_path, django_user_model, dummy_benchmark
):
    server = asgi_server_queueing
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__name="Dummy Bench", benchmark__scorer="dummy")
    for i in range(6):
        SampleFactory(split=split, key=f"k{i}", position=i)
    django_user_model.objects.create_user("gina", password="pw-gina-123")
    prediction = tmp_path / "pred.txt"
    prediction.write_text("1\n1\n1\n0\n0\n0\n")
    worker = Worker(f"live-{uuid.uuid4().hex[:6]}@localhost", site_env(), tmp_path / "worker.log")
    worker.purge()

    login_page(page, server, "gina", "pw-gina-123")
    page.goto(f"{server}/submissions/new/")
    page.select_option("#id_split", label="Dummy Bench — dev (v1, public ground truth)")
    page.fill("#id_model_name", "Gina-VL-2B")
    page.set_input_files("#id_file", str(prediction))
    page.click("form.form button[type=submit]")

    # No worker yet: the page is queued, and its socket is open.
    page.wait_for_selector("text=Submission #")
    assert page.locator("#status").inner_text() == "Queued"
    page.evaluate("window.__sameDocument = true")  # a reload or navigation would drop this
    worker.start()
    try:
        page.wait_for_function(
            "document.getElementById('status').textContent.trim() === 'Scored'", timeout=60000
        )
        page.wait_for_selector(".big", timeout=10000)
        assert "50.00" in page.locator(".big").inner_text()
        assert page.evaluate("window.__sameDocument === true")
    finally:
        worker.end()
        print((tmp_path / "worker.log").read_text(errors="replace")[-3000:])
