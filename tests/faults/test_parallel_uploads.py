"""Parallel uploads through the real server, scored by a real worker: the daily quota holds (20 at once against
quota 5: exactly 5 accepted), a new model name created by 20 uploads at once is one entry, and every accepted
upload is scored exactly once. No 5xx; the server and the worker stay within the memory bound."""
from __future__ import annotations

from collections import Counter

import httpx
import pytest

from scoring.models import ModelEntry, Submission
from tests.faults.conftest import assert_each_scored_once, assert_within_memory_bound
from tests.faults.processes import wait_for
from tests.scoring.upload_race import all_at_once, race_split

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

UPLOADS = 20


def upload_all_at_once(url: str, token: str, *, models: list[str]) -> list[httpx.Response]:
    """One POST /api/submissions/ per model name, each on its own connection, all released at once."""

    def upload(number: int, model: str, go) -> httpx.Response:
        with httpx.Client(base_url=url, headers={"Authorization": f"Token {token}"}, timeout=60) as client:
            go()
            return client.post("/api/submissions/", data={"benchmark": "race-bench", "split": "test", "model": model},
                               files={"file": (f"p{number}.txt", b"1\n0.5\n0\n")})

    return all_at_once(upload, models)


def test_twenty_parallel_uploads_against_quota_five_accept_five_each_scored_once(site, user, token):
    # Given a split with a daily quota of 5, the server and a worker
    race_split(daily_quota=5)
    server = site.server()
    worker = site.worker()

    # When 20 uploads arrive at the same instant
    responses = upload_all_at_once(server.url, token, models=[f"Racer-{n}" for n in range(UPLOADS)])

    # Then exactly 5 are accepted, the others told the quota is used up; no server error
    codes = Counter(response.status_code for response in responses)
    print(f"parallel uploads against quota 5: {dict(codes)}")
    assert codes == {201: 5, 429: 15}, codes
    accepted = [response.json()["id"] for response in responses if response.status_code == 201]
    assert Submission.objects.count() == 5
    # and each accepted upload is scored, once
    wait_for(lambda: not Submission.objects.exclude(status__in=["scored", "failed"]).exists(), timeout=120,
             what="the worker to score the accepted uploads")
    assert_each_scored_once(accepted)
    assert set(Submission.objects.values_list("attempts", flat=True)) == {1}
    assert_within_memory_bound(server, worker)


def test_twenty_parallel_uploads_of_one_new_model_name_make_one_entry_and_twenty_scores(site, user, token):
    # Given no quota, the server and a worker
    race_split(daily_quota=None)
    server = site.server()
    worker = site.worker()

    # When 20 uploads name the same new model at the same instant
    responses = upload_all_at_once(server.url, token, models=["Brand-New-Model"] * UPLOADS)

    # Then all are accepted (no 500 on the unique name), under one entry, and each is scored once
    assert Counter(response.status_code for response in responses) == {201: UPLOADS}
    assert ModelEntry.objects.filter(name="Brand-New-Model").count() == 1
    ids = [response.json()["id"] for response in responses]
    wait_for(lambda: Submission.objects.filter(pk__in=ids, status__in=["scored", "failed"]).count() == UPLOADS,
             timeout=180, what="the worker to score the 20 uploads")
    assert_each_scored_once(ids)
    assert_within_memory_bound(server, worker)
