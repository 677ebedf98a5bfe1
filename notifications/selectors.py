"""Reads: a user's notification settings, webhook endpoints, their delivery log and the notices sent."""
from __future__ import annotations

from django.db.models import QuerySet

from notifications.models import Notice, NotificationSettings, WebhookDelivery, WebhookEndpoint

LOG_SHOWN = 100  # deliveries of an endpoint listed, newest first


def notification_settings_of(*, user) -> NotificationSettings:
    """The user's settings; the defaults (unsaved) for a user who never chose."""
    found = NotificationSettings.objects.filter(user=user).first()
    return found if found is not None else NotificationSettings(user=user)


def endpoints_of(*, user) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(user=user).order_by("created_at", "id")


def endpoint_of(*, user, pk: int) -> WebhookEndpoint | None:
    """The user's endpoint `pk`, or None (someone else's is not found, as a missing one)."""
    return WebhookEndpoint.objects.filter(user=user, pk=pk).first()


def deliveries_of(*, endpoint: WebhookEndpoint, limit: int = LOG_SHOWN) -> QuerySet[WebhookDelivery]:
    return endpoint.deliveries.select_related("notice").order_by("-created_at", "-id")[:limit]


def notices_of(*, user, limit: int = 50) -> QuerySet[Notice]:
    return Notice.objects.filter(user=user).select_related("submission__split__benchmark")[:limit]
