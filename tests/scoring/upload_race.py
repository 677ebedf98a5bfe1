"""Real uploads through POST /api/submissions/ started at the same instant from many threads, each with its own
client and database connection: the races of issue 13 (quota bypassed, 500 on a new model name). Shared by the
SQLite tests (tests/scoring/test_upload_races.py) and the PostgreSQL ones (tests/integration/)."""
from __future__ import annotations

import threading
from collections import Counter

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from scoring.models import Split
from tests.scoring.factories import SampleFactory, SplitFactory


def race_split(*, daily_quota: int | None) -> Split:
    split = SplitFactory(benchmark__slug="race-bench", benchmark__scorer="dummy", name="test", daily_quota=daily_quota)
    for i in range(3):
        SampleFactory(split=split, key=f"k{i}", position=i)
    return split


def parallel_uploads(uploaders: list, *, model: str | None = None) -> list[tuple[str, int, dict]]:
    """One upload per entry of `uploaders` (users), all released by one barrier. Returns (username, HTTP status,
    body) per upload; a server error is a 500 status here, never an exception in the test."""
    tokens = {user.pk: Token.objects.get_or_create(user=user)[0].key for user in uploaders}
    barrier = threading.Barrier(len(uploaders))
    results: list[tuple[str, int, dict]] = []
    lock = threading.Lock()

    def upload(number: int, user) -> None:
        client = APIClient(raise_request_exception=False)
        client.credentials(HTTP_AUTHORIZATION=f"Token {tokens[user.pk]}")
        data = {"benchmark": "race-bench", "split": "test", "model": model or f"Racer-{number}",
                "file": SimpleUploadedFile(f"p{number}.txt", b"1\n0.5\n0\n")}
        try:
            barrier.wait()
            response = client.post("/api/submissions/", data, format="multipart")
            body = response.json() if response.get("Content-Type", "").startswith("application/json") else {}
            with lock:
                results.append((user.username, response.status_code, body))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=upload, args=(n, user)) for n, user in enumerate(uploaders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(results) == len(uploaders), "an upload thread did not finish"
    return results


def statuses(results: list[tuple[str, int, dict]]) -> Counter:
    return Counter(status for _, status, _ in results)
