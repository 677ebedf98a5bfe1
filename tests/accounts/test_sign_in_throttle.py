"""Sign-ins are throttled (issue 26, finding 14): 50 wrong passwords in 48 s, then the right one, used to log in.

django-axes counts failures per username and address together; at AXES_FAILURE_LIMIT the pair is locked for the
cool-off, the page says so, and a curator lifts it on /accounts/lockouts/ (or in axes' admin)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import Group
from django.utils import timezone

from accounts.roles import CURATOR

LOCKED = "Too many failed sign-ins for this account; try again in 15 minutes or ask a curator"


def sign_in(client, password, username="alice", ip="203.0.113.7", path="/accounts/login/"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=ip)


def signed_in_as(client):
    return client.session.get("_auth_user_id")


def fail(client, times, **kwargs):
    return [sign_in(client, "wrong", **kwargs).status_code for _ in range(times)]


@pytest.mark.django_db
def test_the_right_password_after_too_many_wrong_ones_is_refused_saying_why(client, user, settings):
    assert set(fail(client, settings.AXES_FAILURE_LIMIT - 1)) == {200}  # the form again, with its error
    response = sign_in(client, "wrong")
    assert response.status_code == 429 and LOCKED in response.content.decode()
    response = sign_in(client, "pw-alice-123")
    assert response.status_code == 429 and LOCKED in response.content.decode()
    assert signed_in_as(client) is None
    assert client.get("/accounts/token/").status_code == 302  # the token page is behind the same sign-in


@pytest.mark.django_db
def test_fewer_failures_than_the_limit_still_let_the_owner_in(client, user, settings):
    fail(client, settings.AXES_FAILURE_LIMIT - 1)
    assert sign_in(client, "pw-alice-123").status_code == 302
    assert signed_in_as(client) == str(user.pk)


@pytest.mark.django_db
def test_the_lock_holds_the_username_and_address_together(client, user, other_user, settings):
    """Locking a username everywhere would let anyone lock out anyone (a curator before a deadline); locking an
    address would lock out a whole lab behind one NAT."""
    fail(client, settings.AXES_FAILURE_LIMIT)
    assert sign_in(client, "pw-alice-123").status_code == 429
    assert sign_in(client, "pw-alice-123", ip="198.51.100.2").status_code == 302
    client.logout()
    assert sign_in(client, "pw-bob-123", username="bob").status_code == 302


@pytest.mark.django_db
def test_the_lock_ends_after_the_cool_off(client, user, settings):
    fail(client, settings.AXES_FAILURE_LIMIT)
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1))
    assert sign_in(client, "pw-alice-123").status_code == 302


@pytest.mark.django_db
def test_the_admin_sign_in_is_throttled_too(client, user, settings):
    fail_admin = [sign_in(client, "wrong", path="/admin/login/") for _ in range(settings.AXES_FAILURE_LIMIT)]
    assert fail_admin[-1].status_code == 429
    assert sign_in(client, "pw-alice-123").status_code == 429


@pytest.mark.django_db
def test_a_curator_lifts_a_lock(client, user, other_user, settings):
    fail(client, settings.AXES_FAILURE_LIMIT)
    other_user.groups.add(Group.objects.get_or_create(name=CURATOR)[0])
    curator = client.__class__()
    curator.force_login(other_user)
    page = curator.get("/accounts/lockouts/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "alice" in html and "203.0.113.7" in html
    attempt = AccessAttempt.objects.get(username="alice")
    assert curator.post("/accounts/lockouts/", {"attempt": attempt.pk}).status_code == 302
    assert not AccessAttempt.objects.filter(username="alice").exists()
    assert sign_in(client, "pw-alice-123").status_code == 302


@pytest.mark.django_db
def test_only_curators_see_the_lockouts(client, user, other_user, settings):
    fail(client, settings.AXES_FAILURE_LIMIT)
    client.force_login(other_user)
    assert client.get("/accounts/lockouts/").status_code == 404
    attempt = AccessAttempt.objects.get(username="alice")
    assert client.post("/accounts/lockouts/", {"attempt": attempt.pk}).status_code == 404
    assert AccessAttempt.objects.filter(username="alice").exists()
    client.logout()
    assert client.get("/accounts/lockouts/").status_code == 302  # to the sign-in
