"""The API token cache never outlives the database rows it stands for (issue 26, finding 11).

The embedded default's cache is in each process's memory: a user deactivated or deleted by another process (the
admin in the web process, a shell, a raw SQL update, `QuerySet.update()`, none of which reach this process's
signals) was still let in for up to a minute, and a deleted user's upload answered 500 (IntegrityError)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.test import APIClient

from accounts.auth import CachedTokenAuthentication
from scoring.models import Submission
from tests.scoring.factories import SampleFactory, SplitFactory

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def split(dummy_benchmark):
    split = SplitFactory(benchmark__slug="dummy-bench", benchmark__scorer="dummy", name="test")
    SampleFactory(split=split, key="k0", position=0)
    return split


def upload(client):
    return client.post("/api/submissions/", {"benchmark": "dummy-bench", "split": "test", "model": "Cache-VLM",
                                             "file": SimpleUploadedFile("p.txt", b"1\n")}, format="multipart")


def mine(client):
    return client.get("/api/submissions/mine/")


def authenticated(key: str):
    """The user the agent API's fast path (simulator.asgi) would play as, or None (its 401)."""
    try:
        return CachedTokenAuthentication().authenticate_credentials(key)[0]
    except AuthenticationFailed:
        return None


def raw_sql(sql: str, *params) -> None:
    """A change no signal of this process hears, as another process's would be."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.mark.django_db
def test_a_user_deactivated_behind_the_caches_back_is_refused_at_once(token_client, split, user):
    key = Token.objects.get(user=user).key
    assert mine(token_client).status_code == 200 and authenticated(key) == user  # the token's user is cached now
    raw_sql("UPDATE auth_user SET is_active = %s WHERE id = %s", False, user.pk)
    response = upload(token_client)
    assert response.status_code == 401 and response.json()["detail"] == "User inactive or deleted."
    assert authenticated(key) is None
    assert not Submission.objects.exists()


@pytest.mark.django_db
def test_a_deleted_users_token_answers_401_not_500(token_client, split, user):
    key = Token.objects.get(user=user).key
    assert mine(token_client).status_code == 200 and authenticated(key) == user
    raw_sql("DELETE FROM authtoken_token WHERE user_id = %s", user.pk)
    raw_sql("DELETE FROM auth_user WHERE id = %s", user.pk)
    response = upload(token_client)
    assert response.status_code == 401 and response.json()["detail"] == "Invalid token."
    assert authenticated(key) is None


@pytest.mark.django_db
def test_a_user_made_staff_or_no_longer_staff_is_seen_at_once(token_client, split, user):
    key = Token.objects.get(user=user).key
    assert not authenticated(key).is_staff
    raw_sql("UPDATE auth_user SET is_staff = %s WHERE id = %s", True, user.pk)
    assert authenticated(key).is_staff
    raw_sql("UPDATE auth_user SET is_staff = %s WHERE id = %s", False, user.pk)
    assert not authenticated(key).is_staff


def database_url() -> str:
    settings = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{settings['NAME']}"
    user = settings["USER"] + (f":{settings['PASSWORD']}" if settings["PASSWORD"] else "")
    return f"postgres://{user}@{settings['HOST'] or '127.0.0.1'}:{settings['PORT'] or 5432}/{settings['NAME']}"


@pytest.mark.django_db(transaction=True)
def test_a_user_deactivated_by_another_process_is_refused_here_at_once(split, user):
    """The admin's save in one process: its signal empties that process's cache only, never this one's."""
    key = Token.objects.create(user=user).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert mine(client).status_code == 200 and authenticated(key) == user
    script = ("from django.contrib.auth.models import User; u = User.objects.get(username='alice'); "
              "u.is_active = False; u.save()")
    env = {**os.environ, "DATABASE_URL": database_url(), "DJANGO_SETTINGS_MODULE": "config.settings"}
    subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env, check=True, timeout=120)
    assert upload(client).status_code == 401
    assert authenticated(key) is None
