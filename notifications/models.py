"""What a user is told when a submission of theirs is scored, fails or is re-scored: by mail (unless turned off)
and by signed webhooks to the URLs they registered, each call logged."""
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from scoring.models import Submission


class Event(models.TextChoices):
    SCORED = "scored", "Scored"
    FAILED = "failed", "Failed"
    RESCORED = "re-scored", "Re-scored"


class NotificationSettings(models.Model):
    """A user's choices; a user without a row gets the defaults (mail on)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings")
    email_on_finish = models.BooleanField(default=True, help_text="Mail me when a submission is scored, fails or is "
                                                                  "re-scored.")

    class Meta:
        verbose_name_plural = "notification settings"

    def __str__(self) -> str:
        return f"{self.user}: mail {'on' if self.email_on_finish else 'off'}"


class WebhookEndpoint(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=200, blank=True)
    events = models.JSONField(default=list, help_text="The events sent here: scored, failed, re-scored.")
    # Kept to sign each call (an HMAC needs the secret itself); shown to its owner once, when made or replaced.
    secret = models.CharField(max_length=100)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["user", "created_at", "id"]

    def __str__(self) -> str:
        return f"{self.user}: {self.url}"


class Notice(models.Model):
    """One event about one submission, once: mailed (or not, and why) and sent to each subscribed endpoint."""

    class Mail(models.TextChoices):
        PENDING = "pending", "To be sent"
        SENT = "sent", "Sent"
        OFF = "off", "Turned off"
        NO_ADDRESS = "no-address", "No address on the account"
        FAILED = "failed", "Could not be sent"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices")
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="notices")
    event = models.CharField(max_length=20, choices=Event.choices)
    mail = models.CharField(max_length=20, choices=Mail.choices, default=Mail.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # "scored" and "failed" happen once to a submission (a later score of it is "re-scored")
            models.UniqueConstraint(fields=["submission", "event"], condition=Q(event__in=["scored", "failed"]),
                                    name="notice_once_per_submission"),
        ]

    def __str__(self) -> str:
        return f"{self.event}: submission {self.submission_id}"


class WebhookDelivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RETRYING = "retrying", "Retrying"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    notice = models.ForeignKey(Notice, on_delete=models.CASCADE, related_name="deliveries")
    delivery_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    event = models.CharField(max_length=20, choices=Event.choices)
    body = models.TextField(help_text="The exact JSON sent (every attempt sends these bytes and this signature).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    response_status = models.PositiveIntegerField(null=True, blank=True, help_text="The last attempt's HTTP status.")
    response_snippet = models.TextField(blank=True, help_text="The start of the last attempt's response body.")
    error = models.TextField(blank=True, help_text="Why the last attempt failed, if it did.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"{self.event} to {self.endpoint.url}: {self.status}"
