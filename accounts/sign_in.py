"""Sign-in locks (django-axes counts the failures): which are in force, and a curator lifting one."""
from __future__ import annotations

import logging
from datetime import timedelta

from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils import timezone

log = logging.getLogger(__name__)


def cool_off_minutes() -> int:
    return max(1, round(settings.AXES_COOLOFF_TIME / timedelta(minutes=1)))


def sign_in_locks() -> QuerySet[AccessAttempt]:
    """The username + address pairs locked now: at the failure limit within the cool-off."""
    return AccessAttempt.objects.filter(
        failures_since_start__gte=settings.AXES_FAILURE_LIMIT,
        attempt_time__gte=timezone.now() - settings.AXES_COOLOFF_TIME,
    ).order_by("-attempt_time")


def sign_in_lock_lift(*, user: AbstractBaseUser, attempt_id: int) -> AccessAttempt | None:
    """Forget the failures of one username + address pair (the caller has checked `user` is a curator)."""
    attempt = AccessAttempt.objects.filter(pk=attempt_id).first()
    if attempt is None:
        return None
    reset(ip=attempt.ip_address, username=attempt.username)
    log.warning("sign-in lock of %r from %s lifted by %s", attempt.username, attempt.ip_address, user)
    return attempt
