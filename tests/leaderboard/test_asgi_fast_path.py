"""The ASGI fast path answers anonymous board reads from the page cache, exactly as the view would."""
import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import cache

from config.asgi import application
from leaderboard.asgi import _cached_page
from scoring.selectors import board_cache_invalidate
from tests.leaderboard.conftest import make_entry, make_reported, make_scored, random_scores


def http_scope(path, query=b"", cookie=None):
    headers = [(b"host", b"127.0.0.1")]
    if cookie:
        headers.append((b"cookie", cookie))
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
            "path": path, "raw_path": path.encode(), "root_path": "", "query_string": query, "headers": headers,
            "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}


def get(scope) -> tuple[int, bytes]:
    async def call():
        sent = []
        done = asyncio.Event()
        requested = []

        async def receive():
            if not requested:
                requested.append(True)
                return {"type": "http.request", "body": b"", "more_body": False}
            await done.wait()  # the client stays until the response is complete, then goes
            return {"type": "http.disconnect"}

        async def send(message):
            sent.append(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                done.set()

        await application(scope, receive, send)
        status = next(m["status"] for m in sent if m["type"] == "http.response.start")
        return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")

    with ThreadPoolExecutor(1) as pool:  # a fresh loop, whatever the test runner left in this thread
        return pool.submit(asyncio.run, call()).result()


@pytest.fixture(autouse=True)
def _clear_cache():
    cache.clear()


@pytest.mark.django_db(transaction=True)
def test_second_anonymous_read_comes_from_the_fast_path_with_the_same_page(epic_split):
    make_reported(epic_split, make_entry("Fast-VL"), 33.0)
    scope = http_scope("/leaderboard/epic-bench/", b"kind=open-source")
    assert _cached_page(scope) is None
    status, body = get(scope)
    assert status == 200 and b"Fast-VL" in body
    assert _cached_page(scope) == body
    assert get(scope) == (200, body)


@pytest.mark.django_db(transaction=True)
def test_a_new_score_or_a_signed_in_reader_bypasses_the_fast_path(epic_split):
    make_reported(epic_split, make_entry("Old-VL"), 33.0)
    scope = http_scope("/leaderboard/epic-bench/")
    get(scope)
    assert _cached_page(scope) is not None
    assert _cached_page(http_scope("/leaderboard/epic-bench/", cookie=b"sessionid=abc")) is None
    assert _cached_page(http_scope("/leaderboard/epic-bench/export.csv")) is None
    make_scored(epic_split, make_entry("New-VL"), random_scores(2, 40, 0.5))
    board_cache_invalidate(split_id=epic_split.pk)
    assert _cached_page(scope) is None
    assert b"New-VL" in get(scope)[1]
