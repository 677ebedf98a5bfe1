"""Notifications: the writes. When scoring announces a score, a failure or a re-score (scoring.events), one notice
is made for the submission's owner: a mail unless they turned it off, and a signed call to each of their webhook
endpoints that takes the event. Mail and calls go out from Celery tasks (notifications.tasks), after the commit.

Endpoints are checked when registered and again before each call (a host's address may change): http(s) only,
never link-local or metadata addresses, private ones only where WEBHOOK_ALLOW_PRIVATE is on.
"""
from __future__ import annotations

import json

from django.conf import settings
from django.db import IntegrityError, transaction

from notifications import tasks
from notifications.core.signing import new_secret
from notifications.models import Event, Notice, NotificationSettings, WebhookDelivery, WebhookEndpoint
from notifications.targets import submission_url, webhook_url_problem
from scoring.errors import ServiceRefusal
from scoring.models import Submission

ONCE = (Event.SCORED, Event.FAILED)


# --- endpoints ---------------------------------------------------------------------------------------------


def webhook_events_check(events: list[str]) -> list[str]:
    known = [e.value for e in Event]
    unknown = [e for e in events if e not in known]
    if unknown or not events:
        raise ServiceRefusal(f"Choose events among {', '.join(known)}" + (f"; not {', '.join(map(repr, unknown))}."
                                                                         if unknown else "."), status=400,
                             field="events")
    return [e for e in known if e in events]


def webhook_endpoint_check(*, user, url: str, events: list[str]) -> list[str]:
    """Refuse a URL the site will not call, unknown events, or one endpoint too many; returns the events in order."""
    problem = webhook_url_problem(url)
    if problem:
        raise ServiceRefusal(f"Webhook URL refused: {problem}", status=400, field="url")
    if WebhookEndpoint.objects.filter(user=user).count() >= settings.WEBHOOK_ENDPOINTS_PER_USER:
        raise ServiceRefusal(f"You have {settings.WEBHOOK_ENDPOINTS_PER_USER} webhook endpoints already, the most "
                             "one account may have; delete one first.", status=400, field="url")
    return webhook_events_check(events)


def webhook_endpoint_create(*, user, url: str, events: list[str], description: str = "") -> tuple[
        WebhookEndpoint, str]:
    """Register an endpoint; returns it with its secret, which is shown this once."""
    ordered = webhook_endpoint_check(user=user, url=url, events=events)
    secret = new_secret()
    endpoint = WebhookEndpoint.objects.create(user=user, url=url, events=ordered, description=description[:200],
                                              secret=secret)
    return endpoint, secret


def webhook_secret_rotate(*, endpoint: WebhookEndpoint) -> str:
    """A new secret for the endpoint (the old one stops signing at once); returned this once."""
    endpoint.secret = new_secret()
    endpoint.save(update_fields=["secret"])
    return endpoint.secret


def webhook_endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    endpoint.delete()


def notification_settings_set(*, user, email_on_finish: bool) -> NotificationSettings:
    found, _ = NotificationSettings.objects.update_or_create(user=user, defaults={"email_on_finish": email_on_finish})
    return found


# --- notices: scoring's signals ----------------------------------------------------------------------------


def on_score_landed(sender=None, *, submission_id: int, **kwargs) -> None:
    submission_notify(submission_id=submission_id, event=Event.SCORED)


def on_score_rescored(sender=None, *, submission_id: int, **kwargs) -> None:
    submission_notify(submission_id=submission_id, event=Event.RESCORED)


def on_submission_failed(sender=None, *, submission_id: int, **kwargs) -> None:
    submission_notify(submission_id=submission_id, event=Event.FAILED)


def notice_payload(*, notice: Notice, submission: Submission, delivery_id: str) -> dict:
    """The JSON a webhook receives (docs/notifications.md)."""
    score = getattr(submission, "score", None) if submission.status == Submission.Status.SCORED else None
    provisional = submission.provisional
    return {
        "event": notice.event,
        "delivery": delivery_id,
        "timestamp": int(notice.created_at.timestamp()),
        "submission": {
            "id": submission.pk,
            "url": submission_url(submission.pk),
            "benchmark": submission.split.benchmark.slug,
            "split": submission.split.name,
            "split_version": submission.split.version,
            "model": str(submission.model_entry),
            "status": submission.state,
            "overall": score.overall if score is not None else None,
            "provisional": provisional is not None,
            "scorer_version": submission.scorer_version,
            "error_message": submission.error_message if submission.status == Submission.Status.FAILED else "",
            "visibility": submission.visibility,
        },
    }


def submission_notify(*, submission_id: int, event: str) -> Notice | None:
    """Make the notice of `event` for the submission's owner and send it (mail, webhooks) once committed. "scored"
    and "failed" are told once per submission: a later publish of a scored one is a re-score, told as such by
    `score_rescored`. None when there is no one to tell or it was told already."""
    submission = (Submission.objects.select_related("split__benchmark", "model_entry", "submitter", "score")
                  .filter(pk=submission_id).first())
    if submission is None or submission.submitter is None:
        return None
    user = submission.submitter
    with transaction.atomic():
        if event in ONCE and Notice.objects.filter(submission=submission, event=event).exists():
            return None
        try:
            with transaction.atomic():
                notice = Notice.objects.create(user=user, submission=submission, event=event)
        except IntegrityError:  # told by a parallel sender meanwhile
            return None
        if NotificationSettings.objects.filter(user=user, email_on_finish=False).exists():
            notice.mail = Notice.Mail.OFF
        elif not user.email:
            notice.mail = Notice.Mail.NO_ADDRESS
        notice.save(update_fields=["mail"])
        deliveries = []
        for endpoint in WebhookEndpoint.objects.filter(user=user, active=True):
            if event not in endpoint.events:
                continue
            delivery = WebhookDelivery(endpoint=endpoint, notice=notice, event=event)
            delivery.body = json.dumps(notice_payload(notice=notice, submission=submission,
                                                      delivery_id=str(delivery.delivery_id)), separators=(",", ":"))
            deliveries.append(delivery)
        WebhookDelivery.objects.bulk_create(deliveries)
        if notice.mail == Notice.Mail.PENDING:
            notice_id = notice.pk
            transaction.on_commit(lambda: tasks.notice_email_enqueue(notice_id=notice_id))
        for delivery in deliveries:
            transaction.on_commit(lambda pk=delivery.pk: tasks.webhook_delivery_enqueue(delivery_pk=pk))
    return notice
