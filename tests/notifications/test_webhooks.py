"""Signed webhooks against a real local receiver: a submission scored, failed or re-scored is POSTed to the owner's
endpoints, signed with the endpoint's secret (HMAC-SHA256 over the raw body); a 500 is retried with backoff by the
Celery task until a 2xx; every attempt is in the delivery log the owner reads (page and API)."""
from __future__ import annotations

import json
import uuid

import pytest

from notifications.core.signing import signature_valid
from notifications.models import WebhookDelivery
from scoring import pipeline
from scoring.events import score_landed_event, score_rescored
from scoring.models import Submission
from tests.notifications.conftest import upload

pytestmark = pytest.mark.django_db


def register(client, url: str, events=("scored", "failed", "re-scored")) -> dict:
    response = client.post("/api/notifications/webhooks/", {"url": url, "events": list(events)}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def score(submission_id: int, capture) -> str:
    with capture(execute=True):
        return pipeline.submission_score(submission_id=submission_id, worker="test")


def test_a_scored_submission_is_posted_signed_and_retried_after_500s(
        token_client, notify_split, receiver, celery_eager, django_capture_on_commit_callbacks, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 5
    endpoint = register(token_client, receiver.url)
    assert endpoint["secret"].startswith("whsec_")
    receiver.script = [500, 500]  # the receiver fails twice, then takes it

    submission_id = upload(token_client)
    assert score(submission_id, django_capture_on_commit_callbacks) == "scored"

    # Three calls: two 500s, then a 200, each the same bytes and signature
    assert len(receiver.calls) == 3
    bodies = {call.body for call in receiver.calls}
    assert len(bodies) == 1
    call = receiver.calls[-1]
    assert signature_valid(endpoint["secret"], call.body, call.headers["x-ebh-signature-256"])
    assert call.headers["x-ebh-signature-256"].startswith("sha256=")
    assert not signature_valid("whsec_wrong", call.body, call.headers["x-ebh-signature-256"])
    payload = json.loads(call.body)
    assert payload["event"] == "scored" == call.headers["x-ebh-event"]
    assert payload["delivery"] == call.headers["x-ebh-delivery"] and uuid.UUID(payload["delivery"])
    assert str(payload["timestamp"]) == call.headers["x-ebh-timestamp"]
    assert payload["submission"]["id"] == submission_id
    assert payload["submission"]["status"] == "scored"
    assert payload["submission"]["overall"] == pytest.approx(Submission.objects.get(pk=submission_id).score.overall)
    assert payload["submission"]["url"].endswith(f"/submissions/{submission_id}/")

    # The delivery log: one delivery, three attempts, delivered with the last answer's status and body
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("delivered", 3, 200)
    assert delivery.response_snippet == '{"ok": true}' and delivery.delivered_at is not None
    log = token_client.get(f"/api/notifications/webhooks/{endpoint['id']}/deliveries/").json()
    assert [(d["event"], d["status"], d["attempts"], d["response_status"]) for d in log] == [
        ("scored", "delivered", 3, 200)]
    assert log[0]["delivery_id"] == payload["delivery"] and log[0]["submission"] == submission_id


def test_a_failed_upload_sends_failed_and_a_rescore_sends_rescored_not_scored_again(
        token_client, notify_split, receiver, celery_eager, django_capture_on_commit_callbacks):
    endpoint = register(token_client, receiver.url)
    bad = upload(token_client, b"abc\n")
    assert score(bad, django_capture_on_commit_callbacks) == "failed"
    failed = json.loads(receiver.calls[-1].body)
    assert failed["event"] == "failed" and failed["submission"]["status"] == "failed"
    assert failed["submission"]["error_message"]

    good = upload(token_client)
    score(good, django_capture_on_commit_callbacks)
    # A newer scorer publishes again (score_landed), and the re-scoring says so (score_rescored)
    with django_capture_on_commit_callbacks(execute=True):
        score_landed_event(submission_id=good)
        score_rescored.send(sender=Submission, submission_id=good)
    events = [json.loads(call.body)["event"] for call in receiver.calls]
    assert events == ["failed", "scored", "re-scored"]
    log = token_client.get(f"/api/notifications/webhooks/{endpoint['id']}/deliveries/").json()
    assert sorted(d["event"] for d in log) == ["failed", "re-scored", "scored"]


def test_only_the_events_chosen_are_sent(token_client, notify_split, receiver, celery_eager,
                                         django_capture_on_commit_callbacks):
    register(token_client, receiver.url, events=["failed"])
    score(upload(token_client), django_capture_on_commit_callbacks)
    assert receiver.calls == []


def test_a_delivery_gives_up_after_the_attempts_allowed_keeping_a_bounded_snippet(
        token_client, notify_split, receiver, celery_eager, django_capture_on_commit_callbacks, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    receiver.script = [503] * 10
    receiver.reply = b"x" * 50_000
    register(token_client, receiver.url)
    score(upload(token_client), django_capture_on_commit_callbacks)
    assert len(receiver.calls) == 3
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("failed", 3, 503)
    assert delivery.response_snippet == "x" * 1000 and delivery.error == "HTTP 503"


def test_a_dead_receiver_is_retried_and_logged_with_the_error(
        token_client, notify_split, celery_eager, django_capture_on_commit_callbacks, settings):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    register(token_client, "http://127.0.0.1:9/nothing-listens")  # the discard port: refused
    score(upload(token_client), django_capture_on_commit_callbacks)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed" and delivery.attempts == 2 and delivery.response_status is None
    assert "ConnectError" in delivery.error


@pytest.mark.parametrize(("url", "said"), [
    ("http://169.254.169.254/latest/meta-data/", "link-local, metadata"),
    ("http://[fd00:ec2::254]/", "link-local, metadata"),
    ("ftp://example.org/hook", "Only http and https"),
    ("http://no-such-host.invalid/hook", "cannot be resolved"),
])
def test_urls_the_site_will_not_call_are_refused_with_the_reason(token_client, url, said):
    response = token_client.post("/api/notifications/webhooks/", {"url": url, "events": ["scored"]}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "url" and said in response.json()["detail"]


def test_private_addresses_are_refused_unless_the_site_allows_them(token_client, receiver, settings):
    settings.WEBHOOK_ALLOW_PRIVATE = False
    response = token_client.post("/api/notifications/webhooks/", {"url": receiver.url, "events": ["scored"]},
                                 format="json")
    assert response.status_code == 400 and "private or loopback" in response.json()["detail"]
    settings.WEBHOOK_ALLOW_PRIVATE = True
    register(token_client, receiver.url)


def test_unknown_events_are_refused(token_client, receiver):
    response = token_client.post("/api/notifications/webhooks/", {"url": receiver.url, "events": ["published"]},
                                 format="json")
    assert response.status_code == 400 and "events" in response.json()["errors"]


def test_the_secret_is_shown_once_and_endpoints_are_their_owners_only(
        token_client, client, user, other_user, receiver):
    endpoint = register(token_client, receiver.url)
    listed = token_client.get("/api/notifications/webhooks/").json()
    assert [e["id"] for e in listed] == [endpoint["id"]] and "secret" not in listed[0]
    assert endpoint["secret"] not in token_client.get(f"/api/notifications/webhooks/{endpoint['id']}/").content.decode()
    client.force_login(user)
    page = client.get(f"/notifications/webhooks/{endpoint['id']}/").content.decode()
    assert receiver.url in page and endpoint["secret"] not in page

    client.force_login(other_user)
    assert client.get(f"/notifications/webhooks/{endpoint['id']}/").status_code == 404
    assert client.get(f"/api/notifications/webhooks/{endpoint['id']}/deliveries/").status_code == 404
    assert client.delete(f"/api/notifications/webhooks/{endpoint['id']}/").status_code == 404

    rotated = token_client.post(f"/api/notifications/webhooks/{endpoint['id']}/secret/").json()["secret"]
    assert rotated != endpoint["secret"]
    assert token_client.delete(f"/api/notifications/webhooks/{endpoint['id']}/").status_code == 204
    assert token_client.get("/api/notifications/webhooks/").json() == []


def test_the_page_registers_an_endpoint_shows_its_secret_once_and_its_log(
        client, user, receiver, notify_split, token_client, celery_eager, django_capture_on_commit_callbacks):
    client.force_login(user)
    response = client.post("/notifications/", {"action": "webhook", "url": receiver.url,
                                               "events": ["scored", "failed"]})
    html = response.content.decode()
    assert response.status_code == 200 and 'id="webhook-secret"' in html and "this once" in html
    assert 'id="webhook-secret"' not in client.get("/notifications/").content.decode()

    refused = client.post("/notifications/", {"action": "webhook", "url": "http://169.254.169.254/",
                                              "events": ["scored"]})
    assert refused.status_code == 400 and "metadata" in refused.content.decode()

    score(upload(token_client), django_capture_on_commit_callbacks)
    endpoint_id = WebhookDelivery.objects.get().endpoint_id
    log = client.get(f"/notifications/webhooks/{endpoint_id}/").content.decode()
    assert 'id="delivery-log"' in log and "HTTP 200" in log and "Delivered" in log
