"""Honest states (issue 30): a submission whose score is not final is "awaiting judgement", with its provisional score
marked as such and the count of open items, on its page, in its submitter's list, in the API and on the board;
never "Scored"."""
from __future__ import annotations

import re

import pytest

from scoring.benchmarks.plan.core.demo import oracle_predictions, random_predictions
from scoring.selectors import submission_live_state

from .test_plan_scoring import predictions, split, submit  # noqa: F401 - the split fixture

pytestmark = pytest.mark.django_db

def _badge(html: str, element_id: str | None = None) -> list[str]:
    pattern = r'<span id="status" class="status status-([a-z_]+)"[^>]*>([^<]*)</span>' if element_id else \
        r'<span class="status status-([a-z_]+)">([^<]*)</span>'
    return re.findall(pattern, html)


def test_open_items_make_the_submission_awaiting_judgement_on_page_list_and_api(client, user, token_client, split):
    """"PLAN says "Scored" without a score: the example upload is badged "Scored" while its page says "awaiting
    judgement (33 items)"": now "a PLAN submission with open items is "awaiting judgement" (its own state, with a
    provisional score marked as such and the count of open items), never "Scored"; every status badge, list and API
    agrees"."""
    submission = submit(user, split, predictions(random_predictions))
    open_items = submission.score.details["undecided"]
    low, high = submission.score.details["range"]["overall"]
    assert open_items > 0 and submission.status == "scored"  # stored as scored: its score rows exist

    client.force_login(user)
    page = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert _badge(page, "status") == [("awaiting_judgement", "Awaiting judgement")]
    assert f"awaiting judgement ({open_items} open items; provisional {low:.2f}–{high:.2f})" in page
    assert f"{open_items} open items wait for judgement" in page

    listing = client.get("/submissions/").content.decode()
    assert _badge(listing) == [("awaiting_judgement", "Awaiting judgement")]
    assert f"provisional {low:.2f}–{high:.2f}; {open_items} open items" in listing
    assert "Scored" not in listing

    body = token_client.get(f"/api/submissions/{submission.pk}/").json()
    assert body["status"] == "awaiting_judgement" and body["status_label"] == "Awaiting judgement"
    assert body["provisional"] == {"open_items": open_items, "low": low, "high": high,
                                   "text": f"awaiting judgement ({open_items} open items; provisional "
                                           f"{low:.2f}–{high:.2f})"}
    [mine] = token_client.get("/api/submissions/mine/").json()
    assert mine["status"] == "awaiting_judgement"
    assert submission_live_state(submission_id=submission.pk)["status"] == "awaiting_judgement"

    board = client.get(f"/leaderboard/plan-bench/?split={split.name}").content.decode()
    assert f"awaiting judgement ({open_items} open items; provisional {low:.2f}–{high:.2f})" in board


def test_a_final_score_is_scored_everywhere(client, user, token_client, split):
    """The other side of "never "Scored"": a submission whose every item is decided is "Scored"."""
    submission = submit(user, split, predictions(oracle_predictions))
    client.force_login(user)
    assert _badge(client.get(f"/submissions/{submission.pk}/").content.decode(), "status") == [("scored", "Scored")]
    assert token_client.get(f"/api/submissions/{submission.pk}/").json()["status"] == "scored"
    assert token_client.get(f"/api/submissions/{submission.pk}/").json()["provisional"] is None


def test_the_api_schema_lists_the_awaiting_judgement_status(client):
    """"every status badge, list and API agrees": the schema's `status` has the state."""
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    status = schema["components"]["schemas"]["SubmissionOutput"]["properties"]["status"]
    ref = (status.get("allOf") or [status])[0]["$ref"]
    enum = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]["enum"]
    assert "awaiting_judgement" in enum and "scored" in enum


def test_the_format_page_does_not_promise_a_score_for_an_example_left_to_judgement(client):
    """"the format page promises it "scores (low)"": the example's fate is said as it is."""
    html = client.get("/leaderboard/plan-bench/format/").content.decode()
    assert "scores (low)" not in html
    assert "Awaiting judgement" in html and "provisional score" in html
