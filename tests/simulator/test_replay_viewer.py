"""The replay viewer: finished episodes (browser, agent API, uploaded logs) step by step, with who may see them."""
from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import pipeline
from scoring import services as scoring_services
from scoring.models import ModelEntry
from simulator.models import Episode
from simulator.services.episodes import episode_give_up, episode_start, episode_step
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER

pytestmark = pytest.mark.django_db


def frames_of(response) -> list[dict]:
    html = response.content.decode()
    start = html.index('<script id="frames" type="application/json">') + len('<script id="frames" type="application/json">')
    return json.loads(html[start:html.index("</script>", start)])


def finished_episode(user, kind=Episode.Kind.HUMAN) -> Episode:
    episode, _ = episode_start(user=user, task_id="tiny/t1", kind=kind)
    for output in ("Action: Press(coord=[5, 5], params=[0])", OPEN_DASH, PRESS_POWER):
        episode_step(episode_id=episode.pk, user=user, output=output)
    return episode


def test_a_finished_episode_is_stepped_through_with_clicks_states_and_images(tiny_split, user, client):
    episode = finished_episode(user)
    client.force_login(user)
    response = client.get(f"/simulator/replay/episode/{episode.pk}/")
    assert response.status_code == 200
    frames = frames_of(response)
    assert [f["turn"] for f in frames] == [0, 1, 2, 3]
    assert frames[0]["state"] == "off" and frames[0]["view"] == "front" and frames[0]["step"] is None
    assert frames[1]["step"]["coord"] == [5, 5] and frames[1]["step"]["kind"] == "no_effect"
    assert frames[2]["view"] == "dashboard" and frames[3]["state"] == "idle"
    assert frames[3]["step"]["goal_reached"] == "idle"
    for turn in (0, 2, 3):
        image = client.get(f"/simulator/replay/episode/{episode.pk}/view/{turn}.png")
        assert image.status_code == 200 and image["Content-Type"] == "image/png"
        assert b"".join(image.streaming_content).startswith(b"\x89PNG")
    assert client.get(f"/simulator/replay/episode/{episode.pk}/view/9.png").status_code == 404


def test_an_agent_episode_from_the_api_replays_too(tiny_split, user, client):
    episode = finished_episode(user, kind=Episode.Kind.AGENT)
    client.force_login(user)
    response = client.get(f"/simulator/replay/episode/{episode.pk}/")
    assert response.status_code == 200 and "Agent (API)" in response.content.decode()


def test_a_running_episode_cannot_be_replayed_yet(tiny_split, user, client):
    episode, _ = episode_start(user=user, task_id="tiny/t1", kind=Episode.Kind.HUMAN)
    client.force_login(user)
    response = client.get(f"/simulator/replay/episode/{episode.pk}/")
    assert response.status_code == 409 and "still running" in response.content.decode()


def test_episodes_of_a_hidden_split_are_for_their_player_and_curators(tiny_split, user, other_user, client):
    tiny_split.hidden_ground_truth = True
    tiny_split.save()
    episode = finished_episode(user)
    client.force_login(other_user)
    assert client.get(f"/simulator/replay/episode/{episode.pk}/").status_code == 403
    assert client.get(f"/simulator/replay/episode/{episode.pk}/view/0.png").status_code == 403
    other_user.groups.add(Group.objects.get_or_create(name="curator")[0])
    assert client.get(f"/simulator/replay/episode/{episode.pk}/").status_code == 200


def scored_upload(user, split) -> int:
    log = "\n".join(json.dumps({"task": t, "outputs": outs}) for t, outs in (
        ("tiny/t1", ["Thinking: the panel. " + OPEN_DASH, PRESS_POWER]),
        ("tiny/t2", ["Action: Press(coord=[5, 5], params=[0])"]),
    )) + "\n"
    entry = ModelEntry.objects.create(name="Agent-X", slug="agent-x", kind=ModelEntry.Kind.EMBODIED)
    submission = scoring_services.submission_create(
        user=user, split=split, model_entry=entry,
        uploaded_file=SimpleUploadedFile("log.jsonl", log.encode(), content_type="application/jsonl"),
    )
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
    return submission.pk


def test_an_uploaded_log_replays_from_the_drill_down(tiny_split, user, client):
    submission_id = scored_upload(user, tiny_split)
    samples = client.get(f"/submissions/{submission_id}/samples/").content.decode()
    assert f"/simulator/replay/submission/{submission_id}/0/" in samples  # the drill-down links here
    response = client.get(f"/simulator/replay/submission/{submission_id}/0/")
    assert response.status_code == 200
    frames = frames_of(response)
    assert len(frames) == 3 and frames[2]["step"]["goal_reached"] == "idle"
    assert "Thinking: the panel." in frames[1]["step"]["raw_output"]
    image = client.get(f"/simulator/replay/submission/{submission_id}/0/view/1.png")
    assert image.status_code == 200 and image["Content-Type"] == "image/png"
    assert client.get(f"/simulator/replay/submission/{submission_id}/5/").status_code == 404


def test_uploaded_logs_of_a_hidden_split_replay_for_the_submitter_and_curators_only(tiny_split, user, other_user, client):
    submission_id = scored_upload(user, tiny_split)
    tiny_split.hidden_ground_truth = True
    tiny_split.save()
    url = f"/simulator/replay/submission/{submission_id}/0/"
    assert client.get(url).status_code == 403
    client.force_login(other_user)
    assert client.get(url).status_code == 403
    assert client.get(f"/simulator/replay/submission/{submission_id}/0/view/0.png").status_code == 403
    client.force_login(user)
    assert client.get(url).status_code == 200


def compare_of(response) -> list[dict]:
    html = response.content.decode()
    marker = '<script id="compare" type="application/json">'
    if marker not in html:
        return []
    start = html.index(marker) + len(marker)
    return json.loads(html[start:html.index("</script>", start)])


def test_a_finished_episode_is_compared_with_the_model_episodes_of_the_same_task(tiny_split, user, other_user, client):
    mine = finished_episode(user)
    agent = finished_episode(user, kind=Episode.Kind.AGENT)
    submission_id = scored_upload(user, tiny_split)
    others_agent = finished_episode(other_user, kind=Episode.Kind.AGENT)  # public split: anyone may replay it
    client.force_login(user)
    compare = compare_of(client.get(f"/simulator/replay/episode/{mine.pk}/"))
    labels = [c["label"] for c in compare]
    assert labels == [f"Agent API · episode {others_agent.pk} (bob)", f"Agent API · episode {agent.pk} (alice)",
                      f"Agent-X · upload #{submission_id}"]
    upload = compare[2]
    assert upload["url"] == f"/simulator/replay/submission/{submission_id}/0/" and upload["outcome"] == "success"
    assert [f["turn"] for f in upload["frames"]] == [0, 1, 2] and upload["frames"][2]["step"]["goal_reached"] == "idle"
    assert compare[1]["frames"][1]["step"]["kind"] == "no_effect"
    # an episode of the other task is compared only with the upload's episode of that task
    other_task, _ = episode_start(user=user, task_id="tiny/t2", kind=Episode.Kind.HUMAN)
    episode_give_up(episode_id=other_task.pk, user=user)
    assert [c["label"] for c in compare_of(client.get(f"/simulator/replay/episode/{other_task.pk}/"))] == [
        f"Agent-X · upload #{submission_id}"]


def test_comparisons_of_a_hidden_split_are_shown_only_to_those_allowed(tiny_split, user, other_user, client):
    mine = finished_episode(other_user)
    scored_upload(user, tiny_split)  # alice's upload
    tiny_split.hidden_ground_truth = True
    tiny_split.save()
    client.force_login(other_user)  # bob: may replay his own episode, not alice's upload of a hidden split
    response = client.get(f"/simulator/replay/episode/{mine.pk}/")
    assert response.status_code == 200 and compare_of(response) == []
