"""The site's ASGI application as the browser tests' shared daphne serves it (tests/conftest.py, `asgi_server`).

One server process serves every test of a run that asks for it, instead of one started per test (a Django import
and an application start each time). Between two tests the fixture asks it, on RESET_PATH, to forget what a
process of the site keeps in memory, so that no test sees what an earlier one left behind: the request waits until
no other request or websocket is open (the test's pages are closed by then), then clears the cache (the in-process
one of the embedded default; the shared one when configured), the board's per-process copies of responses and
split lookups, the engines built per device, the recent embeddings and the content types. The answer says how many
connections were still open when it gave up waiting: the fixture then starts a fresh server for the next test.

Nothing of the site imports this module; it is served only by the test fixture.
"""
from __future__ import annotations

import asyncio
import json
import time

from asgiref.sync import sync_to_async

from config.asgi import application as site_application

RESET_PATH = "/__tests__/reset"
QUIET_WAIT_SECONDS = 15.0

_open = 0  # requests and websockets of the site being served now (all on this process's one event loop)


async def application(scope, receive, send):
    global _open
    if scope["type"] == "http" and scope["path"] == RESET_PATH:
        return await _reset(send)
    _open += 1
    try:
        return await site_application(scope, receive, send)
    finally:
        _open -= 1


def _forget_process_state() -> None:
    from django.contrib.contenttypes.models import ContentType
    from django.core.cache import cache

    from annotation import embeddings
    from leaderboard.selectors import board_local_responses_clear
    from simulator.engines import engine_cache_clear

    cache.clear()
    board_local_responses_clear()
    engine_cache_clear()
    embeddings._recent.clear()
    ContentType.objects.clear_cache()


async def _reset(send) -> None:
    deadline = time.monotonic() + QUIET_WAIT_SECONDS
    while _open and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    still_open = _open
    await sync_to_async(_forget_process_state, thread_sensitive=False)()
    body = json.dumps({"open": still_open}).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
