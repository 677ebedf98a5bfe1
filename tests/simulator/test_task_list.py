"""`GET /api/vge/tasks/` (issue 30: "no endpoint listing the tasks one may play"; "a tasks endpoint (public tasks of open
phases, with what the split may show)"): every task an episode may be started on, paged, filtered; a hidden split's
tasks show what a player sees when an episode starts and nothing read from its ground truth (scoring.access), but
to curators."""
from __future__ import annotations

import copy
import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from scoring.models import Phase, Split
from simulator.services.library import device_upsert, split_ensure, tasks_into_split
from tests.scoring.benchmarks.vge.core.conftest import TINY, make_task

pytestmark = pytest.mark.django_db

URL = "/api/vge/tasks/"


@pytest.fixture
def two_splits(db):
    device_upsert(data=copy.deepcopy(TINY), source="test")
    tasks_into_split(tasks=[make_task(("idle",), "tiny/t1"), make_task(("idle", "heating"), "tiny/t2")],
                     split=split_ensure(name="dev", public=True))
    tasks_into_split(tasks=[make_task(("idle", "heating"), "tiny/h1"), make_task(("warm",), "tiny/h2")],
                     split=split_ensure(name="test", public=False))


def listed(client, query="") -> dict:
    response = client.get(URL + query)
    assert response.status_code == 200, response.content
    return response.json()


def by_id(page) -> dict[str, dict]:
    return {task["id"]: task for task in page["results"]}


def test_anyone_lists_every_task_with_the_public_splits_figures_only(two_splits):
    page = listed(APIClient())
    assert page["count"] == 4 and page["previous"] is None and page["next"] is None
    tasks = by_id(page)
    public = tasks["tiny/t2"]
    assert public["split"] == {"name": "dev", "version": 1, "hidden_ground_truth": False}
    assert (public["instruction"], public["start_view"], public["goals"], public["lambda"]) == (
        "Reach idle.", "front", 2, 5)
    assert public["shortest"] == 4 and public["play_url"] == "/simulator/play/tiny/t2/"
    hidden = tasks["tiny/h1"]
    assert hidden["split"] == {"name": "test", "version": 1, "hidden_ground_truth": True}
    # what a player sees at the start, and nothing read from the ground truth
    assert hidden["instruction"] == "Reach idle." and hidden["start_view"] == "front"
    assert (hidden["goals"], hidden["shortest"], hidden["lambda"]) == (None, None, None)
    text = json.dumps(hidden)
    for leak in ("heating", "start_state", "Reach heating", "off"):
        assert leak not in text


def test_a_signed_in_player_sees_the_same_and_a_curator_sees_the_hidden_figures(two_splits, token_client, curator):
    assert by_id(listed(token_client))["tiny/h1"]["goals"] is None
    client = APIClient()
    client.force_authenticate(curator)
    hidden = by_id(listed(client))["tiny/h1"]
    assert (hidden["goals"], hidden["shortest"], hidden["lambda"]) == (2, 4, 5)


def test_a_split_whose_phase_is_closed_or_not_yet_open_is_not_listed(two_splits):
    split = Split.objects.get(name="dev", benchmark__slug="vge-bench")
    now = timezone.now()
    split.phase = Phase.objects.create(benchmark=split.benchmark, name="Dev", slug="dev-closed",
                                       opens_at=now - timedelta(days=10), closes_at=now - timedelta(days=1))
    split.save()
    assert set(by_id(listed(APIClient()))) == {"tiny/h1", "tiny/h2"}
    Phase.objects.filter(pk=split.phase_id).update(opens_at=now + timedelta(days=1), closes_at=None)
    assert set(by_id(listed(APIClient()))) == {"tiny/h1", "tiny/h2"}
    Phase.objects.filter(pk=split.phase_id).update(opens_at=now - timedelta(days=1))
    assert set(by_id(listed(APIClient()))) == {"tiny/t1", "tiny/t2", "tiny/h1", "tiny/h2"}


def test_filters_by_split_category_and_device(two_splits):
    client = APIClient()
    assert set(by_id(listed(client, "?split=dev"))) == {"tiny/t1", "tiny/t2"}
    assert set(by_id(listed(client, "?split=test"))) == {"tiny/h1", "tiny/h2"}
    assert listed(client, "?split=none")["count"] == 0
    assert listed(client, "?category=microwave")["count"] == 4  # any case
    assert listed(client, "?category=Kettle")["count"] == 0
    assert listed(client, "?device=tiny&split=dev")["count"] == 2


def test_pages_in_a_stable_order_with_links(two_splits):
    client = APIClient()
    first = listed(client, "?page_size=3")
    assert [t["id"] for t in first["results"]] == ["tiny/h1", "tiny/h2", "tiny/t1"]
    assert first["count"] == 4 and first["next"].endswith("/api/vge/tasks/?page=2&page_size=3")
    second = client.get(first["next"]).json()
    assert [t["id"] for t in second["results"]] == ["tiny/t2"] and second["next"] is None
    assert second["previous"] is not None
    beyond = client.get(URL + "?page=9")
    assert beyond.status_code == 404 and "page" in beyond.json()["detail"].lower()
    too_many = client.get(URL + "?page_size=1000")
    assert too_many.status_code == 400 and "page_size" in too_many.json()["errors"]


def test_every_listed_task_can_be_played(two_splits, token_client):
    for task in listed(token_client)["results"]:
        started = token_client.post("/api/vge/episodes/", {"task": task["id"]}, format="json")
        assert started.status_code == 201, started.content
        assert started.json()["instruction"] == task["instruction"]
        assert started.json()["view"] == task["start_view"]


def test_a_page_costs_the_same_few_queries_whatever_its_length(two_splits, django_assert_max_num_queries):
    client = APIClient()
    listed(client)  # the engines of this process are built (as the simulator's home page builds them)
    with django_assert_max_num_queries(2):  # the count and the page, devices and splits joined
        assert listed(client, "?page_size=4")["count"] == 4


def test_a_finished_episode_of_a_hidden_task_is_read_back_without_its_ground_truth(two_splits, token_client):
    episode = token_client.post("/api/vge/episodes/", {"task": "tiny/h2"}, format="json").json()["episode"]
    done = False
    while not done:
        done = token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": "Action: Press(coord=[5, 5])"},
                                 format="json").json()["done"]
    detail = token_client.get(f"/api/vge/episodes/{episode}/").json()
    assert detail["finished"] and "l_opt" not in detail["metrics"] and "lambda" not in detail
    assert all("state_after" not in step for step in detail["trace"])
    assert {step["feedback"] for step in detail["trace"]} == {"Nothing happened."}
