"""The board API and the exports are served from the board page's cache (one key: split, scoring cache version, data
fingerprint, full path = format + split name + filters) and invalidated the same way when a score lands."""
import csv
import io
import json

import pytest
from django.core.cache import cache
from django.db import transaction

from leaderboard import selectors
from leaderboard.asgi import _cached
from scoring.core.contract import SampleResult, ScoringResult
from scoring.models import Submission
from scoring.pipeline import score_publish
from tests.leaderboard.conftest import make_entry, make_reported
from tests.leaderboard.test_asgi_fast_path import get, http_scope

READS = ("/api/leaderboards/epic-bench/", "/leaderboard/epic-bench/export.csv", "/leaderboard/epic-bench/export.json")


@pytest.fixture(autouse=True)
def _clear_cache(monkeypatch):
    cache.clear()
    # The data fingerprint lives long here: what refreshes a read below is the announcement of a score, nothing else.
    monkeypatch.setattr(selectors, "FINGERPRINT_TIMEOUT", 300)


def names(path: str, body: bytes) -> list[str]:
    if path.endswith(".csv"):
        return [line[1] for line in list(csv.reader(io.StringIO(body.decode())))[1:]]
    rows = json.loads(body)["rows"]
    return [r["model"]["name"] if "model" in r and isinstance(r["model"], dict) else r["model"] for r in rows]


def land_a_score(split, name: str) -> Submission:
    """A submission scored through the pipeline's publish step, its commit announcing the score."""
    sub = Submission.objects.create(model_entry=make_entry(name), split=split, status=Submission.Status.RUNNING)
    result = ScoringResult(overall=77.0, breakdown={"BA": 70.0}, scorer_version="t-1",
                           samples=[SampleResult(index=0, key="e000", score=1.0)])
    with transaction.atomic():
        score_publish(submission=sub, result=result)
    return sub


@pytest.mark.django_db
@pytest.mark.parametrize("path", READS)
def test_a_repeated_read_runs_no_query_and_is_the_same(client, epic_split, path, django_assert_num_queries):
    make_reported(epic_split, make_entry("Cached-VL", kind="proprietary"), 40.0, {"BA": 30.0})
    first = client.get(path)
    assert first.status_code == 200 and "Cached-VL" in names(path, first.content)
    with django_assert_num_queries(0):
        again = client.get(path)
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"]
    assert again.get("Content-Disposition") == first.get("Content-Disposition")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", READS)
def test_a_landed_score_shows_in_the_next_read_at_once(client, epic_split, path):
    make_reported(epic_split, make_entry("Before-VL"), 40.0)
    assert names(path, client.get(path).content) == ["Before-VL"]
    # A row written without announcement is not seen: the read really is cached...
    make_reported(epic_split, make_entry("Silent-VL"), 10.0)
    assert names(path, client.get(path).content) == ["Before-VL"]
    # ...and a score landing (its commit sends score_landed and bumps the board's version) refreshes it.
    land_a_score(epic_split, "Landed-VL")
    assert set(names(path, client.get(path).content)) == {"Before-VL", "Silent-VL", "Landed-VL"}


@pytest.mark.django_db
def test_filters_formats_and_splits_are_cached_apart(client, epic_split, epic_dev):
    make_reported(epic_split, make_entry("Prop-VL", kind="proprietary"), 40.0)
    make_reported(epic_split, make_entry("Open-VL", kind="open-source"), 30.0)
    make_reported(epic_dev, make_entry("Dev-VL"), 20.0)
    api = "/api/leaderboards/epic-bench/"
    for _ in range(2):  # the second round reads the cache
        assert names(api, client.get(f"{api}?kind=proprietary").content) == ["Prop-VL"]
        assert names(api, client.get(f"{api}?kind=open-source").content) == ["Open-VL"]
        assert names(api, client.get(f"{api}?split=dev").content) == ["Dev-VL"]
        assert client.get(f"{api}?kind=proprietary")["Content-Type"] == "application/json"
        assert client.get("/leaderboard/epic-bench/export.csv?kind=proprietary")["Content-Type"].startswith("text/csv")


@pytest.mark.django_db
def test_a_browser_still_gets_the_browsable_api_page_not_the_cached_json(client, epic_split):
    make_reported(epic_split, make_entry("Html-VL"), 40.0)
    client.get("/api/leaderboards/epic-bench/")
    page = client.get("/api/leaderboards/epic-bench/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")


@pytest.mark.django_db(transaction=True)
def test_the_asgi_fast_path_answers_repeats_of_the_api_and_exports_for_anyone(epic_split):
    make_reported(epic_split, make_entry("Fast-API-VL"), 40.0)
    for path in READS:
        scope = http_scope(path, b"kind=open-source")
        assert _cached(scope) is None
        status, body = get(scope)
        assert status == 200 and "Fast-API-VL" in names(path, body)
        assert _cached(scope).body == body
        assert _cached(http_scope(path, b"kind=open-source", cookie=b"sessionid=abc")).body == body
        assert get(scope) == (200, body)
    browser = http_scope(READS[0], b"kind=open-source")
    browser["headers"].append((b"accept", b"text/html,application/xhtml+xml"))
    assert _cached(browser) is None
    land_a_score(epic_split, "Landed-API-VL")
    assert _cached(http_scope(READS[0], b"kind=open-source")) is None
    assert "Landed-API-VL" in names(READS[0], get(http_scope(READS[0], b"kind=open-source"))[1])
