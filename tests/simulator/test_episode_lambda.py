"""The interaction budget λ as an episode option: chosen when an agent starts an episode through the API or a player
starts one in the browser, recorded on the episode and shown on its rows, bundled per λ into submissions the
scorer replays with that λ, and read by the budget figure from the episodes actually played at each λ."""
from __future__ import annotations

import json

import pytest
import yaml
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from config.asgi import application
from scoring import pipeline
from scoring.models import SampleScore, Submission
from simulator.models import Episode
from tests.simulator.conftest import BACK_FRONT, OPEN_DASH, PRESS_POWER, PRESS_START
from tests.websockets import headers_for, run_async

WASTE = "Thinking only, no action."  # an invalid turn: it costs one turn from both budgets
# Task t1 (goal idle, L_opt 2) and t2 (idle then heating, L_opt 4) of the tiny device, each played with detours.
T1_PLAY = [WASTE] * 4 + [OPEN_DASH, PRESS_POWER]  # 6 turns
T2_PLAY = [WASTE] * 6 + [OPEN_DASH, PRESS_POWER, BACK_FRONT, PRESS_START]  # 10 turns, 6 before the first goal


def start(client, task: str, **options):
    return client.post("/api/vge/episodes/", {"task": task, **options}, format="json")


def play(client, task: str, outputs: list[str], **options) -> dict:
    response = start(client, task, **options)
    assert response.status_code == 201, response.content
    episode = response.json()["episode"]
    for output in outputs:
        answer = client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json").json()
        if answer["done"]:
            break
    return client.get(f"/api/vge/episodes/{episode}/").json()


def bundle(client, model: str, **options) -> Submission:
    response = client.post("/api/vge/submissions/", {"model": model, "split": "dev", **options}, format="json")
    assert response.status_code == 201, response.content
    submission = Submission.objects.get(pk=response.json()["submission"])
    assert pipeline.submission_score(submission_id=submission.pk, worker="w") == "scored"
    return submission


@pytest.mark.django_db
def test_budget_gains_come_from_episodes_played_at_each_lambda_through_the_api(token_client, client, tiny_split):
    """VGEBench, Fig. 3: the paper "normalizes performance at λ = 2 to zero and shows relative gains for larger
    budgets". Episodes played through the agent API at λ = 2, 3 and 5, each λ bundled into a submission of its own
    (replayed by the scorer at that λ): the figure's SR at each λ is that of the episodes played with it, and its
    gains are relative to λ = 2 (zero there), pooled over the model's submissions though the board shows one."""
    played = {}
    for lam in (2, 3, 5):
        played[lam] = [play(token_client, "tiny/t1", T1_PLAY, **{"lambda": lam}),
                       play(token_client, "tiny/t2", T2_PLAY, **{"lambda": lam})]
    # λ = 2: t1 runs out of its global budget 4, t2 of 8. λ = 3: t1 succeeds on turn 6 = 3·2; t2's local budget
    # for its first goal (3·2) runs out. λ = 5: both succeed.
    assert {lam: [e["success"] for e in eps] for lam, eps in played.items()} == {
        2: [False, False], 3: [True, False], 5: [True, True]}
    assert [e["lambda"] for e in played[3]] == [3, 3] and played[5][0]["lambda"] == 5
    assert Episode.objects.filter(lam=3).count() == 2
    assert Episode.objects.filter(lam__isnull=True).count() == 2  # λ = 5 is the task's own: recorded as such

    made = {lam: bundle(token_client, "Agent-L", **{"lambda": lam}) for lam in (2, 3, 5)}
    assert {lam: s.options for lam, s in made.items()} == {2: {"lambda": 2}, 3: {"lambda": 3}, 5: {"lambda": 5}}
    for lam, submission in made.items():  # the scorer replayed each at its λ: the played outcomes again
        details = SampleScore.objects.filter(submission=submission).order_by("index")
        assert [d.details["lambda"] for d in details] == [lam, lam]
        assert [d.score for d in details] == [100.0 if e["success"] else 0.0 for e in played[lam]]

    # Shown on the episode's rows: its replay page, the submission's episodes and their replay pages.
    assert "λ = 3" in client.get(f"/simulator/replay/episode/{played[3][0]['id']}/").content.decode()
    assert "Played with λ = 3" in client.get(f"/submissions/{made[3].pk}/samples/").content.decode()
    assert "λ = 3" in client.get(f"/simulator/replay/submission/{made[3].pk}/0/").content.decode()

    cache.clear()
    figure = json.loads(client.get("/leaderboard/vge-bench/analysis/budget.json?split=dev").content)
    rows = [(r["series"], r["lambda"], r["n"], r["successes"], r["SR"], r["gain_vs_lambda_2"])
            for r in figure["rows"] if r["model"] == "Agent-L"]
    assert rows == [("played", 2, 2, 0, 0.0, 0.0), ("played", 3, 2, 1, 50.0, 50.0),
                    ("played", 5, 2, 2, 100.0, 100.0)]
    # Cutting the λ = 5 episodes after the fact would have said 100 at λ = 3 (both succeed by turn 3·L_opt): the
    # figure does not, because t2 played at λ = 3 ran out of its local budget.


@pytest.mark.django_db
def test_bundles_take_the_episodes_of_one_lambda(token_client, tiny_split):
    play(token_client, "tiny/t1", T1_PLAY, **{"lambda": 3})
    missing = token_client.post("/api/vge/submissions/", {"model": "Agent-L", "split": "dev"}, format="json")
    assert missing.status_code == 400 and "with their task's own λ" in missing.json()["detail"]
    other = token_client.post("/api/vge/submissions/", {"model": "Agent-L", "split": "dev", "lambda": 4},
                              format="json")
    assert other.status_code == 400 and "with λ = 4" in other.json()["detail"]
    assert bundle(token_client, "Agent-L", **{"lambda": 3}).options == {"lambda": 3}


@pytest.mark.django_db
@pytest.mark.parametrize("value", [0, 11, "x", 2.5, True])
def test_a_bad_lambda_is_refused_with_the_field_named(token_client, tiny_split, value):
    response = start(token_client, "tiny/t1", **{"lambda": value})
    assert response.status_code == 400, response.content
    assert list(response.json()["errors"]) == ["lambda"]
    assert not Episode.objects.exists()


@pytest.mark.django_db
def test_lambda_sets_the_budgets_and_is_documented_in_the_schema(token_client, client, tiny_split):
    body = start(token_client, "tiny/t2", **{"lambda": 2}).json()
    assert body["budgets"] == {"global": 2 * 4, "local": 2 * 2}  # λ·L_opt, λ·C_opt of the first goal
    assert start(token_client, "tiny/t2").json()["budgets"] == {"global": 5 * 4, "local": 5 * 2}
    schema = yaml.safe_load(client.get("/api/schema/").content)
    parts = schema["components"]["schemas"]
    for name in ("EpisodeCreateInputRequest", "BundleInputRequest"):
        field = parts[name]["properties"]["lambda"]
        assert field["type"] == "integer" and field["minimum"] == 1 and field["maximum"] == 10
    assert "lambda" in parts["EpisodeOutput"]["properties"]


@pytest.mark.django_db(transaction=True)
def test_browser_play_starts_with_the_chosen_lambda(client, user, tiny_split):
    client.force_login(user)
    response = client.get("/simulator/play/tiny/t2/?lambda=3")
    assert response.status_code == 302
    episode = Episode.objects.get()
    assert episode.lam == 3 and episode.kind == Episode.Kind.HUMAN
    assert client.get("/simulator/play/tiny/t2/?lambda=3").url == response.url  # resumed
    assert client.get("/simulator/play/tiny/t2/").url != response.url  # the task's own λ: another episode
    page = client.get(response.url).content.decode()
    assert "λ = 3" in page
    assert "λ 3" in client.get("/simulator/").content.decode()  # the player's episode list
    refused = client.get("/simulator/play/tiny/t2/?lambda=11")
    assert refused.status_code == 400 and "λ must be from 1 to 10" in refused.content.decode()

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/vge/episodes/{episode.pk}/", headers=headers)
        connected, _ = await socket.connect()
        assert connected
        state = await socket.receive_json_from(timeout=3)
        assert state["options"]["lambda"] == 3
        assert state["observation"]["budgets"] == {"global": 3 * 4, "local": 3 * 2}
        await socket.disconnect()

    headers = headers_for(user)
    run_async(scenario)
