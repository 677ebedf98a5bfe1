"""Per-sample drill-down: filters, pagination, overlays, and who may see a hidden split's ground truth."""
import cv2
import numpy as np
import pytest
from django.contrib.auth.models import Group
from pycocotools import mask as mask_utils

from leaderboard import selectors
from scoring.models import Sample, Split
from tests.leaderboard.conftest import benchmark, make_entry, make_scored


def _rle(mask):
    enc = mask_utils.encode(np.asfortranarray(mask.astype(np.uint8)))
    return {"size": list(enc["size"]), "counts": enc["counts"].decode("ascii")}


@pytest.fixture
def hidden_submission(epic_split, user):
    mask = np.zeros((60, 80), bool)
    mask[10:30, 10:40] = True
    Sample.objects.filter(split=epic_split, key="e000").update(ground_truth={"masklet_path": [_rle(mask)],
                                                                             "answer": "SECRET-GT"})
    details = [{"boxes_px": [[50, 40, 70, 55]], "gt_answer": "SECRET-GT"}] + [{}] * 39
    return make_scored(epic_split, make_entry("M"), [1.0] * 20 + [0.0] * 20, submitter=user, details=details)


@pytest.mark.django_db
def test_samples_filter_by_task_and_outcome_and_paginate(client, user, hidden_submission):
    client.force_login(user)
    url = f"/submissions/{hidden_submission.pk}/samples/"
    page = client.get(url)
    assert page.status_code == 200
    assert page.context["page"].paginator.count == 40 and len(page.context["items"]) == 25
    assert len(client.get(url + "?page=2").context["items"]) == 15
    low = client.get(url + "?outcome=low_iou").context["page"].paginator.count
    assert low == 20
    ego = client.get(url + "?task=Navigation/FeasiblePath/FeasiblePath_Ego").context["page"].paginator.count
    assert ego == 20
    assert client.get(url + "?outcome=bogus").status_code == 400
    assert client.get(url + "?page=abc").status_code == 400


@pytest.mark.django_db
def test_hidden_split_drilldown_is_for_submitter_and_curators_only(client, other_user, hidden_submission):
    url = f"/submissions/{hidden_submission.pk}/samples/"
    assert client.get(url).status_code == 404
    client.force_login(other_user)
    assert client.get(url).status_code == 404
    assert client.get(url + "0/overlay.png").status_code == 404


@pytest.mark.django_db
def test_submitter_sees_no_ground_truth_of_a_hidden_split_but_a_curator_does(client, user, other_user,
                                                                              hidden_submission):
    client.force_login(user)
    url = f"/submissions/{hidden_submission.pk}/samples/"
    assert "SECRET-GT" not in client.get(url).content.decode()
    own = client.get(url + "0/overlay.png")
    img = cv2.imdecode(np.frombuffer(own.content, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[:2] == (60, 80)
    px = img[20, 20].astype(int)
    assert not (px[1] > px[0] + 30), "no GT mask drawn for a non-curator"
    assert img[40, 60][2] > 150 or img[40, 50][2] > 150  # the predicted box is drawn (red)

    Group.objects.get_or_create(name="curator")[0].user_set.add(other_user)
    client.force_login(other_user)
    assert "SECRET-GT" in client.get(url).content.decode()
    curated = cv2.imdecode(np.frombuffer(client.get(url + "0/overlay.png").content, np.uint8), cv2.IMREAD_COLOR)
    px = curated[20, 20].astype(int)
    assert px[1] > px[0] + 30 and px[1] > px[2] + 30, "the GT mask is tinted green for a curator"


@pytest.mark.django_db
def test_public_split_drilldown_is_public(client, epic_dev):
    sub = make_scored(epic_dev, make_entry("Open"), [1.0, 0.0] * 5)
    assert client.get(f"/submissions/{sub.pk}/samples/").status_code == 200


@pytest.mark.django_db
def test_plan_and_vge_drilldowns_show_answers_and_replay_links(client):
    plan = benchmark("plan-bench")
    split = Split.objects.create(benchmark=plan, name="demo", hidden_ground_truth=False)
    Sample.objects.create(split=split, key="q1", position=0, task="OO",
                          inputs={"question": "Which is <b>front</b>?", "options": {"A": "cup", "B": "box"}})
    sub = make_scored(split, make_entry("P"), [1.0], details=[
        {"output": "I think A", "extracted": "A", "verdict": "correct", "decided_by": "rules",
         "reasoning_stripped": "<think>…</think> removed"}])
    html = client.get(f"/submissions/{sub.pk}/samples/").content.decode()
    assert "the answer part: &lt;think&gt;…&lt;/think&gt; removed" in html
    assert "Which is &lt;b&gt;front&lt;/b&gt;?" in html and "I think A" in html and "rules" in html
    assert "<strong>Question:</strong> Which is" in html and '<span class="opt">A. cup</span>' in html
    vge = benchmark("vge-bench")
    vsplit = Split.objects.create(benchmark=vge, name="demo", hidden_ground_truth=False)
    Sample.objects.create(split=vsplit, key="ep1", position=0, inputs={"instruction": "Start the oven"})
    vsub = make_scored(vsplit, make_entry("V"), [1.0])
    vhtml = client.get(f"/submissions/{vsub.pk}/samples/").content.decode()
    assert f"/simulator/replay/submission/{vsub.pk}/0/" in vhtml
    assert "<strong>Instruction:</strong> Start the oven" in vhtml


@pytest.mark.django_db
def test_overlay_draws_on_the_sample_image_named_by_its_media_url(client, settings, epic_dev):
    from pathlib import Path

    image = np.zeros((40, 60, 3), np.uint8)
    image[:] = (200, 30, 30)  # BGR: blue-ish background we can recognise
    folder = Path(settings.MEDIA_ROOT) / "public" / "epic"
    folder.mkdir(parents=True)
    cv2.imwrite(str(folder / "s.png"), image)
    secret = Path(settings.MEDIA_ROOT) / "private" / "s.png"
    secret.parent.mkdir(parents=True)
    cv2.imwrite(str(secret), np.full((40, 60, 3), 255, np.uint8))
    Sample.objects.filter(split=epic_dev, key="d000").update(inputs={"images": [{"url": "/media/public/epic/s.png"}]})
    Sample.objects.filter(split=epic_dev, key="d001").update(inputs={"images": [{"name": "private/s.png"}]})
    sub = make_scored(epic_dev, make_entry("Img"), [1.0] * 10)
    drawn = cv2.imdecode(np.frombuffer(client.get(f"/submissions/{sub.pk}/samples/0/overlay.png").content, np.uint8),
                         cv2.IMREAD_COLOR)
    assert drawn.shape[:2] == (40, 60) and tuple(drawn[5, 5]) == (200, 30, 30)
    other = cv2.imdecode(np.frombuffer(client.get(f"/submissions/{sub.pk}/samples/1/overlay.png").content, np.uint8),
                         cv2.IMREAD_COLOR)
    assert tuple(other[5, 5]) != (255, 255, 255), "files under MEDIA_ROOT/private are not read for the public"


@pytest.mark.django_db
def test_filters_list_each_value_once_with_plain_labels(client, user, hidden_submission):
    client.force_login(user)
    page = client.get(f"/submissions/{hidden_submission.pk}/samples/")
    tasks = page.context["tasks"]
    outcomes = page.context["outcomes"]
    # 40 samples over two tasks, 20 "ok" and 20 "low_iou": each value once, with the board's labels.
    assert tasks == [("Navigation/FeasiblePath/FeasiblePath_Ego", "FP · FP-Ego"),
                     ("Navigation/FeasiblePath/FeasiblePath_Exo", "FP · FP-Exo")]
    assert outcomes == [("low_iou", "low IoU"), ("ok", "ok")]
    html = page.content.decode()
    assert html.count('<option value="ok"') == 1 and ">low IoU</option>" in html


@pytest.mark.django_db
def test_sample_shows_plain_component_names_values_a_legend_and_its_prompt(client, user, hidden_submission):
    from scoring.models import SampleScore

    Sample.objects.filter(split=hidden_submission.split, key="e000").update(
        inputs={"images": [], "prompt": ["Target Area Description: the rug by the door."]})
    SampleScore.objects.filter(submission=hidden_submission, index=0).update(components={
        "localization_score": 0.5, "path_score": None, "binary_score": False, "weight_binary": 1.0})
    client.force_login(user)
    html = client.get(f"/submissions/{hidden_submission.pk}/samples/").content.decode()
    first = html.split('<article class="sample card">')[1]
    assert "Target Area Description: the rug by the door." in first
    assert "<dt>Localization score</dt><dd>0.5</dd>" in first
    assert "eight" not in first  # the weights are not on a hidden split's allow-list: not shown to its owner
    components = first.split('class="facts components">')[1].split("</dl>")[0]
    assert "None" not in components and "False" not in components
    assert "<dd>–</dd>" in components and "<dd>no</dd>" in components
    legend = html.split('id="overlay-legend">')[1].split("</p>")[0]
    assert "predicted boxes" in legend and "#dc2828" in legend  # the red the boxes are drawn in
    assert "</span>ground-truth mask</span>" not in legend and "curators only" in legend  # a hidden split, seen by its owner
    assert "SECRET-GT" not in html


@pytest.mark.django_db
def test_public_split_sample_names_weights_plainly(client, epic_dev):
    sub = make_scored(epic_dev, make_entry("Open"), [1.0] * 10)
    from scoring.models import SampleScore

    SampleScore.objects.filter(submission=sub, index=0).update(components={"weight_binary": 1.0, "iou": 0.25})
    first = client.get(f"/submissions/{sub.pk}/samples/").content.decode().split('<article class="sample card">')[1]
    assert "<dt>Weight of the binary part</dt><dd>1</dd>" in first and "<dt>IoU</dt><dd>0.25</dd>" in first
    assert "weight_binary" not in first
    legend = client.get(f"/submissions/{sub.pk}/samples/").content.decode().split('id="overlay-legend">')[1]
    assert "</span>ground-truth mask</span>" in legend.split("</p>")[0]  # a public split: the mask is drawn for everyone


@pytest.mark.django_db
def test_facets_count_what_each_filtered_list_shows(epic_split):
    # Given rows over two tasks (one row with no task) and three outcomes
    tasks = ["A", "B", "A", "", "B", "A"]
    outcomes = ["ok", "ok", "low_iou", "ok", "invalid", "invalid"]
    sub = make_scored(epic_split, make_entry("F"), [1.0, 0.9, 0.1, 1.0, 0.0, 0.0], tasks=tasks, outcomes=outcomes)
    # When the facets are read (one grouped query)
    facets = selectors.sample_facets(submission=sub)
    # Then the choices leave out the empty task, and every filter's count is the length of the list it filters
    assert facets.tasks == ["A", "B"] and facets.outcomes == ["invalid", "low_iou", "ok"]
    for task in ["", "A", "B"]:
        for outcome in ["", "ok", "low_iou", "invalid"]:
            listed = selectors.sample_scores(submission=sub, task=task, outcome=outcome).count()
            assert facets.count(task=task, outcome=outcome) == listed
