"""The agent API at the ASGI level (config/asgi.py wraps the site's HTTP side with it).

Admission: under ASGI, Django runs each request's sync part in a thread of its own, without a bound: two hundred
agents stepping at once meant two hundred threads taking turns at the GIL and at the database's lock, and each turn
of the one that held the lock waited behind all the others. Requests to /api/vge/ wait here instead, in the event
loop and at no cost, until one of AGENT_API_CONCURRENCY places is free; every request is served, in arrival order.

The fast path: the two requests a harness sends hundreds of times a second, an act (`api.EpisodeActApi`, `POST
/api/vge/episodes/<id>/act/`) with a plain text output and a start (`api.EpisodeCreateApi`, `POST /api/vge/episodes/`),
with a token and a JSON object body, are played here (their routes as the URLconf has them,
scoring.asgi_http.ViewRoutes), as jobs of the agent writer (simulator.agent_writer: one thread, batches of jobs in one
transaction, each answered once its batch has committed): the same token check (`CachedTokenAuthentication`) and the
same answers (`api.step_answer`, `api.start_answer`) as the DRF views, without the middleware stack, Django's request
and DRF's dispatch around them (more CPU than the step itself). Anything else (a session instead of a token, a form body,
an output the serializer must coerce or refuse) goes to the DRF view with its body unread, which words every error.
"""
from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import close_old_connections
from rest_framework.exceptions import AuthenticationFailed

from accounts.auth import CachedTokenAuthentication
from scoring.asgi_http import ViewRoutes, header, read_body, replaying, respond
from simulator import api
from simulator.agent_writer import writer
from simulator.serializers import plain_act_output

# Admission covers the whole agent API (every route to simulator.api's views lies under it: tests/simulator).
AGENT_PREFIX = "/api/vge/"
FAST_ROUTES = ViewRoutes([api.EpisodeCreateApi, api.EpisodeActApi])
# An episode id of more than 18 digits goes to the DRF view, as it always has.
LARGEST_ID = 10**18 - 1
JSON_TYPE = "application/json"

log = logging.getLogger("django.request")
# An agent's answer as compact JSON text, for the HTTP fast path and the agent socket: json.dumps with options builds
# a new encoder at every call; this one is built once (the same text).
compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
Answer = tuple[int, dict, tuple[tuple[bytes, bytes], ...]]


def token_key(scope) -> str | None:
    """The key of an `Authorization: Token <key>` header as DRF reads it (None: not that form)."""
    parts = (header(scope, b"authorization") or b"").split()
    if len(parts) != 2 or parts[0].lower() != b"token":
        return None
    try:
        return parts[1].decode()
    except UnicodeDecodeError:
        return None


def _is_json(scope) -> bool:
    content_type = (header(scope, b"content-type") or b"").split(b";")[0].strip().lower()
    return content_type == JSON_TYPE.encode()


def fast_route(path: str) -> tuple[type, dict[str, Any]] | None:
    """The fast-path view this path is routed to, with its arguments (None: not one the fast path plays)."""
    match = FAST_ROUTES.match(path)
    if match is None or match[1].get("pk", 0) > LARGEST_ID:
        return None
    return match


def fast_operation(route: tuple[type, dict[str, Any]], data) -> Callable[[Any], tuple[int, dict]] | None:
    """What the fast path plays for this route and parsed body, given the user (None: the DRF view answers)."""
    if not isinstance(data, dict):
        return None
    view, kwargs = route
    if view is api.EpisodeCreateApi:
        return lambda user: api.start_answer(user=user, data=data, in_batch=True)
    output = plain_act_output(data)
    if output is None:
        return None
    return lambda user: api.step_answer(user=user, episode_id=kwargs["pk"], output=output, in_batch=True)


def with_connections(call: Callable[[], Any]) -> Any:
    """`call()` in a worker thread, its database connections looked after as Django does around a request (the fast
    path here and the agent socket, simulator.agent_socket)."""
    close_old_connections()
    try:
        return call()
    finally:
        close_old_connections()


def fast_played(key: str, operation: Callable[[Any], tuple[int, dict]]) -> Answer:
    """One request, as the DRF view answers it: status, body, extra headers. Played as a job of the agent writer
    (simulator.agent_writer), inside its batch's transaction."""
    try:
        user, _ = CachedTokenAuthentication().authenticate_credentials(key)
    except AuthenticationFailed as exc:
        return 401, {"detail": str(exc.detail)}, ((b"www-authenticate", b"Token"),)
    status, body = operation(user)
    return status, body, ()


def agent_admission(app, limit: int | None = None):
    places: asyncio.Semaphore | None = None

    async def application(scope, receive, send):
        nonlocal places
        if scope.get("type") != "http" or not scope.get("path", "").startswith(AGENT_PREFIX):
            return await app(scope, receive, send)
        if places is None:
            places = asyncio.Semaphore(limit or settings.AGENT_API_CONCURRENCY)
        path = scope["path"]
        route = fast_route(path) if scope.get("method") == "POST" else None
        key = token_key(scope) if route else None
        if key is None or not _is_json(scope):
            async with places:
                return await app(scope, receive, send)
        body, messages, whole = await read_body(receive, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        try:
            operation = fast_operation(route, json.loads(body)) if whole else None
        except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested past the parser's depth
            operation = None
        if operation is None:
            async with places:
                return await app(scope, replaying(messages, receive), send)
        # No place needed: the writer's one thread plays the jobs of every waiting request together, in order
        try:
            status, answer, extra = await writer.run(lambda: fast_played(key, operation))
        except Exception:  # logged as Django logs a failed request; the agent gets a 500
            log.exception("Internal Server Error: %s", path)
            status, answer, extra = 500, {"detail": "A server error occurred."}, ()
        body = compact_json(answer).encode()
        await respond(send, status, body, JSON_TYPE, extra=extra)

    return application
