"""The history and instruction episode options (issue 28, App. C and E.2): chosen on the agent API (and the
instruction in browser play), recorded on the episode, bundled per set of options into their own submissions whose
episodes' details record them, and compared in the Analysis tab's `history` and `instruction` figures."""
from __future__ import annotations

import json

import pytest
import yaml
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from config.asgi import application
from scoring.benchmarks.vge.core.rephrase import rephrase_instruction
from scoring.models import SampleScore, Submission
from simulator.models import Episode, Step
from tests.simulator.conftest import BACK_FRONT, OPEN_DASH, PRESS_POWER, PRESS_START
from tests.simulator.test_episode_lambda import WASTE, bundle, play, start
from tests.websockets import headers_for, run_async

pytestmark = pytest.mark.django_db


def test_history_limits_the_past_turns_the_agent_is_shown(token_client, tiny_split):
    """Issue 28 (App. C): "history: the number of past turns shown to the agent in the observation's trace, 0 / 3 /
    full". While the episode runs, its trace shows the last `history` turns; the stored steps stay whole, and the
    finished episode's trace is whole."""
    shown = {}
    for history in ("0", 3, "full"):
        episode = start(token_client, "tiny/t2", history=history).json()["episode"]
        for output in (WASTE, WASTE, OPEN_DASH, PRESS_POWER, BACK_FRONT):
            token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json")
        detail = token_client.get(f"/api/vge/episodes/{episode}/").json()
        shown[history] = (detail["history"], [s["turn"] for s in detail["trace"]])
        assert Step.objects.filter(episode_id=episode).count() == 5
        if history == 3:
            token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": PRESS_START}, format="json")
            finished = token_client.get(f"/api/vge/episodes/{episode}/").json()
            assert finished["finished"] and [s["turn"] for s in finished["trace"]] == [1, 2, 3, 4, 5, 6]
    assert shown == {"0": ("0", []), 3: ("3", [3, 4, 5]), "full": ("full", [1, 2, 3, 4, 5])}
    assert list(Episode.objects.order_by("pk").values_list("history", flat=True)) == [0, 3, None]


def test_rephrased_instructions_are_shown_for_every_goal(token_client, tiny_split):
    """Issue 28 (E.2): "instruction: an alternative verbalisation of each goal from a second generator or rewriting
    style, deterministic per task": every goal an agent is shown is the second wording, the same in every episode
    of the task."""
    plain = start(token_client, "tiny/t2").json()
    body = start(token_client, "tiny/t2", instruction="rephrased").json()
    again = start(token_client, "tiny/t2", instruction="rephrased").json()
    expected = rephrase_instruction(task_id="tiny/t2", index=0, text=plain["instruction"])
    assert body["instruction"] == again["instruction"] == expected != plain["instruction"]
    for output in (OPEN_DASH, PRESS_POWER):
        answer = token_client.post(f"/api/vge/episodes/{body['episode']}/act/", {"output": output},
                                   format="json").json()
    assert answer["observation"]["instruction"] == rephrase_instruction(task_id="tiny/t2", index=1,
                                                                        text="Reach heating.")
    assert token_client.get(f"/api/vge/episodes/{body['episode']}/").json()["instruction"] == "rephrased"
    assert Episode.objects.get(pk=body["episode"]).instruction == "rephrased"


@pytest.mark.parametrize("field, value", [("history", -1), ("history", 1001), ("history", "some"),
                                          ("instruction", "pirate")])
def test_a_bad_option_is_refused_with_the_field_named(token_client, tiny_split, field, value):
    response = start(token_client, "tiny/t1", **{field: value})
    assert response.status_code == 400 and list(response.json()["errors"]) == [field]
    assert not Episode.objects.exists()


def test_options_are_documented_in_the_schema(client):
    parts = yaml.safe_load(client.get("/api/schema/").content)["components"]["schemas"]
    for name in ("EpisodeCreateInputRequest", "BundleInputRequest"):
        assert "history" in parts[name]["properties"]
        ref = parts[name]["properties"]["instruction"]["allOf"][0]["$ref"].rsplit("/", 1)[1]
        assert parts[ref]["enum"] == ["original", "rephrased"]
    assert {"history", "instruction", "lambda"} <= set(parts["EpisodeOutput"]["properties"])


def figure(client, key: str) -> dict | None:
    cache.clear()
    response = client.get(f"/leaderboard/vge-bench/analysis/{key}.json?split=dev")
    return json.loads(response.content) if response.status_code == 200 else None


def test_bundles_keep_options_apart_and_the_figures_compare_them(token_client, client, tiny_split):
    """Bundles take only episodes whose options all match, carry them as submission options, and the scorer records
    them in each episode's details; the `history` and `instruction` figures appear once such runs exist."""
    solve = [OPEN_DASH, PRESS_POWER]
    play(token_client, "tiny/t1", solve)
    assert figure(client, "history") is None and figure(client, "instruction") is None
    play(token_client, "tiny/t1", solve, history=3)
    play(token_client, "tiny/t1", [WASTE] * 10, instruction="rephrased")  # runs out of its budget
    play(token_client, "tiny/t1", solve, instruction="rephrased", **{"lambda": 3})  # λ differs: not in the figure
    missing = token_client.post("/api/vge/submissions/", {"model": "Agent-O", "split": "dev", "history": 0},
                                format="json")
    assert missing.status_code == 400 and "with history 0" in missing.json()["detail"]
    made = {
        "default": bundle(token_client, "Agent-O"),
        "history": bundle(token_client, "Agent-O", history=3),
        "instruction": bundle(token_client, "Agent-O", instruction="rephrased"),
        "both": bundle(token_client, "Agent-O", instruction="rephrased", **{"lambda": 3}),
    }
    assert {k: s.options for k, s in made.items()} == {
        "default": {}, "history": {"history": 3}, "instruction": {"instruction": "rephrased"},
        "both": {"instruction": "rephrased", "lambda": 3}}
    details = SampleScore.objects.get(submission=made["history"], key="tiny/t1").details
    assert (details["history"], details["instruction"], details["perturbation"]) == ("3", "original", "")
    rephrased = SampleScore.objects.get(submission=made["instruction"], key="tiny/t1")
    assert rephrased.details["instruction"] == "rephrased" and rephrased.score == 0.0
    # The split has two tasks; every bundle played t1 only (t2 is a failed episode).
    history_rows = [(r["model"], r["history"], r["episodes"], r["SR"], r["delta_SR"])
                    for r in figure(client, "history")["rows"]]
    assert history_rows == [("Agent-O", "full", 2, 50.0, 0.0), ("Agent-O", "3", 2, 50.0, 0.0)]
    instruction_rows = [(r["model"], r["instruction"], r["episodes"], r["SR"], r["SSR"], r["delta_SR"])
                        for r in figure(client, "instruction")["rows"]]
    assert instruction_rows == [("Agent-O", "original", 2, 50.0, 50.0, 0.0),
                                ("Agent-O", "rephrased", 2, 0.0, 0.0, -50.0)]
    # Shown on the episode's rows: the submission's episodes, its replay (with the words the agent read).
    assert "rephrased instructions" in client.get(f"/submissions/{made['instruction'].pk}/samples/").content.decode()
    page = client.get(f"/simulator/replay/submission/{made['instruction'].pk}/0/").content.decode()
    assert "rephrased instructions" in page and rephrase_instruction(task_id="tiny/t1", index=0,
                                                                     text="Reach idle.") in page
    assert Submission.objects.count() == 4


@pytest.mark.django_db(transaction=True)
def test_browser_play_with_rephrased_instructions(client, user, tiny_split):
    client.force_login(user)
    response = client.get("/simulator/play/tiny/t1/?instruction=rephrased&lambda=4")
    episode = Episode.objects.get()
    assert (episode.instruction, episode.lam, episode.kind) == ("rephrased", 4, "human")
    assert "rephrased instructions" in client.get(response.url).content.decode()
    assert "rephrased instructions" in client.get("/simulator/").content.decode()
    refused = client.get("/simulator/play/tiny/t1/?instruction=pirate")
    assert refused.status_code == 400 and "instruction must be one of" in refused.content.decode()

    async def scenario():
        socket = WebsocketCommunicator(application, f"/ws/vge/episodes/{episode.pk}/", headers=headers)
        connected, _ = await socket.connect()
        assert connected
        state = await socket.receive_json_from(timeout=3)
        assert state["options"] == {"lambda": 4, "lambda_own": False, "instruction": "rephrased"}
        assert state["observation"]["instruction"] == rephrase_instruction(task_id="tiny/t1", index=0,
                                                                           text="Reach idle.")
        await socket.send_json_to({"type": "act", "action": "switch_view", "coord": [800, 200]})
        step = await socket.receive_json_from(timeout=3)
        assert step["type"] == "step" and step["observation"]["instruction"] == state["observation"]["instruction"]
        await socket.disconnect()

    headers = headers_for(user)
    run_async(scenario)
