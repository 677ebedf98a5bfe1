"""Real uploads through POST /api/submissions/ started at the same instant from many threads, each with its own
client and database connection: the races of issue 13 (quota bypassed, 500 on a new model name). Shared by the
SQLite tests (tests/scoring/test_upload_races.py) and the PostgreSQL ones (tests/integration/)."""
from __future__ import annotations

import threading
from collections import Counter
from typing import Any, Callable, Sequence, TypeVar

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from scoring.models import Split
from tests.scoring.factories import SampleFactory, SplitFactory

T = TypeVar("T")


def race_split(*, daily_quota: int | None) -> Split:
    split = SplitFactory(benchmark__slug="race-bench", benchmark__scorer="dummy", name="test", daily_quota=daily_quota)
    for i in range(3):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return split


def all_at_once(task: Callable[[int, Any, Callable[[], Any]], T], items: Sequence[Any], *,
                timeout: float = 120) -> list[T]:
    """task(number, item, go) per item, each in its own thread; `go()` waits until every thread has reached it,
    so the requests after it start at the same instant. Returns the tasks' results in the order they finished."""
    barrier = threading.Barrier(len(items))
    results: list[T] = []
    lock = threading.Lock()

    def run(number: int, item: Any) -> None:
        result = task(number, item, barrier.wait)
        with lock:
            results.append(result)

    threads = [threading.Thread(target=run, args=(n, item)) for n, item in enumerate(items)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert len(results) == len(items), "a thread did not finish"
    return results


def parallel_uploads(uploaders: list, *, model: str | None = None) -> list[tuple[str, int, dict]]:
    """One upload per entry of `uploaders` (users), all released at once. Returns (username, HTTP status, body) per
    upload; a server error is a 500 status here, never an exception in the test."""
    tokens = {user.pk: Token.objects.get_or_create(user=user)[0].key for user in uploaders}

    def upload(number: int, user, go) -> tuple[str, int, dict]:
        client = APIClient(raise_request_exception=False)
        client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[user.pk]}")
        data = {"benchmark": "race-bench", "split": "test", "model": model or f"Racer-{number}",
                "file": SimpleUploadedFile(f"p{number}.txt", b"1\n0.5\n0\n")}
        try:
            go()
            response = client.post("/api/submissions/", data, format="multipart")
            body = response.json() if response.get("Content-Type", "").startswith("application/json") else {}
            return user.username, response.status_code, body
        finally:
            connections.close_all()

    return all_at_once(upload, uploaders)


def statuses(results: list[tuple[str, int, dict]]) -> Counter:
    return Counter(status for _, status, _ in results)
