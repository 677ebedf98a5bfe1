"""A delivery's attempts, called one by one as the worker would (no eager chain): the backoff between them, one call
per attempt however many messages ask for it, and the sweep that sends again what a lost message left behind."""
from __future__ import annotations

import socket
from datetime import timedelta

import pytest
from django.utils import timezone

from notifications import tasks
from notifications.models import WebhookDelivery
from notifications.sending import webhook_deliveries_overdue, webhook_delivery_attempt
from scoring import pipeline
from tests.notifications.conftest import upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def pending(token_client, notify_split, receiver, settings, django_capture_on_commit_callbacks):
    """A delivery made and not yet sent (its task not run: on-commit callbacks captured, not executed)."""
    settings.WEBHOOK_BACKOFF_SECONDS = 30
    settings.WEBHOOK_MAX_ATTEMPTS = 4
    token_client.post("/api/notifications/webhooks/", {"url": receiver.url, "events": ["scored"]}, format="json")
    with django_capture_on_commit_callbacks(execute=False):
        submission_id = upload(token_client)
    with django_capture_on_commit_callbacks(execute=True):  # the score lands: the notice and its delivery are made
        pipeline.submission_score(submission_id=submission_id, worker="test")
    return WebhookDelivery.objects.get()


def test_retries_wait_longer_each_time(pending, receiver, celery_eager):
    receiver.script = [500, 500, 500]
    outcome, wait = webhook_delivery_attempt(delivery_pk=pending.pk)
    assert (outcome, wait) == ("retry", 30)
    pending.refresh_from_db()
    assert pending.status == "retrying" and pending.attempts == 1 and pending.response_status == 500
    assert timedelta(seconds=29) < pending.next_attempt_at - pending.last_attempt_at < timedelta(seconds=31)

    # A message for the same attempt arriving before its time is not a call
    assert webhook_delivery_attempt(delivery_pk=pending.pk) == ("skipped", 0.0)
    assert len(receiver.calls) == 1

    # At its time, the second attempt; then the third waits twice as long
    later = pending.next_attempt_at + timedelta(seconds=1)
    assert webhook_delivery_attempt(delivery_pk=pending.pk, now=later) == ("retry", 60)
    assert len(receiver.calls) == 2


def test_two_messages_for_one_attempt_make_one_call(pending, receiver):
    stale = WebhookDelivery.objects.get(pk=pending.pk)  # a second worker's read of the same attempt
    assert webhook_delivery_attempt(delivery_pk=pending.pk)[0] == "delivered"
    assert webhook_delivery_attempt(delivery_pk=stale.pk) == ("skipped", 0.0)
    assert len(receiver.calls) == 1 and WebhookDelivery.objects.get().attempts == 1


def test_the_sweep_sends_again_a_delivery_whose_message_was_lost(pending, receiver, celery_eager):
    assert webhook_deliveries_overdue() == []
    WebhookDelivery.objects.filter(pk=pending.pk).update(created_at=timezone.now() - timedelta(minutes=6))
    assert webhook_deliveries_overdue() == [pending.pk]
    assert tasks.resend_overdue_webhooks.delay().get() == [pending.pk]
    assert WebhookDelivery.objects.get().status == "delivered" and len(receiver.calls) == 1
    assert webhook_deliveries_overdue() == []


def test_a_host_that_resolves_elsewhere_after_the_check_is_not_followed(
        token_client, notify_split, receiver, settings, monkeypatch, django_capture_on_commit_callbacks):
    # Given an endpoint named by a host that resolves to the receiver's address when it is checked
    settings.WEBHOOK_TIMEOUT_SECONDS = 2
    port = int(receiver.url.rsplit(":", 1)[1].split("/", 1)[0])
    real = socket.getaddrinfo
    answers: list[str] = []

    def resolve(host, *args, **kwargs):
        if host != "hook.rebind.test":
            return real(host, *args, **kwargs)
        address = answers.pop(0) if answers else "10.255.255.1"  # then elsewhere: a private address nobody checked
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, args[0] if args else port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    answers.append("127.0.0.1")
    url = f"http://hook.rebind.test:{port}/hooks/ebh"
    assert token_client.post("/api/notifications/webhooks/", {"url": url, "events": ["scored"]},
                             format="json").status_code == 201
    with django_capture_on_commit_callbacks(execute=False):
        submission_id = upload(token_client)
    with django_capture_on_commit_callbacks(execute=True):
        pipeline.submission_score(submission_id=submission_id, worker="test")
    delivery = WebhookDelivery.objects.get()
    # When a delivery is attempted: its check resolves the host to the receiver, and any later answer is elsewhere
    answers.append("127.0.0.1")
    outcome, _ = webhook_delivery_attempt(delivery_pk=delivery.pk)
    # Then the call went to the address checked, naming the host it was given
    assert outcome == "delivered", WebhookDelivery.objects.get().error
    assert len(receiver.calls) == 1 and receiver.calls[0].headers["host"] == f"hook.rebind.test:{port}"
