"""Notifications: sending, called by the Celery tasks (notifications.tasks): a notice's mail, and one attempt at a
webhook delivery (signed, bounded, logged)."""
from __future__ import annotations

import json
from datetime import datetime, timedelta

import httpx
from django.conf import settings
from django.core.mail import send_mail
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone

from notifications.core.signing import backoff_seconds, signature
from notifications.models import Event, Notice, WebhookDelivery
from notifications.targets import submission_url, webhook_address
from scoring.core.pinning import pinned
from scoring.models import Submission

SNIPPET_BYTES = 1000  # of a response body kept in the delivery log
USER_AGENT = "EmbodiedBenchHub-Webhook/1"

# --- sending -----------------------------------------------------------------------------------------------

SUBJECTS = {
    Event.SCORED: "Submission #{id} is scored: {model} on {split}",
    Event.FAILED: "Submission #{id} failed: {model} on {split}",
    Event.RESCORED: "Submission #{id} is re-scored: {model} on {split}",
}


def notice_email_send(*, notice_id: int) -> str:
    """Mail a notice to its user (once); returns its mail state."""
    notice = Notice.objects.select_related("user", "submission__split__benchmark", "submission__model_entry",
                                           "submission__score").get(pk=notice_id)
    if notice.mail != Notice.Mail.PENDING:
        return notice.mail
    submission = notice.submission
    facts = {"id": submission.pk, "model": submission.model_entry, "split": submission.split}
    score = getattr(submission, "score", None) if submission.status == Submission.Status.SCORED else None
    lines = [f"Submission #{submission.pk} ({submission.model_entry} on {submission.split}) is now "
             f"{submission.state_label.lower()}."]
    if notice.event == Event.FAILED:
        lines.append(f"Why: {submission.error_message}")
    elif score is not None and score.overall is not None:
        lines.append(f"Overall: {score.overall:.2f}" + (" (provisional)" if submission.provisional else "") + ".")
    lines += ["", f"Its page: {submission_url(submission.pk)}", "",
              f"You get this mail because mail about your submissions is on; turn it off at "
              f"{settings.SITE_URL}{reverse('notification-settings')}."]
    send_mail(SUBJECTS[Event(notice.event)].format(**facts), "\n".join(lines), None, [notice.user.email])
    Notice.objects.filter(pk=notice.pk).update(mail=Notice.Mail.SENT)
    return Notice.Mail.SENT


def notice_email_failed(*, notice_id: int) -> None:
    Notice.objects.filter(pk=notice_id, mail=Notice.Mail.PENDING).update(mail=Notice.Mail.FAILED)


def delivery_headers(delivery: WebhookDelivery, body: bytes) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-EBH-Event": delivery.event,
        "X-EBH-Delivery": str(delivery.delivery_id),
        "X-EBH-Timestamp": str(json.loads(body)["timestamp"]),
        "X-EBH-Signature-256": signature(delivery.endpoint.secret, body),
    }


def _post(url: str, address: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    """POST once to `address` (the one `webhook_address` checked), redirects not followed; the status and the start
    of the body (never more read). The URL's host is still the one named: in the Host header, in TLS's server name
    and in the certificate's check."""
    target = pinned(url, address)
    with httpx.Client(timeout=settings.WEBHOOK_TIMEOUT_SECONDS, follow_redirects=False, trust_env=False) as client:
        with client.stream("POST", target.url, content=body, headers={**headers, **target.headers},
                           extensions=target.extensions) as response:
            kept = b""
            for chunk in response.iter_bytes():
                kept += chunk
                if len(kept) >= SNIPPET_BYTES:
                    break
            return response.status_code, kept[:SNIPPET_BYTES].decode("utf-8", errors="replace")


OPEN = (WebhookDelivery.Status.PENDING, WebhookDelivery.Status.RETRYING)
DUE_SLACK = timedelta(seconds=1)  # a retry message may arrive a little before its countdown by the database's clock
SWEEP_GRACE = timedelta(minutes=5)  # an attempt this late (its message lost with a worker or broker) is sent again


def attempt_lease() -> timedelta:
    """How long a claimed attempt holds its delivery: the call's timeout, and a margin."""
    return timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS + 60)


def _claim(delivery: WebhookDelivery, now: datetime) -> bool:
    """Take the next attempt of a delivery that is due: a conditional update on its attempt count, so of two
    messages for one attempt (a retry and the sweep's) one makes the call."""
    due = Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now + DUE_SLACK)
    return bool(WebhookDelivery.objects.filter(due, pk=delivery.pk, attempts=delivery.attempts, status__in=OPEN)
                .update(attempts=F("attempts") + 1, last_attempt_at=now, next_attempt_at=now + attempt_lease()))


def webhook_delivery_attempt(*, delivery_pk: int, now: datetime | None = None) -> tuple[str, float]:
    """One attempt at a delivery: ("delivered" | "retry" | "failed" | "skipped", seconds to wait before the retry).
    A 2xx answer delivers; anything else (or no answer) is retried with exponential backoff up to
    WEBHOOK_MAX_ATTEMPTS attempts; a URL the site may no longer call fails at once. "skipped": delivered, failed,
    not due yet, or its attempt taken by another message."""
    delivery = WebhookDelivery.objects.select_related("endpoint").filter(pk=delivery_pk).first()
    now = now or timezone.now()
    if delivery is None or not _claim(delivery, now):
        return "skipped", 0.0
    delivery.attempts += 1
    body = delivery.body.encode()
    problem, address = ("The endpoint is turned off.", "") if not delivery.endpoint.active else webhook_address(
        delivery.endpoint.url)
    status: int | None = None
    snippet = ""
    if problem is None:
        try:
            status, snippet = _post(delivery.endpoint.url, address, body, delivery_headers(delivery, body))
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
        else:
            error = "" if 200 <= status < 300 else f"HTTP {status}"
    else:
        error = problem
    done_at = timezone.now()
    wait = 0.0
    if not error:
        fields = {"status": WebhookDelivery.Status.DELIVERED, "delivered_at": done_at, "next_attempt_at": None}
        outcome = "delivered"
    elif problem is not None or delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        fields = {"status": WebhookDelivery.Status.FAILED, "next_attempt_at": None}
        outcome = "failed"
    else:
        wait = backoff_seconds(delivery.attempts, base=settings.WEBHOOK_BACKOFF_SECONDS)
        fields = {"status": WebhookDelivery.Status.RETRYING, "next_attempt_at": done_at + timedelta(seconds=wait)}
        outcome = "retry"
    WebhookDelivery.objects.filter(pk=delivery.pk, attempts=delivery.attempts).update(
        response_status=status, response_snippet=snippet, error=error, **fields)
    return outcome, wait


def webhook_deliveries_overdue(*, now: datetime | None = None) -> list[int]:
    """Open deliveries whose next attempt is well past due (its message lost, or its worker killed mid-call): the
    sweep sends them again; the claim keeps each attempt to one call."""
    late = (now or timezone.now()) - SWEEP_GRACE
    return list(WebhookDelivery.objects.filter(status__in=OPEN).filter(
        Q(next_attempt_at__lt=late) | Q(next_attempt_at__isnull=True, created_at__lt=late))
        .order_by("pk").values_list("pk", flat=True)[:1000])
