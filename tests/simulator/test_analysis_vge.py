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
    # As the paper (App. B), by whether each view shows the current goal's target: the power button (on front
    # and the dashboard), then Start (front only). front→left loses it (PN), left→front finds it (NP), the click
    # on the unlock box opens the dashboard, which shows it too (PP), dashboard→front finds Start (NP).
    assert switches == [{"model": "Agent-V", "episodes": 1, "switches": 4, "NP": 2, "NN": 0, "PN": 1, "PP": 1,
                         "target_unknown": 0, "NP_share": 50.0, "NN_share": 0.0, "PN_share": 25.0,
                         "PP_share": 25.0}]
    budget = {r["lambda"]: r["successes"] for r in figure_json_for(client, "vge-bench", "budget", "split=dev")["rows"]}
    assert budget[1] == 0 and budget[2] == 1  # success on turn 6: after 1·4, within 2·4
    goals = {r["tasks"]: (r["n"], r["SR"]) for r in figure_json_for(client, "vge-bench", "goals", "split=dev")["rows"]}
    assert goals == {"single-goal": (1, 0.0), "multi-goal": (1, 100.0)}  # t1 was not played
