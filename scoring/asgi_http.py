"""What the ASGI fast paths (leaderboard.asgi, simulator.asgi) share: which of their views the URLconf routes a path
to, the headers Django's middleware would add to a response, sending one whole response, and reading a request body
that can still be handed to Django unread."""
from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

Receive = Callable[[], Awaitable[dict]]
# A route: the text every path it matches starts with, how much of it plain prefixes (includes) take, the patterns
# left to match after them, and the view.
Route = tuple[str, int, tuple[URLResolver | URLPattern, ...], Any]
REGEX_LITERAL = re.compile(r"\^?([-/\w]*)")


def view_of(callback) -> Any:
    """What a route calls, as the fast paths name it: the function, or a class-based (DRF) view's class."""
    return getattr(callback, "view_class", callback)


def _literal(step: URLResolver | URLPattern) -> tuple[str, bool]:
    """The plain text a pattern starts with, and whether that is all of it."""
    if isinstance(step.pattern, RoutePattern):
        head, converter, _ = str(step.pattern).partition("<")
        return head, not converter
    source = step.pattern.regex.pattern
    plain = REGEX_LITERAL.match(source)
    return plain.group(1), plain.end() == len(source)


def _route(chain: tuple, view: Any) -> Route:
    prefix, skipped, steps = "", 0, list(chain)
    while steps and isinstance(steps[0], URLResolver) and not steps[0].default_kwargs and _literal(steps[0])[1]:
        skipped += len(_literal(steps.pop(0))[0])  # a plain include prefix ("", "accounts/"): nothing to capture
    prefix = "".join(_literal(step)[0] for step in chain[:len(chain) - len(steps)])
    for step in steps:
        text, whole = _literal(step)
        prefix += text
        if not whole:
            break
    return prefix, skipped, tuple(steps), view


def _routes_to(views: frozenset, resolver: URLResolver, chain: tuple) -> Iterator[Route]:
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes_to(views, pattern, (*chain, pattern))
        elif view_of(pattern.callback) in views:
            yield _route((*chain, pattern), view_of(pattern.callback))


class ViewRoutes:
    """The URLconf's routes to a few views, matched with the URLconf's own patterns and converters (so a route renamed
    or moved in urls.py takes its fast path with it), without trying every other route as `resolve()` does for each
    request (~15x slower). Found on first use, and again when the URLconf changes (a test's ROOT_URLCONF).

    A path shadowed by an earlier route would match here and not in Django; the fast paths answer only what the view
    itself stored for that path (boards) or what its view answers anyway (the agent API's token requests)."""

    def __init__(self, views: Iterable) -> None:
        self.views = frozenset(views)
        self._resolver: URLResolver | None = None
        self._routes: list[Route] = []

    def routes(self) -> list[Route]:
        resolver = get_resolver()
        if resolver is not self._resolver:
            self._routes = list(_routes_to(self.views, resolver, (resolver,)))
            self._resolver = resolver
        return self._routes

    def match(self, path: str) -> tuple[Any, dict[str, Any]] | None:
        """The view this path is routed to, with its keyword arguments (None: none of these views)."""
        for prefix, skipped, steps, view in self.routes():
            if not path.startswith(prefix):
                continue
            rest, kwargs = path[skipped:], {}
            for step in steps:
                found = step.pattern.match(rest)
                if found is None:
                    break
                rest, _, captured = found
                kwargs.update(captured)
                kwargs.update(step.default_kwargs if isinstance(step, URLResolver) else step.default_args)
            else:
                return view, kwargs
        return None


def response_headers(length: int, content_type: str, *, filename: str = "",
                     extra: tuple[tuple[bytes, bytes], ...] = ()) -> list[tuple[bytes, bytes]]:
    headers = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(length).encode()),
        (b"x-frame-options", getattr(settings, "X_FRAME_OPTIONS", "DENY").encode()),
        (b"x-content-type-options", b"nosniff"),
    ]
    if getattr(settings, "SECURE_REFERRER_POLICY", None):
        headers.append((b"referrer-policy", settings.SECURE_REFERRER_POLICY.encode()))
    if getattr(settings, "SECURE_CROSS_ORIGIN_OPENER_POLICY", None):
        headers.append((b"cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode()))
    if filename:
        headers.append((b"content-disposition", f'attachment; filename="{filename}"'.encode()))
    headers.extend(extra)
    return headers


async def respond(send, status: int, body: bytes, content_type: str, **header_options) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": response_headers(len(body), content_type, **header_options)})
    await send({"type": "http.response.body", "body": body})


def header(scope, name: bytes) -> bytes | None:
    """The value of a request header (the first, if repeated)."""
    return next((value for key, value in scope.get("headers", ()) if key == name), None)


async def read_body(receive: Receive, limit: int) -> tuple[bytes, list[dict], bool]:
    """The request body, the messages it came in (to replay to Django when the fast path declines), and whether it
    was read whole: reading stops past `limit` bytes or at a disconnect, and Django gets what was read and the rest."""
    messages: list[dict] = []
    size = 0
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return b"", messages, False
        size += len(message.get("body", b""))
        if size > limit:
            return b"", messages, False
        if not message.get("more_body", False):
            return b"".join(m.get("body", b"") for m in messages), messages, True


def replaying(messages: list[dict], receive: Receive) -> Receive:
    """A `receive` that first gives back the messages already read."""
    pending = list(messages)

    async def replay() -> dict:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
