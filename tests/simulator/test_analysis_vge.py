"""VGEBench's Analysis figures on episodes played through the agent API on the tiny device, scored by replay."""
from __future__ import annotations

import json

import pytest
from django.core.cache import cache

from scoring import pipeline
from tests.simulator.conftest import BACK_FRONT, OPEN_DASH, PRESS_POWER, PRESS_START

pytestmark = pytest.mark.django_db


def figure_json_for(client, slug: str, key: str, query: str) -> dict:
    response = client.get(f"/leaderboard/{slug}/analysis/{key}.json?{query}")
    assert response.status_code == 200, response.content[:300]
    return json.loads(response.content)


def test_vge_analysis_on_episodes_played_through_the_api(client, token_client, tiny_split):
    """The tiny device (tests/simulator): task t2 played in 6 turns where L_opt is 4, with two detours."""
    episode = token_client.post("/api/vge/episodes/", {"task": "tiny/t2"}, format="json").json()["episode"]
    for output in ("Switch_view(params=[left])", BACK_FRONT, OPEN_DASH, PRESS_POWER, BACK_FRONT, PRESS_START):
        token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json")
    response = token_client.post("/api/vge/submissions/", {"model": "Agent-V", "split": "dev"}, format="json")
    submission = response.json()["submission"]
    assert pipeline.submission_score(submission_id=submission, worker="w") == "scored"
    cache.clear()
    switches = figure_json_for(client, "vge-bench", "view-switches", "split=dev")["rows"]
    # front→left and left→front are followed by another switch (NN); the click on the dashboard's unlock box
    # unlocks it (NP); dashboard→front is followed by Start, which only the front view shows (NP).
    assert switches == [{"model": "Agent-V", "episodes": 1, "switches": 4, "NP": 2, "PN": 0, "NN": 2,
                         "NP_share": 50.0, "PN_share": 0.0, "NN_share": 50.0}]
    budget = {r["lambda"]: r["successes"] for r in figure_json_for(client, "vge-bench", "budget", "split=dev")["rows"]}
    assert budget[1] == 0 and budget[2] == 1  # success on turn 6: after 1·4, within 2·4
    goals = {r["tasks"]: (r["n"], r["SR"]) for r in figure_json_for(client, "vge-bench", "goals", "split=dev")["rows"]}
    assert goals == {"single-goal": (1, 0.0), "multi-goal": (1, 100.0)}  # t1 was not played
