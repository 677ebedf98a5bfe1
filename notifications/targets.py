"""Where notifications go: a webhook URL checked with its host resolved (at registration and before each call), and
the address of a submission's page that mail and webhook bodies give."""
from __future__ import annotations

import socket
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse

from notifications.core.addresses import addresses_problem, url_parts_problem


def webhook_url_problem(url: str, *, allow_private: bool | None = None) -> str | None:
    """Why the site will not call this URL, or None; resolves the host (every address it has must be allowed)."""
    problem = url_parts_problem(url)
    if problem:
        return problem
    parts = urlsplit(url)
    allow = settings.WEBHOOK_ALLOW_PRIVATE if allow_private is None else allow_private
    try:
        found = socket.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80),
                                   type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        return f"The host {parts.hostname!r} cannot be resolved ({exc})."
    return addresses_problem([info[4][0] for info in found], allow_private=allow)


def submission_url(submission_id: int) -> str:
    return settings.SITE_URL + reverse("submission-detail", args=[submission_id])
