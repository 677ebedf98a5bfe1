"""Where notifications go: a webhook URL checked with its host resolved (at registration and before each call, which
connects to the address checked), and
the address of a submission's page that mail and webhook bodies give."""
from __future__ import annotations

import socket
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse

from notifications.core.addresses import addresses_problem, url_parts_problem


def webhook_url_problem(url: str, *, allow_private: bool | None = None) -> str | None:
    """Why the site will not call this URL, or None; resolves the host (every address it has must be allowed)."""
    return webhook_address(url, allow_private=allow_private)[0]


def webhook_address(url: str, *, allow_private: bool | None = None) -> tuple[str | None, str]:
    """Why the site will not call this URL (or None), and the address the call is to connect to: the first of those
    the host resolved to now, every one of them allowed. The call connects to that address, not to the host's
    name resolved again (a name whose answer changes between the check and the call, DNS rebinding, reaches no
    address the check did not allow)."""
    problem = url_parts_problem(url)
    if problem:
        return problem, ""
    parts = urlsplit(url)
    allow = settings.WEBHOOK_ALLOW_PRIVATE if allow_private is None else allow_private
    try:
        found = socket.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80),
                                   type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        return f"The host {parts.hostname!r} cannot be resolved ({exc}).", ""
    addresses = [str(info[4][0]) for info in found]
    problem = addresses_problem(addresses, allow_private=allow)
    return problem, "" if problem else addresses[0]


def submission_url(submission_id: int) -> str:
    return settings.SITE_URL + reverse("submission-detail", args=[submission_id])
