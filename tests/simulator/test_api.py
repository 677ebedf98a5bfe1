"""The agent API: start, act, trace, view images, ownership, bundling into a scored submission."""
from __future__ import annotations

import pytest

from scoring import pipeline
from scoring.models import SampleScore, Score, Submission
from simulator.models import Episode, Step
from tests.simulator.conftest import BACK_FRONT, OPEN_DASH, PRESS_POWER, PRESS_START


def start(client, task="tiny/t2"):
    response = client.post("/api/vge/episodes/", {"task": task}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def act(client, episode, output):
    return client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json")


@pytest.mark.django_db
def test_start_returns_first_observation_without_state_names(token_client, tiny_split):
    body = start(token_client)
    obs = body["observation"]
    assert obs["view"] == "front" and obs["accessible_views"] == ["front", "left", "front_top"]
    assert obs["instruction"] == "Reach idle." and obs["goals_total"] == 2
    assert obs["budgets"] == {"global": 20, "local": 10}
    assert obs["image_url"].startswith(f"/api/vge/episodes/{body['episode']}/view.png")


@pytest.mark.django_db
def test_invalid_output_is_an_invalid_turn_that_costs_budget(token_client, tiny_split):
    episode = start(token_client)["episode"]
    response = act(token_client, episode, "I am not sure what to do.")
    assert response.status_code == 200
    body = response.json()
    assert body["feedback"]["kind"] == "invalid" and "no action found" in body["feedback"]["text"]
    assert body["observation"]["budgets"] == {"global": 19, "local": 9} and not body["done"]
    assert Step.objects.filter(episode_id=episode).count() == 1


@pytest.mark.django_db
def test_playing_to_the_end_persists_every_step_and_metrics(token_client, tiny_split):
    episode = start(token_client)["episode"]
    kinds = [act(token_client, episode, o).json()["feedback"]["kind"] for o in (OPEN_DASH, PRESS_POWER, BACK_FRONT)]
    assert kinds == ["switched", "success", "switched"]
    # while running, the trace names no states
    running = token_client.get(f"/api/vge/episodes/{episode}/").json()
    assert "state_after" not in running["trace"][0] and running["trace"][1]["goal_reached"] is True
    last = act(token_client, episode, PRESS_START).json()
    assert last["done"] and last["observation"]["success"]
    detail = token_client.get(f"/api/vge/episodes/{episode}/").json()
    assert detail["finished"] and detail["metrics"]["SR"] == 100 and detail["metrics"]["SPL"] == 100
    assert [s["state_after"] for s in detail["trace"]] == ["off", "idle", "idle", "heating"]
    assert act(token_client, episode, PRESS_START).status_code == 409


@pytest.mark.django_db
def test_view_image_is_a_png_for_now_and_for_past_turns(token_client, tiny_split):
    episode = start(token_client)["episode"]
    act(token_client, episode, OPEN_DASH)
    now = token_client.get(f"/api/vge/episodes/{episode}/view.png")
    first = token_client.get(f"/api/vge/episodes/{episode}/view.png?turn=0")
    for response in (now, first):
        assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert b"".join(now.streaming_content) != b"".join(first.streaming_content)  # dashboard vs front
    assert token_client.get(f"/api/vge/episodes/{episode}/view.png?turn=7").status_code == 404


@pytest.mark.django_db
def test_unknown_task_and_foreign_episode_and_anonymous(token_client, api_client, other_user, tiny_split):
    assert token_client.post("/api/vge/episodes/", {"task": "nope"}, format="json").status_code == 404
    episode = start(token_client)["episode"]
    api_client.credentials()
    assert api_client.post("/api/vge/episodes/", {"task": "tiny/t1"}, format="json").status_code in (401, 403)
    api_client.force_authenticate(other_user)
    assert act(api_client, episode, PRESS_POWER).status_code == 403
    assert api_client.get(f"/api/vge/episodes/{episode}/").status_code == 403


@pytest.mark.django_db
def test_finished_episodes_bundle_into_a_submission_scored_by_replay(token_client, tiny_split):
    episode = start(token_client, "tiny/t1")["episode"]
    for output in (OPEN_DASH, PRESS_POWER):
        act(token_client, episode, output)
    assert Episode.objects.get(pk=episode).finished
    response = token_client.post("/api/vge/submissions/", {"model": "Agent-X", "split": "dev"}, format="json")
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(pk=response.json()["submission"])
    assert submission.file.read().decode().count("\n") == 1
    assert pipeline.submission_score(submission_id=submission.pk, worker="w") == "scored"
    score = Score.objects.get(submission=submission)
    assert set(score.breakdown) == {"SR", "SSR", "SPL", "State-F1", "EIR", "TIR", "VSPS", "GVPE", "EER", "PSR",
                                    "AvgDist", "AvgWDist"}
    assert score.overall == 50.0  # t1 solved, t2 missing (a failed episode with zero turns)
    rows = {s.key: s for s in SampleScore.objects.filter(submission=submission)}
    assert rows["tiny/t2"].outcome == "missing" and rows["tiny/t2"].details["trace"] == []
    trace = rows["tiny/t1"].details["trace"]
    assert [s["kind"] for s in trace] == ["switched", "success"]
    assert {"raw_output", "action", "view_before", "state_before", "state_after", "feedback", "global_left",
            "local_left"} <= set(trace[0])


@pytest.mark.django_db
def test_bundle_without_finished_episodes_is_refused(token_client, tiny_split):
    start(token_client, "tiny/t1")
    response = token_client.post("/api/vge/submissions/", {"model": "Agent-X", "split": "dev"}, format="json")
    assert response.status_code == 400 and "no finished" in response.json()["detail"]


@pytest.mark.django_db
def test_a_restarted_server_resumes_from_the_stored_state(token_client, tiny_split):
    from simulator import engines

    episode = start(token_client)["episode"]
    act(token_client, episode, OPEN_DASH)
    engines.engine_cache_clear()  # as after a crash: no engine, no cached task, only the database
    body = act(token_client, episode, PRESS_POWER).json()
    assert body["feedback"]["kind"] == "success" and body["feedback"]["goal_reached"]
    assert list(Step.objects.filter(episode_id=episode).values_list("index", flat=True)) == [1, 2]
