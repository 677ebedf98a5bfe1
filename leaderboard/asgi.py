"""An ASGI fast path for board reads: answered from the response cache before Django's middleware runs.

config/asgi.py wraps the site's HTTP side with it. A GET whose response is in the cache (same key as the view:
split, scoring cache version, data fingerprint, full path) is sent at once, with the headers Django's middleware
would add; anything else goes to Django unchanged. It answers for the views that cache their whole response
(FAST_READS), on their routes as the URLconf has them (scoring.asgi_http.ViewRoutes: a route renamed or moved in
urls.py takes the fast path with it): the board page of an anonymous reader (no session or message cookie), and,
for anyone, the board API (JSON; not a browser asking for the browsable page) and the exports.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from leaderboard import api, board_views
from leaderboard.selectors import CachedResponse, board_page_key_cached, board_response_get
from scoring.asgi_http import ViewRoutes, respond

PAGE_TYPE = "text/html; charset=utf-8"
# The views whose whole response is cached, by what the fast path finds in the cache for them: the view's keyword
# argument naming the benchmark, and the cached value's type (a page's bytes, or a CachedResponse).
FAST_READS: dict[Any, tuple[str, type]] = {
    board_views.board: ("slug", bytes),
    board_views.board_export: ("slug", CachedResponse),
    api.LeaderboardApi: ("benchmark", CachedResponse),
}


FAST_ROUTES = ViewRoutes(FAST_READS)


def _fast_read(path: str) -> tuple[Any, str, type] | None:
    """The fast-path view the URLconf routes this path to, with the benchmark's slug and the cached value's type."""
    match = FAST_ROUTES.match(path)
    if match is None:
        return None
    view, kwargs = match
    argument, expected = FAST_READS[view]
    return view, kwargs[argument], expected


def _cached_page(scope) -> bytes | None:
    """The cached page of an anonymous board read (None: let Django answer)."""
    found = _cached(scope)
    return found if isinstance(found, bytes) else None


def _cached(scope) -> bytes | CachedResponse | None:
    if scope.get("type") != "http" or scope.get("method") != "GET":
        return None
    path = scope.get("path", "")
    read = _fast_read(path)
    if read is None:
        return None
    view, slug, expected = read
    if view is board_views.board:
        for name, value in scope.get("headers", ()):
            if name == b"cookie" and (b"sessionid=" in value or b"messages=" in value):
                return None
    if view is api.LeaderboardApi and any(name == b"accept" and b"text/html" in value
                                          for name, value in scope.get("headers", ())):
        return None  # a browser: DRF's browsable page
    query = scope.get("query_string", b"").decode("latin-1")
    split = (parse_qs(query).get("split") or [""])[0] or None
    full_path = path + (f"?{query}" if query else "")
    key = board_page_key_cached(slug=slug, split_name=split, full_path=full_path)
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
