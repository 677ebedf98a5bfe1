"""The agent API at the ASGI level (config/asgi.py wraps the site's HTTP side with it).

Admission: under ASGI, Django runs each request's sync part in a thread of its own, without a bound: two hundred
agents stepping at once meant two hundred threads taking turns at the GIL and at the database's lock, and each turn
of the one that held the lock waited behind all the others. Requests to /api/vge/ wait here instead, in the event
loop and at no cost, until one of AGENT_API_CONCURRENCY places is free; every request is served, in arrival order.

The act fast path: the one request a harness sends hundreds of times a second, `POST /api/vge/episodes/<id>/act/`
with a token and a JSON body whose output is plain text, is played here, on one of AGENT_API_CONCURRENCY threads:
the same token check (`CachedTokenAuthentication`), the same step (`services.episode_step`) and the same answer
(`api.act_answer`) as the DRF view, without the middleware stack, Django's request and DRF's dispatch around them
(more CPU than the step itself). Anything else (a session instead of a token, a form body, an output the
serializer must coerce or refuse) goes to the DRF view with its body unread, which words every error.
"""
from __future__ import annotations

import asyncio
import json
import logging
import re
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.db import close_old_connections
from rest_framework.exceptions import AuthenticationFailed

from config.asgi_http import header, read_body, replaying, respond
from scoring.auth import CachedTokenAuthentication
from simulator import services
from simulator.api import act_answer
from simulator.serializers import plain_act_output

AGENT_PREFIX = "/api/vge/"
ACT_PATH = re.compile(r"^/api/vge/episodes/([0-9]{1,18})/act/$")
JSON_TYPE = "application/json"

log = logging.getLogger("django.request")


def _token_key(scope) -> str | None:
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


def _act(key: str, episode_id: int, output: str) -> tuple[int, dict, tuple[tuple[bytes, bytes], ...]]:
    """One act request, as the DRF view answers it: status, body, extra headers. Connections are looked after as
    Django does around a request."""
    close_old_connections()
    try:
        try:
            user, _ = CachedTokenAuthentication().authenticate_credentials(key)
        except AuthenticationFailed as exc:
            return 401, {"detail": str(exc.detail)}, ((b"www-authenticate", b"Token"),)
        try:
            outcome, obs = services.episode_step(episode_id=episode_id, user=user, output=output)
        except services.EpisodeError as exc:
            return exc.status, {"detail": exc.message}, ()
        return 200, act_answer(outcome, obs), ()
    finally:
        close_old_connections()


def agent_admission(app, limit: int | None = None):
    places: asyncio.Semaphore | None = None
    threads: ThreadPoolExecutor | None = None

    async def application(scope, receive, send):
        nonlocal places, threads
        if scope.get("type") != "http" or not scope.get("path", "").startswith(AGENT_PREFIX):
            return await app(scope, receive, send)
        if places is None:
            size = limit or settings.AGENT_API_CONCURRENCY
            places = asyncio.Semaphore(size)
            threads = ThreadPoolExecutor(size, thread_name_prefix="agent-act")
        act = ACT_PATH.match(scope["path"]) if scope.get("method") == "POST" else None
        key = _token_key(scope) if act else None
        if key is None or not _is_json(scope):
            async with places:
                return await app(scope, receive, send)
        body, messages, whole = await read_body(receive, settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        try:
            output = plain_act_output(json.loads(body)) if whole else None
        except ValueError:  # not JSON, or not UTF-8
            output = None
        async with places:
            if output is None:
                return await app(scope, replaying(messages, receive), send)
            try:
                status, answer, extra = await asyncio.get_running_loop().run_in_executor(
                    threads, _act, key, int(act.group(1)), output)
            except Exception:  # noqa: BLE001 - logged as Django logs a failed request; the agent gets a 500
                log.exception("Internal Server Error: %s", scope["path"])
                status, answer, extra = 500, {"detail": "A server error occurred."}, ()
        body = json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
        await respond(send, status, body, JSON_TYPE, extra=extra)

    return application
