"""An ASGI fast path for anonymous board pages: answered from the page cache before Django's middleware runs.

config/asgi.py wraps the site's HTTP side with it. A GET of /leaderboard/<slug>/ without session or message cookies whose
page is in the cache (same key as the view: split, scoring cache version, data fingerprint, full path) is
sent at once, with the headers Django's middleware would add; anything else goes to Django unchanged.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs

from django.conf import settings
from django.core.cache import cache

from leaderboard.selectors import board_page_key_cached

BOARD_PATH = re.compile(r"^/leaderboard/([-a-zA-Z0-9_]+)/$")


def _headers(length: int) -> list[tuple[bytes, bytes]]:
    headers = [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-length", str(length).encode()),
        (b"x-frame-options", getattr(settings, "X_FRAME_OPTIONS", "DENY").encode()),
        (b"x-content-type-options", b"nosniff"),
    ]
    if getattr(settings, "SECURE_REFERRER_POLICY", None):
        headers.append((b"referrer-policy", settings.SECURE_REFERRER_POLICY.encode()))
    if getattr(settings, "SECURE_CROSS_ORIGIN_OPENER_POLICY", None):
        headers.append((b"cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode()))
    return headers


def _cached_page(scope) -> bytes | None:
    if scope.get("type") != "http" or scope.get("method") != "GET":
        return None
    match = BOARD_PATH.match(scope.get("path", ""))
    if match is None:
        return None
    for name, value in scope.get("headers", ()):
        if name == b"cookie" and (b"sessionid=" in value or b"messages=" in value):
            return None
    query = scope.get("query_string", b"").decode("latin-1")
    split = (parse_qs(query).get("split") or [""])[0] or None
    full_path = scope["path"] + (f"?{query}" if query else "")
    key = board_page_key_cached(slug=match.group(1), split_name=split, full_path=full_path)
    return cache.get(key) if key else None


def board_fast_path(app):
    async def application(scope, receive, send):
        page = _cached_page(scope)
        if page is None:
            return await app(scope, receive, send)
        await send({"type": "http.response.start", "status": 200, "headers": _headers(len(page))})
        await send({"type": "http.response.body", "body": page})

    return application

