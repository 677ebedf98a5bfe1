"""Against the real services configured in the environment (PostgreSQL, Redis): the channel layer, health, and
the claim that makes scoring exactly-once under concurrent workers."""
from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from channels.layers import get_channel_layer
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, connections

from scoring import pipeline, services
from scoring.models import Score, Submission
from tests.scoring.factories import ModelEntryFactory, SampleFactory, SplitFactory

pytestmark = pytest.mark.integration


def test_database_is_postgresql():
    assert connection.vendor == "postgresql"


def test_channel_layer_is_redis_and_delivers_group_messages():
    assert "redis" in settings.CHANNEL_LAYERS["default"]["BACKEND"].lower()
    layer = get_channel_layer()

    async def round_trip():
        channel = await layer.new_channel()
        await layer.group_add("it-group", channel)
        await layer.group_send("it-group", {"type": "it.message", "value": 42})
        message = await layer.receive(channel)
        await layer.group_discard("it-group", channel)
        return message

    # a fresh loop in its own thread: a browser test of this run may have left a loop running in this one
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(asyncio.run, round_trip()).result()["value"] == 42


@pytest.mark.django_db
def test_healthz_is_ok_on_the_services(client):
    body = client.get("/healthz").json()
    assert body["status"] == "ok", body
    assert body["checks"]["database"]["detail"] == "postgresql"
    assert "Redis" in body["checks"]["channel_layer"]["detail"]


@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_score_a_submission_once(dummy_benchmark, user, settings):
    split = SplitFactory(benchmark__scorer="dummy")
    for i in range(5):
        SampleFactory(split=split, key=f"k{i}", position=i)
    submission = services.submission_create(
        user=user,
        split=split,
        model_entry=ModelEntryFactory(owner=user),
        uploaded_file=SimpleUploadedFile("p.txt", b"1\n1\n1\n1\n1\n"),
    )
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def run(name: str) -> None:
        barrier.wait()
        try:
            outcomes.append(pipeline.submission_score(submission_id=submission.pk, worker=name))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(f"w{i}",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["scored", "skipped", "skipped", "skipped"]
    assert Submission.objects.get(pk=submission.pk).attempts == 1
    assert Score.objects.filter(submission=submission).count() == 1
