"""Mail when a submission is scored or fails, unless its owner turned it off."""
from __future__ import annotations

import pytest
from django.core import mail

from notifications.models import Notice
from scoring import pipeline
from tests.notifications.conftest import upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def with_email(user):
    user.email = "alice@example.org"
    user.save()
    return user


def score(submission_id: int, capture) -> str:
    with capture(execute=True):
        return pipeline.submission_score(submission_id=submission_id, worker="test")


def test_scored_and_failed_submissions_are_mailed_to_their_owner(
        token_client, with_email, notify_split, celery_eager, django_capture_on_commit_callbacks):
    good = upload(token_client)
    score(good, django_capture_on_commit_callbacks)
    bad = upload(token_client, b"abc\n")
    score(bad, django_capture_on_commit_callbacks)

    assert [m.to for m in mail.outbox] == [["alice@example.org"], ["alice@example.org"]]
    scored, failed = mail.outbox
    assert scored.subject.startswith(f"Submission #{good} is scored") and "Overall:" in scored.body
    assert f"/submissions/{good}/" in scored.body and "/notifications/" in scored.body
    assert failed.subject.startswith(f"Submission #{bad} failed") and "Why:" in failed.body
    assert set(Notice.objects.values_list("mail", flat=True)) == {"sent"}


def test_mail_turned_off_sends_none_and_says_so(client, token_client, with_email, notify_split, celery_eager,
                                                django_capture_on_commit_callbacks):
    client.force_login(with_email)
    response = client.post("/notifications/", {"action": "mail"})  # the box unticked
    assert response.status_code == 302
    assert token_client.get("/api/notifications/settings/").json() == {"email_on_finish": False}
    score(upload(token_client), django_capture_on_commit_callbacks)
    assert mail.outbox == []
    assert Notice.objects.get().mail == "off"
    assert "Turned off" in client.get("/notifications/").content.decode()

    assert token_client.patch("/api/notifications/settings/", {"email_on_finish": True},
                              format="json").json() == {"email_on_finish": True}
    score(upload(token_client), django_capture_on_commit_callbacks)
    assert len(mail.outbox) == 1


def test_an_account_without_an_address_gets_no_mail(token_client, notify_split, celery_eager,
                                                    django_capture_on_commit_callbacks):
    score(upload(token_client), django_capture_on_commit_callbacks)
    assert mail.outbox == [] and Notice.objects.get().mail == "no-address"
