"""Review pages and the blind second-opinion API through the Django test client (roles, refusals, rendering)."""
import json
import re

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from annotation.models import AuditEvent, Item, Review, SecondOpinion
from annotation.review import services as rs
from scoring.models import Sample
from tests.annotation.conftest import box_rle

pytestmark = pytest.mark.django_db


def _user(django_user_model, name, group):
    user = django_user_model.objects.create_user(name, password=f"pw-{name}-123")
    user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user


def _client(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def rob(django_user_model):
    return _user(django_user_model, "rob", "reviewer")


@pytest.fixture
def rita(django_user_model):
    return _user(django_user_model, "rita", "reviewer")


def test_reviewer_sees_queue_and_pinned_version_and_records_a_revise_with_markers(submitted, rob, annotator):
    client = _client(rob)
    page = client.get("/annotation/review/")
    assert f'href="/annotation/review/items/{submitted.pk}/"' in page.content.decode()
    page = client.get(f"/annotation/review/items/{submitted.pk}/")
    html = page.content.decode()
    assert page.status_code == 200 and "round <strong id=\"round\">1</strong> of 2" in html
    assert "the red disc" in html and "First submission" in html and 'id="review-form"' in html
    response = client.post(f"/annotation/review/items/{submitted.pk}/", {
        "version": submitted.version, "round": 1, "verdict": "revise", "reasons": ["mask_quality"],
        "comment": "the left edge is missing", "markers": json.dumps([{"image": 0, "x": 98, "y": 150, "note": "edge"}]),
    })
    assert response.status_code == 302
    item = Item.objects.get(pk=submitted.pk)
    assert item.state == "needs_revision"
    # The annotator's editor shows the comment, the marker note and a picture of the marker.
    editor = _client(annotator).get(f"/annotation/items/{item.pk}/").content.decode()
    assert 'id="review-comments"' in editor and "the left edge is missing" in editor and "edge" in editor
    assert "<circle" in editor


def test_review_page_refuses_a_bad_form_and_the_annotator(submitted, rob, annotator):
    response = _client(rob).post(f"/annotation/review/items/{submitted.pk}/", {
        "version": submitted.version, "round": 1, "verdict": "reject", "comment": "no"})
    assert response.status_code == 400
    assert "reasons: a reject verdict needs at least one reason" in response.content.decode()
    assert not Review.objects.exists()
    assert _client(annotator).get(f"/annotation/review/items/{submitted.pk}/").status_code == 404
    annotator.groups.add(Group.objects.get(name="reviewer"))
    page = _client(annotator).get(f"/annotation/review/items/{submitted.pk}/").content.decode()
    assert "an annotator never reviews their own item" in page and 'id="review-form"' not in page
    response = _client(annotator).post(f"/annotation/review/items/{submitted.pk}/", {
        "version": submitted.version, "round": 1, "verdict": "accept"})
    assert response.status_code == 403 and not Review.objects.exists()


def test_dashboard_is_for_curators_and_publishes_with_history_links(submitted, rob, rita, curator, annotator):
    for reviewer in (rob, rita):
        item = Item.objects.get(pk=submitted.pk)
        rs.review_open(user=reviewer, item=item)
        rs.review_submit(user=reviewer, item_id=item.pk, version=item.version,
                         round=rs.item_progress(item).current_round, verdict="accept")
    slug = submitted.project.slug
    assert _client(rob).get(f"/annotation/review/projects/{slug}/").status_code == 404
    client = _client(curator)
    page = client.get(f"/annotation/review/projects/{slug}/").content.decode()
    assert "<th scope=\"row\">accepted</th><td class=\"num\">1</td>" in page
    assert "<td>rob</td><td class=\"num\">1</td>" in page
    # A verdict a moment after opening: its time shows as such and gives no "reviews per hour" (it said ~800).
    rob_row = re.search(r'<tr><td>rob</td>.*?</tr>', page).group(0)
    assert re.search(r'<td class="num">\d+ s</td><td class="num">–</td></tr>$', rob_row), rob_row
    response = client.post(f"/annotation/review/projects/{slug}/",
                           {"action": "publish", "items": [submitted.pk], "split": "annotated"})
    assert response.status_code == 302
    sample = Sample.objects.get(split__name="annotated")
    assert sample.inputs["annotation_item"]["history"] == f"/annotation/review/items/{submitted.pk}/history/"
    again = client.post(f"/annotation/review/projects/{slug}/",
                        {"action": "publish", "items": [submitted.pk], "split": "annotated"})
    assert again.status_code == 409 and "is published already" in again.content.decode()
    history = client.get(sample.inputs["annotation_item"]["history"]).content.decode()
    assert "epic-bench/annotated" in history and "review_pass" in history and "publish" in history
    assert _client(annotator).get(sample.inputs["annotation_item"]["history"]).status_code == 200
    listing = client.get(f"/annotation/review/splits/{sample.split_id}/").content.decode()
    assert sample.key in listing and f'href="/annotation/review/items/{submitted.pk}/history/"' in listing
    assert _client(annotator).get(f"/annotation/review/splits/{sample.split_id}/").status_code == 404
    assert list(AuditEvent.objects.filter(item=submitted).values_list("action", flat=True).order_by("pk")) == [
        "save", "submit", "review_pass", "accept", "publish"]


def test_blind_second_opinion_editor_and_api(submitted, curator, django_user_model):
    ben = _user(django_user_model, "ben", "annotator")
    [opinion] = rs.second_opinions_request(user=curator, project=submitted.project, share=1, seed=3, annotators=[ben])
    client = _client(ben)
    page = client.get(f"/annotation/second/{opinion.pk}/").content.decode()
    assert 'id="blind-description"' in page and "the red disc" in page
    config = json.loads(page.split('<script id="editor-config" type="application/json">')[1].split("</script>")[0])
    assert config["item"]["instances"] == {} and config["leaf"]["text_fields"] == []  # nothing of the first annotation
    assert client.get(f"/api/annotation/images/{config['item']['images'][0]['id']}/file/").status_code == 200
    body = {"version": 1, "count": 1, "instances": {"masklet_target": [box_rle(100, 200, 102, 200)]}}
    saved = client.put(f"/api/annotation/second/{opinion.pk}/", json.dumps(body), content_type="application/json")
    assert saved.status_code == 200 and saved.json()["version"] == 2
    stale = client.put(f"/api/annotation/second/{opinion.pk}/", json.dumps(body), content_type="application/json")
    assert stale.status_code == 409 and "changed since you loaded it" in stale.json()["detail"]
    done = client.post(f"/api/annotation/second/{opinion.pk}/submit/", json.dumps({"version": 2}),
                       content_type="application/json")
    assert done.status_code == 200 and done.json()["state"] == "submitted"
    opinion.refresh_from_db()
    assert opinion.status == SecondOpinion.Status.DONE and not opinion.low_agreement and opinion.count_equal
    assert opinion.mean_iou == pytest.approx(98 / 100)
    assert _client(curator).get(f"/annotation/second/{opinion.pk}/").status_code == 404  # only the assignee


def test_board_and_submission_pages_say_which_split_version_a_score_used(curator, user):
    from scoring.models import Benchmark, ModelEntry, Split, Submission

    epic, _ = Benchmark.objects.get_or_create(slug="epic-bench",
                                              defaults={"name": "EPIC-Bench", "scorer": "epic-bench"})
    v1 = Split.objects.create(benchmark=epic, name="annotated", version=1, hidden_ground_truth=False)
    Split.objects.create(benchmark=epic, name="annotated", version=2, hidden_ground_truth=False)
    submission = Submission.objects.create(model_entry=ModelEntry.objects.create(name="m", slug="m"), split=v1,
                                           submitter=user)
    client = Client()
    client.force_login(user)
    assert "epic-bench/annotated (version 1)" in client.get(f"/submissions/{submission.pk}/").content.decode()
    board = Client().get("/leaderboard/epic-bench/?split=annotated").content.decode()
    assert "version 2; each earlier version keeps the scores computed on its own samples" in board


def test_a_reopened_item_shows_the_curators_reason_in_the_editor(submitted, rob, rita, curator, annotator):
    for reviewer in (rob, rita):
        item = Item.objects.get(pk=submitted.pk)
        rs.review_open(user=reviewer, item=item)
        rs.review_submit(user=reviewer, item_id=item.pk, version=item.version,
                         round=rs.item_progress(item).current_round, verdict="accept")
    rs.item_reopen(user=curator, item_id=submitted.pk, reason="the disc is cut at the top")
    editor = _client(annotator).get(f"/annotation/items/{submitted.pk}/").content.decode()
    assert 'id="reopen-note"' in editor and "the disc is cut at the top" in editor
    assert 'id="review-comments"' not in editor  # the accepted rounds of the old cycle are not shown as comments


def test_dashboard_forms_set_the_policy_reopen_and_refuse_bad_input(submitted, curator):
    client = _client(curator)
    url = f"/annotation/review/projects/{submitted.project.slug}/"
    assert client.post(url, {"action": "policy", "rounds_required": "3"}).status_code == 302
    assert rs.policy_for(submitted.project).rounds_required == 3
    bad = client.post(url, {"action": "policy", "rounds_required": "1"})
    assert bad.status_code == 400 and "rounds_required must be between 2 and 10, got 1" in bad.content.decode()
    refused = client.post(url, {"action": "reopen", "item": submitted.pk, "reason": "typo"})
    assert refused.status_code == 409 and "cannot reopen an item that is submitted" in refused.content.decode()
    publish = client.post(url, {"action": "publish", "items": [submitted.pk], "split": "annotated"})
    assert publish.status_code == 409 and "only accepted items are published" in publish.content.decode()
    assert client.post(url, {"action": "second_opinion", "share": "0.5", "seed": "1"}).status_code == 400


def test_annotators_have_a_menu_link_to_what_was_sent_back_to_them(submitted, rob, annotator):
    rs.review_open(user=rob, item=submitted)
    rs.review_submit(user=rob, item_id=submitted.pk, version=submitted.version, round=1, verdict="revise",
                     reasons=["mask_quality"], comment="the edge")
    home = _client(annotator).get("/annotation/").content.decode()
    assert 'id="nav-sent-back"' in home and 'href="/annotation/review/#my-revisions"' in home
    queue = _client(annotator).get("/annotation/review/").content.decode()
    assert f'href="/annotation/items/{submitted.pk}/"' in queue.split('id="my-revisions"')[1]
    assert 'id="nav-sent-back"' not in _client(rob).get("/annotation/review/").content.decode()
