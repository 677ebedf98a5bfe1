"""Shared fixtures. Integration tests need the real services named in the environment: without them they skip
with the reason, except under CI (CI=true), where a missing service fails the run."""
from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

import pytest

SERVICE_VARS = ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL")
DEFAULT_PORTS = {"postgres": 5432, "postgresql": 5432, "redis": 6379, "amqp": 5672, "pyamqp": 5672}


def _unreachable_services() -> list[str]:
    problems = []
    for var in SERVICE_VARS:
        url = os.environ.get(var, "")
        parsed = urlparse(url)
        if parsed.scheme not in DEFAULT_PORTS:
            continue
        host, port = parsed.hostname or "127.0.0.1", parsed.port or DEFAULT_PORTS[parsed.scheme]
        try:
            socket.create_connection((host, port), timeout=2).close()
        except OSError as exc:
            problems.append(f"{var}={url} ({host}:{port}: {exc})")
    return problems


def _needs_services(item: pytest.Item) -> bool:
    return item.get_closest_marker("integration") is not None or any(
        urlparse(os.environ.get(var, "")).scheme in DEFAULT_PORTS for var in SERVICE_VARS
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    integration = [item for item in items if item.get_closest_marker("integration")]
    configured = any(urlparse(os.environ.get(var, "")).scheme in DEFAULT_PORTS for var in SERVICE_VARS)
    if not integration and not configured:
        return
    if integration and not configured:
        reason = "integration test: set DATABASE_URL / CELERY_BROKER_URL / REDIS_URL to real services (make test does)"
        problems = [reason]
    else:
        problems = _unreachable_services()
    if not problems:
        return
    message = "services unreachable: " + "; ".join(problems)
    if os.environ.get("CI", "").lower() == "true":
        raise pytest.UsageError(f"CI=true and {message}")
    for item in items:
        if _needs_services(item):
            item.add_marker(pytest.mark.skip(reason=message))


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path_factory):
    """Every test writes files under its own folder, never into var/media."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def token_client(api_client, user):
    from rest_framework.authtoken.models import Token

    token = Token.objects.create(user=user)
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return api_client
