"""Ground truth of a hidden split never reaches its submitter: the drill-down, the overlay, the replay viewer, the
agent API and error texts show only what each benchmark's plugin allows (the submitter's own outputs and scores).

Curators see everything; public splits are unchanged (tests/leaderboard/test_drilldown.py and the replay tests).
"""
from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring import pipeline
from scoring import services as scoring_services
from scoring.benchmarks import plugin_for
from scoring.benchmarks.epic.core import demo as epic_demo
from scoring.benchmarks.epic.importer import epic_split_import
from scoring.benchmarks.plan.core.demo import demo_items, random_predictions
from scoring.benchmarks.plan.core.local_judge import LocalJudgeServer, Reply, default_policy
from scoring.benchmarks.plan.services.importing import plan_items_import
from scoring.benchmarks.vge.core.task_defs import Task
from scoring.core.contract import SampleRecord, ScorerInput, SubmissionRejected
from scoring.models import Benchmark, ModelEntry, Sample, SampleScore, Split, Submission
from simulator.services.library import device_upsert, split_ensure, tasks_into_split
from tests.scoring.benchmarks.vge.core.conftest import TINY
from tests.simulator.conftest import OPEN_DASH, PRESS_POWER

pytestmark = pytest.mark.django_db

# -- VGE: a device whose start and goal states have names no page would otherwise print ----------------------
RENAMED = {"off": "zq-start-off", "idle": "zq-goal-idle", "heating": "zq-goal-heating"}
DEVICE_ID = "hidtiny"
SECOND_INSTRUCTION = "zq-second-instruction: now heat it."
# Strings of the tasks' ground truth (state names, the later instruction) and keys that carry it.
VGE_SECRETS = ("zq-", "l_opt", "lambda", "start_state", "goal_c_opt", "state_after")
# Budgets follow from lambda and the optimal cost; a player sees them while playing, pages of a hidden split do not.
VGE_PAGE_SECRETS = (*VGE_SECRETS, "global_left", "local_left")


def hidden_device() -> dict:
    data = copy.deepcopy(TINY)
    data["id"] = DEVICE_ID
    data["initial_state"] = RENAMED.get(data["initial_state"], data["initial_state"])
    data["states"] = {
        RENAMED.get(name, name): {
            **state,
            "on": {trigger: [{**t, "next_state": RENAMED.get(t["next_state"], t["next_state"])} for t in transitions]
                   for trigger, transitions in state["on"].items()},
        }
        for name, state in data["states"].items()
    }
    return data


def hidden_tasks() -> list[Task]:
    return [
        Task("hid/t1", DEVICE_ID, "zq-start-off", "front", ("zq-goal-idle",), ("Get it ready.",), 5),
        Task("hid/t2", DEVICE_ID, "zq-start-off", "front", ("zq-goal-idle", "zq-goal-heating"),
             ("Get it ready.", SECOND_INSTRUCTION), 7),
    ]


@pytest.fixture
def vge_hidden() -> Split:
    device_upsert(data=hidden_device(), source="test")
    split = split_ensure(name="hidden", public=False)
    assert split.hidden_ground_truth
    tasks_into_split(tasks=hidden_tasks(), split=split)
    return split


def upload(user, split: Split, body: bytes, *, name: str = "Agent-H", options=None) -> Submission:
    entry, _ = ModelEntry.objects.get_or_create(name=name, defaults={"slug": name.lower(), "kind": "embodied"})
    submission = scoring_services.submission_create(
        user=user, split=split, model_entry=entry, options=options or {},
        uploaded_file=SimpleUploadedFile("upload.jsonl", body, content_type="application/jsonl"),
    )
    assert pipeline.submission_score(submission_id=submission.pk, worker="test") == "scored"
    submission.refresh_from_db()
    return submission


def one_line_log(user, split: Split) -> Submission:
    """One episode, for the first task only: the second task is never submitted."""
    return upload(user, split, (json.dumps({"task": "hid/t1", "outputs": [OPEN_DASH, PRESS_POWER]}) + "\n").encode())


def frames_json(html: str) -> str:
    marker = '<script id="frames" type="application/json">'
    start = html.index(marker) + len(marker)
    return html[start:html.index("</script>", start)]


def leaks(text: str, secrets=VGE_SECRETS) -> list[str]:
    return [s for s in secrets if s in text]


def test_vge_drilldown_shows_the_submitters_own_episode_but_no_task_of_a_hidden_split(client, user, vge_hidden):
    submission = one_line_log(user, vge_hidden)
    client.force_login(user)
    html = client.get(f"/submissions/{submission.pk}/samples/").content.decode()
    assert leaks(html, VGE_PAGE_SECRETS) == []
    # what the submitter sent and its scores are shown
    assert "Thinking: the panel." in html and "Switch_view" in html and "SR" in html
    # the task never submitted is listed by key and outcome only
    assert "hid/t2" in html and "missing" in html


def test_vge_curator_still_sees_the_tasks_of_a_hidden_split(client, user, curator, vge_hidden):
    submission = one_line_log(user, vge_hidden)
    client.force_login(curator)
    html = client.get(f"/submissions/{submission.pk}/samples/").content.decode()
    assert "zq-goal-idle" in html and "l_opt" in html and "zq-start-off" in html


def test_vge_replay_of_a_hidden_split_names_no_state_goal_or_budget(client, user, vge_hidden):
    submission = one_line_log(user, vge_hidden)
    client.force_login(user)
    for index in (0, 1):  # the submitted episode, and the task never submitted
        response = client.get(f"/simulator/replay/submission/{submission.pk}/{index}/")
        assert response.status_code == 200
        html = response.content.decode()
        assert leaks(html, VGE_PAGE_SECRETS) == [], index
        assert SECOND_INSTRUCTION not in html
    frames = json.loads(frames_json(client.get(f"/simulator/replay/submission/{submission.pk}/0/").content.decode()))
    assert len(frames) == 3 and "Thinking: the panel." in frames[1]["step"]["raw_output"]
    image = client.get(f"/simulator/replay/submission/{submission.pk}/0/view/0.png")
    assert image.status_code == 200 and image["Content-Type"] == "image/png"


def test_vge_agent_episode_on_a_hidden_task_names_no_state_goal_or_l_opt(client, token_client, user, vge_hidden):
    episode = token_client.post("/api/vge/episodes/", {"task": "hid/t1"}, format="json").json()["episode"]
    for output in (OPEN_DASH, PRESS_POWER):
        assert token_client.post(f"/api/vge/episodes/{episode}/act/", {"output": output}, format="json").status_code == 200
    detail = token_client.get(f"/api/vge/episodes/{episode}/")
    assert detail.status_code == 200 and detail.json()["finished"]
    assert leaks(detail.content.decode()) == []
    client.force_login(user)
    replay = client.get(f"/simulator/replay/episode/{episode}/")
    assert replay.status_code == 200 and leaks(replay.content.decode(), VGE_PAGE_SECRETS) == []


def test_vge_submission_api_names_no_task_of_a_hidden_split(token_client, user, vge_hidden):
    submission = one_line_log(user, vge_hidden)
    response = token_client.get(f"/api/submissions/{submission.pk}/")
    assert response.status_code == 200 and leaks(response.content.decode()) == []


def test_vge_task_list_shows_no_difficulty_for_a_task_of_a_hidden_split(client, user, curator, vge_hidden):
    """The simulator's task list gives each task's goals and fewest turns (l_opt): for a hidden split's tasks those
    are ground truth, shown to curators only; a public task keeps its figures."""
    device_upsert(data={**hidden_device(), "id": "opentiny"}, source="test")
    public = split_ensure(name="open-t", public=True)
    tasks_into_split(tasks=[Task("open/t1", "opentiny", "zq-start-off", "front", ("zq-goal-idle",),
                                 ("Get it ready.",), 5)], split=public)
    for who in (None, user):
        if who is not None:
            client.force_login(who)
        html = client.get("/simulator/").content.decode()
        cards = re.findall(r'<li class="sim-task-card">(.*?)</li>', html, re.S)
        hidden_cards = [c for c in cards if "hid/t" in c]
        open_cards = [c for c in cards if "open/t1" in c]
        assert len(hidden_cards) == 2 and len(open_cards) == 1
        assert all("turns at best" not in c and "goal" not in c for c in hidden_cards), hidden_cards
        assert all("hidden" in c for c in hidden_cards)
        assert "turns at best" in open_cards[0]
    client.force_login(curator)
    html = client.get("/simulator/").content.decode()
    cards = [c for c in re.findall(r'<li class="sim-task-card">(.*?)</li>', html, re.S) if "hid/t" in c]
    assert cards and all("turns at best" in c for c in cards)


def test_vge_error_texts_do_not_quote_the_tasks_of_the_split(tmp_path):
    device = hidden_device()
    broken = {"id": "hid/bad", "device": DEVICE_ID, "start_state": "zq-unknown-start", "start_view": "front",
              "goals": ["zq-goal-idle"], "instructions": ["Get it ready."], "lambda": 5}
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"task": "hid/bad", "outputs": []}) + "\n")
    score = plugin_for("vge-bench").score_function()
    samples = [SampleRecord(key="hid/bad", position=0, ground_truth={"task": broken, "device": DEVICE_ID})]
    with pytest.raises(Exception) as info:  # a broken split is the site's error, reported as its text
        score(ScorerInput(file_path=path, samples=samples, options={}), device_loader=lambda ids: {DEVICE_ID: device})
    assert not isinstance(info.value, SubmissionRejected)
    assert leaks(f"{type(info.value).__name__}: {info.value}") == []
    # the file's own problems name the file's lines and values, never the split's tasks
    good = [SampleRecord(key=t.id, position=i, ground_truth={"task": t.as_dict(), "device": DEVICE_ID})
            for i, t in enumerate(hidden_tasks())]
    path.write_text(json.dumps({"task": "hid/t9", "outputs": []}) + "\n" + json.dumps({"task": "hid/t1"}) + "\n")
    with pytest.raises(SubmissionRejected) as rejected:
        score(ScorerInput(file_path=path, samples=good, options={}), device_loader=lambda ids: {DEVICE_ID: device})
    texts = [str(rejected.value)] + [p.message for p in rejected.value.problems]
    assert rejected.value.problems and leaks(" ".join(texts)) == []


# -- EPIC ------------------------------------------------------------------------------------------------------
EPIC_GT_KEYS = ("gt_count", "gt_empty", "gt_shape", "gt_problem", "start_goal_distance", "max_segment", "weight_",
                "&quot;exact&quot;")


@pytest.fixture
def epic_hidden(tmp_path) -> tuple[Split, list]:
    samples = epic_demo.make_split(17, per_leaf=1)
    epic_demo.write_layout(tmp_path, samples)
    split, report = epic_split_import(path=tmp_path, split_name="hidden-t", hidden=True)
    assert report.problems == [] and split.hidden_ground_truth
    return split, samples


def all_pages(client, url: str) -> str:
    first = client.get(url)
    assert first.status_code == 200
    pages = [first.content.decode()]
    for number in range(2, first.context["page"].paginator.num_pages + 1):
        pages.append(client.get(f"{url}?page={number}").content.decode())
    return "\n".join(pages)


def rle_counts(value) -> list[str]:
    if isinstance(value, dict):
        return ([value["counts"]] if isinstance(value.get("counts"), str) else []) + [
            c for v in value.values() for c in rle_counts(v)]
    if isinstance(value, list):
        return [c for v in value for c in rle_counts(v)]
    return []


def test_epic_drilldown_of_a_hidden_split_shows_no_ground_truth(client, user, curator, epic_hidden):
    split, samples = epic_hidden
    rng = np.random.default_rng(0)
    lines = [epic_demo.raw_line(s, epic_demo.noisy_response(s, rng), prefix="/anywhere/") for s in samples][:-3]
    submission = upload(user, split, "\n".join(json.dumps(x) for x in lines).encode(), name="Model-E",
                        options={"raw": True})
    url = f"/submissions/{submission.pk}/samples/"
    client.force_login(curator)
    assert "start_goal_distance" in all_pages(client, url)  # the scorer stored ground-truth geometry
    client.force_login(user)
    html = all_pages(client, url)
    assert leaks(html, EPIC_GT_KEYS) == []
    secret_masks = [c for s in Sample.objects.filter(split=split) for c in rle_counts(s.ground_truth) if len(c) > 12]
    assert secret_masks and not any(c in html for c in secret_masks)
    assert "boxes_px" in html or "points_px" in html  # the submitter's own shapes stay
    overlay = client.get(f"{url}0/overlay.png")
    assert overlay.status_code == 200 and overlay["Content-Type"] == "image/png"


# -- PLAN ------------------------------------------------------------------------------------------------------
def echoing_judge(number: int, request: dict) -> Reply:
    """A judge whose reply quotes what it was shown (the ground truth, for open items), as real judges may."""
    user = next((m.get("content", "") for m in request.get("messages", []) if m.get("role") == "user"), "")
    truth = re.search(r"^Ground-truth answer: (.*)$", user, re.M)
    return Reply(content=f"JUDGE-SAW {truth.group(1) if truth else 'the options'}\n{default_policy(request)}")


def test_plan_drilldown_of_a_hidden_split_shows_no_answer_or_judge_reply(client, user, curator, settings):
    benchmark = Benchmark.objects.get(slug="plan-bench")
    split = Split.objects.create(benchmark=benchmark, name="hidden-plan", hidden_ground_truth=True)
    demo = demo_items()
    images = {name: png for d in demo for name, png in d.images.items()}
    plan_items_import(split=split, items=[d.item for d in demo], read_image=images.get)
    predictions = [{"id": p.id, "prediction": p.text} for p in random_predictions([d.item for d in demo])][:-3]
    with LocalJudgeServer(script=echoing_judge) as server:
        settings.JUDGE_BASE_URL, settings.JUDGE_MODEL = server.base_url, "echo-judge"
        submission = upload(user, split, "".join(json.dumps(p) + "\n" for p in predictions).encode(), name="Model-P")
    url = f"/submissions/{submission.pk}/samples/"
    client.force_login(curator)
    assert "JUDGE-SAW" in all_pages(client, url)  # the judge did quote what it saw
    client.force_login(user)
    html = all_pages(client, url)
    fingerprints = [s.details.get("fingerprint") for s in SampleScore.objects.filter(submission=submission)]
    assert all(fingerprints) and not any(f in html for f in fingerprints)
    assert leaks(html, ("JUDGE-SAW", "raw_judge_output", "judgement_key", "answer_hint")) == []
    assert "Also accept" not in html and "In any order" not in html  # the answer hints


def test_epic_strict_figures_of_a_hidden_split_tell_nothing_the_headline_does_not(client, user, epic_hidden):
    """Issue 28: "score uploads the toolkit's way by default ... keep the stricter reading as a labelled second figure
    (or column set) that a reader can switch to". On a split with hidden ground truth the strict figures are shown
    only where they tell nothing its headline does not: an unparseable answer to a GroundDetection sample with an
    empty GT (the toolkit's 1.0, strict 0: the headline gave the emptiness away already) is shown; the same to a
    TargetLocalization sample with an empty GT and the right count (the toolkit's 1.0; strict, the count's weight,
    which follows from GT flags the headline does not give away) is withheld. Per-sample strict figures reach no
    non-curator's page of a hidden split."""
    split, samples = epic_hidden
    by_leaf = {s.leaf.name: s for s in samples}
    gd, category = by_leaf["GroundDetection"], by_leaf["Category"]
    assert category.truth["count"] == 0 and not category.truth["boxes"]  # an empty GT
    ground = Sample.objects.get(split=split, key=gd.key)
    ground.ground_truth["mask_annotation"]["masklet_ground"] = []
    ground.save(update_fields=["ground_truth"])

    def line(sample, count):
        nr = ["Not Required"]
        return json.dumps({"key": sample.key, "formatted_response_localization": "I cannot tell.",
                           "formatted_response_count": count, "formatted_response_path": nr,
                           "formatted_response_binary": nr}).encode()

    shown = upload(user, split, line(gd, ["Not Required"]), name="Model-G")
    withheld = upload(user, split, line(category, [0]), name="Model-C")
    assert shown.score.readings["strict"]["tells_more"] is False
    assert withheld.score.readings["strict"]["tells_more"] is True
    assert SampleScore.objects.filter(submission=withheld).exclude(readings={}).count() == 1

    board = client.get(f"/api/leaderboards/epic-bench/?split={split.name}&reading=strict").json()
    rows = {r["model"]["name"]: r for r in board["rows"]}
    assert rows["Model-G"]["values"]["overall"] == 0 and rows["Model-G"]["rank"] == 1
    assert rows["Model-C"]["values"]["overall"] is None and rows["Model-C"]["rank"] is None
    assert rows["Model-C"]["values"]["BA"] is None and "withheld" in rows["Model-C"]["reading_note"]
    exported = client.get(f"/leaderboard/epic-bench/export.json?split={split.name}&reading=strict").json()
    assert [r["overall"] for r in exported["rows"] if r["model"] == "Model-C"] == [None]
    headline = client.get(f"/api/leaderboards/epic-bench/?split={split.name}").json()
    assert all(r["values"]["overall"] > 0 for r in headline["rows"])  # the toolkit's 1.0 for both

    client.force_login(user)
    for submission in (shown, withheld):
        html = all_pages(client, f"/submissions/{submission.pk}/samples/")
        exported_samples = client.get(f"/submissions/{submission.pk}/samples.jsonl")
        text = html + b"".join(exported_samples.streaming_content).decode()
        assert leaks(text, EPIC_GT_KEYS) == []
        assert "readings" not in text and "tells_more" not in text
