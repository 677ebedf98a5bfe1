"""An ASGI fast path for board reads: answered from the response cache before Django's middleware runs.

config/asgi.py wraps the site's HTTP side with it. A GET whose response is in the cache (same key as the view:
split, scoring cache version, data fingerprint, full path) is sent at once, with the headers Django's middleware
would add; anything else goes to Django unchanged. That is: /leaderboard/<slug>/ without session or message
cookies (the page of an anonymous reader), and, for anyone, the board API /api/leaderboards/<slug>/ (JSON; not a
browser asking for the browsable page) and the exports /leaderboard/<slug>/export.csv|json.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs

from leaderboard.selectors import CachedResponse, board_page_key_cached, board_response_get
from scoring.asgi_http import respond

BOARD_PATH = re.compile(r"^/leaderboard/([-a-zA-Z0-9_]+)/$")
# Reads that are the same for every reader (cached as a CachedResponse by their views).
SHARED_PATHS = (re.compile(r"^/api/leaderboards/([-a-zA-Z0-9_]+)/$"),
                re.compile(r"^/leaderboard/([-a-zA-Z0-9_]+)/export\.(?:csv|json)$"))
PAGE_TYPE = "text/html; charset=utf-8"


def _cached_page(scope) -> bytes | None:
    """The cached page of an anonymous board read (None: let Django answer)."""
    found = _cached(scope)
    return found if isinstance(found, bytes) else None


def _cached(scope) -> bytes | CachedResponse | None:
    if scope.get("type") != "http" or scope.get("method") != "GET":
        return None
    path = scope.get("path", "")
    match = BOARD_PATH.match(path)
    if match is not None:
        for name, value in scope.get("headers", ()):
            if name == b"cookie" and (b"sessionid=" in value or b"messages=" in value):
                return None
        expected: type = bytes
    else:
        match = next((m for pattern in SHARED_PATHS if (m := pattern.match(path))), None)
        if match is None:
            return None
        if path.startswith("/api/") and any(name == b"accept" and b"text/html" in value
                                            for name, value in scope.get("headers", ())):
            return None  # a browser: DRF's browsable page
        expected = CachedResponse
    query = scope.get("query_string", b"").decode("latin-1")
    split = (parse_qs(query).get("split") or [""])[0] or None
    full_path = path + (f"?{query}" if query else "")
    key = board_page_key_cached(slug=match.group(1), split_name=split, full_path=full_path)
    found = board_response_get(key) if key else None
    return found if isinstance(found, expected) else None


def board_fast_path(app):
    async def application(scope, receive, send):
        found = _cached(scope)
        if found is None:
            return await app(scope, receive, send)
        if isinstance(found, CachedResponse):
            await respond(send, 200, found.body, found.content_type, filename=found.filename)
        else:
            await respond(send, 200, found, PAGE_TYPE)

    return application

