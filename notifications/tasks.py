"""Celery tasks for notifications: thin wrappers that own retries and call notifications.sending."""
from __future__ import annotations

import logging
import smtplib

from celery import shared_task

from notifications import sending

log = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True, max_retries=3)
def send_notice_email(self, notice_id: int) -> str:
    try:
        return sending.notice_email_send(notice_id=notice_id)
    except (smtplib.SMTPException, OSError) as exc:  # the mail server is away or refused: try again later
        if self.request.retries < self.max_retries:
            raise self.retry(exc=exc, countdown=60 * 2 ** self.request.retries) from exc
        log.exception("could not mail notice %s", notice_id)
        sending.notice_email_failed(notice_id=notice_id)
        return "failed"


@shared_task(bind=True, acks_late=True, max_retries=None)
def deliver_webhook(self, delivery_pk: int) -> str:
    """One attempt per run; the attempt count and the backoff live in the delivery row (WEBHOOK_MAX_ATTEMPTS)."""
    outcome, wait = sending.webhook_delivery_attempt(delivery_pk=delivery_pk)
    if outcome == "retry":
        raise self.retry(countdown=wait)
    return outcome


@shared_task
def resend_overdue_webhooks() -> list[int]:
    """The periodic sweep (beat): sends again the deliveries whose retry message was lost."""
    ids = sending.webhook_deliveries_overdue()
    for delivery_pk in ids:
        webhook_delivery_enqueue(delivery_pk=delivery_pk)
    return ids


def notice_email_enqueue(*, notice_id: int) -> None:
    send_notice_email.delay(notice_id)


def webhook_delivery_enqueue(*, delivery_pk: int) -> None:
    deliver_webhook.delay(delivery_pk)
